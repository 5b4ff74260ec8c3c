// Exercise 06 graded test: matmul_on_device() at N = 1, 17, 100, 257 (random inputs, C poisoned,
// guard band after C), its timings (positive, kernel within wall, wall within the call), and
// mflops() against the formula, at sizes where n³ overflows an int; then once with the test's own
// mmul.cl in place of exercise 05's (witness.hpp). The runner (runner.cpp)
// calls the student's functions; this test only sends inputs and judges replies.
#include "workbook/matmul.hpp"
#include "workbook/testing.hpp"
#include "workbook/timing.hpp"
#include "workbook/witness.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace wt = workbook::testing;

TEST_CASE("06_mmul_host: matmul_on_device computes C = A·B and times it") {
    const std::vector<int> sizes = wt::small_sizes_only() ? std::vector<int>{1, 17} : std::vector<int>{1, 17, 100, 257};
    struct Drawn {
        int n;
        std::vector<float> a, b;
    };
    std::vector<Drawn> drawn;
    std::vector<std::vector<float>> watched;  // a and b of each size, in order
    for (const int n : sizes) {
        auto r = wt::rng("matmul_host", static_cast<std::uint64_t>(n));
        const std::size_t elements = static_cast<std::size_t>(n) * n;
        drawn.push_back({n, r.uniform_vector(elements), r.uniform_vector(elements)});
        watched.push_back(drawn.back().a);
        watched.push_back(drawn.back().b);
    }
    // The calls run through the broker where the build has it (testing.hpp: OwnRunner): it makes
    // the OpenCL calls and records each launch's inputs and device times, which the host code can
    // neither forge nor hide from it. kernel_seconds must be the END - START of a launch of mmul
    // over that call's A and B. Elsewhere (a build without the broker, the race pass) the runner's
    // observer stands in: the times of events whose profiling the call read (runner_observed.hpp).
    wt::OwnRunner own(wt::broker_usable() ? std::optional(workbook::runner::Client::Broker{"", "", {}, watched}) : std::nullopt);
    struct Timed {
        int n;
        double kernel_seconds;
        std::vector<double> observed;
    };
    std::vector<Timed> timed;
    bool values_ok = true;
    for (const auto& [n, a, b] : drawn) {
        const std::size_t elements = static_cast<std::size_t>(n) * n;
        wt::Output c(elements, wt::guard_elements);
        workbook::runner::Message request;
        request.numbers["n"] = n;
        request.arrays["a"] = a;  // host arrays of exactly n·n floats, as the header promises
        request.arrays["b"] = b;
        request.arrays["c"] = c.initial();

        workbook::Stopwatch call;
        const auto reply = wt::call("matmul_on_device", std::move(request));
        const struct {
            double kernel_seconds, wall_seconds;
        } t{reply.num("kernel_seconds"), reply.num("wall_seconds")};
        const double call_seconds = call.seconds();

        const std::string guard = c.take(reply.array("c", c.whole()));
        const auto expected = workbook::matmul::expected(n, a, b);
        const auto result =
            workbook::compare(expected.c, c.values(), workbook::matmul::tolerance(n), expected.magnitude);
        CHECK_MESSAGE(guard.empty(), fmt::format("N = {}: {} ({})", n, guard, wt::repeat_hint()));
        CHECK_MESSAGE(result.ok(), fmt::format("N = {}: {} ({})", n, workbook::matmul::describe(n, result),
                                               wt::repeat_hint()));
        INFO("N = ", n, ": kernel_seconds = ", t.kernel_seconds, ", wall_seconds = ", t.wall_seconds,
             ", the whole call took ", call_seconds, " s");
        CHECK_MESSAGE(t.kernel_seconds > 0.0, "kernel_seconds must come from the kernel's event (end - start)");
        CHECK_MESSAGE(t.kernel_seconds <= t.wall_seconds,
                      "the kernel runs inside the wall-clock interval, so kernel_seconds <= wall_seconds");
        CHECK_MESSAGE(t.wall_seconds <= call_seconds, "wall_seconds cannot exceed the time the whole call took");
        Timed record{n, t.kernel_seconds, {}};
        for (int i = 0; i < static_cast<int>(reply.num("observed_events")) && i < 64; ++i)
            record.observed.push_back(reply.num("observed_" + std::to_string(i)));
        timed.push_back(std::move(record));
        values_ok = result.ok() && guard.empty();
        if (!values_ok) break;
    }
    // kernel_seconds must be a launch's own END - START: a fraction of the wall time, a clock's
    // reading, or another command's event matches none of them.
    const std::string& report = own.end();
    for (std::size_t i = 0; i < timed.size(); ++i) {
        const auto& [n, kernel_seconds, observed] = timed[i];
        const auto seen = own.brokered() ? wt::launch_seconds(report, "mmul", {2 * i, 2 * i + 1}) : observed;
        const bool from_event = std::any_of(seen.begin(), seen.end(), [&](double d) {
            return std::abs(kernel_seconds - d) <= 1e-12 + 1e-9 * d;  // the same nanoseconds, as a double
        });
        const std::string which =
            own.brokered() ? fmt::format("any launch of mmul over this call's A and B on a profiling queue ({} found; the "
                                         "test's OpenCL layer times each launch on the device)",
                                         seen.size())
                           : fmt::format("any event whose profiling times your call read ({} read)", seen.size());
        CHECK_MESSAGE(from_event,
                      fmt::format("N = {}: kernel_seconds = {:.9g} is not the end - start of {}. Time the kernel from "
                                  "its own event: a queue made with CL_QUEUE_PROFILING_ENABLE, then "
                                  "CL_PROFILING_COMMAND_END - CL_PROFILING_COMMAND_START of the launch's event "
                                  "(workbook::event_times). A time from a clock, a share of the wall time or another "
                                  "command's event is not the kernel's ({})",
                                  n, kernel_seconds, which, wt::repeat_hint()));
    }
    if (!values_ok) return;  // one clear failure: no witness case
    // The witness (witness.hpp): the test's own mmul.cl in place of exercise 05's; only host code
    // that builds and launches the kernel it is given returns C with the test's marks in it.
    const int n = wt::small_sizes_only() ? 17 : 100;
    const std::size_t elements = static_cast<std::size_t>(n) * n;
    auto r = wt::rng("matmul_host witness", static_cast<std::uint64_t>(n));
    const auto a = r.uniform_vector(elements), b = r.uniform_vector(elements);
    wt::Output c(elements, wt::guard_elements);
    wt::Witness w = wt::matmul_witness("mmul.cl");
    w.watched = {a, b};
    w.launches = {{"mmul", {0, 1}, "A and B"}};
    workbook::runner::Message request;
    request.numbers["n"] = n;
    request.arrays["a"] = a;
    request.arrays["b"] = b;
    request.arrays["c"] = c.initial();
    const auto reply = wt::witness_call("matmul_on_device", std::move(request), w);
    const std::string guard = c.take(reply.array("c", c.whole()));
    CHECK_MESSAGE(guard.empty(), fmt::format("N = {} with the test's own mmul.cl: {} ({})", n, guard, wt::repeat_hint()));
    const auto plain = workbook::matmul::expected(n, a, b);
    auto marked = plain;
    for (std::size_t k = 0; k < elements; ++k) {
        marked.c[k] += wt::witness_mark(w.key, static_cast<std::uint32_t>(k));
        marked.magnitude[k] += std::abs(marked.c[k]);
    }
    const auto got = c.values();
    const auto result = workbook::compare(marked.c, got, workbook::matmul::tolerance(n), marked.magnitude);
    if (!result.ok()) {
        const bool plain_result = workbook::compare(plain.c, got, workbook::matmul::tolerance(n), plain.magnitude).ok();
        const std::string why = fmt::format("N = {} with the test's own mmul.cl: {}\n{}", n,
                                            workbook::matmul::describe(n, result),
                                            wt::witness_failure("matmul_on_device", w, plain_result));
        FAIL_CHECK(why);
    }
}

TEST_CASE("06_mmul_host: mflops is 2·n³ / seconds / 10^6") {
    for (const int n : {1, 100, 1024, 1291, 4096}) {
        for (const double seconds : {1e-3, 0.5, 2.0}) {
            const double expected = 2.0 * n * static_cast<double>(n) * n / seconds / 1e6;
            workbook::runner::Message request;
            request.numbers["n"] = n;
            request.numbers["seconds"] = seconds;
            const double got = wt::call("mflops", request).num("mflops");
            CHECK_MESSAGE(got == doctest::Approx(expected).epsilon(1e-12),
                          fmt::format("mflops({}, {}) should be {}", n, seconds, expected));
        }
    }
}
