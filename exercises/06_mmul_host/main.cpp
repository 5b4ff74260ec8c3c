// Exercise 06 demo: multiplies random matrices with your matmul_on_device(), checks C on the CPU
// and prints your timings and MFLOPS.
#include "mmul_host.hpp"

#include "workbook/matmul.hpp"
#include "workbook/run_main.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

int main(int argc, char** argv) {
    workbook::App app("Exercise 06 (matmul host program): C = A·B with your host code around the naive kernel");
    int n = 512;
    app.option("--n", n, "matrix order N", 1, 8192);
    return app.run(argc, argv, [&](workbook::Run& run) {
        auto rng = workbook::Rng::derived(run.seed, "demo");
        const std::size_t elements = static_cast<std::size_t>(n) * n;
        const auto a = rng.uniform_vector(elements), b = rng.uniform_vector(elements);
        std::vector<float> c(elements, workbook::poison_value());

        const auto t = workbook::ex06::matmul_on_device(run.choice.device, n, a.data(), b.data(), c.data());
        fmt::print("N = {}: kernel {} ({:.0f} MFLOPS), wall {} ({:.0f} MFLOPS)\n", n,
                   workbook::format_duration(t.kernel_seconds), workbook::ex06::mflops(n, t.kernel_seconds),
                   workbook::format_duration(t.wall_seconds), workbook::ex06::mflops(n, t.wall_seconds));
        const auto result = workbook::compare(workbook::matmul::reference(n, a, b), c, workbook::matmul::tolerance(n),
                                              workbook::matmul::magnitude(n, a, b));
        fmt::print("{} C = A·B: {}\n", result.ok() ? "PASS" : "FAIL", workbook::matmul::describe(n, result));
        return result.ok() ? workbook::exit_ok : workbook::exit_wrong_result;
    });
}
