// Exercise 11 demo: pi with your kernel on the chosen device: the launch the host chose from the
// kernel and the device, pi, its error and the error estimates, kernel and wall time.
#include "workbook/pi.hpp"
#include "workbook/program.hpp"
#include "workbook/run_main.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <cmath>

int main(int argc, char** argv) {
    workbook::App app("Exercise 11 (pi by reduction): integrates 4/(1+x^2) over [0, 1] on the chosen device");
    std::uint64_t steps = std::uint64_t{1} << 28;
    app.option("--steps", steps, "number of integration steps (rounded up to fill the launch)", std::uint64_t{1},
               std::uint64_t{1} << 40);
    return app.run(argc, argv, [&](workbook::Run& run) {
        const cl::Program program = workbook::build_program(run.context, workbook::kernel_source("pi.cl"));
        cl::Kernel kernel(program, "pi");
        const auto r = workbook::pi::run(run.context, run.queue, kernel, run.choice.device, steps);
        fmt::print("{} (work-group size: the most this kernel accepts on this device, at most 256)\n",
                   r.launch.describe());
        fmt::print("{}", workbook::pi::report(r));
        fmt::print("kernel time {}, wall time {}\n", workbook::format_duration(r.kernel_seconds),
                   workbook::format_duration(r.wall_seconds));
        // A correct kernel stays within the estimates; NaN or a value outside them means a bug.
        const bool ok = std::abs(r.pi - workbook::pi::true_pi) <= workbook::pi::error_bound(r);
        fmt::print("{} the error is {} the estimates' sum, {:.1e}\n", ok ? "PASS" : "FAIL", ok ? "within" : "outside",
                   workbook::pi::error_bound(r));
        return ok ? workbook::exit_ok : workbook::exit_wrong_result;
    });
}
