// A correct host side in another common style: the context, queue and program are built on the
// first call and reused by every later one on the same device (building a program costs far more
// than a small launch). The graded test's witness call must still find its own kernel run.
#include "vadd.hpp"

#include "workbook/errors.hpp"
#include "workbook/program.hpp"
#include "workbook/timing.hpp"

#include <limits>
#include <memory>

namespace workbook::ex02 {

namespace {

struct Setup {
    cl::Device device;
    cl::Context context;
    cl::CommandQueue queue;
    cl::Program program;
};

Setup& setup_for(const cl::Device& device) {
    static std::unique_ptr<Setup> kept;
    if (!kept || kept->device() != device()) {
        cl::Context context(device);
        cl::CommandQueue queue = make_queue(context, device);
        cl::Program program = build_program(context, kernel_source("vadd.cl"));
        kept = std::make_unique<Setup>(Setup{device, context, queue, program});
    }
    return *kept;
}

}  // namespace

void vadd_on_device(const cl::Device& device, const float* a, const float* b, float* c, std::size_t count) {
    if (count == 0 || count > std::numeric_limits<cl_uint>::max())
        throw Error("vadd_on_device: count must be between 1 and 2^32 - 1");
    Setup& s = setup_for(device);
    const std::size_t bytes = count * sizeof(float);
    cl::Buffer a_device(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float*>(a));
    cl::Buffer b_device(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float*>(b));
    cl::Buffer c_device(s.context, CL_MEM_WRITE_ONLY, bytes);
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, cl_uint> vadd(s.program, "vadd");
    vadd(cl::EnqueueArgs(s.queue, cl::NDRange(count)), a_device, b_device, c_device, static_cast<cl_uint>(count));
    s.queue.enqueueReadBuffer(c_device, CL_TRUE, 0, bytes, c);
}

}  // namespace workbook::ex02
