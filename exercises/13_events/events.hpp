// Exercise 13: the function you write in events.cpp, and the queue it runs on. Do not edit this
// file: the demo and the graded test call exactly these declarations.
#pragma once

#include "workbook/cl.hpp"
#include "workbook/timing.hpp"

#include <string>

namespace workbook::ex13 {

// Device buffers of `count` floats: a and b are filled; x, y and z receive results.
struct GraphBuffers {
    cl::Buffer a, b, x, y, z;
    cl_uint count = 0;
};

// The three commands of the graph.
struct GraphEvents {
    cl::Event first, second, joined;
};

// Enqueues, on `queue`, with the kernels of events.cl (program):
//   first:  x = 2·a  (kernel scale), held back until release_first is complete;
//   second: y = 3·b  (kernel scale), held back until release_second is complete;
//   joined: z = x + y (kernel add), after both first and second have finished.
// Returns at once, without waiting for any of them: the caller decides when to release them.
GraphEvents enqueue_graph(cl::CommandQueue& queue, const cl::Program& program, const GraphBuffers& buffers,
                          const cl::UserEvent& release_first, const cl::UserEvent& release_second);

// An out-of-order queue with profiling where the device offers one (then only wait lists order
// the commands); else an in-order profiling queue. `note` says which, and why.
inline cl::CommandQueue make_graph_queue(const cl::Context& context, const cl::Device& device, std::string& note) {
    const cl_command_queue_properties offered = device.getInfo<CL_DEVICE_QUEUE_PROPERTIES>();
    if (offered & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        note = "out-of-order queue: only the wait lists order the commands";
        return cl::CommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    }
    note = "this device offers no out-of-order queue, so an in-order one is used: commands also run in the order "
           "they were enqueued, and a missing wait-list entry can go unnoticed";
    return make_queue(context, device);
}

}  // namespace workbook::ex13
