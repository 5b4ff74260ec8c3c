// Exercise 18: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../17_sgemm_2d_block/launch.hpp"  // the previous rung, timed beside this one

#include "workbook/matmul.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace workbook::ex18 {

// The shape of exercises 18 and 19: a block_rows x block_cols block of C per work-group, tiles
// depth floats deep along k, rows x cols elements of C per work-item (both multiples of 4), and
// pad floats after each k-row of the transposed A tile. Build options -DTSM, -DTSN, -DTSK, -DWPTM,
// -DWPTN and -DPAD, chosen by N (shape_for).
struct Shape {
    std::size_t block_rows, block_cols, depth, rows, cols, pad;
};

inline std::string shape_options(const Shape& s) {
    return "-DTSM=" + std::to_string(s.block_rows) + " -DTSN=" + std::to_string(s.block_cols) + " -DTSK=" + std::to_string(s.depth) +
           " -DWPTM=" + std::to_string(s.rows) + " -DWPTN=" + std::to_string(s.cols) + " -DPAD=" + std::to_string(s.pad);
}

// The two blocks these rungs choose between, both in groups of 16 x 16 work-items with tiles 16
// deep. 128 x 256 (8 x 16 per work-item) is the lesson: the most multiply-adds per local read.
// 128 x 128 (8 x 8, exercise 17's block) makes twice as many groups, for sizes where the big
// blocks leave most compute units idle in their last round. __local: 16 x 132 floats of A and
// 16 x 256 (24.3 KiB) or 16 x 128 (16.3 KiB) of B.
inline constexpr Shape big_block{128, 256, 16, 8, 16, 4};
inline constexpr Shape small_block{128, 128, 16, 8, 8, 4};

// The block for N on this device: the one whose busiest compute unit finishes first. Groups are
// spread evenly over CL_DEVICE_MAX_COMPUTE_UNITS, so a block's time goes as its area times the
// rounds of groups the busiest unit runs (ceil(groups / units)), over its speed when every unit is
// busy: the small block's, measured on the H100, 0.97 of the big one's (a tie goes to the big
// block). On the H100 (132 units) N = 1792-2048 and 4096 take the big block and 2176 and 2304 the
// small one (153 and 162 big blocks are two rounds of which the second is mostly idle: measured
// 1.21-1.24x faster with small blocks there); on a CPU with a few cores the big block, except for
// small N.
inline Shape shape_for(const cl::Device& device, int n, const Shape& big = big_block, const Shape& small = small_block) {
    const double units = std::max<cl_uint>(1, device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
    auto time = [&](const Shape& s, double speed) {
        const double groups = std::ceil(double(n) / double(s.block_rows)) * std::ceil(double(n) / double(s.block_cols));
        return std::ceil(groups / units) * double(s.block_rows * s.block_cols) / speed;
    };
    return time(small, 0.97) < time(big, 1.0) ? small : big;
}

// `sets` copies of shape s's two tiles, in floats.
inline std::size_t local_floats(const Shape& s, std::size_t sets) {
    return sets * s.depth * (s.block_rows + s.pad + s.block_cols);
}

// The shape for N, its tiles made shallower (16, then 8 floats deep) until `sets` copies of them
// fit the device's local memory: two sets of 16-deep tiles need 33-48 KiB, and some devices offer 32
// (Oclgrind too, unless told: the race pass tells it the graded device's, race_check.hpp).
inline Shape fitted_shape(const cl::Device& device, int n, std::size_t sets, const Shape& big, const Shape& small) {
    Shape s = shape_for(device, n, big, small);
    const auto bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    while (s.depth > 8 && local_floats(s, sets) * sizeof(float) > bytes) s.depth /= 2;
    return s;
}

// A 2D range of (block_cols / cols) x (block_rows / rows) work-groups (dimension 0 the columns,
// dimension 1 the rows), one per block of C, the global size N rounded up to the block and divided
// by the work-item's share. Two __local arguments: A transposed, depth k-rows of block_rows + pad
// floats; B as it is, depth rows of block_cols floats. Exercise 19 has two sets of these tiles
// (sets = 2), declared in its kernel (in_kernel): NVIDIA's OpenCL refuses __local arguments that
// add up to all of its 48 KiB (CL_OUT_OF_RESOURCES), but not __local arrays of that size.
inline matmul::Rung transposed_rung(std::size_t sets, bool in_kernel, const Shape& big, const Shape& small) {
    matmul::Rung r;
    r.build_options = "-cl-fast-relaxed-math";
    r.size_options = [sets, big, small](const cl::Device& device, int n) {
        return shape_options(fitted_shape(device, n, sets, big, small));
    };
    // The race pass's sizes reach one past the blocks' rows, so that even there the grid has two
    // work-groups down it, the last one partial. Not past the big block's 256 columns: at N = 257
    // Oclgrind outran the runner's 120 s on the course VM (one past 128 is what exercise 17's pass
    // runs). Oclgrind has one compute unit, so N up to 128 runs the small block there and 129 the
    // big one: both programs are race-checked. Every size the race pass checks is also graded on
    // the device, and the device's sizes reach partial blocks of columns.
    r.group_extent = static_cast<int>(big_block.block_rows);
    // The race pass builds what the device builds (optimised): Oclgrind 21.10's own tracker of
    // uninitialised values could not run the `freeze` instruction of these loops, and our plugin
    // that took its place (harness/oclgrind_plugin/local_init.cpp) needs no unoptimised build.
    r.launch = [sets, in_kernel, big, small](const cl::Device& device, const cl::Kernel& kernel, int n) {
        const Shape s = fitted_shape(device, n, sets, big, small);
        const std::size_t x = s.block_cols / s.cols, y = s.block_rows / s.rows;
        const std::size_t a_floats = sets * s.depth * (s.block_rows + s.pad), b_floats = sets * s.depth * s.block_cols;
        matmul::require_work_group(kernel, device, x, y);
        matmul::require_local_memory(device, local_floats(s, sets));
        const auto size = static_cast<std::size_t>(n);
        std::vector<std::size_t> arguments{a_floats, b_floats};
        if (in_kernel) arguments.clear();
        return matmul::Launch{cl::NDRange(workbook::round_up(size, s.block_cols) / s.cols,
                                          workbook::round_up(size, s.block_rows) / s.rows),
                              cl::NDRange(x, y), arguments};
    };
    return r;
}
inline matmul::Rung rung() { return transposed_rung(1, false, big_block, small_block); }

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "17_sgemm_2d_block";
inline constexpr const char* this_rung = "18_sgemm_transpose";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex17::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex18
