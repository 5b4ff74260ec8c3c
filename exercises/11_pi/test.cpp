// Exercise 11 graded test: every partial sum of the pi kernel, for work-groups of 1, 7, 33, 64 and
// the device's largest, several groups, and few or many steps per work-item, against a double
// reference with the float maths' tolerance. Partial sums are poisoned and guarded.
#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("11_pi: each work-group's partial sum of 4/(1+x^2) over its steps") {
    workbook::testing::check_pi_kernel("pi.cl", "pi");
}
