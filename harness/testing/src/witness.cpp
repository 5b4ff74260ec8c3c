// The witness kernels of the host exercises (witness.hpp), the checker's side.
#include "workbook/witness.hpp"

#include "workbook/program.hpp"
#include "workbook/test_seed.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace workbook::testing {

namespace {

// The same arithmetic as witness_mark(), in OpenCL C. Where the OpenCL broker runs, the key is each
// kernel's last argument, `workbook_secret`, which the broker sets and hides (never in the runner's
// process, nor in the program: PoCL may cache it); elsewhere the macro WORKBOOK_WITNESS_KEY,
// written in (attach()), and there is no such argument. Each kernel ends its parameter list with
// WORKBOOK_SECRET_PARAM.
std::string mark_function() {
    return "// The graded test's own kernel, standing in for yours to show that your host code runs the\n"
           "// kernel file it builds on the device: its results carry a mark only it computes. Where the\n"
           "// test's OpenCL broker runs it, the key is an argument the broker sets: your host code sets\n"
           "// the others, as for your own kernel.\n"
           "#ifndef WORKBOOK_WITNESS_KEY\n"
           "#define WORKBOOK_WITNESS_KEY workbook_secret\n"
           "#define WORKBOOK_SECRET_PARAM , const uint workbook_secret\n"
           "#else\n"
           "#define WORKBOOK_SECRET_PARAM\n"
           "#endif\n"
           "uint witness_hash(uint i, uint key) {\n"
           "    uint h = (i * 0x9E3779B1u) ^ key;\n"
           "    h ^= h >> 15;\n"
           "    h *= 0x2C1B3C6Du;\n"
           "    h ^= h >> 12;\n"
           "    return h;\n"
           "}\n"
           "float witness_mark_of(uint i, uint key) { return (float)(witness_hash(i, key) % 1021u + 1u); }\n"
           "#define witness_mark(i) witness_mark_of((i), WORKBOOK_WITNESS_KEY)\n";
}

std::uint32_t witness_key(const std::string& file) {
    return static_cast<std::uint32_t>(rng("witness " + file).next_u64());
}

// A witness for `file` with its key, the rest to fill in.
Witness keyed_witness(const std::string& file) {
    Witness w;
    w.file = file;
    w.key = witness_key(file);
    return w;
}

}  // namespace

float witness_mark(std::uint32_t key, std::uint32_t index) {
    std::uint32_t h = (index * 0x9E3779B1u) ^ key;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return static_cast<float>(h % 1021u + 1u);
}

Witness vector_sum_witness(const std::string& file, const std::string& kernel_name, std::size_t inputs) {
    Witness w = keyed_witness(file);
    w.bounds = kernel_name + ":count:1";
    std::string params, sum;
    for (std::size_t k = 0; k < inputs; ++k) {
        params += fmt::format("__global const float* in{}, ", k);
        sum = k == 0 ? "in0[i]" : fmt::format("({} + in{}[i])", sum, k);
    }
    w.source = mark_function() +
               fmt::format("__kernel void {}({}__global float* out, const unsigned int count WORKBOOK_SECRET_PARAM) {{\n"
                           "    const uint i = (uint)get_global_id(0);\n"
                           "    if (i < count) out[i] = {} + witness_mark(i);\n"
                           "}}\n",
                           kernel_name, params, sum);
    return w;
}

Witness matmul_witness(const std::string& file) {
    Witness w = keyed_witness(file);
    w.bounds = "mmul:N:2";
    w.source = mark_function() +
               "__kernel void mmul(const int N, __global const float* A, __global const float* B, __global float* C\n"
               "                   WORKBOOK_SECRET_PARAM) {\n"
               "    const int j = get_global_id(0), i = get_global_id(1);\n"
               "    if (i >= 0 && j >= 0 && i < N && j < N) {\n"
               "        float sum = 0.0f;\n"
               "        for (int k = 0; k < N; k++) sum += A[i * N + k] * B[k * N + j];\n"
               "        C[i * N + j] = sum + witness_mark((uint)(i * N + j));\n"
               "    }\n"
               "}\n";
    return w;
}

Witness kernels_witness(const std::string& file, const std::string& kernels) {
    Witness w = keyed_witness(file);
    w.source = mark_function() + kernels;
    return w;
}


void attach(runner::Message& request, const Witness& w, bool brokered) {
    request.text["witness_file"] = w.file;
    // Without the broker (a build without it, the race pass under Oclgrind) the key is written in.
    request.text["witness_source"] =
        brokered ? w.source : fmt::format("#define WORKBOOK_WITNESS_KEY {}u\n", w.key) + w.source;
}

runner::Client::Broker broker_for(const Witness& w) {
    // The texts the runner may build it as: as handed over, and as build_program makes it.
    return {fmt::format("{}", w.key), w.bounds, {w.source, program_text(override_source(w.file, w.source))}, w.watched};
}

namespace {

nlohmann::json launches_in(const std::string& report) {
    auto j = nlohmann::json::parse(report, nullptr, false);
    if (!j.is_object() || !j.contains("kernels") || !j["kernels"].is_array()) return nullptr;
    return std::move(j["kernels"]);
}

// Whether launch `k` completed, and its buffer arguments began with every watched array in `inputs`.
bool completed_over(const nlohmann::json& k, const std::vector<std::size_t>& inputs) {
    if (k.value("status", -1) != 0 || !k.contains("inputs") || !k["inputs"].is_array()) return false;
    std::vector<std::size_t> seen;
    for (const auto& pair : k["inputs"])
        if (pair.is_array() && pair.size() == 2 && pair[1].is_number_unsigned()) seen.push_back(pair[1].get<std::size_t>());
    return std::all_of(inputs.begin(), inputs.end(),
                       [&](std::size_t i) { return std::find(seen.begin(), seen.end(), i) != seen.end(); });
}

bool named(const nlohmann::json& k, const std::string& kernel) { return k.is_object() && k.value("name", "") == kernel; }

}  // namespace

std::string missing_launches(const Witness& w, const std::string& report) {
    const nlohmann::json kernels = launches_in(report);
    const bool readable = kernels.is_array();
    std::string out;
    for (const auto& want : w.launches) {
        int launched = 0;
        bool found = false;
        for (const auto& k : readable ? kernels : nlohmann::json::array()) {
            if (!named(k, want.kernel)) continue;
            ++launched;
            found = found || completed_over(k, want.inputs);
        }
        if (found) continue;
        out += (out.empty() ? "" : "\n") +
               (!readable     ? fmt::format("no record of the launches came back, so none of {} over {} can be shown",
                                            want.kernel, want.what)
                : launched == 0 ? fmt::format("{} was never launched (over {})", want.kernel, want.what)
                                : fmt::format("{} was launched {} time(s), but never over {} (the buffers it read did "
                                              "not hold them when it ran)",
                                              want.kernel, launched, want.what));
    }
    return out;
}

std::vector<double> launch_seconds(const std::string& report, const std::string& kernel,
                                   const std::vector<std::size_t>& inputs) {
    std::vector<double> out;
    const nlohmann::json kernels = launches_in(report);
    for (const auto& k : kernels.is_array() ? kernels : nlohmann::json::array()) {
        if (!named(k, kernel) || !completed_over(k, inputs)) continue;
        const auto start = k.find("start_ns"), end = k.find("end_ns");
        if (start == k.end() || end == k.end() || !start->is_number_unsigned() || !end->is_number_unsigned()) continue;
        const auto s = start->get<std::uint64_t>(), e = end->get<std::uint64_t>();
        if (e >= s) out.push_back(static_cast<double>(e - s) * 1e-9);
    }
    return out;
}

std::string witness_failure(const std::string& function, const Witness& w, bool plain_result) {
    const std::string what =
        plain_result ? fmt::format("{} returned the right values without the mark, so it did not run the kernel it was "
                                   "given: it computed them some other way (on the CPU?)",
                                   function)
                     : fmt::format("{} did not return the marked values that kernel computes", function);
    return fmt::format("For this case the test gave your host code its own {} (same kernel name and arguments, "
                       "results plus a mark of its own), through kernel_source(\"{}\"). {}. A grade here says the "
                       "device did the work: build the program from kernel_source(\"{}\") (this call runs in a "
                       "process of its own, so a program kept from an earlier call is no excuse) and launch it on "
                       "the device you are given. ({})",
                       w.file, w.file, what, w.file, repeat_hint());
}

}  // namespace workbook::testing
