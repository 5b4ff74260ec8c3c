// Exercise 19: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../18_sgemm_transpose/launch.hpp"  // the previous rung, timed beside this one

#include <map>
#include <string>

namespace workbook::ex19 {

// Exercise 18's launch, the blocks chosen by N the same way, with two sets of tiles, declared in the
// kernel: it computes on one while it stores the next tile into the other. Two sets of the big
// block's tiles fill the 48 KiB NVIDIA's OpenCL gives a work-group exactly when the A tile is
// unpadded (PAD = 0); the small block keeps exercise 18's padding. Where two sets do not fit (a device
// with 32 KiB), the tiles are 8 deep.
inline constexpr ex18::Shape big_block{128, 256, 16, 8, 16, 0};
inline matmul::Rung rung() { return ex18::transposed_rung(2, true, big_block, ex18::small_block); }

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "18_sgemm_transpose";
inline constexpr const char* this_rung = "19_sgemm_prefetch";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex18::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex19
