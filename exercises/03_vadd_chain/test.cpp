// Exercise 03 graded test: vadd_chain() on device-only buffers (a host round trip fails with
// CL_INVALID_OPERATION), poisoned intermediates and output, a guard band after f, awkward sizes.
// The runner (runner.cpp) sets the buffers up and calls vadd_chain; this test checks f.
#include "workbook/reference.hpp"
#include "workbook/testing.hpp"
#include "workbook/witness.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>

namespace wt = workbook::testing;

namespace {

// a, b, e and g drawn from the seed under `stream`.
std::vector<std::vector<float>> inputs(const char* stream, std::size_t count) {
    auto rng = wt::rng(stream, count);
    std::vector<std::vector<float>> in;
    for (int k = 0; k < 4; ++k) in.push_back(rng.uniform_vector(count));
    return in;
}

// The runner's request: the inputs with their slack, and the intermediates poisoned (a skipped
// step leaves NaN that flows into f), f poisoned with its guard band.
workbook::runner::Message chain_request(const std::vector<std::vector<float>>& in, std::size_t count,
                                        const wt::Output& f) {
    workbook::runner::Message request;
    request.numbers["count"] = static_cast<double>(count);
    const char* names[] = {"a", "b", "e", "g"};
    for (int k = 0; k < 4; ++k) request.arrays[names[k]] = wt::padded(in[k]);
    request.arrays["c"] = wt::Output(count).initial();
    request.arrays["f"] = f.initial();
    return request;
}

}  // namespace

TEST_CASE("03_vadd_chain: f = a + b + e + g with every step on the device") {
    for (const std::size_t count : wt::awkward_sizes()) {
        const auto in = inputs("vadd_chain", count);
        wt::Output f(count);
        const auto reply = wt::call("vadd_chain", chain_request(in, count, f));
        const std::string guard = f.take(reply.array("f", f.whole()));

        const std::vector<std::span<const float>> terms{in[0], in[1], in[2], in[3]};
        const auto cmp = workbook::compare(workbook::reference::elementwise_sum(terms), f.values(),
                                           workbook::reference::sum_tolerance(4),
                                           workbook::reference::elementwise_magnitude(terms));
        CHECK_MESSAGE(guard.empty(), fmt::format("f with count = {}: {} ({})", count, guard, wt::repeat_hint()));
        CHECK_MESSAGE(cmp.ok(), wt::explain_result("f = a + b + e + g", count, cmp));
        if (!guard.empty() || !cmp.ok()) break;
    }
}

TEST_CASE("03_vadd_chain: the three launches run the kernel they are given, on the device") {
    // The runner hands vadd_chain the test's own vadd (witness.hpp), built from the device's binary
    // of it: each launch adds a mark only it computes, so f carries three. Host code that moves
    // the data out and sums it on the CPU returns f without them.
    const std::size_t count = wt::small_sizes_only() ? 61 : 4099;
    const auto in = inputs("vadd_chain witness", count);
    wt::Output f(count);
    auto request = chain_request(in, count, f);
    wt::Witness w = wt::vector_sum_witness("vadd.cl", "vadd", 2);
    // Each of the chain's three adds over the inputs given: a and b, then e, then g.
    w.watched = in;
    w.launches = {{"vadd", {0, 1}, "a and b"}, {"vadd", {2}, "e"}, {"vadd", {3}, "g"}};
    const auto reply = wt::witness_call("vadd_chain", std::move(request), w);
    const std::string guard = f.take(reply.array("f", f.whole()));
    CHECK_MESSAGE(guard.empty(), fmt::format("f with the test's own vadd.cl: {} ({})", guard, wt::repeat_hint()));
    // c = (a + b) + m, d = (c + e) + m, f = (d + g) + m, in the kernel's order.
    std::vector<float> expected(count), scale(count);
    for (std::size_t i = 0; i < count; ++i) {
        const float m = wt::witness_mark(w.key, static_cast<std::uint32_t>(i));
        expected[i] = ((in[0][i] + in[1][i]) + m + in[2][i]) + m + in[3][i] + m;
        scale[i] = std::abs(in[0][i]) + std::abs(in[1][i]) + std::abs(in[2][i]) + std::abs(in[3][i]) + 3 * m;
    }
    const auto values = f.values();
    const auto cmp = workbook::compare(expected, values, workbook::reference::sum_tolerance(7), scale);
    if (!cmp.ok()) {
        const std::vector<std::span<const float>> terms{in[0], in[1], in[2], in[3]};
        const bool plain = workbook::compare(workbook::reference::elementwise_sum(terms), values,
                                             workbook::reference::sum_tolerance(4),
                                             workbook::reference::elementwise_magnitude(terms))
                               .ok();
        const std::string why = wt::explain_result("f with the test's own vadd.cl", count, cmp) + "\n" +
                   (plain ? "vadd_chain returned a + b + e + g without the marks that kernel adds at each launch, so "
                            "it did not run the kernel it was given three times on the device: it computed f some "
                            "other way (on the CPU?). Launch the kernel you are given for each step."
                          : "vadd_chain did not return the three marks that kernel adds, one per launch: launch it "
                            "three times, on (a, b), (c, e) and (d, g).");
        FAIL_CHECK(why);
    }
}
