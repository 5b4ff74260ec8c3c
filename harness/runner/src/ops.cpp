// The runner's operations for graded tests (see runner_ops.hpp).
#include "workbook/runner_ops.hpp"

#include "workbook/errors.hpp"
#include "workbook/kernels.hpp"
#include "workbook/launch.hpp"
#include "workbook/pi.hpp"
#include "workbook/program.hpp"
#include "workbook/runner_device.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <optional>

namespace workbook::runner {

cl::Program program(const std::string& file, const std::string& options) {
    static std::map<std::string, cl::Program> built;
    const std::string key = file + '\n' + options;
    if (auto it = built.find(key); it != built.end()) return it->second;
    auto& dev = device();
    return built[key] = build_program(dev.context, kernel_source(file), options);
}

std::optional<cl::Program> witness_binary_program(const Message& request) {
    if (!request.text.count("witness_source")) return std::nullopt;
    auto& dev = device();
    const KernelSource witness = override_source(request.str("witness_file"), request.str("witness_source"));
    // Under the OpenCL broker the key is in no text here, and no binary leaves the broker.
    if (std::getenv("WORKBOOK_BROKER_FD")) return build_program(dev.context, witness);
    const cl::Program from_source = build_program(dev.context, witness);
    const auto binaries = from_source.getInfo<CL_PROGRAM_BINARIES>();
    cl::Program from_binary(dev.context, {dev.choice.device}, binaries);
    from_binary.build({dev.choice.device});
    return from_binary;
}

cl::Buffer buffer_of(const std::vector<float>& values, cl_mem_flags flags) {
    auto& dev = device();
    cl::Buffer b(dev.context, flags, std::max<std::size_t>(1, values.size()) * sizeof(float));
    if (!values.empty()) dev.queue.enqueueWriteBuffer(b, CL_TRUE, 0, values.size() * sizeof(float), values.data());
    return b;
}

std::vector<float> read_back(const cl::Buffer& buffer, std::size_t count) {
    std::vector<float> out(count);
    if (count) device().queue.enqueueReadBuffer(buffer, CL_TRUE, 0, count * sizeof(float), out.data());
    return out;
}

namespace {

std::size_t whole(const Message& m, const std::string& key) { return static_cast<std::size_t>(m.num(key)); }

// Build options the checker asks for (the race pass may need some for the simulator), or none.
std::string options_of(const Message& m) { return m.text.count("options") ? m.str("options") : std::string(); }

// A kernel of the shape kernel(in_0, ..., in_{n-1}, out, const unsigned int count), launched
// with a global size deliberately past count.
const Operation vector_sum_kernel("vector_sum_kernel", [](const Message& r) {
    auto& dev = device();
    cl::Kernel kernel(program(r.str("file")), r.str("kernel").c_str());
    const std::size_t inputs = whole(r, "inputs"), count = whole(r, "count");
    std::vector<cl::Buffer> in;
    for (std::size_t k = 0; k < inputs; ++k) in.push_back(buffer_of(r.array(fmt::format("in{}", k)), CL_MEM_READ_ONLY));
    const auto& initial = r.array("out");
    const cl::Buffer out = buffer_of(initial);
    for (std::size_t k = 0; k < inputs; ++k) kernel.setArg(static_cast<cl_uint>(k), in[k]);
    kernel.setArg(static_cast<cl_uint>(inputs), out);
    kernel.setArg(static_cast<cl_uint>(inputs + 1), static_cast<cl_uint>(count));
    const std::size_t local = work_group_size_1d(kernel, dev.choice.device, 64);
    const std::size_t global = round_up(count + 1, local);  // at least one work-item past the data
    dev.queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local));
    Message reply;
    reply.arrays["out"] = read_back(out, initial.size());
    reply.numbers["global"] = static_cast<double>(global);
    reply.numbers["local"] = static_cast<double>(local);
    return reply;
});

const Operation kernel_max_local("kernel_max_local", [](const Message& r) {
    cl::Kernel kernel(program(r.str("file"), options_of(r)), r.str("kernel").c_str());
    Message reply;
    reply.numbers["max_local"] = static_cast<double>(work_group_size_1d(kernel, device().choice.device));
    return reply;
});

// A pi kernel (pi.hpp's signature) for one launch shape.
const Operation pi_kernel("pi_kernel", [](const Message& r) {
    cl::Kernel kernel(program(r.str("file"), options_of(r)), r.str("kernel").c_str());
    pi::Launch launch{whole(r, "local"), whole(r, "groups"), static_cast<int>(r.num("niters"))};
    launch.offset = whole(r, "offset");
    const auto& initial = r.array("partial");
    const cl::Buffer partial = buffer_of(initial);
    pi::enqueue(device().queue, kernel, launch, partial);
    Message reply;
    reply.arrays["partial"] = read_back(partial, initial.size());
    return reply;
});

}  // namespace

// The options a matmul kernel is built with at N: the rung's for this device and N, and under the
// simulator (the race pass, the traffic report) the ones the checker adds for it.
static std::string matmul_options(const matmul::Rung& rung, const Message& r, int n) {
    const auto extra = r.text.find("race_options");
    return rung.options_for(device().choice.device, n) + (extra == r.text.end() ? "" : " " + extra->second);
}

Message run_matmul(const matmul::Rung& rung, const Message& r) {
    auto& dev = device();
    const int n = static_cast<int>(r.num("n"));
    rung.check_size(n);
    cl::Kernel kernel(program(rung.kernel_file, matmul_options(rung, r, n)), "mmul");
    const cl::Buffer a = buffer_of(r.array("a"), CL_MEM_READ_ONLY), b = buffer_of(r.array("b"), CL_MEM_READ_ONLY);
    const auto& initial = r.array("c");
    const cl::Buffer c = buffer_of(initial);
    const matmul::Launch launch = rung.launch(dev.choice.device, kernel, n);
    matmul::enqueue(dev.queue, kernel, n, a, b, c, launch);
    Message reply;
    reply.arrays["c"] = read_back(c, initial.size());
    reply.text["launch"] = launch.describe();
    return reply;
}

Message run_matmul_timed(const std::map<std::string, matmul::Rung>& rungs, const Message& r) {
    struct Timed {
        std::optional<cl::Kernel> kernel;
        std::string options;  // what the kernel was built with: a rung's options may change with N
        cl::Buffer a, b, c;
        std::size_t c_floats = 0;
        int n = 0;
        matmul::Launch launch;
        cl::Event last;
    };
    static std::map<std::string, Timed> state;
    const std::string& key = r.str("kernel");
    const auto rung = rungs.find(key);
    if (rung == rungs.end()) throw Error(fmt::format("this runner has no kernel called {} to time", key));
    auto& dev = device();
    Timed& t = state[key];
    const std::string& step = r.str("step");
    Message reply;
    if (step == "upload") {
        const auto& rg = rung->second;
        t.n = static_cast<int>(r.num("n"));
        rg.check_size(t.n);
        const std::string options = matmul_options(rg, r, t.n);
        if (!t.kernel || t.options != options) {
            // The student's kernel through program(), so the build the "matmul" cases made is reused;
            // a reference from its embedded copy only.
            t.kernel = cl::Kernel(key == "student" ? program(rg.kernel_file, options)
                                                   : build_program(dev.context, embedded_kernel_source(key + "/" + rg.kernel_file),
                                                                   options),
                                  "mmul");
            t.options = options;
        }
        t.a = buffer_of(r.array("a"), CL_MEM_READ_ONLY);
        t.b = buffer_of(r.array("b"), CL_MEM_READ_ONLY);
        t.c = buffer_of(r.array("c"));
        t.c_floats = r.array("c").size();
        t.launch = rung->second.launch(dev.choice.device, *t.kernel, t.n);
        dev.queue.finish();
        const auto type = dev.choice.device.getInfo<CL_DEVICE_TYPE>();
        reply.text["device_type"] = (type & CL_DEVICE_TYPE_CPU) ? "cpu" : (type & CL_DEVICE_TYPE_GPU) ? "gpu" : "other";
        reply.text["launch"] = t.launch.describe();
    } else if (step == "launch") {
        if (!t.kernel) throw Error(fmt::format("{} was launched before its upload", key));
        t.last = matmul::enqueue(dev.queue, *t.kernel, t.n, t.a, t.b, t.c, t.launch);
        t.last.wait();
    } else if (step == "download") {
        if (!t.kernel) throw Error(fmt::format("{} was downloaded before its upload", key));
        reply.arrays["c"] = read_back(t.c, t.c_floats);
        reply.numbers["event_s"] = event_times(t.last).run_seconds();
    } else {
        throw Error(fmt::format("no step {} in matmul_timed", step));
    }
    return reply;
}

std::unique_ptr<KernelOverride> witness_kernel(const Message& r) {
    if (!r.text.count("witness_file")) return nullptr;
    return std::make_unique<KernelOverride>(r.str("witness_file"), r.str("witness_source"));
}

Message run_vector_sum_host(const Message& r, const VectorSumHost& run) {
    const auto witness = witness_kernel(r);
    const std::size_t inputs = whole(r, "inputs"), count = whole(r, "count");
    std::vector<std::vector<float>> in;
    std::vector<const float*> pointers;
    for (std::size_t k = 0; k < inputs; ++k) in.push_back(r.array(fmt::format("in{}", k)));
    for (const auto& v : in) pointers.push_back(v.data());
    Message reply;
    auto& out = reply.arrays["out"] = r.array("out");
    run(pointers, out.data(), count);
    return reply;
}

}  // namespace workbook::runner
