// Checking and timing one submission (see run_one.hpp).
#include "contest/run_one.hpp"

#include "contest/declaration.hpp"
#include "contest/ranking.hpp"
#include "contest/run_record.hpp"

#include "workbook/check.hpp"
#include "workbook/device.hpp"
#include "workbook/errors.hpp"
#include "workbook/text.hpp"
#include "workbook/matmul.hpp"
#include "workbook/program.hpp"
#include "workbook/random.hpp"
#include "workbook/run_main.hpp"
#include "workbook/runner.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <fstream>
#include <random>
#include <sstream>

namespace workbook::contest {

namespace {

constexpr std::size_t guard = 1024;  // elements after C that must stay untouched

// The submission's runner (contest-runner, beside this program): it builds and launches the
// kernel; this process checks every C and, on CPU devices, keeps the clock.
class Remote {
public:
    explicit Remote(runner::Client& client, const Declaration& d) : client_(client), d_(d) {}

    // One launch at size n on inputs a and b, C poisoned with NaN and a guard band after it;
    // returns C (the guard band checked) and the kernel's time: the runner's event on a GPU, this
    // process's own clock around the launch request on a CPU device (where a kernel is native code
    // in the runner and could forge what the runner reports).
    std::vector<float> run(int n, const std::vector<float>& a, const std::vector<float>& b, double* seconds) {
        const std::size_t elems = static_cast<std::size_t>(n) * n;
        // Poisoned and guarded as the graded tests' outputs are (check.hpp): a guard pattern of
        // NaN payloads no kernel computes by accident.
        GuardedHost c(elems, guard);
        runner::Message up;
        up.arrays["a"] = a;
        up.arrays["b"] = b;
        up.arrays["c"] = std::vector<float>(c.all().begin(), c.all().end());
        client_.call("contest_upload", std::move(up));
        runner::Message go = launch_request(n);
        const Stopwatch clock;
        client_.call("contest_launch", std::move(go));
        const double wall = clock.seconds();
        const auto back = client_.call("contest_download", {}, (elems + guard) * sizeof(float) + runner::Client::reply_slack);
        std::vector<float> out = back.array("c", elems + guard);
        if (seconds)
            *seconds = clock_time(wall, back.num("event_s"));
        std::copy(out.begin(), out.end(), c.all().begin());
        if (const std::string hit = c.guard_report(); !hit.empty())
            throw Error(fmt::format("wrote past the end of C at N = {}: {}", n, hit));
        out.resize(elems);
        return out;
    }

    // Launches again on the inputs already there, C not read back: the yardstick's repeats.
    // Returns the launch's time, by the same clock as run().
    double again(int n) {
        runner::Message go = launch_request(n);
        const Stopwatch clock;
        client_.call("contest_launch", std::move(go));
        const double wall = clock.seconds();
        return clock_time(wall, client_.call("contest_event", {}).num("event_s"));
    }

    bool cpu_device = true;

private:
    // Which clock times a launch: ours on a CPU device, the device's event on a GPU. A device
    // clock outside the wall time we saw around the request is not believed either way.
    double clock_time(double wall, double event) const {
        if (!(event > 0 && event <= wall))
            throw Error(fmt::format("the device reported {} s for a launch that took {} s here", event, wall));
        return cpu_device ? wall : event;
    }

    runner::Message launch_request(int n) const {
        const matmul::Launch g = launch_geometry(d_, n);
        runner::Message go;
        go.numbers["n"] = n;
        auto put = [&](const char* prefix, const cl::NDRange& r) {
            go.numbers[fmt::format("{}dims", prefix)] = static_cast<double>(r.dimensions());
            for (cl_uint i = 0; i < r.dimensions(); ++i) go.numbers[fmt::format("{}{}", prefix, i)] = static_cast<double>(r.get()[i]);
        };
        put("g", g.global);
        put("l", g.local);
        go.numbers["locals"] = static_cast<double>(g.local_floats.size());
        for (std::size_t i = 0; i < g.local_floats.size(); ++i) go.numbers[fmt::format("lf{}", i)] = static_cast<double>(g.local_floats[i]);
        return go;
    }

    runner::Client& client_;
    const Declaration& d_;
};

}  // namespace

std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
}

std::string kernel_text(const std::string& source) {
    // Comments go (a /* */ one becomes a space, as in the preprocessor); a `// contest:` line is
    // kept, since it declares the launch. Runs of spaces and tabs become one space, lines are
    // trimmed and empty ones dropped. Newlines stay (they end a #define), and so does every other
    // character: "a+b" and "a + b" stay two texts, which costs a record, never a wrong pooling.
    std::string code;
    const std::size_t size = source.size();
    for (std::size_t i = 0; i < size;) {
        const char c = source[i];
        if (c == '"' || c == '\'') {  // a literal, copied whole (a "//" inside is no comment)
            std::size_t j = i + 1;
            while (j < size && source[j] != c && source[j] != '\n') j += source[j] == '\\' ? 2 : 1;
            j = std::min(size, j + 1);
            code.append(source, i, j - i);
            i = j;
        } else if (source.compare(i, 2, "/*") == 0) {
            const std::size_t end = source.find("*/", i + 2);
            code += ' ';
            i = end == std::string::npos ? size : end + 2;
        } else if (source.compare(i, 2, "//") == 0) {
            std::size_t end = i;  // the newline that ends it, past any backslash-continued lines
            do end = source.find('\n', end + 1);
            while (end != std::string::npos && end > 0 && source[end - 1] == '\\');
            if (end == std::string::npos) end = size;
            if (source.compare(i, 11, "// contest:") == 0) code.append(source, i, end - i);
            i = end;
        } else {
            code += c;
            ++i;
        }
    }
    std::string text, line;
    std::istringstream lines(code);
    while (std::getline(lines, line)) {
        std::string squeezed;
        for (const char c : line) {
            const bool blank = c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
            if (!blank) squeezed += c;
            else if (!squeezed.empty() && squeezed.back() != ' ') squeezed += ' ';
        }
        if (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
        if (!squeezed.empty()) text += squeezed + '\n';
    }
    return text;
}

std::string kernel_fingerprint(const std::string& source) {
    const std::string text = kernel_text(source);
    return fmt::format("{:016x}", fnv1a(text.data(), text.size()));
}

std::vector<int> race_pass_sizes(const std::vector<int>& graded, std::mt19937_64& gen) {
    auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
    // Oclgrind's time grows as N^3: N = 70 was most of a judging's race pass, so the mirrors stay
    // at 33 and below.
    std::vector<int> sizes = {64 + draw(2, 15)};
    for (const int n : graded) sizes.push_back(n % 32 >= 2 ? n % 32 : 32 + n % 32);
    // One inside a 16-wide work-group, unless a stand-in already is.
    if (std::none_of(sizes.begin(), sizes.end(), [](int n) { return n < 16; })) sizes.push_back(draw(2, 15));
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

std::string race_pass_name(const std::vector<int>& race_sizes) {
    std::string sizes;
    for (std::size_t i = 0; i < race_sizes.size(); ++i)
        sizes += (i == 0 ? "" : i + 1 == race_sizes.size() ? " and " : ", ") + std::to_string(race_sizes[i]);
    return "race check (Oclgrind, N = " + sizes + ")";
}

int run_one(const RunOneOptions& o) {
    std::ofstream(o.verdict_file, std::ios::trunc);  // no verdict from an earlier run survives a crash
    auto reject = [&](const std::string& reason) {
        write_verdict(o.verdict_file, {"rejected", one_line(reason), std::nullopt});
        return exit_wrong_result;
    };
    const std::string source = read_file_or_empty(o.kernel_file);  // missing: the declaration check says so
    try {
        const Declaration d = parse_declaration(source);
        // The runner, beside this program; the race pass runs this checker under Oclgrind, whose
        // preload the runner inherits.
        const auto self = std::filesystem::read_symlink("/proc/self/exe");
        runner::Client client({(self.parent_path() / "contest-runner").string()});
        runner::Message build;
        // The race pass names a file Oclgrind can read, so its reports quote the lines: in the
        // runner's sandbox, a copy the runner writes into its own folder; else the entry itself.
        const char* wrapper = std::getenv("WORKBOOK_RUNNER_WRAPPER");
        const bool sandboxed = wrapper && *wrapper;
        build.text["path"] = o.race_pass && !sandboxed ? o.kernel_file : std::string("submission.cl");
        if (o.race_pass && sandboxed) build.numbers["write_source"] = 1;
        build.text["source"] = source;
        build.text["options"] = d.options;
        const auto built = client.call("contest_build", build);
        if (const auto e = built.text.find("build_error"); e != built.text.end())
            return reject("does not compile: " + e->second);
        const auto args = static_cast<std::size_t>(built.num("args"));
        if (args != 4 + d.local_floats.size())
            return reject(fmt::format("mmul takes {} arguments, but the declaration gives N, A, B, C and {} local "
                                      "buffer(s)",
                                      args, d.local_floats.size()));
        Remote bench(client, d);
        bench.cpu_device = built.str("device_type") == "cpu";

        // Sizes: public, secret (drawn now, never shown before the run), and the ranking size.
        std::random_device rd;
        std::mt19937_64 gen((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
        std::vector<int> sizes = !o.race_pass                ? o.public_sizes
                                 : o.race_sizes.empty() ? std::vector<int>{17, 70}
                                                        : o.race_sizes;
        if (!o.race_pass) {
            if (!o.secret_list.empty()) {
                sizes.insert(sizes.end(), o.secret_list.begin(), o.secret_list.end());
            } else {
                std::uniform_int_distribution<int> secret(33, 400);
                for (int i = 0; i < o.secret_sizes; ++i) sizes.push_back(secret(gen));
            }
        }
        std::string size_list;
        for (int n : sizes) size_list += fmt::format("{},", n);
        size_list += std::to_string(o.n);

        for (const int n : sizes) {
            Rng r(gen());
            const auto a = r.uniform_vector(static_cast<std::size_t>(n) * n);
            const auto b = r.uniform_vector(static_cast<std::size_t>(n) * n);
            const auto c = bench.run(n, a, b, nullptr);
            const auto expected = matmul::expected(n, a, b);
            const auto cmp = compare(expected.c, c, matmul::tolerance(n), expected.magnitude);
            if (!cmp.ok()) return reject(fmt::format("wrong at N = {}: {}", n, matmul::describe(n, cmp)));
        }
        if (o.race_pass) {
            write_verdict(o.verdict_file, {"ok", "", std::nullopt});
            return exit_ok;
        }

        // The yardstick: the instructor's tuned kernel, in a runner of its own that never sees the
        // entry (our code only, so outside the entry's sandbox). Each timed launch of the entry is
        // paired with one of the yardstick on the same inputs, in alternating order, and the
        // entry is ranked by the ratio of the two times: a machine that slows down or speeds up
        // during the run moves both, and the ratio stays.
        const int n = o.n;
        runner::Client yard_client({(self.parent_path() / "contest-runner").string()}, false);
        Declaration yard_declaration;
        std::string yard_label;
        try {
            runner::Message ask;
            ask.numbers["n"] = n;
            const auto ref = yard_client.call("contest_reference", std::move(ask));
            yard_label = ref.str("label");
            yard_declaration = parse_declaration(ref.str("source"));
            runner::Message yb;
            yb.text["path"] = "mmul_reference.cl";
            yb.text["source"] = ref.str("source");
            yb.text["options"] = yard_declaration.options;
            const auto yard_built = yard_client.call("contest_build", std::move(yb));
            if (const auto e = yard_built.text.find("build_error"); e != yard_built.text.end())
                throw Error(e->second);
        } catch (const std::exception& e) {
            throw Error(fmt::format("the judge's yardstick (the instructor's kernel, {}) failed on this device, not "
                                    "your kernel: {}; tell the instructor",
                                    yard_label.empty() ? "untuned" : yard_label, e.what()));
        }
        Remote yard(yard_client, yard_declaration);
        yard.cpu_device = bench.cpu_device;

        // Sittings: the timed launches go round-robin to `sittings` runners of the entry, the one
        // that ran the checks above and fresh ones with their own build and buffers. On PoCL one
        // process of a kernel can run 15-20% faster or slower than the next for its whole life
        // (measured: five judgings of one kernel split into two groups whose spreads did not
        // meet); spread over several processes, that luck widens the entry's spread, where the
        // ranking sees it, instead of moving its median unseen.
        std::vector<std::unique_ptr<runner::Client>> extra_clients;
        std::vector<Remote> sitting{bench};
        for (int s = 1; s < o.sittings; ++s) {
            extra_clients.push_back(std::make_unique<runner::Client>(
                std::vector<std::string>{(self.parent_path() / "contest-runner").string()}));
            const auto b = extra_clients.back()->call("contest_build", build);  // the first sitting's request
            if (const auto e = b.text.find("build_error"); e != b.text.end())
                return reject("does not compile the second time it is built: " + e->second);
            sitting.emplace_back(*extra_clients.back(), d);
            sitting.back().cpu_device = bench.cpu_device;
        }

        // Timing at the ranking size: every launch on inputs it has never seen (drawn and sent
        // before its clock starts), C poisoned before it, and its C sampled and scanned after.
        // Each sitting's first launch is a warm-up (its buffers' first touch, its build's first run).
        std::vector<double> times, yard_times, ratios;
        int yard_repeats = 1;
        const int launches = o.sittings * o.warmups + o.repeats;
        for (int i = 0; i < launches; ++i) {
            Rng r(gen());
            const auto a = r.uniform_vector(static_cast<std::size_t>(n) * n);
            const auto b = r.uniform_vector(static_cast<std::size_t>(n) * n);
            double t = 0, t_yard = 0;
            // The yardstick: one launch untimed (its fresh buffers' first touch), then the mean of
            // `yard_repeats` launches back to back: a launch much shorter than the entry's would
            // measure the machine's wake-up noise, not its speed.
            auto time_yardstick = [&] {
                yard.run(n, a, b, nullptr);
                t_yard = 0;
                for (int k = 0; k < yard_repeats; ++k) t_yard += yard.again(n);
                t_yard /= yard_repeats;
            };
            Remote& entry = sitting[static_cast<std::size_t>(i % o.sittings)];
            if (i % 2 == 1) time_yardstick();
            const auto c = entry.run(n, a, b, &t);
            if (i % 2 == 0) time_yardstick();
            // After the first warm-up: enough repeats to last about as long as the entry.
            if (i == 0) yard_repeats = std::clamp(static_cast<int>(std::lround(t / t_yard)), 1, 64);
            matmul::check_sampled(n, a, b, c, gen, 4096, fmt::format("timed launch {}", i + 1));
            if (i >= o.sittings * o.warmups) {
                times.push_back(t);
                yard_times.push_back(t_yard);
                ratios.push_back(t_yard / t);
            }
        }
        const Spread speed = spread(ratios);
        std::sort(times.begin(), times.end());
        std::sort(yard_times.begin(), yard_times.end());
        const double median = times[times.size() / 2];
        Run run;
        run.device = one_line(built.str("device"));
        run.driver = one_line(built.str("driver"));
        run.n = n;
        run.median_s = median;
        run.min_s = times.front();
        run.max_s = times.back();
        run.gflops = matmul::gflops(n, median);
        run.repeats = static_cast<int>(times.size());
        run.ratio = speed.median;
        run.ratio_low = speed.low;
        run.ratio_high = speed.high;
        run.yardstick = one_line(yard_label);
        run.yardstick_median_s = yard_times[yard_times.size() / 2];
        run.sizes = size_list;
        run.build_options = one_line(d.options);
        run.kernel_hash = kernel_fingerprint(source);
        write_verdict(o.verdict_file, {"ok", "", run});
        return exit_ok;
    } catch (...) {
        return reject(describe_exception(std::current_exception()));
    }
}

}  // namespace workbook::contest
