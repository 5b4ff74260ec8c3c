// Exercise 08: how the private-row kernel is launched. The one place that decides it: the demo,
// the graded test and the bench all call rung(). Do not edit.
#pragma once

#include "../07_mmul_row/launch.hpp"  // the rung its traffic is judged against

#include "workbook/matmul.hpp"

#include <map>
#include <string>

namespace workbook::ex08 {

// The private copy of a row of A has a size fixed when the kernel is compiled: MAX_N floats,
// passed as a build option. N may not exceed it (the README explains why it is small).
inline constexpr int max_n = 1024;

// As exercise 07: a 1D range, one work-item per row, work-groups of 64 or what the device allows.
inline matmul::Rung rung() {
    matmul::Rung r;
    r.build_options = "-DMAX_N=" + std::to_string(max_n);
    r.max_n = max_n;
    r.group_extent = matmul::rows_per_group;
    r.launch = [](const cl::Device& device, const cl::Kernel& kernel, int n) {
        return matmul::rows_launch(kernel, device, n);
    };
    return r;
}

// The traffic check (course.toml's traffic_references name the same two folders): the student's
// kernel, 07_mmul_row's solution and this rung's, counted under Oclgrind.
inline constexpr const char* previous_rung = "07_mmul_row";
inline constexpr const char* this_rung = "08_mmul_row_private";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex07::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex08
