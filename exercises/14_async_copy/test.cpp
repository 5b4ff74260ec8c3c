// Exercise 14 graded test: smooth at awkward sizes (the last group partly past the end), random
// inputs, poisoned output with a guard band, against the CPU reference; and the kernel must use
// async_work_group_copy and wait_group_events, which this exercise is about.
#include "launch.hpp"

#include "workbook/program.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <regex>

namespace wt = workbook::testing;

TEST_CASE("14_async_copy: the kernel copies its tile with async_work_group_copy and waits for it") {
    const auto source = workbook::kernel_source("smooth.cl");
    // Comments don't count: the starter's TODOs name both calls.
    static const std::regex comments(R"(//[^\n]*|/\*[\s\S]*?\*/)");
    const std::string code = std::regex_replace(source.text, comments, " ");
    for (const char* call : {"async_work_group_copy", "wait_group_events"})
        CHECK_MESSAGE(code.find(call) != std::string::npos,
                      fmt::format("{} does not call {}: this exercise is about copying the tile with it", source.path,
                                  call));
}

TEST_CASE("14_async_copy: out[i] = (in[i-1] + in[i] + in[i+1]) / 3 for awkward sizes") {
    auto& dev = wt::device();
    const cl::Program program = workbook::build_program(dev.context, workbook::kernel_source("smooth.cl"));
    cl::Kernel kernel(program, "smooth");
    for (const std::size_t count : wt::awkward_sizes()) {
        const auto in = wt::rng("smooth", count).uniform_vector(count);
        const wt::DeviceOutput out(count);
        const auto l = workbook::ex14::launch(kernel, dev.choice.device, count);
        workbook::ex14::enqueue(dev.queue, kernel, wt::padded_input(in), out.buffer(), count, l);
        std::string guard;
        const auto got = out.read(guard);
        const auto result = workbook::compare(workbook::ex14::reference(in), got, workbook::ex14::tolerance,
                                              workbook::ex14::scale(in));
        const std::string what = fmt::format("smooth (work-groups of {}, global size {})", l.local, l.global);
        CHECK_MESSAGE(guard.empty(), fmt::format("{} with count = {}: {} ({})", what, count, guard, wt::repeat_hint()));
        CHECK_MESSAGE(result.ok(), wt::explain_result(what, count, result));
        if (!guard.empty() || !result.ok()) break;
    }
}
