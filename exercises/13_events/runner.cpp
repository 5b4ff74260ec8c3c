// Exercise 13's runner (see workbook/runner.hpp): drives your enqueue_graph with two user events
// and reports what it observes between the releases (which commands had started), what each of
// the three commands waits for (wait_lists.hpp), z, and each command's profiling timestamps. The
// graded test judges them. Do not edit.
#include "graph_harness.hpp"
#include "wait_lists.hpp"

#include "workbook/program.hpp"
#include "workbook/runner_device.hpp"
#include "workbook/runner_ops.hpp"

#include <thread>

namespace {

namespace wr = workbook::runner;
using namespace workbook::ex13;

// Time for a released command to be picked up by the device.
void settle(cl::CommandQueue& queue) {
    queue.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

void put_times(wr::Message& m, const std::string& name, const cl::Event& e) {
    const auto t = workbook::event_times(e);
    // As text: nanosecond timestamps need all 64 bits.
    m.text[name + ".queued"] = std::to_string(t.queued);
    m.text[name + ".submit"] = std::to_string(t.submit);
    m.text[name + ".start"] = std::to_string(t.start);
    m.text[name + ".end"] = std::to_string(t.end);
}

// What the wait lists say about the order: 1 where the command cannot start before the other.
void put_order(wr::Message& m, const GraphEvents& e, const cl::UserEvent& release_first,
               const cl::UserEvent& release_second) {
    if (!WaitLists::available) {
        m.numbers["order.logged"] = -1;
        return;
    }
    auto& log = WaitLists::log();
    m.numbers["order.logged"] = log.logged(e.first()) && log.logged(e.second()) && log.logged(e.joined());
    m.numbers["order.first_waits_release"] = log.waits_for(e.first(), release_first());
    m.numbers["order.second_waits_release"] = log.waits_for(e.second(), release_second());
    m.numbers["order.joined_waits_first"] = log.waits_for(e.joined(), e.first());
    m.numbers["order.joined_waits_second"] = log.waits_for(e.joined(), e.second());
}

const wr::Operation graph("events_graph", [](const wr::Message& r) {
    auto& dev = wr::device();
    static std::string note;
    static cl::CommandQueue queue = make_graph_queue(dev.context, dev.choice.device, note);
    // The checker's witness events.cl (witness.hpp) when the request carries one: built for this
    // call only.
    const auto witness = wr::witness_kernel(r);
    const cl::Program program =
        witness ? workbook::build_program(dev.context, workbook::kernel_source("events.cl")) : wr::program("events.cl");
    // "released": the race pass, under Oclgrind, whose queue never runs a command held by a user
    // event: both are set before enqueue_graph runs, and nothing is observed between releases.
    const bool released = r.numbers.count("released") && r.num("released") != 0;
    static const bool overtakes = !released && overtakes_held_commands(dev.context, queue, program);

    const auto& z_initial = r.array("z");
    const cl::Buffer x = wr::buffer_of(r.array("x")), y = wr::buffer_of(r.array("y")), z = wr::buffer_of(z_initial);
    const GraphBuffers buffers{wr::buffer_of(r.array("a"), CL_MEM_READ_ONLY), wr::buffer_of(r.array("b"), CL_MEM_READ_ONLY),
                               x, y, z, static_cast<cl_uint>(r.num("count"))};
    cl::UserEvent release_first(dev.context), release_second(dev.context);

    wr::Message m;
    m.text["note"] = note;
    m.numbers["overtakes"] = overtakes ? 1 : 0;
    // What every run replies: z and the three events' times, once all three are done.
    auto finish = [&](const GraphEvents& e) {
        put_order(m, e, release_first, release_second);
        e.joined.wait();
        e.first.wait();
        e.second.wait();
        m.arrays["z"] = wr::read_back(z, z_initial.size());
        put_times(m, "first", e.first);
        put_times(m, "second", e.second);
        put_times(m, "joined", e.joined);
        return m;
    };
    WaitLists::log().clear();
    if (released) {
        release_first.setStatus(CL_COMPLETE);
        release_second.setStatus(CL_COMPLETE);
        return finish(enqueue_graph_guarded(queue, program, buffers, release_first, release_second));
    }
    const GraphEvents e = enqueue_graph_guarded(queue, program, buffers, release_first, release_second);
    settle(queue);
    m.numbers["held.first_started"] = has_started(e.first);
    m.numbers["held.second_started"] = has_started(e.second);
    m.numbers["held.joined_started"] = has_started(e.joined);

    release_first.setStatus(CL_COMPLETE);
    e.first.wait();
    settle(queue);
    m.numbers["after_first.second_started"] = has_started(e.second);
    m.numbers["after_first.joined_started"] = has_started(e.joined);
    m.text["after_first.joined_status"] = status_name(e.joined);

    release_second.setStatus(CL_COMPLETE);
    return finish(e);
});

}  // namespace
