// Planted bug "host_round_trip" for the course check: the solution with one mistake students make.
#include "vadd_chain.hpp"

#include <vector>

namespace workbook::ex03 {

void vadd_chain(cl::CommandQueue& queue, const cl::Kernel& vadd, const ChainBuffers& buffers, cl_uint count) {
    // The functor sets the arguments anew at every call, so one kernel object serves all steps.
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, cl_uint> add(vadd);
    const cl::EnqueueArgs launch(queue, cl::NDRange(count));
    // An in-order queue starts each launch after the previous one finished, so d = c + e reads a
    // complete c without any wait here. Nothing returns to the host until the caller reads f.
    add(launch, buffers.a, buffers.b, buffers.c, count);
    // Planted bug: c travels to the host and back between the steps.
    std::vector<float> c(count);
    queue.enqueueReadBuffer(buffers.c, CL_TRUE, 0, count * sizeof(float), c.data());
    queue.enqueueWriteBuffer(buffers.c, CL_TRUE, 0, count * sizeof(float), c.data());
    add(launch, buffers.c, buffers.e, buffers.d, count);
    add(launch, buffers.d, buffers.g, buffers.f, count);
}

}  // namespace workbook::ex03
