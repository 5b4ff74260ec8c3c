// Exercise 18 demo: your mmul on the chosen device, checked against the CPU, with kernel time,
// wall time and GFLOPS. `--n` sets the size.
#include "launch.hpp"

#include "workbook/matmul_run.hpp"

int main(int argc, char** argv) {
    return workbook::matmul::run_kernel_demo(argc, argv, "Exercise 18 (SGEMM 4): 8 x 16 per work-item, the A tile transposed", workbook::ex18::rung());
}
