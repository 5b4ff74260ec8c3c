// Exercise 19: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../18_sgemm_transpose/launch.hpp"  // the previous rung, timed beside this one

#include <map>
#include <string>

namespace workbook::ex19 {

// Exercise 18's kernel with two buffers of each tile, each half as deep (-DTSK=8): the same
// __local memory as exercise 18 (16.3 KiB), well inside the 32 KiB every OpenCL device offers.
inline constexpr ex17::Blocking shape{ex17::shape.block, ex17::shape.depth / 2, ex17::shape.rows};
inline matmul::Rung rung() {
    return ex17::blocked_rung(shape, " -DPAD=" + std::to_string(ex18::pad), 2 * shape.depth * (shape.block + ex18::pad),
                              2 * shape.depth * shape.block);
}

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "18_sgemm_transpose";
inline constexpr const char* this_rung = "19_sgemm_prefetch";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex18::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex19
