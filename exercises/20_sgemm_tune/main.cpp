// Exercise 20 demo: your mmul on the chosen device at the shape your mmul.cl is tuned for there
// (its `// tuned:` line for this device nearest N), else the untuned one, checked against the CPU, with
// kernel time, wall time and GFLOPS. `--n` sets the size; `workbook tune 20` tunes it.
#include "launch.hpp"

#include "workbook/kernels.hpp"
#include "workbook/matmul_run.hpp"

namespace {

// The choice for the device the demo runs on and its N, read when the demo builds.
workbook::tuning::Choice chosen(const cl::Device& device, int n) {
    namespace ex20 = workbook::ex20;
    const auto all = ex20::candidates(device);
    std::string why;
    const auto tuned = workbook::tuning::student_choice(workbook::kernel_source("mmul.cl").text, workbook::tuning::device_key(device), all, &why, n);
    return tuned ? *tuned : ex20::default_choice(device);
}

}  // namespace

int main(int argc, char** argv) {
    return workbook::matmul::run_kernel_demo(argc, argv, "Exercise 20 (SGEMM 6): your kernel at its tuned shape", workbook::ex20::rung_choosing(chosen));
}
