// Exercise 14 graded test: smooth at awkward sizes (the last group partly past the end), random
// inputs, poisoned output with a guard band, against the CPU reference; and the kernel must use
// async_work_group_copy and wait_group_events, which this exercise is about.
#include "launch.hpp"

#include "workbook/kernels.hpp"
#include "workbook/testing.hpp"
#include "workbook/text.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace wt = workbook::testing;

TEST_CASE("14_async_copy: the kernel copies its tile with async_work_group_copy and waits for it") {
    const auto source = workbook::kernel_source("smooth.cl");
    // Comments don't count: the starter's TODOs name both calls.
    const std::string code = workbook::without_comments(source.text);
    for (const char* call : {"async_work_group_copy", "wait_group_events"})
        CHECK_MESSAGE(workbook::has_word(code, call),
                      fmt::format("{} does not call {}: this exercise is about copying the tile with it", source.path,
                                  call));
}

TEST_CASE("14_async_copy: out[i] = (in[i-1] + in[i] + in[i+1]) / 3 for awkward sizes") {
    for (const std::size_t count : wt::awkward_sizes()) {
        const auto in = wt::rng("smooth", count).uniform_vector(count);
        wt::Output out(count);
        workbook::runner::Message request;
        request.numbers["count"] = static_cast<double>(count);
        request.arrays["in"] = wt::padded(in);
        request.arrays["out"] = out.initial();
        const auto reply = wt::call("smooth", std::move(request));
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
