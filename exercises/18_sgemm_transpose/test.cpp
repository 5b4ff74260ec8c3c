// Exercise 18 graded test: first correct (N = 1, 17, 100, 257 and 1024, random non-symmetric
// inputs, C poisoned, guard band after C, tolerance from Σ|a·b|), then fast: timed against
// exercise 17's solution and this rung's, taking turns (check_matmul_speed); where speed cannot
// tell, graded on its load instructions and its waits for global loads, counted under Oclgrind.
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("18_sgemm_transpose: C = A·B, 8 x 16 per work-item, the A tile transposed, any N") {
    workbook::testing::check_matmul_kernel(workbook::ex18::rung());
}

TEST_CASE("18_sgemm_transpose: speed, against exercise 17's kernel and this rung's solution") {
    // Where traffic grades: the A tile's reads as float4s (load instructions), and a tile's global
    // loads issued before any of them is used (waits for global loads), which a kernel that stores
    // each float4 as soon as it loads it does not do (0.66x the solution on the H200).
    workbook::testing::check_matmul_speed({.technique = "bigger register blocks (8 x 16 per work-item, their tile loads in flight together)",
                                           .previous = workbook::ex18::previous_rung, .current = workbook::ex18::this_rung, .traffic = workbook::traffic::Metric::loads,
                                           .also_traffic = workbook::traffic::Metric::load_waits});
}
