// Exercise 14's runner (see workbook/runner.hpp): launches smooth with its geometry (launch.hpp)
// on the input the graded test sends. Do not edit.
#include "launch.hpp"

#include "workbook/runner_device.hpp"
#include "workbook/runner_ops.hpp"

namespace {

namespace wr = workbook::runner;

const wr::Operation smooth("smooth", [](const wr::Message& r) {
    auto& dev = wr::device();
    cl::Kernel kernel(wr::program("smooth.cl"), "smooth");
    const auto count = static_cast<std::size_t>(r.num("count"));
    const cl::Buffer in = wr::buffer_of(r.array("in"), CL_MEM_READ_ONLY);
    const auto& initial = r.array("out");
    const cl::Buffer out = wr::buffer_of(initial);
    const auto l = workbook::ex14::launch(kernel, dev.choice.device, count);
    workbook::ex14::enqueue(dev.queue, kernel, in, out, count, l);
    wr::Message reply;
    reply.arrays["out"] = wr::read_back(out, initial.size());
    reply.numbers["local"] = static_cast<double>(l.local);
    reply.numbers["global"] = static_cast<double>(l.global);
    return reply;
});

}  // namespace
