// Exercise 02 demo: adds two random vectors with your vadd_on_device() and checks the sum
// against the CPU. Run it after each change; `--count` picks the length.
#include "vadd.hpp"

#include "workbook/check.hpp"
#include "workbook/reference.hpp"
#include "workbook/run_main.hpp"
#include "workbook/timing.hpp"

int main(int argc, char** argv) {
    workbook::App app("Exercise 02 (vector add): c = a + b on the chosen OpenCL device, checked on the CPU");
    std::size_t count = 1 << 20;
    app.option("--count", count, "number of elements", std::size_t{1}, std::size_t{1} << 28);
    return app.run(argc, argv, [&](workbook::Run& run) {
        auto rng = workbook::Rng::derived(run.seed, "demo");
        const auto a = rng.uniform_vector(count), b = rng.uniform_vector(count);
        std::vector<float> c(count, workbook::poison_value());

        workbook::Stopwatch clock;
        workbook::ex02::vadd_on_device(run.choice.device, a.data(), b.data(), c.data(), count);
        const double seconds = clock.seconds();

        const std::vector<std::span<const float>> terms{a, b};
        return workbook::report_result("c = a + b", count, seconds,
                                       workbook::compare(workbook::reference::elementwise_sum(terms), c,
                                                         workbook::reference::sum_tolerance(2),
                                                         workbook::reference::elementwise_magnitude(terms)));
    });
}
