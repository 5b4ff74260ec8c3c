// Matrix multiplication support shared by the matmul ladder's demos, graded tests and bench:
// C = A·B for square row-major float matrices, the CPU reference and its tolerance, and the
// launch geometry type every rung fills in its launch.hpp.
//
// Every kernel of the ladder has the signature
//   __kernel void mmul(const int N, __global const float* A, __global const float* B,
//                      __global float* C, <the __local float* arguments the rung needs>)
#pragma once

#include "workbook/check.hpp"
#include "workbook/cl.hpp"
#include "workbook/launch.hpp"

#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace workbook::matmul {

// C = A·B on the CPU, each dot product accumulated in double and rounded once.
std::vector<float> reference(int n, std::span<const float> a, std::span<const float> b);

// scale[i][j] = Σ_k |A[i][k]|·|B[k][j]|: what rounding errors of a float dot product are
// proportional to, whatever the order of its additions.
std::vector<float> magnitude(int n, std::span<const float> a, std::span<const float> b);

// Both of the above, in one pass over A and B: what a check compares with.
struct Expected {
    std::vector<float> c, magnitude;
};
// With WORKBOOK_REFERENCE_CACHE naming a folder (`workbook grade` gives its checkers one of its
// own, which no runner can reach), a result for N >= 128 is kept there under a hash of N, A and B
// and read back by the next check of the same inputs: every matmul rung of every submission in a
// grading run draws the same inputs from the secret seed, and at N = 1024 the two sums cost
// seconds of serial CPU.
Expected expected(int n, std::span<const float> a, std::span<const float> b);

// A float dot product of n terms, in any order and with or without fused multiply-adds, is off
// by at most n·u·Σ|a·b| (u = 2^-24); the reference's own rounding adds u·|c|. So (n + 1)·u
// relative to the magnitude, plus FLT_MIN for devices that flush tiny results to zero.
Tolerance tolerance(int n);

// How a timed launch at a large N is checked, where a full reference would cost more than the
// timing: a scan of C for NaN (never written), then `samples` elements drawn by `gen` against dot
// products computed here in double, within tolerance(n). Throws Error, its message starting with
// `who` and naming the first element found wrong.
void check_sampled(int n, std::span<const float> a, std::span<const float> b, std::span<const float> c,
                   std::mt19937_64& gen, int samples, const std::string& who);

// 2·n³ floating-point operations in `seconds`, in GFLOPS.
double gflops(int n, double seconds);

// "C[3][17] (row 3, column 17): expected 4.25, got nan (allowed difference 1.2e-06); 5 of 289
// elements differ". NaN means never written: C is filled with NaN before every run.
std::string describe(int n, const Comparison& result);

// How a rung launches its kernel for one N: sizes, and the __local float* arguments that follow
// C (in floats each).
struct Launch {
    cl::NDRange global;
    cl::NDRange local;
    std::vector<std::size_t> local_floats;
    // "global 32 x 32, local 16 x 16, __local 1.0 KiB + 1.0 KiB"
    std::string describe() const;
};

// One rung of the ladder as its demo, its graded test and the bench see it. Each exercise's
// launch.hpp returns its Rung: the one place that decides its geometry.
struct Rung {
    std::string kernel_file = "mmul.cl";
    std::string build_options;
    // Build options chosen for the device and N (the block of C a work-group computes, where the
    // best block depends on how many there are for the compute units), added to build_options.
    // Empty for a rung whose program is the same at every N. `launch` must agree with it.
    std::function<std::string(const cl::Device&, int n)> size_options;
    std::function<Launch(const cl::Device&, const cl::Kernel&, int n)> launch;
    int max_n = 0;  // the largest N the kernel supports; 0 for no limit of its own
    // The most rows (or columns) of C one work-group covers: the race pass's sizes reach one past
    // it, so even there the grid has two work-groups along it, the last one partial.
    int group_extent = 16;
    // Options added under the race pass only, and why: what the simulator needs to run the same
    // source (Oclgrind 21.10 cannot run some instructions LLVM's optimiser makes, such as freeze).
    std::string race_build_options, race_why;
    // Throws workbook::Error when n is outside 1..max_n, saying why.
    void check_size(int n) const;
    // build_options with size_options' choice for this device and N.
    std::string options_for(const cl::Device& device, int n) const;
};

// The largest power-of-two side s <= preferred such that the kernel accepts an s x s work-group
// on the device.
std::size_t square_work_group_side(const cl::Kernel& kernel, const cl::Device& device, std::size_t preferred);

// Throws workbook::Error when the device cannot run a `side` x `side` work-group of this kernel.
void require_square_work_group(const cl::Kernel& kernel, const cl::Device& device, std::size_t side);

// The same for an x by y work-group (dimension 0 by dimension 1).
void require_work_group(const cl::Kernel& kernel, const cl::Device& device, std::size_t x, std::size_t y);

// Throws workbook::Error when `floats` of __local memory per work-group exceed the device's.
void require_local_memory(const cl::Device& device, std::size_t floats);

// One work-item per row of C on a 1D range: work-groups of rows_per_group (or what the kernel and
// device allow), the global size n rounded up to a whole number of them, and the given __local
// arguments. The geometry of exercises 07, 08 and 09.
inline constexpr int rows_per_group = 64;
Launch rows_launch(const cl::Kernel& kernel, const cl::Device& device, int n, std::vector<std::size_t> local_floats = {});

// Sets N, A, B, C and the __local arguments, then enqueues the kernel; returns its event.
cl::Event enqueue(const cl::CommandQueue& queue, cl::Kernel& kernel, int n, const cl::Buffer& a, const cl::Buffer& b,
                  const cl::Buffer& c, const Launch& launch);

}  // namespace workbook::matmul
