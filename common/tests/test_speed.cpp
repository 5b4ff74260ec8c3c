// Unit tests: the speed check's decision (judge_speed) on made-up per-round times.
#include "workbook/testing.hpp"

#include <doctest/doctest.h>

#include <cmath>

using workbook::testing::judge_speed;
using workbook::testing::SpeedSpec;
using workbook::testing::SpeedTimes;
using workbook::testing::worth_more_rounds;

namespace {

// Rounds where the previous rung takes `prev` s, the solution prev/gain, the student prev/mine,
// each round scaled by a drift so ratios stay while absolute times wander (a busy machine).
SpeedTimes rounds(double gain, double mine, int count = 7) {
    SpeedTimes t;
    for (int i = 0; i < count; ++i) {
        const double drift = 1.0 + 0.3 * (i % 3);
        t.previous.push_back(0.010 * drift);
        t.solution.push_back(0.010 * drift / gain);
        t.student.push_back(0.010 * drift / mine);
    }
    return t;
}

}  // namespace

TEST_CASE("speed: a kernel as fast as the solution passes, a copy of the previous rung fails") {
    const SpeedSpec spec{.technique = "more work per work-item", .previous = "10_mmul_block", .current = "15_sgemm_wpt", .traffic = {}};
    const auto fast = judge_speed(spec, rounds(2.0, 2.0));
    CHECK_FALSE(fast.waived);
    CHECK(fast.ok);
    CHECK(fast.solution_gain == doctest::Approx(2.0));
    CHECK(fast.required_gain == doctest::Approx(1.259921));  // 2^(1/3): a third of the way on a GPU
    const auto copy = judge_speed(spec, rounds(2.0, 1.0));
    CHECK_FALSE(copy.waived);
    CHECK_FALSE(copy.ok);
    // Just over and just under the GPU's bar ...
    CHECK(judge_speed(spec, rounds(2.0, 1.27)).ok);
    CHECK_FALSE(judge_speed(spec, rounds(2.0, 1.25)).ok);
    // ... and a CPU device's, the geometric middle (2^(1/2) = 1.414).
    CHECK(judge_speed(spec, rounds(2.0, 1.45), true).required_gain == doctest::Approx(std::sqrt(2.0)));
    CHECK(judge_speed(spec, rounds(2.0, 1.45), true).ok);
    CHECK_FALSE(judge_speed(spec, rounds(2.0, 1.38), true).ok);
}

TEST_CASE("speed: on a GPU the least gain graded still fails a copy of the previous rung by more than the noise") {
    const SpeedSpec spec{.technique = "prefetching", .previous = "18_sgemm_transpose", .current = "19_sgemm_prefetch", .traffic = {}};
    // The solution gains just enough to be graded (1.10x); a copy of the previous rung measured 2%
    // fast (the most the H100 showed between two processes) still fails.
    const auto v = judge_speed(spec, rounds(1.101, 1.02));
    CHECK_FALSE(v.waived);
    CHECK_FALSE(v.ok);
    CHECK(v.required_gain > 1.03);
    // H200, N = 2304, rung 18: the solution 1.27x, a correct kernel with scalar sums 1.09x: passes
    // (the geometric middle asked 1.13x); N = 1920, rung 19: the solution 1.17x, a rotated pipeline
    // 1.08x: passes (the middle asked 1.08x, on the mark).
    CHECK(judge_speed(spec, rounds(1.27, 1.09)).ok);
    CHECK(judge_speed(spec, rounds(1.17, 1.08)).ok);
    // The planted bugs only speed catches there (0.79-0.95x) are far below either bar.
    CHECK_FALSE(judge_speed(spec, rounds(1.27, 0.95)).ok);
}

TEST_CASE("speed: a technique that does not pay on the device waives the requirement, and only then") {
    const SpeedSpec spec{.technique = "float4", .previous = "15_sgemm_wpt", .current = "16_sgemm_float4", .traffic = {}};
    const auto flat = judge_speed(spec, rounds(1.05, 0.95));
    CHECK(flat.waived);
    CHECK(flat.ok);
    const auto pays = judge_speed(spec, rounds(1.3, 1.0));
    CHECK_FALSE(pays.waived);
    CHECK_FALSE(pays.ok);
    // A CPU device's timings are noisier: there the same gain is too small to judge by.
    CHECK(judge_speed(spec, rounds(1.3, 1.0), true).waived);
    CHECK_FALSE(judge_speed(spec, rounds(1.6, 1.0), true).waived);
    CHECK_FALSE(judge_speed(spec, rounds(1.6, 1.0), true).ok);
}

TEST_CASE("speed: each kernel's fastest round counts, so disturbed rounds move nothing") {
    const SpeedSpec spec{.technique = "more work per work-item", .previous = "10_mmul_block", .current = "15_sgemm_wpt", .traffic = {}};
    auto t = rounds(2.0, 2.0);
    t.student[3] *= 20;  // rounds where the student's launch met a busy machine
    t.student[4] *= 1.5;
    const auto v = judge_speed(spec, t);
    CHECK(v.ok);
    CHECK(v.student_gain == doctest::Approx(2.0));
    CHECK(v.solution_spread.first == doctest::Approx(2.0));
    // ... and a disturbed reference cannot make a slow kernel pass either.
    auto slow = rounds(2.0, 1.0);
    slow.previous[0] *= 3;
    CHECK_FALSE(judge_speed(spec, slow).ok);
}

TEST_CASE("speed: on a CPU a lucky fastest round of the solution cannot hold a rung to speed") {
    const SpeedSpec spec{.technique = "prefetching", .previous = "18_sgemm_transpose", .current = "19_sgemm_prefetch", .traffic = {}};
    // As graded beside another grading on two cores: the technique gains 1.3x round after round,
    // but one of the solution's launches met an idle moment and ran 1.4x faster than its others.
    auto t = rounds(1.3, 1.3, 15);
    t.solution[0] /= 1.4;
    const auto v = judge_speed(spec, t, true);
    CHECK(v.solution_gain == doctest::Approx(1.82).epsilon(0.01));
    CHECK(v.technique_gain == doctest::Approx(1.3));
    CHECK(v.waived);
    CHECK(v.ok);  // the student's kernel, as fast as the solution, passes (the floor)
    // Where it pays in every round, it is held to speed as before, lucky round or not.
    auto pays = rounds(1.8, 1.0, 15);
    pays.solution[0] /= 1.4;
    CHECK_FALSE(judge_speed(spec, pays, true).waived);
    CHECK_FALSE(judge_speed(spec, pays, true).ok);
    // On a GPU the fastest rounds decide, as measured there.
    CHECK(judge_speed(spec, t).technique_gain == doctest::Approx(v.solution_gain));
}

TEST_CASE("speed: where the requirement is waived, a kernel clearly slower than the previous rung still fails") {
    const SpeedSpec spec{.technique = "more work per work-item", .previous = "10_mmul_block", .current = "15_sgemm_wpt", .traffic = {}};
    // Measured under ctest -j2 on PoCL: the rung's solution gained only 1.06x that moment, while a
    // correct kernel reading only global memory ran at 0.27x the previous rung.
    const auto slow = judge_speed(spec, rounds(1.06, 0.27), true);
    CHECK(slow.waived);
    CHECK_FALSE(slow.ok);
    CHECK(slow.floor_gain == doctest::Approx(1 / 1.5));
    // Within the noise band the check allows, on either side of the previous rung's speed: passes.
    CHECK(judge_speed(spec, rounds(1.06, 0.70), true).ok);
    CHECK(judge_speed(spec, rounds(1.06, 1.00), true).ok);
    CHECK_FALSE(judge_speed(spec, rounds(1.06, 0.64), true).ok);
    // A GPU's band is narrower (1.10x): 0.85x is below it there, and inside it on a CPU.
    CHECK_FALSE(judge_speed(spec, rounds(1.05, 0.85)).ok);
    CHECK(judge_speed(spec, rounds(1.05, 0.85), true).ok);
    // Where it is not waived, the floor changes nothing: the geometric middle still rules.
    CHECK_FALSE(judge_speed(spec, rounds(2.0, 0.9)).ok);
}

TEST_CASE("speed: where the rung's own solution is slower than the previous rung's, the band is taken below it") {
    const SpeedSpec spec{.technique = "a bigger register block", .previous = "17_sgemm_2d_block", .current = "18_sgemm_transpose", .traffic = {}};
    // Measured on PoCL: 8 x 16 sums per work-item ran at about 0.6x the 8 x 8 of the previous rung.
    const auto v = judge_speed(spec, rounds(0.6, 0.6), true);
    CHECK(v.waived);
    CHECK(v.ok);
    CHECK(v.floor_gain == doctest::Approx(0.6 / 1.5));
    CHECK(judge_speed(spec, rounds(0.6, 1.0), true).ok);  // the previous rung's kernel: waived, passes
    CHECK(judge_speed(spec, rounds(0.6, 0.42), true).ok);
    CHECK_FALSE(judge_speed(spec, rounds(0.6, 0.38), true).ok);
    // A solution between the two bands changes nothing: the previous rung's speed sets the floor.
    CHECK(judge_speed(spec, rounds(1.05, 0.9)).floor_gain == doctest::Approx(1 / 1.10));
}

TEST_CASE("speed: on a GPU a verdict far short of its mark is final after the first rounds; on a CPU it is timed on") {
    const SpeedSpec spec{.technique = "2D register blocking", .previous = "16_sgemm_float4", .current = "17_sgemm_2d_block", .traffic = {}};
    // The previous rung's kernel as the student on the H100: 1.00x where 1.11x is needed.
    const auto copy = judge_speed(spec, rounds(1.37, 1.00));
    CHECK_FALSE(copy.ok);
    CHECK_FALSE(worth_more_rounds(spec, copy, false));
    const auto cpu_copy = judge_speed(spec, rounds(2.0, 1.00), true);  // needs 1.41x, far off: still timed on
    CHECK_FALSE(cpu_copy.ok);
    CHECK(worth_more_rounds(spec, cpu_copy, true));
    // Within 5% of the mark (1.11x): more rounds may lift it.
    const auto close = judge_speed(spec, rounds(1.37, 1.08));
    CHECK_FALSE(close.ok);
    CHECK(worth_more_rounds(spec, close, false));
    // A solution gain near the waiver's threshold (1.10x): more rounds may waive it.
    CHECK(worth_more_rounds(spec, judge_speed(spec, rounds(1.14, 1.00)), false));
    // A passing verdict never needs more.
    CHECK_FALSE(worth_more_rounds(spec, judge_speed(spec, rounds(1.37, 1.37)), false));
}
