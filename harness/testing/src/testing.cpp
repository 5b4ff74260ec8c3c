// Shared graded-test machinery, the checker's side (see testing.hpp).
#include "workbook/testing.hpp"

#include "workbook/reference.hpp"
#include "workbook/witness.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace workbook::testing {

runner::Message call(const std::string& op, runner::Message request) {
    return runner::client().call(op, std::move(request));
}

bool broker_usable() { return runner::Client::broker_available() && !race_pass(); }

OwnRunner::OwnRunner(std::optional<runner::Client::Broker> broker) : brokered_(broker.has_value()) {
    auto& c = runner::client();
    c.close();
    if (broker) c.use_broker(std::move(*broker));
}

const std::string& OwnRunner::end() {
    auto& c = runner::client();
    if (!ended_) {
        ended_ = true;
        c.clear_broker();
        c.close();
    }
    static const std::string none;
    return brokered_ ? c.broker_report() : none;
}

OwnRunner::~OwnRunner() { end(); }

runner::Message witness_call(const std::string& op, runner::Message request, const Witness& w) {
    // Through the broker where this build has it: the key then never enters the runner's process.
    // The race pass runs the runner under Oclgrind's own runtime, and the key is written in there.
    const bool brokered = broker_usable();
    attach(request, w, brokered);
    OwnRunner own(brokered ? std::optional(broker_for(w)) : std::nullopt);
    runner::Message reply = call(op, std::move(request));
    const std::string& report = own.end();
    if (brokered && !w.launches.empty()) {
        const std::string missing = missing_launches(w, report);
        CHECK_MESSAGE(missing.empty(),
                      fmt::format("{} with the test's own {}: {}.\nThe marks show which kernel ran; the test's OpenCL "
                                  "layer also saw what each launch read. A grade here says the device did the work on "
                                  "the inputs your host code was given: copy them into the buffers the kernel reads, "
                                  "and launch it over them. ({})",
                                  op, w.file, missing, repeat_hint()));
    }
    return reply;
}

bool small_sizes_only() {
    const char* v = std::getenv("WORKBOOK_SMALL");
    return v && std::string(v) == "1";
}

bool race_pass() {
    const char* v = std::getenv("WORKBOOK_RACE_PASS");
    return v && std::string(v) == "1";
}

std::vector<std::size_t> awkward_sizes() {
    if (small_sizes_only()) return {1, 7, 61, 257};
    return {1, 2, 3, 7, 13, 61, 127, 257, 1000, 4099, 65537, (1u << 20) + 7};
}

std::size_t device_slack() { return small_sizes_only() ? 0 : guard_elements; }

std::vector<float> padded(std::span<const float> values) {
    std::vector<float> host(values.begin(), values.end());
    auto junk = rng("padding", values.size()).uniform_vector(device_slack(), -1e3f, 1e3f);
    host.insert(host.end(), junk.begin(), junk.end());
    return host;
}

Output::Output(std::size_t count, std::size_t slack) : host_(count, slack) {}

std::string Output::take(const std::vector<float>& back) {
    if (back.size() != host_.all().size())
        throw runner::ProtocolError(fmt::format("the runner returned {} floats for an output of {}", back.size(),
                                                host_.all().size()));
    std::copy(back.begin(), back.end(), host_.all().begin());
    return host_.guard_report();
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

// The request of one vector-sum case: inputs with their slack, the poisoned output.
runner::Message sum_request(const SumCase& c, std::size_t count, const Output& out, std::size_t slack_override) {
    runner::Message m;
    m.numbers["inputs"] = static_cast<double>(c.inputs.size());
    m.numbers["count"] = static_cast<double>(count);
    for (std::size_t k = 0; k < c.inputs.size(); ++k) {
        auto in = padded(c.inputs[k]);
        // Host code reads host arrays: slack after each, so one element too many reads junk.
        if (slack_override) in.resize(count + slack_override, 0.5f);
        m.arrays[fmt::format("in{}", k)] = std::move(in);
    }
    m.arrays["out"] = out.initial();
    return m;
}

}  // namespace

void check_vector_sum_kernel(const std::string& file, const std::string& kernel_name, std::size_t inputs) {
    for (const std::size_t count : awkward_sizes()) {
        const SumCase c = make_sum_case(kernel_name, inputs, count);
        Output out(count);
        auto request = sum_request(c, count, out, 0);
        request.text["file"] = file;
        request.text["kernel"] = kernel_name;
        const auto reply = call("vector_sum_kernel", std::move(request));
        const std::string guard = out.take(reply.array("out", out.whole()));
        const auto result = compare(c.expected, out.values(), reference::sum_tolerance(inputs), c.scale);
        const std::string what = fmt::format("kernel {} (launched with global size {}, local size {})", kernel_name,
                                             reply.num("global"), reply.num("local"));
        CHECK_MESSAGE(guard.empty(), fmt::format("{} with count = {}: {} ({})", what, count, guard, repeat_hint()));
        CHECK_MESSAGE(result.ok(), explain_result(what, count, result));
        if (!guard.empty() || !result.ok()) return;  // one clear failure beats a screenful
    }
}

void check_vector_sum_host(const std::string& op, std::size_t inputs, const std::string& kernel_file,
                           const std::string& kernel_name) {
    for (const std::size_t count : awkward_sizes()) {
        const SumCase c = make_sum_case(op, inputs, count);
        Output out(count, guard_elements);
        const auto reply = call(op, sum_request(c, count, out, guard_elements));
        const std::string guard = out.take(reply.array("out", out.whole()));
        const auto result = compare(c.expected, out.values(), reference::sum_tolerance(inputs), c.scale);
        CHECK_MESSAGE(guard.empty(), fmt::format("{} with count = {}: {} ({})", op, count, guard, repeat_hint()));
        CHECK_MESSAGE(result.ok(), explain_result(op, count, result));
        if (!guard.empty() || !result.ok()) return;
    }
    // The witness (witness.hpp): the same call with the test's own kernel in place of the file.
    const std::size_t count = small_sizes_only() ? 61 : 4099;
    const SumCase c = make_sum_case(op + " witness", inputs, count);
    Witness w = vector_sum_witness(kernel_file, kernel_name, inputs);
    w.watched = c.inputs;
    w.launches.push_back({kernel_name, {}, inputs == 2 ? "its two inputs" : fmt::format("its {} inputs", inputs)});
    for (std::size_t k = 0; k < inputs; ++k) w.launches.back().inputs.push_back(k);
    Output out(count, guard_elements);
    auto request = sum_request(c, count, out, guard_elements);
    const auto reply = witness_call(op, std::move(request), w);
    const std::string guard = out.take(reply.array("out", out.whole()));
    std::vector<float> expected(count), scale(count);
    for (std::size_t i = 0; i < count; ++i) {
        float sum = c.inputs[0][i];
        for (std::size_t k = 1; k < inputs; ++k) sum = sum + c.inputs[k][i];  // the kernel's order
        expected[i] = sum + witness_mark(w.key, static_cast<std::uint32_t>(i));
        scale[i] = c.scale[i] + std::abs(expected[i]);
    }
    const auto values = out.values();
    const auto result = compare(expected, values, reference::sum_tolerance(inputs + 1), scale);
    CHECK_MESSAGE(guard.empty(), fmt::format("{} with the test's own {}, count = {}: {} ({})", op, kernel_file, count,
                                             guard, repeat_hint()));
    if (!result.ok()) {
        const bool plain = compare(c.expected, values, reference::sum_tolerance(inputs), c.scale).ok();
        const std::string why =
            explain_result(op + " with the test's own " + kernel_file, count, result) + "\n" + witness_failure(op, w, plain);
        FAIL_CHECK(why);
    }
}

}  // namespace workbook::testing
