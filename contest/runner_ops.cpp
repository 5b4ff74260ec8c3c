// The contest's runner (`contest-runner`, see workbook/runner.hpp): builds one submission and
// launches it when the judge's checker (`workbook contest run-one`) asks, on the buffers it sends.
// It decides nothing: the checker checks every C and keeps the clock on CPU devices, where the
// kernel is native code in this process. A second runner, which never sees an entry, launches
// the yardstick (the instructor's tuned kernel) that every timed launch is compared with.
#include "contest/reference.hpp"

#include "workbook/errors.hpp"
#include "workbook/kernels.hpp"
#include "workbook/matmul.hpp"
#include "workbook/program.hpp"
#include "workbook/runner_device.hpp"
#include "workbook/runner_ops.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <fstream>
#include <optional>

namespace {

namespace wr = workbook::runner;

struct State {
    std::optional<cl::Kernel> kernel;
    cl::Buffer a, b, c;
    std::size_t c_floats = 0;
    cl::Event last;
};
State& state() {
    static State s;
    return s;
}

cl::NDRange range(const wr::Message& r, const std::string& prefix) {
    const int dims = static_cast<int>(r.num(prefix + "dims"));
    auto at = [&](int i) { return static_cast<std::size_t>(r.num(fmt::format("{}{}", prefix, i))); };
    if (dims == 1) return cl::NDRange(at(0));
    if (dims == 2) return cl::NDRange(at(0), at(1));
    if (dims == 3) return cl::NDRange(at(0), at(1), at(2));
    throw workbook::Error("a range of 1 to 3 dimensions");
}

const wr::Operation build("contest_build", [](const wr::Message& r) {
    auto& dev = wr::device();
    wr::Message reply;
    const auto type = dev.choice.device.getInfo<CL_DEVICE_TYPE>();
    reply.text["device_type"] = (type & CL_DEVICE_TYPE_CPU) ? "cpu" : (type & CL_DEVICE_TYPE_GPU) ? "gpu" : "other";
    reply.text["device"] = dev.choice.platform_name + " / " + dev.choice.device_name;
    reply.text["driver"] = dev.choice.device.getInfo<CL_DRIVER_VERSION>();
    // Under Oclgrind in the sandbox: a copy in this runner's own folder (its working directory),
    // where Oclgrind finds the lines it quotes.
    if (r.numbers.count("write_source")) std::ofstream("submission.cl", std::ios::binary) << r.str("source");
    try {
        const cl::Program program =
            workbook::build_program(dev.context, workbook::KernelSource{"submission.cl", r.str("path"), r.str("source")},
                                    r.str("options"));
        state().kernel = cl::Kernel(program, "mmul");
        reply.numbers["args"] = state().kernel->getInfo<CL_KERNEL_NUM_ARGS>();
    } catch (const workbook::BuildError& e) {
        reply.text["build_error"] = e.what();
    }
    return reply;
});

// The instructor's tuned kernel for this device at size n, declaration included: the yardstick
// that the checker times alternately with an entry (a runner of its own, never the entry's).
const wr::Operation reference("contest_reference", [](const wr::Message& r) {
    const auto params = workbook::contest::reference_params(wr::device().choice.device, static_cast<int>(r.num("n")));
    wr::Message reply;
    reply.text["source"] = workbook::contest::reference_submission(params);
    reply.text["label"] = params.label();
    return reply;
});

// New inputs and a poisoned C for the next launch: outside any timed request.
const wr::Operation upload("contest_upload", [](const wr::Message& r) {
    auto& s = state();
    s.a = wr::buffer_of(r.array("a"), CL_MEM_READ_ONLY);
    s.b = wr::buffer_of(r.array("b"), CL_MEM_READ_ONLY);
    s.c = wr::buffer_of(r.array("c"));
    s.c_floats = r.array("c").size();
    wr::device().queue.finish();
    return wr::Message{};
});

// One launch, waited for: the checker times this request from outside on CPU devices.
const wr::Operation launch("contest_launch", [](const wr::Message& r) {
    auto& s = state();
    if (!s.kernel) throw workbook::Error("no kernel was built");
    workbook::matmul::Launch l{range(r, "g"), range(r, "l"), {}};
    for (int i = 0; i < static_cast<int>(r.num("locals")); ++i)
        l.local_floats.push_back(static_cast<std::size_t>(r.num(fmt::format("lf{}", i))));
    s.last = workbook::matmul::enqueue(wr::device().queue, *s.kernel, static_cast<int>(r.num("n")), s.a, s.b, s.c, l);
    s.last.wait();
    return wr::Message{};
});

// The last launch's device time alone (the yardstick's repeats, whose C nobody reads).
const wr::Operation event("contest_event", [](const wr::Message&) {
    wr::Message reply;
    reply.numbers["event_s"] = workbook::event_times(state().last).run_seconds();
    return reply;
});

const wr::Operation download("contest_download", [](const wr::Message&) {
    auto& s = state();
    wr::Message reply;
    reply.arrays["c"] = wr::read_back(s.c, s.c_floats);
    reply.numbers["event_s"] = workbook::event_times(s.last).run_seconds();
    return reply;
});

}  // namespace
