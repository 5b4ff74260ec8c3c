// Exercise 05 graded test: mmul with its 2D launch at seeded sizes (matmul_sizes; random
// non-symmetric inputs, C poisoned, guard band after C, tolerance from Σ|a·b|).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("05_mmul_naive: C = A·B, one work-item per element, global size rounded up past N") {
    workbook::testing::check_matmul_kernel(workbook::ex05::rung());
}
