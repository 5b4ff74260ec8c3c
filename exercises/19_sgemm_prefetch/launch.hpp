// Exercise 19: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../18_sgemm_transpose/launch.hpp"  // the previous rung, timed beside this one

#include <map>
#include <string>

namespace workbook::ex19 {

// Exercise 18's shape with tiles half as deep (-DTSK=8): the next tile's share waits in registers
// while the group computes, 3 float4s a work-item instead of 6, which keeps the kernel within the
// H100's 255 registers a work-item. __local: 8 x 132 floats of A, 8 x 256 of B (12.1 KiB).
inline constexpr ex18::Shape shape{ex18::shape.block_rows, ex18::shape.block_cols, ex18::shape.depth / 2,
                                   ex18::shape.rows, ex18::shape.cols, ex18::shape.pad};
inline matmul::Rung rung() { return ex18::shaped_rung(shape); }

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "18_sgemm_transpose";
inline constexpr const char* this_rung = "19_sgemm_prefetch";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex18::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex19
