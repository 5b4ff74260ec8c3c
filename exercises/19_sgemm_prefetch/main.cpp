// Exercise 19 demo: your mmul on the chosen device, checked against the CPU, with kernel time,
// wall time and GFLOPS. `--n` sets the size.
#include "launch.hpp"

#include "workbook/matmul_run.hpp"

int main(int argc, char** argv) {
    return workbook::matmul::run_kernel_demo(argc, argv, "Exercise 19 (SGEMM 5): the next tiles prefetched into registers", workbook::ex19::rung());
}
