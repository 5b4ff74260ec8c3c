// Shared graded-test machinery (see testing.hpp).
#include "workbook/testing.hpp"

#include "workbook/launch.hpp"
#include "workbook/program.hpp"
#include "workbook/reference.hpp"
#include "workbook/timing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace workbook::testing {

TestDevice& device() {
    static TestDevice d = [] {
        const auto choice = select_device(DeviceQuery::from_environment());
        cl::Context context(choice.device);
        return TestDevice{choice, context, make_queue(context, choice.device)};
    }();
    return d;
}

Rng rng(std::string_view purpose, std::uint64_t index) { return Rng::derived(session_seed(), purpose, index); }

std::string repeat_hint() { return fmt::format("repeat with WORKBOOK_SEED={}", session_seed()); }

bool small_sizes_only() {
    const char* v = std::getenv("WORKBOOK_SMALL");
    return v && std::string(v) == "1";
}

std::vector<std::size_t> awkward_sizes() {
    if (small_sizes_only()) return {1, 7, 61, 257};
    return {1, 2, 3, 7, 13, 61, 127, 257, 1000, 4099, 65537, (1u << 20) + 7};
}

std::size_t device_slack() { return small_sizes_only() ? 0 : guard_elements; }

cl::Buffer padded_input(std::span<const float> values, cl_mem_flags flags) {
    auto& dev = device();
    std::vector<float> host(values.begin(), values.end());
    auto junk = rng("padding", values.size()).uniform_vector(device_slack(), -1e3f, 1e3f);
    host.insert(host.end(), junk.begin(), junk.end());
    cl::Buffer buffer(dev.context, flags, host.size() * sizeof(float));
    dev.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, host.size() * sizeof(float), host.data());
    return buffer;
}

DeviceOutput::DeviceOutput(std::size_t count, cl_mem_flags flags)
    : count_(count), buffer_(device().context, flags, (count + device_slack()) * sizeof(float)) {
    GuardedHost initial(count, device_slack());
    device().queue.enqueueWriteBuffer(buffer_, CL_TRUE, 0, initial.all().size_bytes(), initial.data());
}

std::vector<float> DeviceOutput::read(std::string& guard_report) const {
    GuardedHost back(count_, device_slack());
    device().queue.enqueueReadBuffer(buffer_, CL_TRUE, 0, back.all().size_bytes(), back.data());
    guard_report = back.guard_report();
    return {back.values().begin(), back.values().end()};
}

OvershootingLaunch overshooting_launch(const cl::Kernel& kernel, std::size_t count) {
    const std::size_t local = work_group_size_1d(kernel, device().choice.device, 64);
    // count + 1 rounded up: at least one work-item past the data, at most `local` of them.
    const std::size_t global = round_up(count + 1, local);
    return {global, local};
}

std::string explain_result(const std::string& what, std::size_t count, const Comparison& result) {
    const std::string why = result.first ? poison_note(result.first->got, "the output") : "";
    return fmt::format("{} with count = {}: {}.{} ({})", what, count, result.describe(), why, repeat_hint());
}

namespace {

struct SumCase {
    std::vector<std::vector<float>> inputs;
    std::vector<float> expected, scale;
};

SumCase make_sum_case(const std::string& purpose, std::size_t terms, std::size_t count) {
    SumCase c;
    auto r = rng(purpose, count);
    std::vector<std::span<const float>> views;
    for (std::size_t k = 0; k < terms; ++k) {
        c.inputs.push_back(r.uniform_vector(count));
        views.emplace_back(c.inputs.back());
    }
    c.expected = reference::elementwise_sum(views);
    c.scale = reference::elementwise_magnitude(views);
    return c;
}

}  // namespace

void check_vector_sum_kernel(const std::string& file, const std::string& kernel_name, std::size_t inputs) {
    auto& dev = device();
    const cl::Program program = build_program(dev.context, kernel_source(file));
    cl::Kernel kernel(program, kernel_name.c_str());
    for (const std::size_t count : awkward_sizes()) {
        const SumCase c = make_sum_case(kernel_name, inputs, count);
        std::vector<cl::Buffer> in;
        for (const auto& values : c.inputs) in.push_back(padded_input(values));
        DeviceOutput out(count);
        for (std::size_t k = 0; k < inputs; ++k) kernel.setArg(static_cast<cl_uint>(k), in[k]);
        kernel.setArg(static_cast<cl_uint>(inputs), out.buffer());
        kernel.setArg(static_cast<cl_uint>(inputs + 1), static_cast<cl_uint>(count));
        const auto launch = overshooting_launch(kernel, count);
        dev.queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(launch.global), cl::NDRange(launch.local));

        std::string guard;
        const auto got = out.read(guard);
        const auto result = compare(c.expected, got, reference::sum_tolerance(inputs), c.scale);
        const std::string what = fmt::format("kernel {} (launched with global size {}, local size {})", kernel_name,
                                             launch.global, launch.local);
        CHECK_MESSAGE(guard.empty(), fmt::format("{} with count = {}: {} ({})", what, count, guard, repeat_hint()));
        CHECK_MESSAGE(result.ok(), explain_result(what, count, result));
        if (!guard.empty() || !result.ok()) return;  // one clear failure beats a screenful
    }
}

void check_vector_sum_host(const std::string& what, std::size_t inputs, const VectorSumHost& run) {
    for (const std::size_t count : awkward_sizes()) {
        SumCase c = make_sum_case(what, inputs, count);
        std::vector<const float*> pointers;
        for (auto& values : c.inputs) {
            // Slack after each input: a host copy of one element too many reads junk, not unmapped memory.
            values.resize(count + guard_elements, 0.5f);
            pointers.push_back(values.data());
        }
        GuardedHost out(count, guard_elements);
        run(pointers, out.data(), count);
        const auto result = compare(c.expected, out.values(), reference::sum_tolerance(inputs), c.scale);
        const std::string guard = out.guard_report();
        CHECK_MESSAGE(guard.empty(), fmt::format("{} with count = {}: {} ({})", what, count, guard, repeat_hint()));
        CHECK_MESSAGE(result.ok(), explain_result(what, count, result));
        if (!guard.empty() || !result.ok()) return;
    }
}

}  // namespace workbook::testing
