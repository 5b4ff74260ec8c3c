// Exercise 13 solution: the wait lists are the graph.
#include "events.hpp"

#include <vector>

namespace workbook::ex13 {

GraphEvents enqueue_graph(cl::CommandQueue& queue, const cl::Program& program, const GraphBuffers& buffers,
                          const cl::UserEvent& release_first, const cl::UserEvent& release_second) {
    // One kernel object serves both scale commands: its arguments are copied at each enqueue.
    cl::KernelFunctor<cl::Buffer, cl::Buffer, float, cl_uint> scale(program, "scale");
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, cl_uint> add(program, "add");
    const cl::NDRange range(buffers.count);

    // On an out-of-order queue a command may start as soon as everything in its wait list is
    // complete, whatever the order of the enqueues. A user event stays incomplete until the host
    // sets it, so these two are held back until then.
    GraphEvents events;
    const std::vector<cl::Event> after_first{release_first}, after_second{release_second};
    events.first = scale(cl::EnqueueArgs(queue, after_first, range), buffers.a, buffers.x, 2.0f, buffers.count);
    events.second = scale(cl::EnqueueArgs(queue, after_second, range), buffers.b, buffers.y, 3.0f, buffers.count);
    // The join reads x and y, so it must wait for both commands that write them.
    const std::vector<cl::Event> both{events.first, events.second};
    events.joined = add(cl::EnqueueArgs(queue, both, range), buffers.x, buffers.y, buffers.z, buffers.count);
    // Hand everything to the device now; waiting here would never end, since the caller releases
    // the user events only after this function returns.
    queue.flush();
    return events;
}

}  // namespace workbook::ex13
