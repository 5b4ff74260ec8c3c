// Choosing and writing the instructor's tuned kernel (see reference.hpp).
#include "contest/reference.hpp"

#include "contest/declaration.hpp"

#include "workbook/errors.hpp"
#include "workbook/kernels.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace workbook::contest {

namespace {

ReferenceParams cpu_params(int vw, int mr, int rb, int kc) {
    return {true, {{"VW", vw}, {"MR", mr}, {"RB", rb}, {"KC", kc}}};
}
ReferenceParams gpu_params(int tsm, int tsn, int tsk, int wptm, int wptn, int pada = 4, int swz = 1, int pref = 0,
                           int ks = 1, int lsplit = 0, int tms = 0, int tmid = 0, int fastld = 0) {
    return {false,
            {{"TSM", tsm}, {"TSN", tsn}, {"TSK", tsk}, {"WPTM", wptm}, {"WPTN", wptn}, {"PADA", pada}, {"SWZ", swz},
             {"PREF", pref}, {"KS", ks}, {"LSPLIT", lsplit}, {"TMS", tms}, {"TMID", tmid}, {"FASTLD", fastld}}};
}

// GPU parameters added after choices were first stored: off at 0, and 0 in an entry stored before them.
bool added_later(const std::string& k) { return k == "LSPLIT" || k == "TMS" || k == "TMID" || k == "FASTLD"; }

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

// Why `p` cannot run on the device (empty if it can): the kernel's own #error rules, the
// work-group limit and local memory.
std::string unfit(const cl::Device& d, const ReferenceParams& p) {
    for (const auto& [k, v] : p.values)
        if (v < (k == "PADA" || k == "PREF" || added_later(k) ? 0 : 1)) return fmt::format("{}={} is out of range", k, v);
    std::size_t group = 1, floats = 0;
    if (p.cpu) {
        if (p.get("VW") != 4 && p.get("VW") != 8 && p.get("VW") != 16) return "VW must be 4, 8 or 16";
        floats = static_cast<std::size_t>(p.get("KC")) * 2 * p.get("VW");
    } else {
        const int tsm = p.get("TSM"), tsn = p.get("TSN"), tsk = p.get("TSK"), wm = p.get("WPTM"), wn = p.get("WPTN");
        const int ks = p.get("KS");
        if (tsm % wm || tsn % wn || wm % 4 || wn % 4 || tsk % 4 || p.get("PADA") % 4 || tsk % ks)
            return "tile sizes do not divide";
        group = static_cast<std::size_t>(tsm / wm) * (tsn / wn) * ks;
        if ((tsm * tsk / 4) % group || (tsk * tsn / 4) % group || tsm * tsk / 4 < int(group) || tsk * tsn / 4 < int(group))
            return "the tiles are not whole float4s per work-item";
        // LSPLIT: 1 stages B's loads then A's; n > 1 stages n equal chunks, one per n-th of the k-steps.
        const int loads = (tsm * tsk / 4 + tsk * tsn / 4) / int(group), lsplit = p.get("LSPLIT"), steps = tsk / ks;
        if ((lsplit > 1 && loads % lsplit) || steps < std::max(lsplit, lsplit == 1 ? 2 : 1))
            return "LSPLIT does not divide the loads or the k-steps";
        // TMS: the loads staged in two halves, the second at k-step TMID (0: half-way), without LSPLIT.
        const int tms = p.get("TMS"), tmid = p.get("TMID") ? p.get("TMID") : steps / 2;
        if (tms > 4 || (tms && (lsplit || tmid < 1 || tmid >= steps)))
            return "TMS needs LSPLIT 0 and its mid-point TMID inside the k-steps";
        // FASTLD: loads without bounds tests inside the matrix, from pointers a whole row of float4s apart.
        if (p.get("FASTLD") > 1 || (p.get("FASTLD") && (lsplit || int(group) % (tsk / 4) || int(group) % (tsn / 4))))
            return "FASTLD (0 or 1) needs LSPLIT 0 and each round of loads to cover whole rows of the tiles";
        floats = 2 * static_cast<std::size_t>(tsk) * (tsm + p.get("PADA") + tsn);
        if (ks > 1) floats = std::max<std::size_t>(floats, static_cast<std::size_t>(tsm) * tsn);
    }
    if (group > d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>()) return fmt::format("work-group of {} is too large", group);
    if (floats * sizeof(float) > d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>())
        return fmt::format("needs {} bytes of local memory", floats * sizeof(float));
    return {};
}

// The GPU shapes the default chooses among, with what each sustains relative to the largest when
// the compute units are full (measured on the H100 at N = 4096, results/h100_tune_sizes.txt; 128x192
// on the H200 at N = 8192, where its last wave is full, results/2026-11-28-h200-reference): more
// outputs per work-item mean fewer local-memory reads per multiply-add.
struct Shape {
    ReferenceParams p;
    double rate;
};
const std::vector<Shape>& gpu_shapes() {
    static const std::vector<Shape> shapes{
        {gpu_params(128, 256, 16, 8, 16, 0, 1, 1, 1, 0, 2, 4), 1.00}, // 8x16 per work-item, 255 registers, exactly 48 KiB; PREF, TMS 2 at step 4: +3-4% on the H100
        {gpu_params(128, 192, 16, 8, 12, 4, 1, 1), 0.99},   // 8x12: N = 3000 in 3 waves of 132 (128x256: 2.2)
        {gpu_params(256, 128, 8, 16, 8), 0.97},             // 16x8, for devices with less local memory
        {gpu_params(128, 64, 16, 8, 8, 4, 1, 1), 0.94},     // 8x8 in groups of 128: several groups per unit
        {gpu_params(96, 96, 16, 12, 12, 4, 1, 1, 2, 3), 0.85}, // 12x12, split in two along k (N = 1536: 2 groups per unit)
        {gpu_params(64, 128, 16, 8, 8, 4, 1, 1, 2), 0.85},  // 8x8 split in two along k: 256 work-items per tile
        {gpu_params(32, 64, 32, 4, 4, 4, 1, 0, 2), 0.64},   // 4x4, split in two: for the smallest N
    };
    return shapes;
}

// The GPU default for N: the shape that finishes first when its work-groups are spread over the
// compute units (CL_DEVICE_MAX_COMPUTE_UNITS). The busiest unit gets ceil(groups / units) of them,
// so a shape's time goes as tile area * ceil(groups / units) / rate; and a unit with fewer than 256
// work-items to switch between cannot hide its latencies, which slows it in proportion. Large N
// gets the largest tile unless its last wave is mostly empty (N = 3000: 288 groups are 2.2 waves of
// 132); small N smaller tiles, split along k when there are too few of them to fill the units.
ReferenceParams gpu_default(const cl::Device& d, int n) {
    const double units = d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    const ReferenceParams* best = nullptr;
    double best_time = 0;
    for (const auto& s : gpu_shapes()) {
        if (!unfit(d, s.p).empty()) continue;
        const int tsm = s.p.get("TSM"), tsn = s.p.get("TSN");
        const double items = double(tsm / s.p.get("WPTM")) * (tsn / s.p.get("WPTN")) * s.p.get("KS");
        const double per_unit = std::ceil(std::ceil(double(n) / tsm) * std::ceil(double(n) / tsn) / units);
        const double fill = std::min(1.0, per_unit * items / 256);
        const double time = per_unit * tsm * tsn / (s.rate * fill);
        if (!best || time < best_time) best = &s.p, best_time = time;
    }
    return best ? *best : gpu_params(16, 16, 16, 4, 4);
}

std::string class_key(int n) { return fmt::format("n{}", size_class(n)); }

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

const std::vector<int>& size_classes() {
    static const std::vector<int> classes{512, 1024, 1536, 2048, 3072, 4096, 6144, 8192};
    return classes;
}

int size_class(int n) {
    int best = size_classes().front();
    for (const int c : size_classes())
        if (std::fabs(std::log(double(n) / c)) < std::fabs(std::log(double(n) / best))) best = c;
    return best;
}

ReferenceParams default_params(const cl::Device& device, int n) {
    return is_cpu(device) ? cpu_default(device) : gpu_default(device, n);
}

std::vector<ReferenceParams> reference_candidates(const cl::Device& device, int n) {
    std::vector<ReferenceParams> c{default_params(device, n)};
    auto add = [&](const ReferenceParams& p) {
        for (const auto& q : c)
            if (q.values == p.values) return;
        if (unfit(device, p).empty()) c.push_back(p);
    };
    if (c.front().cpu) {
        const auto& first = c.front();
        const int vw = first.get("VW"), mr = first.get("MR"), rb = first.get("RB");
        for (const auto& p : {cpu_params(vw, mr, rb, 128), cpu_params(vw, mr, rb, 512),
                              cpu_params(vw, mr > 6 ? mr - 4 : mr - 2, rb, 256), cpu_params(vw, mr, rb * 2, 256)})
            add(p);
        return c;
    }
    // Every shape the default weighs, then other shapes and variants: 8x16 per work-item, TSK 16
    // (unpadded, to fit 48 KiB), 512-item groups, the band swizzle, fragments read a step ahead, the
    // next tiles' loads staged in two halves (TMS: B's or A's first, the second half-way or at step 4),
    // the loads inside the matrix without bounds tests (FASTLD),
    // 192-row tiles (fewer idle units in the last wave at N = 3000), and small tiles for small N.
    for (const auto& s : gpu_shapes()) add(s.p);
    const int units = static_cast<int>(device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
    const auto groups = [&](int tsm, int tsn) { return ((n + tsm - 1) / tsm) * ((n + tsn - 1) / tsn); };
    for (const auto& p : {gpu_params(128, 64, 16, 8, 8, 4, 1, 1, 2), gpu_params(96, 96, 16, 12, 12, 4, 1, 1),
                          gpu_params(96, 96, 16, 12, 12, 4, 1, 1, 2), gpu_params(96, 96, 16, 12, 12, 4, 1, 1, 2, 1),
                          gpu_params(128, 256, 16, 8, 16, 0, 1, 1, 1, 2),
                          gpu_params(128, 256, 16, 8, 16, 0, 1, 1, 1, 0, 2), gpu_params(128, 256, 16, 8, 16, 0, 1, 1, 1, 0, 4),
                          gpu_params(128, 256, 16, 8, 16, 0, 1, 1, 1, 0, 4, 4), gpu_params(96, 96, 16, 12, 12, 4, 1, 1, 2, 0, 2),
                          gpu_params(128, 256, 16, 8, 16, 0, 1, 1, 1, 0, 4, 0, 1), gpu_params(128, 256, 16, 8, 16, 0, 1, 1, 1, 0, 4, 4, 1),
                          gpu_params(64, 128, 16, 8, 8, 4, 1, 1, 2, 0, 2, 0, 1), gpu_params(128, 64, 16, 8, 8, 4, 1, 1, 1, 0, 2, 0, 1),
                          gpu_params(32, 64, 16, 4, 4),
                          gpu_params(64, 64, 16, 8, 8, 4, 1, 1, 4), gpu_params(64, 64, 32, 4, 4, 4, 1, 0, 2),
                          gpu_params(32, 64, 32, 4, 4, 4, 1, 0, 2), gpu_params(64, 96, 32, 8, 12, 4, 1, 1, 4),
                          gpu_params(128, 64, 16, 8, 8), gpu_params(64, 96, 16, 8, 12, 4, 1, 1),
                          gpu_params(128, 96, 16, 8, 12, 4, 1, 1), gpu_params(96, 128, 16, 12, 8, 4, 1, 1),
                          gpu_params(256, 128, 8, 16, 8, 4, 1, 1), gpu_params(128, 256, 8, 8, 16),
                          gpu_params(128, 256, 8, 8, 16, 4, 1, 1), gpu_params(256, 128, 16, 16, 8, 0),
                          gpu_params(256, 128, 16, 8, 8, 0), gpu_params(128, 256, 16, 8, 16, 0),
                          gpu_params(256, 128, 8, 16, 8, 4, 8), gpu_params(128, 128, 16, 8, 16, 0),
                          gpu_params(128, 128, 16, 16, 8, 0), gpu_params(128, 128, 8, 8, 16), gpu_params(64, 256, 16, 8, 16, 0),
                          gpu_params(128, 128, 16, 8, 8), gpu_params(64, 128, 16, 8, 8), gpu_params(192, 128, 16, 12, 8),
                          gpu_params(64, 64, 16, 8, 4), gpu_params(64, 64, 16, 4, 4), gpu_params(32, 32, 16, 4, 4)}) {
        // A shape so large that most units would idle, or so small that the groups outnumber the
        // units a hundredfold, is not worth a try.
        const int g = groups(p.get("TSM"), p.get("TSN"));
        if (g * 4 >= units && (g <= 100 * units || p.get("TSM") * p.get("TSN") >= 128 * 128)) add(p);
    }
    return c;
}

ReferenceParams reference_params(const cl::Device& device, int n, std::string* from) {
    const std::string file = tuning_file();
    const auto expected = default_params(device, n);
    std::string why;  // why a stored entry was passed over
    if (std::filesystem::exists(file)) {
        try {
            const auto t = toml::parse_file(file);
            const auto* device_entry = t[device_key(device)].as_table();
            const auto* entry = device_entry ? (*device_entry)[class_key(n)].as_table() : nullptr;
            // Choices are kept per device and driver: one tuned elsewhere (another GPU, or this one
            // under another driver version) says nothing about this one, and is named, not used.
            if (!device_entry) {
                std::vector<std::string> others;
                for (const auto& [key, value] : t)
                    if (value.is_table()) others.emplace_back(key.str());
                if (!others.empty())
                    why = fmt::format("; {} holds choices tuned for {} only, not for this device and driver ({}): "
                                      "ignored",
                                      file, fmt::join(others, " and "), device_key(device));
            }
            if (device_entry && device_entry->contains("kernel"))
                why = fmt::format("; the stored entry in {} is of the old one-size format, ignored: run `mmul_bench "
                                  "--tune --sizes ...` again",
                                  file);
            if (entry) {
                ReferenceParams p{(*entry)["kernel"].value_or(std::string()) == "cpu", {}};
                // An entry stored before LSPLIT or TMS existed ran without them.
                for (const auto& [k, v] : expected.values)
                    p.values.emplace_back(k, (*entry)[k].value_or(added_later(k) ? 0 : v));
                const std::string bad = p.cpu != expected.cpu ? "it is for the other kernel source" : unfit(device, p);
                if (bad.empty()) {
                    if (from) *from = fmt::format("tuned for size class {}, from {}", size_class(n), file);
                    return p;
                }
                why = fmt::format("; the stored choice for size class {} ({}) was ignored: {}", size_class(n), p.label(),
                                  bad);
            }
        } catch (const toml::parse_error& e) {
            throw Error(fmt::format("{} is not valid TOML ({})\nFix: delete it and run `mmul_bench --tune` again",
                                    file, e.description()));
        }
    }
    if (from)
        *from = fmt::format("chosen from the device's properties for N = {} (run `mmul_bench --tune --sizes {}` to tune){}", n,
                            size_class(n), why);
    return expected;
}

ReferenceParams reference_params(const cl::Device& device, std::string* from) {
    return reference_params(device, default_ranking_n, from);
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
    // One table per device and driver, one sub-table per size class; an old one-size entry is
    // replaced.
    auto* device_entry = t[device_key(device)].as_table();
    if (!device_entry || device_entry->contains("kernel")) {
        t.insert_or_assign(device_key(device), toml::table{});
        device_entry = t[device_key(device)].as_table();
    }
    device_entry->insert_or_assign(class_key(n), std::move(entry));
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    const std::string tmp = file + ".tmp";
    {
        std::ofstream out(tmp);
        out << "# mmul_bench --tune: the instructor's kernel parameters per device, driver and size class\n" << t << "\n";
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
        const int ks = p.get("KS");
        head = ks == 1 ? fmt::format("// contest: global = cdiv(N, {}) * {}, cdiv(N, {}) * {}\n// contest: local = {}, {}\n",
                                     p.get("TSN"), cols, p.get("TSM"), rows, cols, rows)
                       : fmt::format("// contest: global = cdiv(N, {}) * {}, cdiv(N, {}) * {}, {}\n"
                                     "// contest: local = {}, {}, {}\n",
                                     p.get("TSN"), cols, p.get("TSM"), rows, ks, cols, rows, ks);
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
