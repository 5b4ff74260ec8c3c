// Exercise 10 graded test: mmul with the rung's own launch at seeded sizes (matmul_sizes)
// (random non-symmetric inputs, C poisoned, guard band after C, tolerance from Σ|a·b|).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("10_mmul_block: C = A·B, 16 x 16 blocks in local memory, edge blocks when N is not a multiple of 16") {
    workbook::testing::check_matmul_kernel(workbook::ex10::rung());
}

// Its own case, after the values: `workbook check` says "values right" first and counts the traffic
// after the race pass; in one process, a kernel with wrong values is not counted (nothing to score).
TEST_CASE("10_mmul_block: traffic, against exercise 05's kernel and this rung's solution") {
    workbook::testing::check_matmul_traffic({.technique = "tiles of A and B shared through local memory", .previous = workbook::ex10::previous_rung,
                                             .current = workbook::ex10::this_rung, .traffic = workbook::traffic::Metric::global_bytes});
}
