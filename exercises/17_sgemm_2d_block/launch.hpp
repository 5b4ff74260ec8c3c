// Exercise 17: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../16_sgemm_float4/launch.hpp"  // the previous rung, timed beside this one

#include "workbook/matmul.hpp"

#include <map>
#include <string>

namespace workbook::ex17 {

// The shape of a register-blocked kernel: a block x block square of C per work-group, tiles
// depth floats deep along k, and per work-item `rows` rows (rows apart from each other by
// block / rows) by 8 columns (two float4s, block / 2 apart). Build options -DTSM and -DTSN (the
// block), -DTSK (the depth), -DWPTM (the rows) and -DRTSM (block / rows).
struct Blocking {
    std::size_t block, depth, rows;
};

// A 2D range of (block / 8) x (block / rows) work-groups (dimension 0 the columns, dimension 1
// the rows), one per block of C, the global size N rounded up to the block and divided by the
// work-item's share. `options` adds the rung's own build options; `a_floats` and `b_floats` are
// its two __local tiles. Exercises 18 and 19 launch the same way with their own tiles.
inline matmul::Rung blocked_rung(const Blocking& s, const std::string& options, std::size_t a_floats, std::size_t b_floats) {
    matmul::Rung r;
    r.build_options = "-DTSM=" + std::to_string(s.block) + " -DTSN=" + std::to_string(s.block) + " -DTSK=" +
                      std::to_string(s.depth) + " -DWPTM=" + std::to_string(s.rows) + " -DRTSM=" +
                      std::to_string(s.block / s.rows) + options + " -cl-fast-relaxed-math";
    r.group_extent = static_cast<int>(s.block);
    // The race pass builds what the device builds (optimised): Oclgrind 21.10's own tracker of
    // uninitialised values could not run the `freeze` instruction of these loops, and our plugin
    // that took its place (harness/oclgrind_plugin/local_init.cpp) needs no unoptimised build.
    r.launch = [s, a_floats, b_floats](const cl::Device& device, const cl::Kernel& kernel, int n) {
        const std::size_t x = s.block / 8, y = s.block / s.rows;
        matmul::require_work_group(kernel, device, x, y);
        matmul::require_local_memory(device, a_floats + b_floats);
        const std::size_t global = workbook::round_up(static_cast<std::size_t>(n), s.block);
        return matmul::Launch{cl::NDRange(global / 8, global / s.rows), cl::NDRange(x, y), {a_floats, b_floats}};
    };
    return r;
}

// 128 x 128 blocks, tiles 16 deep, 8 x 8 per work-item: eight rows 16 apart and two float4s of
// columns 64 apart. Two __local tiles: A as 128 rows of 16 floats, B as 16 rows of 128 floats.
inline constexpr Blocking shape{128, 16, 8};
inline matmul::Rung rung() {
    return blocked_rung(shape, "", shape.block * shape.depth, shape.depth * shape.block);
}

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "16_sgemm_float4";
inline constexpr const char* this_rung = "17_sgemm_2d_block";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex16::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex17
