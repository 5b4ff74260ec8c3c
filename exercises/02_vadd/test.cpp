// Exercise 02 graded test: the vadd kernel on its own (launched with more work-items than
// elements), then vadd_on_device() end to end. Inputs are random (seed printed), outputs are
// poisoned with NaN and followed by a guard band.
#include "vadd.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

namespace wt = workbook::testing;

TEST_CASE("02_vadd kernel: c[i] = a[i] + b[i] for awkward sizes, global size past count") {
    wt::check_vector_sum_kernel("vadd.cl", "vadd", 2);
}

TEST_CASE("02_vadd host: vadd_on_device computes c = a + b on the device") {
    wt::check_vector_sum_host("vadd_on_device", 2, "vadd.cl", "vadd");
}
