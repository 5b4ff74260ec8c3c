// Exercise 09 graded test: mmul with the rung's own launch at seeded sizes (matmul_sizes)
// (random non-symmetric inputs, C poisoned, guard band after C, tolerance from Σ|a·b|).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("09_mmul_col_local: C = A·B, column of B in local memory, barriers, rows past N in the last group; then its traffic") {
    // One test case with the correctness check, so that a kernel wrong at some size scores
    // nothing for its traffic (and its traffic is not counted).
    if (workbook::testing::check_matmul_kernel(workbook::ex09::rung()))
        workbook::testing::check_matmul_traffic({.technique = "the column of B shared through local memory", .previous = workbook::ex09::previous_rung,
                                                 .current = workbook::ex09::this_rung, .traffic = workbook::traffic::Metric::global_bytes});
}
