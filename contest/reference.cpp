// Choosing and writing the instructor's tuned kernel (see reference.hpp).
#include "contest/reference.hpp"

#include "contest/judge.hpp"

#include "workbook/errors.hpp"
#include "workbook/kernels.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace workbook::contest {

namespace {

ReferenceParams cpu_params(int vw, int mr, int rb, int kc) {
    return {true, {{"VW", vw}, {"MR", mr}, {"RB", rb}, {"KC", kc}}};
}
ReferenceParams gpu_params(int tsm, int tsn, int tsk, int wptm, int wptn) {
    return {false, {{"TSM", tsm}, {"TSN", tsn}, {"TSK", tsk}, {"WPTM", wptm}, {"WPTN", wptn}}};
}

// Which source suits the device; WORKBOOK_REFERENCE_KERNEL=gpu or cpu overrides it (the tests run
// the GPU source on PoCL that way).
bool is_cpu(const cl::Device& d) {
    if (const char* force = std::getenv("WORKBOOK_REFERENCE_KERNEL"); force && *force) {
        const std::string f = force;
        if (f == "cpu" || f == "gpu") return f == "cpu";
        throw Error(fmt::format("WORKBOOK_REFERENCE_KERNEL={} is neither cpu nor gpu\nFix: set it to cpu or gpu, or unset it", f));
    }
    return (d.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
}

// The micro-tile that fills the vector registers without spilling: 2*MR accumulators plus two
// vectors of B and a broadcast. AVX-512 has 32 registers of 16 floats, AVX2 16 of 8, SSE 16 of 4.
ReferenceParams cpu_default(const cl::Device& d) {
    const auto width = d.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT>();
    if (width >= 16) return cpu_params(16, 12, 8, 256);
    if (width >= 8) return cpu_params(8, 6, 16, 256);
    return cpu_params(4, 6, 16, 256);
}

// 256x128 tiles, 16x8 per work-item (128 accumulators: about 215 registers on the H100, one group
// of 256 per multiprocessor) where the device allows 256-item groups and the double-buffered
// tiles fit (about 25 KiB); else 64x64 with 4x4. The tuner finds better for other devices.
ReferenceParams gpu_default(const cl::Device& d) {
    const auto local = d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    const auto group = d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    if (group >= 256 && local >= 2 * 8 * (256 + 4 + 128 + 4) * sizeof(float)) return gpu_params(256, 128, 8, 16, 8);
    return gpu_params(64, 64, 16, 4, 4);
}

std::string clean(std::string s) {
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
}

}  // namespace

int ReferenceParams::get(const std::string& name) const {
    for (const auto& [k, v] : values)
        if (k == name) return v;
    throw Error(fmt::format("the reference kernel has no parameter {}", name));
}

std::string ReferenceParams::label() const {
    std::string s = cpu ? "cpu" : "gpu";
    for (const auto& [k, v] : values) s += fmt::format(" {}={}", k, v);
    return s;
}

std::string ReferenceParams::options() const {
    std::string s = "-cl-fast-relaxed-math";
    for (const auto& [k, v] : values) s += fmt::format(" -D{}={}", k, v);
    return s;
}

std::string tuning_file() {
    if (const char* f = std::getenv("WORKBOOK_TUNING_FILE"); f && *f) return f;
    const char* home = std::getenv("HOME");
    return fmt::format("{}/.cache/workbook/mmul_tuning.toml", home && *home ? home : "/tmp");
}

std::string device_key(const cl::Device& device) {
    return clean(device.getInfo<CL_DEVICE_NAME>()) + " | " + clean(device.getInfo<CL_DRIVER_VERSION>());
}

std::vector<ReferenceParams> reference_candidates(const cl::Device& device) {
    if (is_cpu(device)) {
        const auto first = cpu_default(device);
        const int vw = first.get("VW"), mr = first.get("MR");
        return {first, cpu_params(vw, mr, first.get("RB"), 128), cpu_params(vw, mr, first.get("RB"), 512),
                cpu_params(vw, mr > 6 ? mr - 4 : mr - 2, first.get("RB"), 256),
                cpu_params(vw, mr, first.get("RB") * 2, 256)};
    }
    std::vector<ReferenceParams> c{gpu_default(device)};
    // 16x8 and 8x16 per work-item, square and oblong 8x8, and the small fallback.
    for (const auto& p : {gpu_params(256, 128, 8, 16, 8), gpu_params(128, 256, 8, 8, 16), gpu_params(128, 128, 16, 8, 8),
                          gpu_params(128, 128, 8, 8, 8), gpu_params(128, 64, 16, 8, 8), gpu_params(64, 128, 16, 8, 8),
                          gpu_params(64, 256, 16, 8, 8), gpu_params(64, 64, 16, 4, 4)})
        if (p.values != c.front().values) c.push_back(p);
    return c;
}

ReferenceParams reference_params(const cl::Device& device, std::string* from) {
    const std::string file = tuning_file();
    if (std::filesystem::exists(file)) {
        try {
            const auto t = toml::parse_file(file);
            if (const auto* entry = t[device_key(device)].as_table()) {
                ReferenceParams p{(*entry)["kernel"].value_or(std::string()) == "cpu", {}};
                const auto expected = is_cpu(device) ? cpu_default(device) : gpu_default(device);
                if (p.cpu == expected.cpu) {
                    for (const auto& [k, v] : expected.values) p.values.emplace_back(k, (*entry)[k].value_or(v));
                    if (from) *from = "tuned, from " + file;
                    return p;
                }
            }
        } catch (const toml::parse_error& e) {
            throw Error(fmt::format("{} is not valid TOML ({})\nFix: delete it and run `mmul_bench --tune` again",
                                    file, e.description()));
        }
    }
    if (from) *from = "chosen from the device's properties (run `mmul_bench --tune` to tune)";
    return is_cpu(device) ? cpu_default(device) : gpu_default(device);
}

void store_tuning(const cl::Device& device, const ReferenceParams& p, double gflops, int n) {
    const std::string file = tuning_file();
    toml::table t;
    if (std::filesystem::exists(file)) t = toml::parse_file(file);
    toml::table entry;
    entry.insert("kernel", p.cpu ? "cpu" : "gpu");
    for (const auto& [k, v] : p.values) entry.insert(k, v);
    entry.insert("gflops", gflops);
    entry.insert("n", n);
    t.insert_or_assign(device_key(device), std::move(entry));
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    const std::string tmp = file + ".tmp";
    {
        std::ofstream out(tmp);
        out << "# mmul_bench --tune: the instructor's kernel parameters per device and driver\n" << t << "\n";
        if (!out) throw Error(fmt::format("cannot write {}\nFix: set WORKBOOK_TUNING_FILE to a writable path", tmp));
    }
    std::filesystem::rename(tmp, file);  // whole or not at all
}

std::string reference_submission(const ReferenceParams& p) {
    std::string head;
    if (p.cpu) {
        const int nr = 2 * p.get("VW");
        head = fmt::format("// contest: global = cdiv(N, {}), cdiv(N, {})\n// contest: local = 1, 1\n"
                           "// contest: local_floats = {}\n",
                           p.get("MR") * p.get("RB"), nr, p.get("KC") * nr);
    } else {
        const int rows = p.get("TSM") / p.get("WPTM"), cols = p.get("TSN") / p.get("WPTN");
        head = fmt::format("// contest: global = cdiv(N, {}) * {}, cdiv(N, {}) * {}\n// contest: local = {}, {}\n",
                           p.get("TSN"), cols, p.get("TSM"), rows, cols, rows);
    }
    head += fmt::format("// contest: options = {}\n", p.options());
    return head + kernel_source(p.cpu ? "reference/mmul_cpu.cl" : "reference/mmul_gpu.cl").text;
}

matmul::Rung reference_rung(const ReferenceParams& p) {
    const auto d = parse_declaration(reference_submission(p));
    matmul::Rung r;
    r.kernel_file = p.cpu ? "reference/mmul_cpu.cl" : "reference/mmul_gpu.cl";
    r.build_options = d.options;
    r.launch = [d](const cl::Device& device, const cl::Kernel&, int n) {
        const auto launch = launch_geometry(d, n);
        std::size_t floats = 0;
        for (auto f : launch.local_floats) floats += f;
        matmul::require_local_memory(device, floats);
        return launch;
    };
    return r;
}

}  // namespace workbook::contest
