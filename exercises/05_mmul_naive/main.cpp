// Exercise 05 demo: your naive mmul on the chosen device, checked against the CPU, with kernel
// time, wall time and GFLOPS. `--n` sets the size.
#include "launch.hpp"

#include "workbook/matmul_run.hpp"

int main(int argc, char** argv) {
    return workbook::matmul::run_kernel_demo(argc, argv, "Exercise 05 (matmul, naive): one work-item per element of C",
                                             workbook::ex05::rung());
}
