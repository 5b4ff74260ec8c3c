// Exercise 04 graded test: the vadd_abc kernel on its own (launched with more work-items than
// elements), then vadd_abc_on_device() end to end, with random inputs, poisoned outputs and a
// guard band.
#include "vadd_abc.hpp"

#include "workbook/testing.hpp"

#include <doctest/doctest.h>

namespace wt = workbook::testing;

TEST_CASE("04_vadd_abc kernel: d[i] = a[i] + b[i] + c[i] for awkward sizes, global size past count") {
    wt::check_vector_sum_kernel("vadd_abc.cl", "vadd_abc", 3);
}

TEST_CASE("04_vadd_abc host: vadd_abc_on_device binds four buffers and computes d") {
    wt::check_vector_sum_host("vadd_abc_on_device", 3, "vadd_abc.cl", "vadd_abc");
}
