// Exercise 17 graded test: first correct (seeded sizes, matmul_sizes; random non-symmetric
// inputs, C poisoned, guard band after C, tolerance from Σ|a·b|), then fast: timed against
// exercise 16's solution and this rung's, taking turns (check_matmul_speed).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("17_sgemm_2d_block: C = A·B, 8 x 8 register blocks, 128 x 128 blocks, any N") {
    workbook::testing::check_matmul_kernel(workbook::ex17::rung());
}

TEST_CASE("17_sgemm_2d_block: speed, against exercise 16's kernel and this rung's solution") {
    workbook::testing::check_matmul_speed({.technique = "2D register blocking", .previous = workbook::ex17::previous_rung,
                                          .current = workbook::ex17::this_rung, .traffic = workbook::traffic::Metric::local_bytes});
}
