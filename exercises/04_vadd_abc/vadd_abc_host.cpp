// Exercise 04, host side: the five steps again, now binding four buffers to the kernel.
#include "vadd_abc.hpp"

#include "workbook/program.hpp"
#include "workbook/timing.hpp"

namespace workbook::ex04 {

void vadd_abc_on_device(const cl::Device& device, const float* a, const float* b, const float* c, float* d,
                        std::size_t count) {
    // TODO step 1: context and queue (workbook::make_queue).
    // TODO step 2: build vadd_abc.cl (workbook::build_program, workbook::kernel_source).
    // TODO step 3: three read-only input buffers copied from a, b and c; one write-only output.
    // TODO step 4: a cl::KernelFunctor whose template arguments follow the kernel's parameters.
    // TODO step 5: enqueue over count work-items and read d back (blocking).
    (void)device, (void)a, (void)b, (void)c, (void)d, (void)count;  // remove once you use them
}

}  // namespace workbook::ex04
