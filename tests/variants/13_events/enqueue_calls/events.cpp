// A correct graph in another style: cl::Kernel objects and queue.enqueueNDRangeKernel with explicit
// wait lists and output events, instead of kernel functors. Kernel arguments are captured at each
// enqueue, so one scale kernel object serves both commands.
#include "events.hpp"

#include <vector>

namespace workbook::ex13 {

GraphEvents enqueue_graph(cl::CommandQueue& queue, const cl::Program& program, const GraphBuffers& buffers,
                          const cl::UserEvent& release_first, const cl::UserEvent& release_second) {
    cl::Kernel scale(program, "scale"), add(program, "add");
    const cl::NDRange global(buffers.count);
    GraphEvents events;

    scale.setArg(0, buffers.a);
    scale.setArg(1, buffers.x);
    scale.setArg(2, 2.0f);
    scale.setArg(3, buffers.count);
    const std::vector<cl::Event> wait_first{release_first};
    queue.enqueueNDRangeKernel(scale, cl::NullRange, global, cl::NullRange, &wait_first, &events.first);

    scale.setArg(0, buffers.b);
    scale.setArg(1, buffers.y);
    scale.setArg(2, 3.0f);
    const std::vector<cl::Event> wait_second{release_second};
    queue.enqueueNDRangeKernel(scale, cl::NullRange, global, cl::NullRange, &wait_second, &events.second);

    add.setArg(0, buffers.x);
    add.setArg(1, buffers.y);
    add.setArg(2, buffers.z);
    add.setArg(3, buffers.count);
    const std::vector<cl::Event> wait_both{events.second, events.first};
    queue.enqueueNDRangeKernel(add, cl::NullRange, global, cl::NullRange, &wait_both, &events.joined);

    queue.flush();
    return events;
}

}  // namespace workbook::ex13
