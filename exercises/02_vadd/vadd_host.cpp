// Exercise 02, host side: the five steps every OpenCL host program takes, for c = a + b.
// Each step is one or two lines; the README's "API you will use" lists the calls.
#include "vadd.hpp"

#include "workbook/program.hpp"
#include "workbook/timing.hpp"

namespace workbook::ex02 {

void vadd_on_device(const cl::Device& device, const float* a, const float* b, float* c, std::size_t count) {
    // Step 1: context and command queue.
    // TODO: a cl::Context for `device`, and a queue from workbook::make_queue(context, device).

    // Step 2: program.
    // TODO: build vadd.cl: workbook::build_program(context, workbook::kernel_source("vadd.cl")).

    // Step 3: buffers.
    // TODO: a and b as read-only device copies of the host arrays (CL_MEM_COPY_HOST_PTR),
    //       c as a write-only buffer of count floats.

    // Step 4: kernel.
    // TODO: a cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, cl_uint> for "vadd".

    // Step 5: enqueue over count work-items, then read c back into the host array (blocking).
    // TODO

    (void)device, (void)a, (void)b, (void)c, (void)count;  // remove once you use them
}

}  // namespace workbook::ex02
