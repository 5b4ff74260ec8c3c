// Exercise 20's runner (see workbook/runner.hpp): launches the kernel at the shape the checker
// names (one of the candidates on this device) on the inputs the graded test sends, and times it
// or the reference for the speed check and the tuner. Do not edit.
#include "launch.hpp"

#include "workbook/errors.hpp"
#include "workbook/runner_device.hpp"
#include "workbook/runner_ops.hpp"

namespace {
namespace ex20 = workbook::ex20;
using workbook::Error;
using workbook::tuning::Choice;

// The choice a runner request names ("shape"), which must be a candidate on this device; the
// untuned one when it names none.
Choice requested(const cl::Device& device, const workbook::runner::Message& request) {
    if (!request.text.count("shape")) return ex20::default_choice(device);
    std::string why;
    const auto c = workbook::tuning::parse(request.str("shape"), &why);
    if (!c) throw Error("the requested shape cannot be read: " + why);
    const auto all = ex20::candidates(device);
    if (std::find(all.begin(), all.end(), *c) == all.end())
        throw Error("the requested shape " + c->text() + " is not one of this exercise's candidates on this device");
    return *c;
}

const workbook::runner::Operation matmul("matmul", [](const workbook::runner::Message& request) {
    return workbook::runner::run_matmul(ex20::rung(requested(workbook::runner::device().choice.device, request)), request);
});
// The local memory the kernel declares when built for the requested shape: asked of a fresh
// runner before anything of the student's has run in it, so the answer is the device's.
const workbook::runner::Operation local_memory("local_memory", [](const workbook::runner::Message& request) {
    auto& device = workbook::runner::device().choice.device;
    const auto r = ex20::rung(requested(device, request));
    const cl::Kernel kernel(workbook::runner::program(r.kernel_file, r.options_for(device, 64)), "mmul");
    workbook::runner::Message reply;
    reply.numbers["bytes"] = static_cast<double>(kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device));
    return reply;
});
// Only the upload names a shape; the launch and download steps use what the upload built.
const workbook::runner::Operation timed("matmul_timed", [](const workbook::runner::Message& request) {
    const auto r = ex20::rung(requested(workbook::runner::device().choice.device, request));
    return workbook::runner::run_matmul_timed({{"student", r}, {ex20::this_rung, r}}, request);
});
}  // namespace
