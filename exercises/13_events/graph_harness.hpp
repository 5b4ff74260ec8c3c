// Exercise 13: what the demo and the graded test share to drive your graph: a call that cannot
// hang on a function that waits, and names for command states. Do not edit.
#pragma once

#include "events.hpp"
#include "workbook/check.hpp"
#include "workbook/errors.hpp"

#include <cmath>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace workbook::ex13 {

// "queued", "submitted", "running", "complete", or the error name of a failed command.
inline std::string status_name(const cl::Event& event) {
    const cl_int s = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
    switch (s) {
        case CL_QUEUED: return "queued";
        case CL_SUBMITTED: return "submitted";
        case CL_RUNNING: return "running";
        case CL_COMPLETE: return "complete";
        default: return "failed with " + describe_error(s);
    }
}

// Running or finished (or failed): no longer held.
inline bool has_started(const cl::Event& event) {
    return event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() <= CL_RUNNING;
}

// Calls enqueue_graph on another thread. If it has not returned after a few seconds it is waiting
// for commands the user events still hold: both are then released so that it can return, and a
// workbook::Error explains the mistake.
inline GraphEvents enqueue_graph_guarded(cl::CommandQueue& queue, const cl::Program& program,
                                         const GraphBuffers& buffers, cl::UserEvent& release_first,
                                         cl::UserEvent& release_second) {
    auto call = std::async(std::launch::async, [&] {
        return enqueue_graph(queue, program, buffers, release_first, release_second);
    });
    // On every way out but success the user events are completed here: a driver may refuse to
    // let a process end while a user event it knows of is still incomplete.
    // (Setting a user event twice is an error: the caller may have released them already.)
    auto release_both = [&] {
        for (cl::UserEvent* e : {&release_first, &release_second})
            if (e->getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE) e->setStatus(CL_COMPLETE);
    };
    if (call.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        release_both();
        call.wait();
        throw Error("enqueue_graph did not return within 5 s: it waited (finish(), wait() or a blocking read) for "
                    "commands that the user events hold back, and those are released only after it returns. "
                    "Enqueue, flush and return.");
    }
    GraphEvents events;
    try {
        events = call.get();
    } catch (...) {
        release_both();
        throw;
    }
    if (!events.first() || !events.second() || !events.joined()) {
        release_both();
        throw Error("enqueue_graph returned an empty event: return the cl::Event of each of the three commands "
                    "(the kernel functor returns it).");
    }
    return events;
}

// What z must hold, z = 2a + 3b computed in double, and the scale of its rounding error
// (|2a| + |3b|): 2a is exact, 3b and the sum round once each, so 3·2^-24 of that scale bounds it.
struct ExpectedZ {
    std::vector<float> z, scale;
    static constexpr Tolerance tolerance{1e-37, 3 * float_unit_roundoff};
};
inline ExpectedZ expected_z(const std::vector<float>& a, const std::vector<float>& b) {
    ExpectedZ e{std::vector<float>(a.size()), std::vector<float>(a.size())};
    for (std::size_t i = 0; i < a.size(); ++i) {
        e.z[i] = static_cast<float>(2.0 * a[i] + 3.0 * b[i]);
        e.scale[i] = std::abs(2.0f * a[i]) + std::abs(3.0f * b[i]);
    }
    return e;
}

// Whether the queue really lets a later command overtake an earlier one that is held back. Some
// drivers accept the out-of-order property and still run commands in the order they were
// enqueued; on those a missing wait-list entry cannot be seen from outside.
inline bool overtakes_held_commands(const cl::Context& context, cl::CommandQueue& queue, const cl::Program& program) {
    float one = 1.0f;
    cl::Buffer in(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof one, &one);
    cl::Buffer out(context, CL_MEM_WRITE_ONLY, 2 * sizeof one);
    cl::KernelFunctor<cl::Buffer, cl::Buffer, float, cl_uint> scale(program, "scale");
    cl::UserEvent hold(context);
    const std::vector<cl::Event> held_list{hold};
    const cl::Event held = scale(cl::EnqueueArgs(queue, held_list, cl::NDRange(1)), in, out, 2.0f, 1u);
    const cl::Event free = scale(cl::EnqueueArgs(queue, cl::NDRange(1)), in, out, 3.0f, 1u);
    queue.flush();
    bool overtook = false;
    for (int tries = 0; tries < 100 && !overtook; ++tries) {
        overtook = free.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE;
        if (!overtook) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    hold.setStatus(CL_COMPLETE);
    queue.finish();
    return overtook;
}

}  // namespace workbook::ex13
