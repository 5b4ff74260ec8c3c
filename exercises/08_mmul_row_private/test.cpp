// Exercise 08 graded test: mmul with the rung's own launch at seeded sizes (matmul_sizes)
// (random non-symmetric inputs, C poisoned, guard band after C, tolerance from Σ|a·b|).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("08_mmul_row_private: C = A·B, row of A in private memory, N up to MAX_N") {
    workbook::testing::check_matmul_kernel(workbook::ex08::rung());
}

// Its own case, after the values: `workbook check` says "values right" first and counts the traffic
// after the race pass; in one process, a kernel with wrong values is not counted (nothing to score).
TEST_CASE("08_mmul_row_private: traffic, against exercise 07's kernel and this rung's solution") {
    workbook::testing::check_matmul_traffic({.technique = "the row of A copied once into private memory", .previous = workbook::ex08::previous_rung,
                                             .current = workbook::ex08::this_rung, .traffic = workbook::traffic::Metric::global_bytes});
}
