// Exercise 09 graded test: mmul with the rung's own launch at seeded sizes (matmul_sizes)
// (random non-symmetric inputs, C poisoned, guard band after C, tolerance from Σ|a·b|).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("09_mmul_col_local: C = A·B, column of B in local memory, barriers, rows past N in the last group") {
    workbook::testing::check_matmul_kernel(workbook::ex09::rung());
}

// Its own case, after the values: `workbook check` says "values right" first and counts the traffic
// after the race pass; in one process, a kernel with wrong values is not counted (nothing to score).
TEST_CASE("09_mmul_col_local: traffic, against exercise 08's kernel and this rung's solution") {
    workbook::testing::check_matmul_traffic({.technique = "the column of B shared through local memory", .previous = workbook::ex09::previous_rung,
                                             .current = workbook::ex09::this_rung, .traffic = workbook::traffic::Metric::global_bytes});
}
