// Exercise 16: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../15_sgemm_wpt/launch.hpp"  // the previous rung, timed beside this one

#include "workbook/matmul.hpp"

#include <map>
#include <string>

namespace workbook::ex16 {

// Tiles of tile x tile elements (build option -DTS=32); each work-item computes a float4 of C (four
// neighbouring columns) in two rows, half a tile apart (-DRTS=16).
inline constexpr std::size_t tile = 32, width = 4, rows_apart = tile / 2;

// A 2D range of (tile / 4) x rows_apart work-groups (dimension 0 which float4 of a tile's row,
// dimension 1 which pair of rows), each covering one tile x tile block of C; the global size is N
// rounded up to the tile, divided by 4 along dimension 0 and by 2 along dimension 1. Two __local
// tiles of tile x tile floats, which the kernel declares as __local float4* (Awrk, Bwrk).
inline matmul::Rung rung() {
    matmul::Rung r;
    r.build_options = "-DTS=" + std::to_string(tile) + " -DRTS=" + std::to_string(rows_apart) + " -cl-fast-relaxed-math";
    r.group_extent = static_cast<int>(tile);
    r.launch = [](const cl::Device& device, const cl::Kernel& kernel, int n) {
        matmul::require_work_group(kernel, device, tile / width, rows_apart);
        matmul::require_local_memory(device, 2 * tile * tile);
        const std::size_t global = workbook::round_up(static_cast<std::size_t>(n), tile);
        return matmul::Launch{cl::NDRange(global / width, global / 2), cl::NDRange(tile / width, rows_apart),
                              {tile * tile, tile * tile}};
    };
    return r;
}

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "15_sgemm_wpt";
inline constexpr const char* this_rung = "16_sgemm_float4";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex15::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex16
