// Exercise 12 graded test: pi_vec4 and pi_vec8 graded like exercise 11's kernel, plus step counts
// per work-item that are no multiple of the vector width.
#include "workbook/testing.hpp"

#include <doctest/doctest.h>

TEST_CASE("12_pi_vec: pi_vec4, including niters that are no multiple of 4") {
    workbook::testing::check_pi_kernel("pi_vec.cl", "pi_vec4", {2, 3, 4, 6, 9, 13});
}

TEST_CASE("12_pi_vec: pi_vec8, including niters that are no multiple of 8") {
    workbook::testing::check_pi_kernel("pi_vec.cl", "pi_vec8", {2, 7, 8, 9, 15, 21});
}
