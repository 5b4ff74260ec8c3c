// Planted bug "skips_a_step" for the course check: the solution with one mistake students make.
#include "vadd_chain.hpp"

namespace workbook::ex03 {

void vadd_chain(cl::CommandQueue& queue, const cl::Kernel& vadd, const ChainBuffers& buffers, cl_uint count) {
    // The functor sets the arguments anew at every call, so one kernel object serves all steps.
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, cl_uint> add(vadd);
    const cl::EnqueueArgs launch(queue, cl::NDRange(count));
    // An in-order queue starts each launch after the previous one finished, so d = c + e reads a
    // complete c without any wait here. Nothing returns to the host until the caller reads f.
    add(launch, buffers.a, buffers.b, buffers.c, count);
    add(launch, buffers.c, buffers.e, buffers.d, count);
    add(launch, buffers.c, buffers.g, buffers.f, count);  // planted bug: d is skipped
}

}  // namespace workbook::ex03
