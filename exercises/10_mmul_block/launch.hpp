// Exercise 10: how the blocked kernel is launched. The one place that decides it: the demo, the
// graded test and the bench all call rung(). Do not edit.
#pragma once

#include "../05_mmul_naive/launch.hpp"  // the rung its traffic is judged against

#include "workbook/matmul.hpp"

#include <map>
#include <string>

namespace workbook::ex10 {

// The tile side, given to the kernel as the build option -DTS=16.
inline constexpr std::size_t tile = 16;

// A 2D range of tile x tile work-groups, one work-item per element of C (dimension 0 along a row,
// the column index; dimension 1 the row index), the global size N rounded up to a multiple of
// the tile. Two __local tiles of tile x tile floats: Awrk and Bwrk.
inline matmul::Rung rung() {
    matmul::Rung r;
    r.build_options = "-DTS=" + std::to_string(tile) + " -cl-fast-relaxed-math";
    r.launch = [](const cl::Device& device, const cl::Kernel& kernel, int n) {
        matmul::require_square_work_group(kernel, device, tile);
        matmul::require_local_memory(device, 2 * tile * tile);
        const std::size_t global = workbook::round_up(static_cast<std::size_t>(n), tile);
        return matmul::Launch{cl::NDRange(global, global), cl::NDRange(tile, tile), {tile * tile, tile * tile}};
    };
    return r;
}

// The traffic check (course.toml's traffic_references name the same two folders): the student's
// kernel, 05_mmul_naive's solution and this rung's, counted under Oclgrind.
inline constexpr const char* previous_rung = "05_mmul_naive";
inline constexpr const char* this_rung = "10_mmul_block";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex05::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex10
