// Exercise 10 graded test: mmul with the rung's own launch at seeded sizes (matmul_sizes)
// (random non-symmetric inputs, C poisoned, guard band after C, tolerance from Σ|a·b|).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("10_mmul_block: C = A·B, 16 x 16 blocks in local memory, edge blocks when N is not a multiple of 16; then its traffic") {
    // One test case with the correctness check, so that a kernel wrong at some size scores
    // nothing for its traffic (and its traffic is not counted).
    if (workbook::testing::check_matmul_kernel(workbook::ex10::rung()))
        workbook::testing::check_matmul_traffic({.technique = "tiles of A and B shared through local memory", .previous = workbook::ex10::previous_rung,
                                                 .current = workbook::ex10::this_rung, .traffic = workbook::traffic::Metric::global_bytes});
}
