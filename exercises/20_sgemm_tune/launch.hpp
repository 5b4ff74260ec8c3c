// Exercise 20: the shapes the tuner tries, the one a device runs untuned, and how a shape is
// launched. The one place that decides it: the demo, the graded test, the runner and the tuner
// all call these. Do not edit.
#pragma once

#include "../19_sgemm_prefetch/launch.hpp"  // exercise 19's shapes, the untuned choice

#include "workbook/tuning.hpp"

#include "workbook/errors.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace workbook::ex20 {

inline constexpr const char* this_rung = "20_sgemm_tune";

// A shape and whether it prefetches: the build options TSM TSN TSK WPTM WPTN PAD PREFETCH.
inline tuning::Choice choice(const ex18::Shape& s, bool prefetch) {
    const auto i = [](std::size_t v) { return static_cast<int>(v); };
    return {{{"TSM", i(s.block_rows)}, {"TSN", i(s.block_cols)}, {"TSK", i(s.depth)}, {"WPTM", i(s.rows)},
             {"WPTN", i(s.cols)}, {"PAD", i(s.pad)}, {"PREFETCH", prefetch ? 1 : 0}}};
}
inline ex18::Shape shape_of(const tuning::Choice& c) {
    const auto u = [&](const char* name) { return static_cast<std::size_t>(c.get(name)); };
    return {u("TSM"), u("TSN"), u("TSK"), u("WPTM"), u("WPTN"), u("PAD")};
}
inline std::size_t sets_of(const tuning::Choice& c) { return c.get("PREFETCH") ? 2 : 1; }
// The bytes of one set of a choice's tiles.
inline std::size_t one_set_bytes(const tuning::Choice& c) { return ex18::local_floats(shape_of(c), 1) * sizeof(float); }

// What the tuner tries: exercise 19's two blocks with and without prefetching, and smaller ones
// (more groups for a device with many compute units at small N, fewer registers a work-item, less
// local memory), each in groups of 64 to 256 work-items. A shape whose tiles do not fit the
// device's local memory is made shallower (16, then 8 deep) or left out, as is one whose group is
// larger than the device allows; the list has no duplicates.
inline std::vector<tuning::Choice> candidates(const cl::Device& device) {
    struct Tried {
        ex18::Shape shape;
        bool prefetch;
    };
    static const Tried tried[] = {
        {ex19::big_block, true},            {ex18::small_block, true},          {ex18::small_block, false},
        {{128, 128, 32, 8, 8, 4}, false},   {{64, 128, 16, 8, 8, 4}, true},     {{64, 64, 16, 4, 4, 4}, true},
        {{64, 64, 16, 8, 8, 0}, false},     {{64, 64, 32, 8, 8, 4}, false},     {{32, 64, 16, 4, 8, 4}, true},
    };
    const auto bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    const auto most = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    std::vector<tuning::Choice> out;
    for (const auto& t : tried) {
        ex18::Shape s = t.shape;
        const std::size_t sets = t.prefetch ? 2 : 1;
        while (s.depth > 8 && ex18::local_floats(s, sets) * sizeof(float) > bytes) s.depth /= 2;
        if (ex18::local_floats(s, sets) * sizeof(float) > bytes) continue;
        if ((s.block_cols / s.cols) * (s.block_rows / s.rows) > most) continue;
        const auto c = choice(s, t.prefetch);
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    return out;
}

// Untuned: on a GPU exercise 19's choice at the speed check's size (2048), prefetching; on a CPU
// 64 x 64 blocks of 4 x 4 per work-item, prefetching: exercise 19's 128 x 256 block ran at 10.7
// GFLOPS with PoCL on the course VM (2 cores, N = 512), this one at 24.9 (a CPU core runs a
// group's work-items one after another; smaller blocks keep its tiles in cache), and it is cheap
// to simulate in the race pass. Always a candidate.
inline tuning::Choice default_choice(const cl::Device& device) {
    if (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) {
        const ex18::Shape small{64, 64, 16, 4, 4, 4};
        return choice(ex18::fitted_shape(device, 512, 2, small, small), true);
    }
    return choice(ex18::fitted_shape(device, 2048, 2, ex19::big_block, ex18::small_block), true);
}

// The rung for one choice: exercise 19's launch with that shape at every N (a candidate fits the
// device already, so the launch keeps its depth); the race pass's sizes reach one past its rows.
inline matmul::Rung rung(const tuning::Choice& c) {
    const ex18::Shape s = shape_of(c);
    matmul::Rung r = ex18::transposed_rung(sets_of(c), true, s, s);
    r.build_options += " -DPREFETCH=" + std::to_string(c.get("PREFETCH"));
    r.group_extent = static_cast<int>(s.block_rows);
    return r;
}

// A rung that makes its choice for the device it runs on and N: the demo's (the student's tuned
// line for the device nearest N) and the bench's (the reference's tuned choice).
inline matmul::Rung rung_choosing(std::function<tuning::Choice(const cl::Device&, int n)> pick) {
    matmul::Rung r = rung(choice(ex19::big_block, true));
    r.build_options = "-cl-fast-relaxed-math";
    r.size_options = [pick](const cl::Device& device, int n) { return pick(device, n).options(); };
    r.launch = [pick](const cl::Device& device, const cl::Kernel& kernel, int n) { return rung(pick(device, n)).launch(device, kernel, n); };
    return r;
}

// The reference's choice on a device at N: tuned by the instructor nearest N
// (tuning::reference_choice), else the untuned one.
inline tuning::Choice reference_or_default(const cl::Device& device, int n) {
    const auto tuned = tuning::reference_choice(this_rung, tuning::device_key(device), candidates(device), nullptr, n);
    return tuned ? *tuned : default_choice(device);
}

}  // namespace workbook::ex20
