// Exercise 13: a small graph of commands ordered by events on an out-of-order queue.
#include "events.hpp"

#include <vector>

namespace workbook::ex13 {

GraphEvents enqueue_graph(cl::CommandQueue& queue, const cl::Program& program, const GraphBuffers& buffers,
                          const cl::UserEvent& release_first, const cl::UserEvent& release_second) {
    GraphEvents events;
    // TODO: functors for the two kernels of events.cl:
    //       cl::KernelFunctor<cl::Buffer, cl::Buffer, float, cl_uint> scale(program, "scale");
    //       cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, cl_uint> add(program, "add");
    // TODO: first  = x = 2·a, with a wait list holding release_first:
    //       scale(cl::EnqueueArgs(queue, wait_list, cl::NDRange(buffers.count)), buffers.a, buffers.x, 2.0f, buffers.count)
    // TODO: second = y = 3·b, waiting for release_second.
    // TODO: joined = z = x + y, waiting for BOTH first and second: on an out-of-order queue nothing
    //       else stops it from starting early.
    // TODO: queue.flush() hands the commands to the device without waiting. Do not call finish() or
    //       wait(): nothing can finish before the caller releases the user events.
    (void)queue, (void)program, (void)buffers, (void)release_first, (void)release_second;
    return events;
}

}  // namespace workbook::ex13
