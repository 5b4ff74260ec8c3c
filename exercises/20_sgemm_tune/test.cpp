// Exercise 20 graded test: first correct at every shape it is graded at (your tuned shape for this
// device, else the reference's, and one more drawn from the seed; seeded sizes,
// matmul_sizes; random non-symmetric inputs, C poisoned, guard band after C, tolerance from
// Σ|a·b|), then fast: at least 0.85x the reference (this rung's solution at the shape tuned for
// this device) at the speed check's size, taking turns (check_tuned_speed). WORKBOOK_TUNE makes
// this program the tuner instead (`workbook tune 20`).
#include "launch.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

namespace {
namespace ex20 = workbook::ex20;
const workbook::testing::TunedSpec spec{.exercise = ex20::this_rung, .candidates = ex20::candidates,
                                        .default_choice = ex20::default_choice, .rung = ex20::rung,
                                        .one_set_bytes = ex20::one_set_bytes};
const workbook::testing::TunerRegistration tuner([] { return workbook::testing::run_tuner(spec); });
}  // namespace

TEST_CASE("20_sgemm_tune: C = A·B at your tuned shape and one more, any N") {
    workbook::testing::check_tuned_kernel(spec);
}

// Correct first here too: a starter (whose prefetching loop is given) scores nothing for speed.
TEST_CASE("20_sgemm_tune: speed, at least 0.85x the reference at its tuned shape on this device") {
    workbook::testing::check_tuned_speed(spec);
}
