// Exercise 08 graded test: mmul with the rung's own launch at seeded sizes (matmul_sizes)
// (random non-symmetric inputs, C poisoned, guard band after C, tolerance from Σ|a·b|).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("08_mmul_row_private: C = A·B, row of A in private memory, N up to MAX_N") {
    workbook::testing::check_matmul_kernel(workbook::ex08::rung());
}
