// Exercise 15 graded test: first correct (seeded sizes, matmul_sizes; random non-symmetric
// inputs, C poisoned, guard band after C, tolerance from Σ|a·b|), then fast: timed against
// exercise 10's solution and this rung's, taking turns (check_matmul_speed).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("15_sgemm_wpt: C = A·B, 8 elements of a column of C per work-item, 32 x 32 tiles, any N") {
    workbook::testing::check_matmul_kernel(workbook::ex15::rung());
}

TEST_CASE("15_sgemm_wpt: speed, against exercise 10's blocked kernel and this rung's solution") {
    workbook::testing::check_matmul_speed({.technique = "more work per work-item", .previous = workbook::ex15::previous_rung,
                                          .current = workbook::ex15::this_rung, .traffic = workbook::traffic::Metric::local_bytes});
}
