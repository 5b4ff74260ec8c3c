// Exercise 03 graded test: vadd_chain() on device-only buffers (a host round trip fails with
// CL_INVALID_OPERATION), poisoned intermediates and output, a guard band after f, awkward sizes.
// The runner (runner.cpp) sets the buffers up and calls vadd_chain; this test checks f.
#include "workbook/reference.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace wt = workbook::testing;

TEST_CASE("03_vadd_chain: f = a + b + e + g with every step on the device") {
    for (const std::size_t count : wt::awkward_sizes()) {
        auto rng = wt::rng("vadd_chain", count);
        std::vector<std::vector<float>> in;
        for (int k = 0; k < 4; ++k) in.push_back(rng.uniform_vector(count));
        // Poisoned intermediates: a skipped step leaves NaN that flows into f.
        wt::Output poisoned(count), f(count);
        workbook::runner::Message request;
        request.numbers["count"] = static_cast<double>(count);
        const char* names[] = {"a", "b", "e", "g"};
        for (int k = 0; k < 4; ++k) request.arrays[names[k]] = wt::padded(in[k]);
        request.arrays["c"] = poisoned.initial();
        request.arrays["f"] = f.initial();
        const auto reply = wt::call("vadd_chain", std::move(request));
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
