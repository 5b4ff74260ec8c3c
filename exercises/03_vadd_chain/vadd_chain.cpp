// Exercise 03: chain three vector additions on the device. The kernel is exercise 02's vadd,
// given to you ready to launch; the buffers live on the device and never come back to the host
// between the steps.
#include "vadd_chain.hpp"

namespace workbook::ex03 {

void vadd_chain(cl::CommandQueue& queue, const cl::Kernel& vadd, const ChainBuffers& buffers, cl_uint count) {
    // TODO: wrap the kernel in a cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, cl_uint>.
    // TODO: launch it three times over count work-items with cl::EnqueueArgs(queue, cl::NDRange(count)):
    //       c = a + b, then d = c + e, then f = d + g.
    //       The queue runs commands in order: no wait is needed between the launches.
    (void)queue, (void)vadd, (void)buffers, (void)count;  // remove once you use them
}

}  // namespace workbook::ex03
