// Exercise 17 demo: your mmul on the chosen device, checked against the CPU, with kernel time,
// wall time and GFLOPS. `--n` sets the size.
#include "launch.hpp"

#include "workbook/matmul_run.hpp"

int main(int argc, char** argv) {
    return workbook::matmul::run_kernel_demo(argc, argv, "Exercise 17 (SGEMM 3): 8 x 8 register blocks, 128 x 128 blocks", workbook::ex17::rung());
}
