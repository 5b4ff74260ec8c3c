// Matmul demos and timing (see matmul_run.hpp).
#include "workbook/matmul_run.hpp"

#include "workbook/errors.hpp"
#include "workbook/program.hpp"
#include "workbook/random.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace workbook::matmul {
namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

Problem::Problem(const Run& run, int n_, std::uint64_t seed) : n(n_) {
    const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    auto rng = Rng::derived(seed, "matmul", static_cast<std::uint64_t>(n));
    a = rng.uniform_vector(elements);
    b = rng.uniform_vector(elements);
    a_buffer = cl::Buffer(run.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, elements * sizeof(float), a.data());
    b_buffer = cl::Buffer(run.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, elements * sizeof(float), b.data());
    c_buffer = cl::Buffer(run.context, CL_MEM_READ_WRITE, elements * sizeof(float));
}

Timing time_launches(const cl::CommandQueue& queue, cl::Kernel& kernel, const Problem& p, const Launch& launch,
                     int repeats) {
    enqueue(queue, kernel, p.n, p.a_buffer, p.b_buffer, p.c_buffer, launch).wait();  // warm-up
    std::vector<double> kernel_times, wall_times;
    for (int r = 0; r < repeats; ++r) {
        Stopwatch wall;
        const cl::Event e = enqueue(queue, kernel, p.n, p.a_buffer, p.b_buffer, p.c_buffer, launch);
        queue.finish();
        wall_times.push_back(wall.seconds());
        kernel_times.push_back(event_times(e).run_seconds());
    }
    return summarize(kernel_times, wall_times);
}

Timing summarize(std::vector<double> kernel_seconds, std::vector<double> wall_seconds) {
    if (kernel_seconds.empty() || wall_seconds.empty()) throw Error("summarize: no timed runs");
    const auto [fastest, slowest] = std::minmax_element(kernel_seconds.begin(), kernel_seconds.end());
    return Timing{median(kernel_seconds), *fastest, *slowest, median(wall_seconds),
                  static_cast<int>(kernel_seconds.size())};
}

cl::Kernel build_rung(const cl::Context& context, const cl::Device& device, const Rung& rung, int n) {
    return cl::Kernel(build_program(context, kernel_source(rung.kernel_file), rung.options_for(device, n)), "mmul");
}

int run_kernel_demo(int argc, char** argv, const std::string& title, const Rung& rung) {
    App app(title);
    int n = 1024, repeats = 3;
    app.option("--n", n, "matrix order N (C = A·B, all N x N)", 1, 16384);
    app.option("--repeats", repeats, "timed launches after one warm-up", 1, 1000);
    return app.run(argc, argv, [&](Run& run) {
        rung.check_size(n);
        cl::Kernel kernel = build_rung(run.context, run.choice.device, rung, n);
        const Launch launch = rung.launch(run.choice.device, kernel, n);
        fmt::print("N = {}, {}\n", n, launch.describe());

        Problem p(run, n, run.seed);
        const Timing t = time_launches(run.queue, kernel, p, launch, repeats);
        std::vector<float> c(static_cast<std::size_t>(n) * n);
        run.queue.enqueueReadBuffer(p.c_buffer, CL_TRUE, 0, c.size() * sizeof(float), c.data());

        const auto result = compare(reference(n, p.a, p.b), c, tolerance(n), magnitude(n, p.a, p.b));
        fmt::print("kernel time {} (median of {}, range {} to {}), wall time {}\n", format_duration(t.kernel_median),
                   t.repeats, format_duration(t.kernel_min), format_duration(t.kernel_max),
                   format_duration(t.wall_median));
        fmt::print("{:.2f} GFLOPS ({:.0f} MFLOPS)\n", gflops(n, t.kernel_median), gflops(n, t.kernel_median) * 1e3);
        fmt::print("{} C = A·B: {}\n", result.ok() ? "PASS" : "FAIL", describe(n, result));
        return result.ok() ? exit_ok : exit_wrong_result;
    });
}

}  // namespace workbook::matmul
