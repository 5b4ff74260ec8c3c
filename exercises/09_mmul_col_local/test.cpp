// Exercise 09 graded test: mmul with the rung's own launch at seeded sizes (matmul_sizes)
// (random non-symmetric inputs, C poisoned, guard band after C, tolerance from Σ|a·b|).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("09_mmul_col_local: C = A·B, column of B in local memory, barriers, rows past N in the last group") {
    workbook::testing::check_matmul_kernel(workbook::ex09::rung());
}
