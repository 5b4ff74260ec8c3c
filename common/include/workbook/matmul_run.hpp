// Running and timing a matmul rung on a device: what the ladder's demos and the bench share.
#pragma once

#include "workbook/matmul.hpp"
#include "workbook/run_main.hpp"

#include <functional>
#include <string>

namespace workbook::matmul {

// Device buffers for one problem: A and B filled, C of n·n floats.
struct Problem {
    int n = 0;
    std::vector<float> a, b;
    cl::Buffer a_buffer, b_buffer, c_buffer;
    Problem(const Run& run, int n, std::uint64_t seed);
};

struct Timing {
    double kernel_median = 0, kernel_min = 0, kernel_max = 0;  // seconds, from event profiling
    double wall_median = 0;                                   // seconds, enqueue to finish() on the host
    int repeats = 0;
};

// Median, fastest and slowest of the kernel times, and the median wall time, of repeated runs.
Timing summarize(std::vector<double> kernel_seconds, std::vector<double> wall_seconds);

// One warm-up launch, then `repeats` timed ones.
Timing time_launches(const cl::CommandQueue& queue, cl::Kernel& kernel, const Problem& p, const Launch& launch,
                     int repeats);

// Builds the rung's kernel for the device, with the options it takes at N.
cl::Kernel build_rung(const cl::Context& context, const cl::Device& device, const Rung& rung, int n);

// The demo of a kernel rung: multiplies random matrices of --n (default 1024), checks C against
// the CPU and prints kernel time, wall time and GFLOPS. The whole main() of exercises 05, 07, 08,
// 09 and 10.
int run_kernel_demo(int argc, char** argv, const std::string& title, const Rung& rung);

}  // namespace workbook::matmul
