// Planted bug "host_swapped_buffers" for the course check: the solution with one mistake students make.
// functor's template arguments is the order of the kernel's parameters.
#include "vadd_abc.hpp"

#include "workbook/errors.hpp"
#include "workbook/program.hpp"
#include "workbook/timing.hpp"

#include <limits>

namespace workbook::ex04 {

void vadd_abc_on_device(const cl::Device& device, const float* a, const float* b, const float* c, float* d,
                        std::size_t count) {
    if (count == 0 || count > std::numeric_limits<cl_uint>::max())
        throw Error("vadd_abc_on_device: count must be between 1 and 2^32 - 1");

    cl::Context context(device);
    cl::CommandQueue queue = make_queue(context, device);
    cl::Program program = build_program(context, kernel_source("vadd_abc.cl"));

    // Read-only inputs let the runtime skip copying them back; none is written by the kernel.
    const std::size_t bytes = count * sizeof(float);
    const auto input = [&](const float* host) {
        return cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float*>(host));
    };
    cl::Buffer a_device = input(a), b_device = input(b), c_device = input(c);
    cl::Buffer d_device(context, CL_MEM_WRITE_ONLY, bytes);

    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, cl::Buffer, cl_uint> vadd_abc(program, "vadd_abc");
    vadd_abc(cl::EnqueueArgs(queue, cl::NDRange(count)), a_device, b_device, d_device, c_device,  // planted bug: c and d swapped
             static_cast<cl_uint>(count));
    queue.enqueueReadBuffer(d_device, CL_TRUE, 0, bytes, d);
}

}  // namespace workbook::ex04
