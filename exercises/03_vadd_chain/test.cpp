// Exercise 03 graded test: vadd_chain() on device-only buffers (a host round trip fails with
// CL_INVALID_OPERATION), poisoned intermediates and output, a guard band after f, awkward sizes.
#include "vadd_chain.hpp"

#include "workbook/program.hpp"
#include "workbook/reference.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace wt = workbook::testing;

namespace {

// A device-only copy of a whole test buffer (values and their padding or guard band).
cl::Buffer device_only(const cl::Buffer& source) {
    auto& dev = wt::device();
    const std::size_t bytes = source.getInfo<CL_MEM_SIZE>();
    cl::Buffer buffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, bytes);
    dev.queue.enqueueCopyBuffer(source, buffer, 0, 0, bytes);
    return buffer;
}

}  // namespace

TEST_CASE("03_vadd_chain: f = a + b + e + g with every step on the device") {
    auto& dev = wt::device();
    const cl::Program program = workbook::build_program(dev.context, workbook::kernel_source("vadd.cl"));
    const cl::Kernel vadd(program, "vadd");

    for (const std::size_t count : wt::awkward_sizes()) {
        auto rng = wt::rng("vadd_chain", count);
        std::vector<std::vector<float>> in;
        for (int k = 0; k < 4; ++k) in.push_back(rng.uniform_vector(count));
        // Poisoned intermediates: a skipped step leaves NaN that flows into f.
        const wt::DeviceOutput poisoned(count), result(count);
        const workbook::ex03::ChainBuffers buffers{
            device_only(wt::padded_input(in[0])), device_only(wt::padded_input(in[1])),
            device_only(wt::padded_input(in[2])), device_only(wt::padded_input(in[3])),
            device_only(poisoned.buffer()),       device_only(poisoned.buffer()),
            device_only(result.buffer())};

        try {
            workbook::ex03::vadd_chain(dev.queue, vadd, buffers, static_cast<cl_uint>(count));
        } catch (const cl::Error& e) {
            if (e.err() != CL_INVALID_OPERATION) throw;
            FAIL(fmt::format("vadd_chain tried to move data between the host and a device buffer ({} failed with "
                             "CL_INVALID_OPERATION). In this exercise every buffer is device-only: chain the "
                             "three launches on the device and let the caller read f.",
                             e.what()));
        }
        dev.queue.enqueueCopyBuffer(buffers.f, result.buffer(), 0, 0, result.buffer().getInfo<CL_MEM_SIZE>());
        std::string guard;
        const auto f = result.read(guard);

        const std::vector<std::span<const float>> terms{in[0], in[1], in[2], in[3]};
        const auto cmp = workbook::compare(workbook::reference::elementwise_sum(terms), f,
                                           workbook::reference::sum_tolerance(4),
                                           workbook::reference::elementwise_magnitude(terms));
        CHECK_MESSAGE(guard.empty(), fmt::format("f with count = {}: {} ({})", count, guard, wt::repeat_hint()));
        CHECK_MESSAGE(cmp.ok(), wt::explain_result("f = a + b + e + g", count, cmp));
        if (!guard.empty() || !cmp.ok()) break;
    }
}
