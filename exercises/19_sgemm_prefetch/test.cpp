// Exercise 19 graded test: first correct (seeded sizes, matmul_sizes; random non-symmetric
// inputs, C poisoned, guard band after C, tolerance from Σ|a·b|), then fast: timed against
// exercise 18's solution and this rung's, taking turns (check_matmul_speed).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("19_sgemm_prefetch: C = A·B, the next tiles prefetched into registers, any N") {
    workbook::testing::check_matmul_kernel(workbook::ex19::rung());
}

TEST_CASE("19_sgemm_prefetch: speed, against exercise 18's kernel and this rung's solution") {
    // Where traffic grades: the global bytes no multiply-adds follow to hide them (exposed), and
    // rung 18's lesson kept (its waits for global loads): a prefetch that stores each float4 into
    // the free local set as soon as it loads it hides its loads but waits for each (0.86x rung 18
    // on the H200: bench/results/2026-11-29-h200-first-use).
    workbook::testing::check_matmul_speed({.technique = "prefetching (the next tiles loaded into registers during the multiply-adds)",
                                           .previous = workbook::ex19::previous_rung, .current = workbook::ex19::this_rung, .traffic = workbook::traffic::Metric::exposed_bytes,
                                           .kept_traffic = workbook::traffic::Metric::load_waits});
}
