// The tuner's ranking rule (tuned_testing.cpp's run_tuner, `workbook tune`): candidates timed in
// interleaved rounds, each ranked by its fastest round, with how well that round is reproduced as
// the noise a difference must beat before one candidate is called faster than another.
#pragma once

#include <cstddef>
#include <vector>

namespace workbook::tuning {

// Below this, a difference is never called real, however steady the rounds (a timer's grain,
// a clock's drift between rounds).
constexpr double noise_floor = 0.02;

// One candidate's rounds (seconds): its fastest, its next fastest, its median (shown, not ranked
// on), and its spread, how far its next fastest round lies above its fastest (next / fastest - 1;
// 0 with one round). Load only slows a launch down, so the fastest round is the best estimate of
// the candidate's own speed, and the spread says how well a quiet round is reproduced: busy
// rounds, however many, leave both alone as long as two rounds were quiet. (The median's excess
// measures the load instead: 30-140% on this 2-core machine under a build, for every candidate.)
struct Ranked {
    std::size_t index = 0;  // into the candidates given to rank()
    double fastest = 0, next = 0, median = 0, spread = 0;
};

struct Ranking {
    std::vector<Ranked> order;       // the candidates that ran, by fastest round (the earlier given first among equals)
    std::vector<std::size_t> tied;   // indices tied with the fastest within noise, the fastest first; empty when none ran
    std::size_t chosen = 0;          // the choice, tied.front() (valid only when !tied.empty())
    bool clear = false;              // the fastest beats every other beyond noise (tied holds it alone)
    double noise = 0;                // when clear: the noise the runner-up was judged against
    const Ranked* find(std::size_t index) const;  // nullptr for a candidate that did not run
};

// The noise two candidates' difference must beat: the larger of their spreads, at least noise_floor.
double noise_between(const Ranked& a, const Ranked& b);
// Whether `slow` is slower than `fast` beyond noise: slow.fastest > fast.fastest * (1 + noise).
bool clearly_slower(const Ranked& slow, const Ranked& fast);

// rounds[i]: candidate i's timed rounds; empty for one that failed (never ranked, never chosen).
// The rule: the candidate with the fastest round (the earlier given among equals) is chosen; every
// candidate not clearly slower than it is tied with it, and the choice is called clear only when
// none is.
Ranking rank(const std::vector<std::vector<double>>& rounds);

}  // namespace workbook::tuning
