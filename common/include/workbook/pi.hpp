// Pi by numerical integration, shared by the pi exercises' demos and graded tests:
// pi = ∫₀¹ 4/(1+x²) dx, by the midpoint rule over `steps` equal steps. Every work-item sums
// `niters` consecutive steps, every work-group reduces its work-items' sums to one partial sum,
// and the host adds the partial sums. The kernels share the signature
//   __kernel void NAME(const int niters, const float step_size, __local float* local_sums,
//                      __global float* partial_sums)
#pragma once

#include "workbook/cl.hpp"

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

namespace workbook::pi {

inline constexpr double true_pi = 3.14159265358979323846;

// The shape of one run: `groups` work-groups of `local` work-items, each work-item `niters` steps.
// A non-zero `offset` launches only the last work-items of a larger run: their global ids start
// at `offset` (the launch's global offset), so their step indices can pass 2^32 without running
// the 2^32 steps before them.
struct Launch {
    std::size_t local = 1;
    std::size_t groups = 1;
    int niters = 1;
    std::uint64_t offset = 0;
    // In 64 bits: niters · local · groups passes 2^31 long before anything else gives out.
    // Counts the work-items before `offset` too: the run the launched work-items end.
    std::uint64_t steps() const;
    // The step index of the first launched work-item's first step: offset · niters.
    std::uint64_t first_step() const;
    // The float step the kernel receives: 1 / steps, rounded to float.
    float step_size() const;
    // "4 groups x 64 work-items x 1000 steps each = 256000 steps"
    std::string describe() const;
};

// A launch of at least `steps` steps: the work-group size is the largest the kernel accepts on
// the device (CL_KERNEL_WORK_GROUP_SIZE, the device maximum, and `preferred`), the number of
// groups four per compute unit, and niters rounded up to cover the rest. Throws workbook::Error
// when niters would not fit the kernel's int.
Launch plan(const cl::Kernel& kernel, const cl::Device& device, std::uint64_t steps, std::size_t preferred = 256);

// Which groups a check compares: every one, or a few of a run too long to sum on the host.
using Groups = std::vector<std::size_t>;
Groups every_group(const Launch& launch);

// What each of `groups` must produce (in that order): the sum of its steps' terms 4/(1+x²),
// x = (i + 0.5)·step_size, computed in double from the same float step the kernel gets.
std::vector<double> reference_partial_sums(const Launch& launch, const Groups& groups);

// Mistakes a wrong partial sum can be told apart by: the step index held in 32 bits (signed or
// unsigned, so it wraps modulo 2^32), or the global offset left out (work-items numbered
// get_group_id · get_local_size + get_local_id).
enum class IndexMistake { wrapped_int32, wrapped_uint32, offset_ignored };

// What each of `groups` would produce with that mistake, computed like reference_partial_sums.
std::vector<double> mistaken_partial_sums(const Launch& launch, IndexMistake mistake, const Groups& groups);

// The largest float error a correct kernel can make in one group's partial sum `sum`: each term
// carries a few roundings (the index to float, +0.5, ·step, x², +1, the division), a work-item
// adds niters of them and the group adds its work-items' sums, each addition rounding once:
// (niters + local + 8)·2^-24·sum.
double partial_tolerance(const Launch& launch, double sum);

// The midpoint rule's own error bound for these steps: h²/24 · max|f''| = h²/3 (f'' peaks at 8 at x = 0).
double discretisation_bound(const Launch& launch);

// One run on a device: the launch, pi (the partial sums added on the host in double), the
// kernel's time from its event and the host's wall time around the whole run.
struct Result {
    Launch launch;
    double pi = 0;
    double kernel_seconds = 0;
    double wall_seconds = 0;
};
Result run(const cl::Context& context, const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Device& device,
           std::uint64_t steps);

// The largest error a correct kernel can give: the midpoint rule's bound, float accumulation's
// bound, and the float step's own rounding (the steps span [0, 1 + δ] with |δ| <= 2^-24).
double error_bound(const Result& result);

// Lines a demo prints about a result: pi, its error against the true value, and the two error
// estimates a student can explain (the midpoint rule's, and float accumulation's bound).
std::string report(const Result& result);

// Sets the four arguments and enqueues `local · groups` work-items; returns the event.
cl::Event enqueue(const cl::CommandQueue& queue, cl::Kernel& kernel, const Launch& launch,
                  const cl::Buffer& partial_sums);

}  // namespace workbook::pi
