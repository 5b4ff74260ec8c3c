// Exercise 14 graded test: smooth at awkward sizes (the last group partly past the end), random
// inputs, poisoned output with a guard band, against the CPU reference; and every work-item of a
// launch must run async_work_group_copy and wait_group_events, which this exercise is about
// (counted by Oclgrind: what ran, not the source's words).
#include "launch.hpp"

#include "workbook/kernels.hpp"
#include "workbook/testing.hpp"
#include "workbook/text.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace wt = workbook::testing;

namespace {

// The runner's request: the input with its slack, the output poisoned with its guard band.
workbook::runner::Message smooth_request(const std::vector<float>& in, const wt::Output& out) {
    workbook::runner::Message request;
    request.numbers["count"] = static_cast<double>(in.size());
    request.arrays["in"] = wt::padded(in);
    request.arrays["out"] = out.initial();
    return request;
}

}  // namespace

TEST_CASE("14_async_copy: the kernel copies its tile with async_work_group_copy and waits for it") {
    // Judged by what a launch ran, counted by Oclgrind: every work-item of every group must reach
    // both calls (the OpenCL rule for a group's copy), so calls in a branch no launch takes, or
    // in one group only, do not count.
    if (wt::race_pass()) {
        MESSAGE("the count of the kernel's calls is left out under the simulator: it runs Oclgrind itself");
        return;
    }
    const std::size_t count = 61;  // a partial last group
    const auto in = wt::rng("smooth calls", count).uniform_vector(count);
    std::string why_not;
    const auto counted = wt::counted_call("smooth", smooth_request(in, wt::Output(count)), why_not);
    if (!counted) {
        // Without Oclgrind (a GPU node), the words of the source, said as such; the graders have it.
        const auto source = workbook::kernel_source("smooth.cl");
        const std::string code = workbook::without_comments(source.text);  // the starter's TODOs name both
        MESSAGE(fmt::format("what the kernel runs cannot be counted here ({}): only its source is read", why_not));
        for (const char* call : {"async_work_group_copy", "wait_group_events"})
            CHECK_MESSAGE(workbook::has_word(code, call),
                          fmt::format("{} does not call {}: this exercise is about copying the tile with it", source.path,
                                      call));
        return;
    }
    // At least one call per work-item of the launch (its global size, as the runner launched it).
    const auto items = static_cast<std::uint64_t>(counted->reply.num("global"));
    for (const char* call : {"async_work_group_copy", "wait_group_events"}) {
        const std::uint64_t n = counted->counts.called(call);
        CHECK_MESSAGE((n > 0 && n >= items),
                      fmt::format("a launch of smooth over {} elements ({} work-items) ran {} {} {}: every work-item of "
                                  "every group must reach its group's {}, since this exercise is about copying the tile "
                                  "with it. A call in a branch no launch takes does not count ({})",
                                  count, items, call, n, n == 1 ? "time" : "times", call, wt::repeat_hint()));
    }
}

TEST_CASE("14_async_copy: out[i] = (in[i-1] + in[i] + in[i+1]) / 3 for awkward sizes") {
    for (const std::size_t count : wt::awkward_sizes()) {
        const auto in = wt::rng("smooth", count).uniform_vector(count);
        wt::Output out(count);
        const auto reply = wt::call("smooth", smooth_request(in, out));
        const std::string guard = out.take(reply.array("out", out.whole()));
        const auto result = workbook::compare(workbook::ex14::reference(in), out.values(), workbook::ex14::tolerance,
                                              workbook::ex14::scale(in));
        const std::string what =
            fmt::format("smooth (work-groups of {}, global size {})", reply.num("local"), reply.num("global"));
        CHECK_MESSAGE(guard.empty(), fmt::format("{} with count = {}: {} ({})", what, count, guard, wt::repeat_hint()));
        CHECK_MESSAGE(result.ok(), wt::explain_result(what, count, result));
        if (!guard.empty() || !result.ok()) break;
    }
}
