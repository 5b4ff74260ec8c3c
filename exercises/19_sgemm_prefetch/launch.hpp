// Exercise 19: how the kernel is launched, and the two rungs the speed check times it against.
// The one place that decides it: the demo, the graded test, the runner and the bench all call
// rung(). Do not edit.
#pragma once

#include "../18_sgemm_transpose/launch.hpp"  // the previous rung, timed beside this one

#include <map>
#include <string>

namespace workbook::ex19 {

// Exercise 18's launch: the same blocks, chosen by N the same way, the same tiles and __local
// memory. The next tile's share waits in registers while the group computes (6 float4s a
// work-item in the big block); NVIDIA's compiler fits it in the H100's 255 registers without
// spilling. Tiles 8 deep need half as many registers for it, but measured 1-3% slower there
// (bench/results/sgemm-ladder-h100/NOTES.md).
inline matmul::Rung rung() { return ex18::rung(); }

// The speed check (course.toml's speed_references name the same two folders).
inline constexpr const char* previous_rung = "18_sgemm_transpose";
inline constexpr const char* this_rung = "19_sgemm_prefetch";
inline std::map<std::string, matmul::Rung> timed_rungs() {
    return {{"student", rung()}, {previous_rung, ex18::rung()}, {this_rung, rung()}};
}

}  // namespace workbook::ex19
