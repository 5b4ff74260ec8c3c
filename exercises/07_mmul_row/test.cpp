// Exercise 07 graded test: mmul with the rung's own launch at seeded sizes (matmul_sizes)
// (random non-symmetric inputs, C poisoned, guard band after C, tolerance from Σ|a·b|).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("07_mmul_row: C = A·B, one row of C per work-item, 1D range rounded up past N") {
    workbook::testing::check_matmul_kernel(workbook::ex07::rung());
}
