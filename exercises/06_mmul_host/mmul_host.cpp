// Exercise 06: the host program for matrix multiplication. The kernel is exercise 05's naive
// mmul (built into this program as mmul.cl); everything around it is yours.
#include "mmul_host.hpp"

#include "workbook/program.hpp"
#include "workbook/timing.hpp"

namespace workbook::ex06 {

MatmulTiming matmul_on_device(const cl::Device& device, int n, const float* a, const float* b, float* c) {
    MatmulTiming timing;
    // TODO: context, and a queue from workbook::make_queue (it has profiling switched on).
    // TODO: build mmul.cl: workbook::build_program(context, workbook::kernel_source("mmul.cl")).
    // TODO: buffers for A and B (copied from the host) and C, n·n floats each.
    // TODO: a cl::KernelFunctor<int, cl::Buffer, cl::Buffer, cl::Buffer> for "mmul".
    // TODO: start a workbook::Stopwatch; launch over a 2D range cl::NDRange(n, n) and keep the
    //       cl::Event the functor returns; read C back (blocking); then
    //       timing.wall_seconds = stopwatch.seconds() and
    //       timing.kernel_seconds = workbook::event_times(event).run_seconds().
    (void)device, (void)n, (void)a, (void)b, (void)c;  // remove once you use them
    return timing;
}

double mflops(int n, double seconds) {
    // TODO: 2·n³ operations in `seconds`, in millions per second. Beware: n·n·n overflows an int
    //       for n >= 1291.
    (void)n, (void)seconds;
    return 0.0;
}

}  // namespace workbook::ex06
