// Exercise 18: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../17_sgemm_2d_block/launch.hpp"  // the previous rung, timed beside this one

#include "workbook/matmul.hpp"

#include <map>
#include <string>

namespace workbook::ex18 {

// The shape of exercises 18 and 19: a block_rows x block_cols block of C per work-group, tiles
// depth floats deep along k, rows x cols elements of C per work-item (both multiples of 4), and
// pad floats after each k-row of the transposed A tile. Build options -DTSM, -DTSN, -DTSK, -DWPTM,
// -DWPTN and -DPAD.
struct Shape {
    std::size_t block_rows, block_cols, depth, rows, cols, pad;
};

// A 2D range of (block_cols / cols) x (block_rows / rows) work-groups (dimension 0 the columns,
// dimension 1 the rows), one per block of C, the global size N rounded up to the block and divided
// by the work-item's share. Two __local tiles: A transposed, depth k-rows of block_rows + pad
// floats; B as it is, depth rows of block_cols floats.
inline matmul::Rung shaped_rung(const Shape& s) {
    matmul::Rung r;
    r.build_options = "-DTSM=" + std::to_string(s.block_rows) + " -DTSN=" + std::to_string(s.block_cols) +
                      " -DTSK=" + std::to_string(s.depth) + " -DWPTM=" + std::to_string(s.rows) +
                      " -DWPTN=" + std::to_string(s.cols) + " -DPAD=" + std::to_string(s.pad) + " -cl-fast-relaxed-math";
    // The race pass's sizes reach one past the block's rows, so that even there the grid has two
    // work-groups down it, the last one partial. Not past its 256 columns: at N = 257 Oclgrind
    // outran the runner's 120 s on the course VM (one past 128 is what exercise 17's pass runs).
    // Every size the race pass checks is also graded on the device, and the device's sizes reach
    // partial blocks of columns.
    r.group_extent = static_cast<int>(s.block_rows);
    r.race_build_options = "-cl-opt-disable";
    r.race_why = "Oclgrind 21.10 cannot run the freeze instruction LLVM's optimiser makes of these loops; the source is the same";
    const std::size_t a_floats = s.depth * (s.block_rows + s.pad), b_floats = s.depth * s.block_cols;
    r.launch = [s, a_floats, b_floats](const cl::Device& device, const cl::Kernel& kernel, int n) {
        const std::size_t x = s.block_cols / s.cols, y = s.block_rows / s.rows;
        matmul::require_work_group(kernel, device, x, y);
        matmul::require_local_memory(device, a_floats + b_floats);
        const auto size = static_cast<std::size_t>(n);
        return matmul::Launch{cl::NDRange(workbook::round_up(size, s.block_cols) / s.cols,
                                          workbook::round_up(size, s.block_rows) / s.rows),
                              cl::NDRange(x, y), {a_floats, b_floats}};
    };
    return r;
}

// 128 x 256 blocks, tiles 16 deep, 8 x 16 per work-item: a group of 16 x 16 work-items, as in
// exercise 17, with twice the columns. __local: 16 x 132 floats of A, 16 x 256 of B (24.3 KiB).
inline constexpr Shape shape{128, 256, 16, 8, 16, 4};
inline matmul::Rung rung() { return shaped_rung(shape); }

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "17_sgemm_2d_block";
inline constexpr const char* this_rung = "18_sgemm_transpose";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex17::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex18
