// Exercise 16 graded test: first correct (seeded sizes, matmul_sizes: with N % 4 != 0 every row
// but the first starts off a 16-byte boundary; random non-symmetric inputs, C poisoned, guard band
// after C, tolerance from Σ|a·b|), then fast: timed against exercise 15's solution and this
// rung's, taking turns (check_matmul_speed).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("16_sgemm_float4: C = A·B with float4 loads, sums and stores, a scalar path where rows are not aligned, any N") {
    workbook::testing::check_matmul_kernel(workbook::ex16::rung());
}

TEST_CASE("16_sgemm_float4: speed, against exercise 15's kernel and this rung's solution") {
    workbook::testing::check_matmul_speed({.technique = "wider data types (float4)", .previous = workbook::ex16::previous_rung,
                                          .current = workbook::ex16::this_rung, .traffic = workbook::traffic::Metric::loads});
}
