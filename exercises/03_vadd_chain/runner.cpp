// Exercise 03's runner (see workbook/runner.hpp): puts the inputs the graded test sends into
// device-only buffers (a host round trip fails with CL_INVALID_OPERATION), calls your vadd_chain,
// and sends f back. Do not edit.
#include "vadd_chain.hpp"

#include "workbook/errors.hpp"
#include "workbook/runner_device.hpp"
#include "workbook/runner_ops.hpp"

#include <fmt/format.h>

namespace {

namespace wr = workbook::runner;

// A device-only copy of a whole buffer (values and their padding or guard band).
cl::Buffer device_only(const std::vector<float>& values) {
    auto& dev = wr::device();
    const cl::Buffer staging = wr::buffer_of(values);
    const std::size_t bytes = values.size() * sizeof(float);
    cl::Buffer buffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, bytes);
    dev.queue.enqueueCopyBuffer(staging, buffer, 0, 0, bytes);
    return buffer;
}

const wr::Operation vadd_chain("vadd_chain", [](const wr::Message& r) {
    auto& dev = wr::device();
    // The test's witness kernel when it sends one (its marks show the three launches ran on the
    // device), built from its binary: the kernel's program has no source to read the key from.
    const auto witness = wr::witness_binary_program(r);
    const cl::Kernel vadd(witness ? *witness : wr::program("vadd.cl"), "vadd");
    const auto& poisoned = r.array("c");
    const workbook::ex03::ChainBuffers buffers{device_only(r.array("a")), device_only(r.array("b")),
                                              device_only(r.array("e")), device_only(r.array("g")),
                                              device_only(poisoned),     device_only(poisoned),
                                              device_only(r.array("f"))};
    try {
        workbook::ex03::vadd_chain(dev.queue, vadd, buffers, static_cast<cl_uint>(r.num("count")));
    } catch (const cl::Error& e) {
        if (e.err() != CL_INVALID_OPERATION) throw;
        throw workbook::Error(fmt::format(
            "vadd_chain tried to move data between the host and a device buffer ({} failed with "
            "CL_INVALID_OPERATION). In this exercise every buffer is device-only: chain the three launches on the "
            "device and let the caller read f.",
            e.what()));
    }
    const std::size_t whole = r.array("f").size();
    const cl::Buffer result = wr::buffer_of(r.array("f"));
    dev.queue.enqueueCopyBuffer(buffers.f, result, 0, 0, whole * sizeof(float));
    wr::Message reply;
    reply.arrays["f"] = wr::read_back(result, whole);
    return reply;
});

}  // namespace
