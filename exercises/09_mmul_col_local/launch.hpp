// Exercise 09: how the local-column kernel is launched. The one place that decides it: the demo,
// the graded test and the bench all call rung(). Do not edit.
#pragma once

#include "../08_mmul_row_private/launch.hpp"

namespace workbook::ex09 {

// Exercise 08's rung (the private row of A, so its MAX_N and its limit on N), plus the one
// __local argument, Bwrk, which holds one column of B: N floats per work-group.
inline matmul::Rung rung() {
    matmul::Rung r = ex08::rung();
    r.launch = [](const cl::Device& device, const cl::Kernel& kernel, int n) {
        matmul::require_local_memory(device, static_cast<std::size_t>(n));
        return matmul::rows_launch(kernel, device, n, {static_cast<std::size_t>(n)});
    };
    return r;
}

// The traffic check (course.toml's traffic_references name the same two folders): the student's
// kernel, 08_mmul_row_private's solution and this rung's, counted under Oclgrind.
inline constexpr const char* previous_rung = "08_mmul_row_private";
inline constexpr const char* this_rung = "09_mmul_col_local";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex08::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex09
