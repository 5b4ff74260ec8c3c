// Exercise 12 demo: the scalar pi kernel (exercise 11's) against your pi_vec4 and pi_vec8 on the
// chosen device, with the same number of steps: pi, error, kernel time and speed-up.
#include "workbook/pi.hpp"
#include "workbook/program.hpp"
#include "workbook/run_main.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <cmath>

int main(int argc, char** argv) {
    workbook::App app("Exercise 12 (vectorised pi): scalar, float4 and float8 kernels side by side");
    std::uint64_t steps = std::uint64_t{1} << 28;
    app.option("--steps", steps, "number of integration steps (rounded up to fill each launch)", std::uint64_t{1},
               std::uint64_t{1} << 40);
    return app.run(argc, argv, [&](workbook::Run& run) {
        const cl::Program scalar = workbook::build_program(run.context, workbook::kernel_source("pi.cl"));
        const cl::Program vector = workbook::build_program(run.context, workbook::kernel_source("pi_vec.cl"));
        const std::vector<std::pair<std::string, cl::Kernel>> kernels{
            {"pi (scalar)", cl::Kernel(scalar, "pi")},
            {"pi_vec4", cl::Kernel(vector, "pi_vec4")},
            {"pi_vec8", cl::Kernel(vector, "pi_vec8")}};

        fmt::print("{:<12} {:>14} {:>11} {:>12} {:>9}  {}\n", "kernel", "pi", "error", "kernel time", "speed-up",
                   "launch");
        double scalar_seconds = 0;
        bool ok = true;
        for (auto [name, kernel] : kernels) {
            workbook::pi::run(run.context, run.queue, kernel, run.choice.device, steps);  // warm-up
            const auto r = workbook::pi::run(run.context, run.queue, kernel, run.choice.device, steps);
            if (scalar_seconds == 0) scalar_seconds = r.kernel_seconds;
            ok = ok && std::abs(r.pi - workbook::pi::true_pi) <= workbook::pi::error_bound(r);
            fmt::print("{:<12} {:>14.10f} {:>+11.2e} {:>12} {:>8.2f}x  {}\n", name, r.pi, r.pi - workbook::pi::true_pi,
                       workbook::format_duration(r.kernel_seconds), scalar_seconds / r.kernel_seconds,
                       r.launch.describe());
        }
        fmt::print("{}\n", ok ? "PASS all three are within their error estimates (see exercise 11's demo)"
                              : "FAIL a kernel is outside its error estimates");
        return ok ? workbook::exit_ok : workbook::exit_wrong_result;
    });
}
