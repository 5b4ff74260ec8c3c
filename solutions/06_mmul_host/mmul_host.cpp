// Exercise 06 solution: the host program around the naive matmul kernel.
#include "mmul_host.hpp"

#include "workbook/program.hpp"
#include "workbook/timing.hpp"

namespace workbook::ex06 {

MatmulTiming matmul_on_device(const cl::Device& device, int n, const float* a, const float* b, float* c) {
    // Profiling must be switched on when the queue is made, or events carry no timestamps.
    cl::Context context(device);
    cl::CommandQueue queue = make_queue(context, device);
    cl::Program program = build_program(context, kernel_source("mmul.cl"));

    const std::size_t bytes = static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * sizeof(float);
    cl::Buffer a_device(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float*>(a));
    cl::Buffer b_device(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float*>(b));
    cl::Buffer c_device(context, CL_MEM_WRITE_ONLY, bytes);
    cl::KernelFunctor<int, cl::Buffer, cl::Buffer, cl::Buffer> mmul(program, "mmul");

    // The wall clock covers what the host waits for: the launch and the read-back, not the
    // one-off program build above.
    Stopwatch wall;
    // Exactly n x n work-items; the runtime picks a work-group size that divides n.
    const cl::Event event = mmul(cl::EnqueueArgs(queue, cl::NDRange(n, n)), n, a_device, b_device, c_device);
    queue.enqueueReadBuffer(c_device, CL_TRUE, 0, bytes, c);
    return MatmulTiming{event_times(event).run_seconds(), wall.seconds()};
}

double mflops(int n, double seconds) {
    // In double from the start: 2·n³ overflows a 32-bit int for n >= 1291.
    const double size = n;
    return 2.0 * size * size * size / seconds * 1e-6;
}

}  // namespace workbook::ex06
