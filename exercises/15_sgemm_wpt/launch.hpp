// Exercise 15: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../10_mmul_block/launch.hpp"  // the previous rung, timed beside this one

#include "workbook/matmul.hpp"

#include <map>
#include <string>

namespace workbook::ex15 {

// Tiles of tile x tile elements of C, A and B (build option -DTS=32); each work-item computes
// work_per_item elements of C in one column (-DWPT=8), the rows rows_apart apart (-DRTS=4).
inline constexpr std::size_t tile = 32, work_per_item = 8, rows_apart = tile / work_per_item;

// A 2D range of tile x rows_apart work-groups (dimension 0 the column of C, dimension 1 which
// rows), each covering one tile x tile block of C; the global size is N rounded up to the tile,
// divided by work_per_item along dimension 1. Two __local tiles of tile x tile floats.
inline matmul::Rung rung() {
    matmul::Rung r;
    r.build_options = "-DTS=" + std::to_string(tile) + " -DWPT=" + std::to_string(work_per_item) +
                      " -DRTS=" + std::to_string(rows_apart) + " -cl-fast-relaxed-math";
    r.group_extent = static_cast<int>(tile);
    r.launch = [](const cl::Device& device, const cl::Kernel& kernel, int n) {
        matmul::require_work_group(kernel, device, tile, rows_apart);
        matmul::require_local_memory(device, 2 * tile * tile);
        const std::size_t global = workbook::round_up(static_cast<std::size_t>(n), tile);
        return matmul::Launch{cl::NDRange(global, global / work_per_item), cl::NDRange(tile, rows_apart),
                              {tile * tile, tile * tile}};
    };
    return r;
}

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "10_mmul_block";
inline constexpr const char* this_rung = "15_sgemm_wpt";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex10::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex15
