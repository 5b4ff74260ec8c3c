// Exercise 13's runner only (runner.cpp includes this once): a log of every command enqueued in
// this process and what it waits for, so that the graded test can judge your graph's order on
// every device. Watching which commands have started shows a missing wait-list entry only where
// the queue really runs commands out of order; some drivers (NVIDIA's) accept an out-of-order
// queue and still run everything in the order it was enqueued, which hides a join that waits for
// one input only. The log sees the wait lists themselves. Do not edit.
//
// The runner defines the enqueue functions below; calls from this program (your events.cpp
// included) reach them first, and they hand each call on to the OpenCL library's own.
#pragma once

#include "workbook/cl.hpp"

#if !defined(_WIN32)
#include <dlfcn.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace workbook::ex13 {

class WaitLists {
public:
#if defined(_WIN32)
    static constexpr bool available = false;  // no RTLD_NEXT to hand the calls on with
#else
    static constexpr bool available = true;
#endif
    static WaitLists& log() {
        static WaitLists l;
        return l;
    }

    // Forgets every command logged so far.
    void clear() {
        std::lock_guard lock(mutex_);
        for (auto& c : commands_) {
            clReleaseEvent(c.event);
            for (cl_event w : c.waits) clReleaseEvent(w);
        }
        commands_.clear();
    }

    // Whether a command with event `e` was logged.
    bool logged(cl_event e) {
        std::lock_guard lock(mutex_);
        return find(e) != npos;
    }

    // Whether `later` cannot start before `earlier` is complete: `earlier` is in its wait list, or
    // in the wait list of a command it waits for, and so on. A command on an in-order queue, and a
    // marker or barrier without a wait list, also waits for everything enqueued before it on its
    // queue; every command waits for the barriers enqueued before it on its queue.
    bool waits_for(cl_event later, cl_event earlier) {
        std::lock_guard lock(mutex_);
        std::vector<bool> seen(commands_.size(), false);
        return reaches(later, earlier, seen);
    }

    enum class Kind { kernel, marker, barrier };
    void add(cl_command_queue queue, cl_uint count, const cl_event* waits, cl_event event, Kind kind) {
        if (!event) return;
        cl_command_queue_properties props = 0;
        clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr);
        const bool in_order = !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        Command c{queue, event, {}, in_order || (kind != Kind::kernel && count == 0), kind == Kind::barrier};
        // Held, so that no handle is reused for another event while it is in the log.
        clRetainEvent(event);
        for (cl_uint i = 0; waits && i < count; ++i) {
            clRetainEvent(waits[i]);
            c.waits.push_back(waits[i]);
        }
        std::lock_guard lock(mutex_);
        commands_.push_back(std::move(c));
    }

private:
    struct Command {
        cl_command_queue queue;
        cl_event event;
        std::vector<cl_event> waits;
        bool waits_for_earlier;  // everything enqueued before it on its queue
        bool barrier;            // everything enqueued after it on its queue waits for it
    };
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    std::size_t find(cl_event e) const {
        for (std::size_t i = 0; i < commands_.size(); ++i)
            if (commands_[i].event == e) return i;
        return npos;
    }

    bool reaches(cl_event from, cl_event target, std::vector<bool>& seen) const {
        const std::size_t i = find(from);
        if (i == npos || seen[i]) return false;
        seen[i] = true;
        const Command& c = commands_[i];
        for (cl_event w : c.waits)
            if (w == target || reaches(w, target, seen)) return true;
        for (std::size_t j = 0; j < i; ++j) {
            const Command& before = commands_[j];
            if (before.queue != c.queue || !(c.waits_for_earlier || before.barrier)) continue;
            if (before.event == target || reaches(before.event, target, seen)) return true;
        }
        return false;
    }

    std::mutex mutex_;
    std::vector<Command> commands_;
};

#if !defined(_WIN32)
// The OpenCL library's own function `name`.
template <class F>
F library_function(const char* name) {
    void* f = dlsym(RTLD_NEXT, name);
    if (!f) {
        std::fprintf(stderr, "runner: the OpenCL library has no %s\n", name);
        std::abort();
    }
    return reinterpret_cast<F>(f);
}

// Runs `call` with an event of the runner's own when the caller asked for none, logs the command,
// and gives the caller its event.
template <class Call>
cl_int logged_enqueue(cl_command_queue queue, cl_uint count, const cl_event* waits, cl_event* event,
                      WaitLists::Kind kind, Call call) {
    cl_event mine = nullptr;
    const cl_int err = call(&mine);
    if (err == CL_SUCCESS) WaitLists::log().add(queue, count, waits, mine, kind);
    if (event)
        *event = mine;
    else if (mine)
        clReleaseEvent(mine);
    return err;
}

#endif

}  // namespace workbook::ex13

#if !defined(_WIN32)
extern "C" {

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                                      const size_t* offset, const size_t* global,
                                                      const size_t* local, cl_uint count, const cl_event* waits,
                                                      cl_event* event) {
    using namespace workbook::ex13;
    static const auto next = library_function<decltype(&clEnqueueNDRangeKernel)>("clEnqueueNDRangeKernel");
    return logged_enqueue(queue, count, waits, event, WaitLists::Kind::kernel, [&](cl_event* e) {
        return next(queue, kernel, dims, offset, global, local, count, waits, e);
    });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint count,
                                                           const cl_event* waits, cl_event* event) {
    using namespace workbook::ex13;
    static const auto next = library_function<decltype(&clEnqueueMarkerWithWaitList)>("clEnqueueMarkerWithWaitList");
    return logged_enqueue(queue, count, waits, event, WaitLists::Kind::marker, [&](cl_event* e) { return next(queue, count, waits, e); });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint count,
                                                            const cl_event* waits, cl_event* event) {
    using namespace workbook::ex13;
    static const auto next =
        library_function<decltype(&clEnqueueBarrierWithWaitList)>("clEnqueueBarrierWithWaitList");
    return logged_enqueue(queue, count, waits, event, WaitLists::Kind::barrier, [&](cl_event* e) { return next(queue, count, waits, e); });
}

}  // extern "C"
#endif
