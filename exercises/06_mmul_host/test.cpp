// Exercise 06 graded test: matmul_on_device() at N = 1, 17, 100, 257 (random inputs, C poisoned,
// guard band after C), its timings (positive, kernel within wall, wall within the call), and
// mflops() against the formula, at sizes where n³ overflows an int.
#include "mmul_host.hpp"

#include "workbook/matmul.hpp"
#include "workbook/testing.hpp"
#include "workbook/timing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace wt = workbook::testing;

TEST_CASE("06_mmul_host: matmul_on_device computes C = A·B and times it") {
    const std::vector<int> sizes = wt::small_sizes_only() ? std::vector<int>{1, 17} : std::vector<int>{1, 17, 100, 257};
    for (const int n : sizes) {
        const std::size_t elements = static_cast<std::size_t>(n) * n;
        auto r = wt::rng("matmul_host", static_cast<std::uint64_t>(n));
        const auto a = r.uniform_vector(elements), b = r.uniform_vector(elements);
        workbook::GuardedHost c(elements, wt::guard_elements);

        workbook::Stopwatch call;
        const auto t = workbook::ex06::matmul_on_device(wt::device().choice.device, n, a.data(), b.data(), c.data());
        const double call_seconds = call.seconds();

        const auto result = workbook::compare(workbook::matmul::reference(n, a, b), c.values(),
                                              workbook::matmul::tolerance(n), workbook::matmul::magnitude(n, a, b));
        CHECK_MESSAGE(c.guard_report().empty(), fmt::format("N = {}: {} ({})", n, c.guard_report(), wt::repeat_hint()));
        CHECK_MESSAGE(result.ok(), fmt::format("N = {}: {} ({})", n, workbook::matmul::describe(n, result),
                                               wt::repeat_hint()));
        INFO("N = ", n, ": kernel_seconds = ", t.kernel_seconds, ", wall_seconds = ", t.wall_seconds,
             ", the whole call took ", call_seconds, " s");
        CHECK_MESSAGE(t.kernel_seconds > 0.0, "kernel_seconds must come from the kernel's event (end - start)");
        CHECK_MESSAGE(t.kernel_seconds <= t.wall_seconds,
                      "the kernel runs inside the wall-clock interval, so kernel_seconds <= wall_seconds");
        CHECK_MESSAGE(t.wall_seconds <= call_seconds, "wall_seconds cannot exceed the time the whole call took");
        if (!result.ok() || !c.guard_report().empty()) break;
    }
}

TEST_CASE("06_mmul_host: mflops is 2·n³ / seconds / 10^6") {
    for (const int n : {1, 100, 1024, 1291, 4096}) {
        for (const double seconds : {1e-3, 0.5, 2.0}) {
            const double expected = 2.0 * n * static_cast<double>(n) * n / seconds / 1e6;
            CHECK_MESSAGE(workbook::ex06::mflops(n, seconds) == doctest::Approx(expected).epsilon(1e-12),
                          fmt::format("mflops({}, {}) should be {}", n, seconds, expected));
        }
    }
}
