// Unit tests: comparison with tolerances, poisoning and guard bands.
#include "workbook/check.hpp"
#include "workbook/errors.hpp"
#include "workbook/reference.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using workbook::compare;
using workbook::Tolerance;

TEST_CASE("compare accepts differences within the tolerance and reports the first one outside") {
    const std::vector<float> expected{1.0f, 2.0f, 3.0f, 4.0f};
    std::vector<float> got{1.0f, 2.0f + 1e-7f, 3.5f, 4.5f};
    const auto r = compare(expected, got, Tolerance{0.0, 1e-6});
    CHECK_FALSE(r.ok());
    CHECK(r.mismatches == 2);
    REQUIRE(r.first);
    CHECK(r.first->index == 2);
    CHECK(r.first->expected == 3.0);
    CHECK(r.first->got == 3.5);
    CHECK(r.describe().find("index 2") != std::string::npos);
    got[2] = 3.0f;
    got[3] = 4.0f;
    CHECK(compare(expected, got, Tolerance{0.0, 1e-6}).ok());
}

TEST_CASE("NaN never matches, not even NaN") {
    const std::vector<float> expected{NAN, 1.0f};
    const std::vector<float> got{NAN, NAN};
    const auto r = compare(expected, got, Tolerance{1e30, 1e30});
    CHECK(r.mismatches == 2);
}

TEST_CASE("a per-element scale replaces |expected|") {
    // a + b = 0 after cancellation: a relative test on |expected| would allow nothing.
    const std::vector<float> expected{0.0f};
    const std::vector<float> got{1e-8f};
    const std::vector<float> scale{2.0f};
    CHECK_FALSE(compare(expected, got, Tolerance{0.0, 1e-7}).ok());
    CHECK(compare(expected, got, Tolerance{0.0, 1e-7}, scale).ok());
}

TEST_CASE("compare rejects mismatched lengths") {
    const std::vector<float> a{1.0f, 2.0f}, b{1.0f};
    CHECK_THROWS_AS(compare(a, b, Tolerance{}), workbook::Error);
}

TEST_CASE("GuardedHost poisons its values and notices a write past the end") {
    workbook::GuardedHost out(10, 8);
    for (float v : out.values()) CHECK(std::isnan(v));
    CHECK(out.guard_report().empty());
    out.data()[10 + 3] = 0.0f;
    const auto report = out.guard_report();
    CHECK(report.find("element 13") != std::string::npos);
    CHECK(report.find("4 past") != std::string::npos);
}

TEST_CASE("the guard pattern is not a value arithmetic produces, nor the poison") {
    std::vector<float> guard(4);
    workbook::fill_guard(guard);
    CHECK_FALSE(workbook::first_guard_violation(guard));
    guard[1] = workbook::poison_value();
    CHECK(workbook::first_guard_violation(guard) == std::optional<std::size_t>(1));
}

TEST_CASE("the sum tolerance grows with the number of terms, and rejects half-precision errors") {
    const auto two = workbook::reference::sum_tolerance(2), three = workbook::reference::sum_tolerance(3);
    CHECK(three.rel > two.rel);
    CHECK(two.rel < 1.0 / 2048);  // an error of one half-precision ulp must fail
    const std::vector<float> a{0.1f, 0.7f}, b{0.2f, -0.3f};
    const std::vector<std::span<const float>> terms{a, b};
    const auto sum = workbook::reference::elementwise_sum(terms);
    CHECK(sum[0] == doctest::Approx(0.3f));
    CHECK(workbook::reference::elementwise_magnitude(terms)[1] == doctest::Approx(1.0f));
}

TEST_CASE("report_result returns the exit status a demo should give") {
    const std::vector<float> e{1.0f}, g{2.0f};
    CHECK(workbook::report_result("x", 1, 0.001, compare(e, e, Tolerance{})) == workbook::exit_ok);
    CHECK(workbook::report_result("x", 1, 0.001, compare(e, g, Tolerance{})) == workbook::exit_wrong_result);
}
