// Exercise 20 demo: your mmul on the chosen device at the shape your mmul.cl is tuned for there
// (its `// tuned:` line for this device), else the untuned one, checked against the CPU, with
// kernel time, wall time and GFLOPS. `--n` sets the size; `workbook tune 20` tunes it.
#include "launch.hpp"

#include "workbook/kernels.hpp"
#include "workbook/matmul_run.hpp"

namespace {

// The choice for the device the demo runs on, read when the demo first builds.
workbook::tuning::Choice chosen(const cl::Device& device) {
    namespace ex20 = workbook::ex20;
    const auto all = ex20::candidates(device);
    std::string why;
    const auto tuned = workbook::tuning::student_choice(workbook::kernel_source("mmul.cl").text, workbook::tuning::device_key(device), all, &why);
    return tuned ? *tuned : ex20::default_choice(device);
}

workbook::matmul::Rung demo_rung() {
    workbook::matmul::Rung r = workbook::ex20::rung(workbook::ex20::choice(workbook::ex19::big_block, true));
    r.build_options = "-cl-fast-relaxed-math";
    r.size_options = [](const cl::Device& device, int) {
        const auto c = chosen(device);
        return c.options();
    };
    r.launch = [](const cl::Device& device, const cl::Kernel& kernel, int n) {
        return workbook::ex20::rung(chosen(device)).launch(device, kernel, n);
    };
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    return workbook::matmul::run_kernel_demo(argc, argv, "Exercise 20 (SGEMM 6): your kernel at its tuned shape", demo_rung());
}
