// Planted bug "host_reads_one_too_many" for the course check: the solution with one mistake students make.
#include "vadd.hpp"

#include "workbook/errors.hpp"
#include "workbook/program.hpp"
#include "workbook/timing.hpp"

#include <limits>

namespace workbook::ex02 {

void vadd_on_device(const cl::Device& device, const float* a, const float* b, float* c, std::size_t count) {
    // The kernel takes count as an unsigned int; a larger count would silently wrap.
    if (count == 0 || count > std::numeric_limits<cl_uint>::max())
        throw Error("vadd_on_device: count must be between 1 and 2^32 - 1");

    // Step 1: the context owns everything made for the device; the queue carries commands to it
    // in order, so step 5 needs no explicit waiting between the kernel and the read.
    cl::Context context(device);
    cl::CommandQueue queue = make_queue(context, device);

    // Step 2: the source is built into this program (or read from WORKBOOK_KERNEL_DIR);
    // build_program reports compiler errors with the .cl file and line.
    cl::Program program = build_program(context, kernel_source("vadd.cl"));

    // Step 3: COPY_HOST_PTR copies the inputs when the buffers are made, so no separate write is
    // needed. The API takes a non-const pointer, but with READ_ONLY nothing writes through it.
    const std::size_t bytes = (count + 1) * sizeof(float);  // planted bug: one element too many
    cl::Buffer a_device(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float*>(a));
    cl::Buffer b_device(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float*>(b));
    cl::Buffer c_device(context, CL_MEM_WRITE_ONLY, bytes);

    // Step 4: KernelFunctor checks the argument types at compile time, in the kernel's order.
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, cl_uint> vadd(program, "vadd");

    // Step 5: one work-item per element. Leaving the local size to the runtime (NullRange) lets
    // it pick one that divides count; the kernel's bounds test covers runtimes that round up.
    vadd(cl::EnqueueArgs(queue, cl::NDRange(count)), a_device, b_device, c_device, static_cast<cl_uint>(count));
    queue.enqueueReadBuffer(c_device, CL_TRUE, 0, bytes, c);
}

}  // namespace workbook::ex02
