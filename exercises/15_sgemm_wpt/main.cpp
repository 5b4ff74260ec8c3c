// Exercise 15 demo: your mmul on the chosen device, checked against the CPU, with kernel time,
// wall time and GFLOPS. `--n` sets the size.
#include "launch.hpp"

#include "workbook/matmul_run.hpp"

int main(int argc, char** argv) {
    return workbook::matmul::run_kernel_demo(argc, argv, "Exercise 15 (SGEMM 1): 8 elements of C per work-item, 32 x 32 tiles",
                                             workbook::ex15::rung());
}
