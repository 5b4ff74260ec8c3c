// Exercise 16 demo: your mmul on the chosen device, checked against the CPU, with kernel time,
// wall time and GFLOPS. `--n` sets the size.
#include "launch.hpp"

#include "workbook/matmul_run.hpp"

int main(int argc, char** argv) {
    return workbook::matmul::run_kernel_demo(argc, argv, "Exercise 16 (SGEMM 2): float4 loads and sums, 32 x 32 tiles",
                                             workbook::ex16::rung());
}
