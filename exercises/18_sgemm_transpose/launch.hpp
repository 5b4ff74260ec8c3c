// Exercise 18: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../17_sgemm_2d_block/launch.hpp"  // the previous rung, timed beside this one

#include <map>
#include <string>

namespace workbook::ex18 {

// Exercise 17's shape; the A tile is stored transposed, depth rows of block + pad floats (-DPAD=4:
// a row stays a whole number of float4s).
inline constexpr std::size_t pad = 4;

inline matmul::Rung rung() {
    const auto& s = ex17::shape;
    return ex17::blocked_rung(s, " -DPAD=" + std::to_string(pad), s.depth * (s.block + pad), s.depth * s.block);
}

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "17_sgemm_2d_block";
inline constexpr const char* this_rung = "18_sgemm_transpose";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex17::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex18
