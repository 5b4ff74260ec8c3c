// Exercise 03 demo: f = a + b + e + g through your vadd_chain(), with every buffer device-only,
// checked on the CPU.
#include "vadd_chain.hpp"

#include "workbook/check.hpp"
#include "workbook/program.hpp"
#include "workbook/reference.hpp"
#include "workbook/run_main.hpp"
#include "workbook/timing.hpp"

namespace {

// A device-only copy of `values`: staged through a host-visible buffer, because a buffer made
// with CL_MEM_HOST_NO_ACCESS cannot be written from the host.
cl::Buffer device_only(const workbook::Run& run, const std::vector<float>& values) {
    const std::size_t bytes = values.size() * sizeof(float);
    cl::Buffer staging(run.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<float*>(values.data()));
    cl::Buffer buffer(run.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, bytes);
    run.queue.enqueueCopyBuffer(staging, buffer, 0, 0, bytes);
    return buffer;
}

}  // namespace

int main(int argc, char** argv) {
    workbook::App app("Exercise 03 (chained vector add): f = a + b + e + g in three device-side steps");
    std::size_t count = 1 << 20;
    app.option("--count", count, "number of elements", std::size_t{1}, std::size_t{1} << 26);
    return app.run(argc, argv, [&](workbook::Run& run) {
        auto rng = workbook::Rng::derived(run.seed, "demo");
        std::vector<std::vector<float>> in;
        for (int k = 0; k < 4; ++k) in.push_back(rng.uniform_vector(count));
        const std::vector<float> poisoned(count, workbook::poison_value());
        const workbook::ex03::ChainBuffers buffers{device_only(run, in[0]), device_only(run, in[1]),
                                                   device_only(run, in[2]), device_only(run, in[3]),
                                                   device_only(run, poisoned), device_only(run, poisoned),
                                                   device_only(run, poisoned)};
        const cl::Program program = workbook::build_program(run.context, workbook::kernel_source("vadd.cl"));

        workbook::Stopwatch clock;
        workbook::ex03::vadd_chain(run.queue, cl::Kernel(program, "vadd"), buffers, static_cast<cl_uint>(count));
        run.queue.finish();
        const double seconds = clock.seconds();

        // Copy f to a host-visible buffer to read it: the one transfer back, after all three steps.
        cl::Buffer result(run.context, CL_MEM_READ_WRITE, count * sizeof(float));
        run.queue.enqueueCopyBuffer(buffers.f, result, 0, 0, count * sizeof(float));
        std::vector<float> f(count);
        run.queue.enqueueReadBuffer(result, CL_TRUE, 0, count * sizeof(float), f.data());

        const std::vector<std::span<const float>> terms{in[0], in[1], in[2], in[3]};
        return workbook::report_result("f = a + b + e + g", count, seconds,
                                       workbook::compare(workbook::reference::elementwise_sum(terms), f,
                                                         workbook::reference::sum_tolerance(4),
                                                         workbook::reference::elementwise_magnitude(terms)));
    });
}
