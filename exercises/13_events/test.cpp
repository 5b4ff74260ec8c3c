// Exercise 13 graded test: enqueue_graph() is graded on its results and on its order. The test
// holds each independent command back with its own user event and checks, between the releases,
// which commands have started; then the results, and the profiling timestamps of all three.
#include "graph_harness.hpp"

#include "workbook/program.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <thread>

namespace wt = workbook::testing;
using namespace workbook::ex13;

namespace {

// Time for a released command to be picked up by the device.
void settle(cl::CommandQueue& queue) {
    queue.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

void check_times(const std::string& name, const workbook::EventTimes& t) {
    CHECK_MESSAGE((t.queued <= t.submit && t.submit <= t.start && t.start <= t.end),
                  fmt::format("{}: profiling timestamps out of order (queued {}, submit {}, start {}, end {})", name,
                              t.queued, t.submit, t.start, t.end));
}

}  // namespace

TEST_CASE("13_events: two held commands, a join that waits for both, results and timestamps") {
    auto& dev = wt::device();
    std::string note;
    cl::CommandQueue queue = make_graph_queue(dev.context, dev.choice.device, note);
    MESSAGE(note);
    const cl::Program program = workbook::build_program(dev.context, workbook::kernel_source("events.cl"));
    if (!overtakes_held_commands(dev.context, queue, program))
        MESSAGE("this device runs its out-of-order queue in enqueue order: a join that does not wait for both "
                "inputs cannot be told apart here; PoCL shows it");

    for (const std::size_t count : {std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 20) + 3}) {
        CAPTURE(count);
        auto rng = wt::rng("events", count);
        const auto a = rng.uniform_vector(count), b = rng.uniform_vector(count);
        const wt::DeviceOutput x(count), y(count), z(count);
        const GraphBuffers buffers{wt::padded_input(a), wt::padded_input(b), x.buffer(), y.buffer(), z.buffer(),
                                   static_cast<cl_uint>(count)};
        cl::UserEvent release_first(dev.context), release_second(dev.context);

        const GraphEvents e = enqueue_graph_guarded(queue, program, buffers, release_first, release_second);
        settle(queue);
        CHECK_MESSAGE(!has_started(e.first), "first started before release_first was set: its wait list must "
                                             "hold release_first");
        CHECK_MESSAGE(!has_started(e.second), "second started before release_second was set: its wait list must "
                                              "hold release_second");
        CHECK_MESSAGE(!has_started(e.joined), "joined started while both inputs were still held");

        release_first.setStatus(CL_COMPLETE);
        e.first.wait();
        settle(queue);
        CHECK_MESSAGE(!has_started(e.second), "second ran although only release_first was set");
        CHECK_MESSAGE(!has_started(e.joined),
                      fmt::format("joined is {} although second is still held: its wait list must hold both first "
                                  "and second",
                                  status_name(e.joined)));

        release_second.setStatus(CL_COMPLETE);
        e.joined.wait();
        e.second.wait();

        std::string guard;
        const auto got = z.read(guard);
        const auto expected = expected_z(a, b);
        const auto result = workbook::compare(expected.z, got, ExpectedZ::tolerance, expected.scale);
        CHECK_MESSAGE(guard.empty(), guard);
        CHECK_MESSAGE(result.ok(), wt::explain_result("z = 2a + 3b", count, result));

        const auto first = workbook::event_times(e.first), second = workbook::event_times(e.second),
                   joined = workbook::event_times(e.joined);
        check_times("first", first);
        check_times("second", second);
        check_times("joined", joined);
        CHECK_MESSAGE(joined.start >= first.end, "joined started before first ended");
        CHECK_MESSAGE(joined.start >= second.end, "joined started before second ended");
        if (!result.ok() || !guard.empty()) break;
    }
}
