// Exercise 13 graded test: enqueue_graph() is graded on its results and on its order. The runner
// (runner.cpp) holds each independent command back with its own user event and reports, between
// the releases, which commands had started, and what each command waits for (its wait list, read
// where it was enqueued: the same on every device); this test judges that, the results, the
// profiling timestamps of all three, and, with kernels of its own in place of events.cl, that
// the device ran them (witness.hpp).
#include "graph_harness.hpp"

#include "workbook/testing.hpp"
#include "workbook/witness.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>

namespace wt = workbook::testing;
using namespace workbook::ex13;

namespace {

workbook::EventTimes times(const workbook::runner::Message& m, const std::string& name) {
    auto value = [&](const char* field) {
        const std::string& text = m.str(name + "." + field);
        std::size_t used = 0;
        cl_ulong v = 0;
        try {
            v = std::stoull(text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != text.size())
            throw workbook::runner::ProtocolError("the runner sent a bad timestamp for " + name);
        return v;
    };
    return {value("queued"), value("submit"), value("start"), value("end")};
}

// The order as the wait lists give it (wait_lists.hpp): what a device that runs its out-of-order
// queue in enqueue order hides from the checks of which commands had started.
void check_wait_lists(const workbook::runner::Message& m) {
    if (m.num("order.logged") == -1) {
        MESSAGE("the runner cannot log wait lists on this platform (Windows): the order is judged from which "
                "commands have started alone");
        return;
    }
    REQUIRE_MESSAGE(m.num("order.logged") == 1,
                    "the three events enqueue_graph returned are not those of commands it enqueued (with "
                    "clEnqueueNDRangeKernel, a kernel functor or enqueueNDRangeKernel): return each command's own "
                    "event");
    CHECK_MESSAGE(m.num("order.first_waits_release") == 1,
                  "first does not wait for release_first: its wait list must hold release_first");
    CHECK_MESSAGE(m.num("order.second_waits_release") == 1,
                  "second does not wait for release_second: its wait list must hold release_second");
    CHECK_MESSAGE(m.num("order.joined_waits_first") == 1,
                  "joined does not wait for first: its wait list must hold first's event");
    CHECK_MESSAGE(m.num("order.joined_waits_second") == 1,
                  "joined does not wait for second: its wait list must hold second's event (the join reads y, "
                  "which second writes)");
}

void check_times(const std::string& name, const workbook::EventTimes& t) {
    CHECK_MESSAGE((t.queued <= t.submit && t.submit <= t.start && t.start <= t.end),
                  fmt::format("{}: profiling timestamps out of order (queued {}, submit {}, start {}, end {})", name,
                              t.queued, t.submit, t.start, t.end));
}

// One events_graph call: a and b in, x, y and z poisoned (the Outputs keep what they were given).
workbook::runner::Message graph_request(const std::vector<float>& a, const std::vector<float>& b, const wt::Output& x,
                                        const wt::Output& y, const wt::Output& z, bool released) {
    workbook::runner::Message request;
    request.numbers["count"] = static_cast<double>(a.size());
    request.arrays["a"] = wt::padded(a);
    request.arrays["b"] = wt::padded(b);
    request.arrays["x"] = x.initial();
    request.arrays["y"] = y.initial();
    request.arrays["z"] = z.initial();
    if (released) request.numbers["released"] = 1;
    return request;
}

}  // namespace

TEST_CASE("13_events: two held commands, a join that waits for both, results and timestamps") {
    bool told = false;
    // Under the race pass (Oclgrind, whose queue never runs a command a user event holds) the
    // runner sets both user events first: the kernels and z are checked, not the order.
    const bool released = wt::race_pass();
    if (released)
        MESSAGE("race pass: the user events are set before enqueue_graph runs (Oclgrind never releases commands "
                "held by user events), so this run checks the kernels' memory accesses and z, not the order");
    const std::vector<std::size_t> counts = wt::small_sizes_only()
                                                ? std::vector<std::size_t>{1, 61}
                                                : std::vector<std::size_t>{1, 1000, (std::size_t{1} << 20) + 3};
    for (const std::size_t count : counts) {
        CAPTURE(count);
        auto rng = wt::rng("events", count);
        const auto a = rng.uniform_vector(count), b = rng.uniform_vector(count);
        wt::Output x(count), y(count), z(count);
        const auto m = wt::call("events_graph", graph_request(a, b, x, y, z, released));
        if (!told && !released) {
            MESSAGE(m.str("note"));
            if (m.num("overtakes") == 0)
                MESSAGE("this device runs its out-of-order queue in enqueue order, so which commands have started "
                        "shows little here; the wait lists themselves are checked, as on every device");
            told = true;
        }

        check_wait_lists(m);
        if (!released) {
            CHECK_MESSAGE(m.num("held.first_started") == 0, "first started before release_first was set: its wait "
                                                            "list must hold release_first");
            CHECK_MESSAGE(m.num("held.second_started") == 0, "second started before release_second was set: its wait "
                                                             "list must hold release_second");
            CHECK_MESSAGE(m.num("held.joined_started") == 0, "joined started while both inputs were still held");
            CHECK_MESSAGE(m.num("after_first.second_started") == 0, "second ran although only release_first was set");
            CHECK_MESSAGE(m.num("after_first.joined_started") == 0,
                          fmt::format("joined is {} although second is still held: its wait list must hold both first "
                                      "and second",
                                      m.str("after_first.joined_status")));
        }

        const std::string guard = z.take(m.array("z", z.whole()));
        const auto expected = expected_z(a, b);
        const auto result = workbook::compare(expected.z, z.values(), ExpectedZ::tolerance, expected.scale);
        CHECK_MESSAGE(guard.empty(), guard);
        CHECK_MESSAGE(result.ok(), wt::explain_result("z = 2a + 3b", count, result));

        const auto first = times(m, "first"), second = times(m, "second"), joined = times(m, "joined");
        check_times("first", first);
        check_times("second", second);
        check_times("joined", joined);
        CHECK_MESSAGE(joined.start >= first.end, "joined started before first ended");
        CHECK_MESSAGE(joined.start >= second.end, "joined started before second ended");
        if (!result.ok() || !guard.empty()) break;
        // `workbook check` asks for the picture of the student's own run (the largest one).
        const char* dir = std::getenv("WORKBOOK_TIMELINE_DIR");
        if (dir && *dir && !released && count == counts.back()) {
            const std::string path = std::string(dir) + "/13_events-timeline.svg";
            workbook::write_timeline_svg(path,
                                         {{"first", first, {}}, {"second", second, {}},
                                          {"joined", joined, {"first", "second"}}},
                                         fmt::format("Your exercise 13 graph: {} elements", count));
            fmt::print("timeline picture: {}\n", path);
            wt::record_timeline(path);
        }
    }
}

TEST_CASE("13_events: the graph launches the kernels it is given, on the device") {
    // The witness (witness.hpp): the test's own events.cl in place of the exercise's, whose scale
    // and add each add a mark to every value they write. Only a graph that launches them on the
    // device returns z = 2a + 3b + 3·mark; one computed some other way has no marks.
    const std::size_t count = wt::small_sizes_only() ? 61 : 1000;
    auto rng = wt::rng("events witness", count);
    const auto a = rng.uniform_vector(count), b = rng.uniform_vector(count);
    wt::Witness w = wt::kernels_witness("events.cl", R"(
__kernel void scale(__global const float* in, __global float* out, const float factor, const unsigned int count
                    WORKBOOK_SECRET_PARAM) {
    const uint i = (uint)get_global_id(0);
    if (i < count) out[i] = factor * in[i] + witness_mark(i);
}
__kernel void add(__global const float* a, __global const float* b, __global float* out, const unsigned int count
                  WORKBOOK_SECRET_PARAM) {
    const uint i = (uint)get_global_id(0);
    if (i < count) out[i] = a[i] + b[i] + witness_mark(i);
}
)");
    w.watched = {a, b};
    w.launches = {{"scale", {0}, "a"}, {"scale", {1}, "b"}};
    w.bounds = "scale:count:1 add:count:1";
    wt::Output x(count), y(count), z(count);
    // Released: the order is checked above; this call is about who computes z.
    auto request = graph_request(a, b, x, y, z, true);
    const auto m = wt::witness_call("events_graph", std::move(request), w);
    const std::string guard = z.take(m.array("z", z.whole()));
    CHECK_MESSAGE(guard.empty(), fmt::format("{} elements with the test's own events.cl: {} ({})", count, guard,
                                             wt::repeat_hint()));
    // x = 2a + mark and y = 3b + mark round once or twice each, their sum and the last mark once
    // each: five roundings of at most 2^-24 of |2a| + |3b| + 3·mark, with one to spare.
    const auto plain = expected_z(a, b);
    std::vector<float> marked(count), scale(count);
    for (std::size_t i = 0; i < count; ++i) {
        const double mark = wt::witness_mark(w.key, static_cast<std::uint32_t>(i));
        marked[i] = static_cast<float>(2.0 * a[i] + 3.0 * b[i] + 3.0 * mark);
        scale[i] = plain.scale[i] + static_cast<float>(3.0 * mark);
    }
    const workbook::Tolerance tolerance{1e-37, 6 * workbook::float_unit_roundoff};
    const auto got = z.values();
    const auto result = workbook::compare(marked, got, tolerance, scale);
    if (!result.ok()) {
        const bool plain_result = workbook::compare(plain.z, got, ExpectedZ::tolerance, plain.scale).ok();
        const std::string what = wt::explain_result("z with the test's own events.cl", count, result);
        if (plain_result)
            FAIL_CHECK(fmt::format(
                "{}\nFor this case the test built its own events.cl (the same kernels and arguments; every value they "
                "write carries a mark of its own) and passed that program to enqueue_graph. z came back right but "
                "without the marks, so the kernels were not run: it was computed some other way (on the CPU?). A "
                "grade here says the device did the work: launch scale and add from the program you are given.",
                what));
        else
            FAIL_CHECK(fmt::format("{}\n(The test's own events.cl computes x = 2a + mark, y = 3b + mark and "
                                   "z = x + y + mark: a graph that passes the case above passes this one.)",
                                   what));
    }
}
