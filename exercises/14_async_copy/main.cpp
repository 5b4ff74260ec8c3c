// Exercise 14 demo: smooths a random signal with your kernel, checks it on the CPU, and prints the
// kernel time and the effective bandwidth.
#include "launch.hpp"

#include "workbook/program.hpp"
#include "workbook/run_main.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

int main(int argc, char** argv) {
    workbook::App app("Exercise 14 (async copy): a 3-point moving average with a local tile per work-group");
    std::size_t count = 1 << 24;
    app.option("--count", count, "number of elements", std::size_t{1}, std::size_t{1} << 28);
    return app.run(argc, argv, [&](workbook::Run& run) {
        const cl::Program program = workbook::build_program(run.context, workbook::kernel_source("smooth.cl"));
        cl::Kernel kernel(program, "smooth");
        auto in = workbook::Rng::derived(run.seed, "demo").uniform_vector(count);
        const std::size_t bytes = count * sizeof(float);
        cl::Buffer in_buffer(run.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, in.data());
        cl::Buffer out_buffer(run.context, CL_MEM_WRITE_ONLY, bytes);
        const auto l = workbook::ex14::launch(kernel, run.choice.device, count);
        workbook::ex14::enqueue(run.queue, kernel, in_buffer, out_buffer, count, l).wait();  // warm-up
        const auto t = workbook::event_times(workbook::ex14::enqueue(run.queue, kernel, in_buffer, out_buffer, count, l));
        std::vector<float> out(count);
        run.queue.enqueueReadBuffer(out_buffer, CL_TRUE, 0, bytes, out.data());
        fmt::print("work-groups of {}, tile of {} floats; kernel time {}, {:.1f} GB/s (one read and one write per "
                   "element)\n",
                   l.local, l.tile_floats(), workbook::format_duration(t.run_seconds()),
                   2.0 * static_cast<double>(bytes) / t.run_seconds() * 1e-9);
        return workbook::report_result("smooth", count, 0.0,
                                       workbook::compare(workbook::ex14::reference(in), out, workbook::ex14::tolerance,
                                                         workbook::ex14::scale(in)));
    });
}
