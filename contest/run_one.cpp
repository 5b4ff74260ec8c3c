// Checking and timing one submission (see run_one.hpp).
#include "contest/run_one.hpp"

#include "contest/judge.hpp"

#include "workbook/check.hpp"
#include "workbook/device.hpp"
#include "workbook/errors.hpp"
#include "workbook/text.hpp"
#include "workbook/matmul.hpp"
#include "workbook/program.hpp"
#include "workbook/random.hpp"
#include "workbook/run_main.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <fstream>
#include <random>
#include <sstream>

namespace workbook::contest {

namespace {

constexpr std::size_t guard = 1024;  // elements after C that must stay untouched

std::string fnv1a(const std::string& s) {
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    return fmt::format("{:016x}", h);
}

// One launch of the submission on fresh buffers; C poisoned with NaN and a guard band after it.
class Bench {
public:
    Bench(const cl::Context& ctx, const cl::CommandQueue& q, cl::Kernel& k, const Declaration& d)
        : ctx_(ctx), q_(q), k_(k), d_(d) {}

    // Launches for size n with inputs a, b; returns C (the guard band checked) and the event.
    std::vector<float> run(int n, const cl::Buffer& a, const cl::Buffer& b, cl::Buffer& c, double* seconds) {
        const std::size_t elems = static_cast<std::size_t>(n) * n;
        q_.enqueueFillBuffer(c, std::numeric_limits<float>::quiet_NaN(), 0, elems * sizeof(float));
        q_.enqueueFillBuffer(c, guard_value, elems * sizeof(float), guard * sizeof(float));
        const cl::Event e = matmul::enqueue(q_, k_, n, a, b, c, launch_geometry(d_, n));
        std::vector<float> out(elems + guard);
        q_.enqueueReadBuffer(c, CL_TRUE, 0, out.size() * sizeof(float), out.data());
        if (seconds) *seconds = event_times(e).run_seconds();
        for (std::size_t i = elems; i < out.size(); ++i)
            if (std::memcmp(&out[i], &guard_value, sizeof(float)) != 0)
                throw Error(fmt::format("wrote past the end of C (element {} after it) at N = {}", i - elems + 1, n));
        out.resize(elems);
        return out;
    }

    cl::Buffer input(const std::vector<float>& v) {
        return cl::Buffer(ctx_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(float),
                          const_cast<float*>(v.data()));
    }
    cl::Buffer output(int n) {
        return cl::Buffer(ctx_, CL_MEM_READ_WRITE, (static_cast<std::size_t>(n) * n + guard) * sizeof(float));
    }

private:
    static constexpr float guard_value = 1234.5f;
    const cl::Context& ctx_;
    const cl::CommandQueue& q_;
    cl::Kernel& k_;
    const Declaration& d_;
};

// A random sample of C's elements against dot products computed here, plus a scan for NaN: how
// every timed launch at the ranking size is checked (a full CPU reference there would take
// longer than the contest).
void check_sample(int n, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
                  std::mt19937_64& gen, const std::string& when) {
    for (std::size_t i = 0; i < c.size(); ++i)
        if (std::isnan(c[i]))
            throw Error(fmt::format("{}: C[{}][{}] is NaN (never written, or computed from garbage)", when,
                                    i / n, i % n));
    const Tolerance tol = matmul::tolerance(n);
    std::uniform_int_distribution<int> pick(0, n - 1);
    for (int s = 0; s < 4096; ++s) {
        const int i = pick(gen), j = pick(gen);
        double dot = 0, mag = 0;
        for (int k = 0; k < n; ++k) {
            dot += static_cast<double>(a[static_cast<std::size_t>(i) * n + k]) * b[static_cast<std::size_t>(k) * n + j];
            mag += std::fabs(static_cast<double>(a[static_cast<std::size_t>(i) * n + k]) * b[static_cast<std::size_t>(k) * n + j]);
        }
        const double got = c[static_cast<std::size_t>(i) * n + j];
        if (!(std::fabs(got - dot) <= tol.abs + tol.rel * mag))
            throw Error(fmt::format("{}: C[{}][{}] = {} but should be {}", when, i, j, got, dot));
    }
}

std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
}

}  // namespace

std::string race_pass_name() {
    std::string sizes;
    for (std::size_t i = 0; i < race_pass_sizes.size(); ++i)
        sizes += (i == 0 ? "" : i + 1 == race_pass_sizes.size() ? " and " : ", ") + std::to_string(race_pass_sizes[i]);
    return "race check (Oclgrind, N = " + sizes + ")";
}

int run_one(const RunOneOptions& o) {
    std::ofstream verdict(o.verdict_file);
    auto reject = [&](const std::string& reason) {
        verdict << "result=rejected\nreason=" << one_line(reason) << "\n";
        verdict.flush();
        return exit_wrong_result;
    };
    const std::string source = read_file_or_empty(o.kernel_file);  // missing: the declaration check says so
    try {
        const Declaration d = parse_declaration(source);
        const DeviceChoice choice = select_device(DeviceQuery::from_environment());
        cl::Context ctx(choice.device);
        cl::CommandQueue q(ctx, choice.device, CL_QUEUE_PROFILING_ENABLE);
        cl::Program program;
        try {
            // The race pass names the real file, so Oclgrind's reports can quote its lines.
            const std::string path = o.race_pass ? o.kernel_file : std::string("submission.cl");
            program = build_program(ctx, KernelSource{"submission.cl", path, source}, d.options);
        } catch (const BuildError& e) {
            return reject(std::string("does not compile: ") + e.what());
        }
        cl::Kernel kernel(program, "mmul");
        const auto args = kernel.getInfo<CL_KERNEL_NUM_ARGS>();
        if (args != 4 + d.local_floats.size())
            return reject(fmt::format("mmul takes {} arguments, but the declaration gives N, A, B, C and {} local "
                                      "buffer(s)",
                                      args, d.local_floats.size()));
        Bench bench(ctx, q, kernel, d);

        // Sizes: public, secret (drawn now, never shown before the run), and the ranking size.
        std::random_device rd;
        std::mt19937_64 gen((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
        std::vector<int> sizes = o.race_pass ? race_pass_sizes : o.public_sizes;
        std::uniform_int_distribution<int> secret(33, 400);
        for (int i = 0; i < (o.race_pass ? 0 : o.secret_sizes); ++i) sizes.push_back(secret(gen));
        std::string size_list;
        for (int n : sizes) size_list += fmt::format("{},", n);
        size_list += std::to_string(o.n);

        for (const int n : sizes) {
            Rng r(gen());
            const auto a = r.uniform_vector(static_cast<std::size_t>(n) * n);
            const auto b = r.uniform_vector(static_cast<std::size_t>(n) * n);
            auto ab = bench.input(a), bb = bench.input(b);
            auto cb = bench.output(n);
            const auto c = bench.run(n, ab, bb, cb, nullptr);
            const auto expected = matmul::reference(n, a, b);
            const auto cmp = compare(expected, c, matmul::tolerance(n), matmul::magnitude(n, a, b));
            if (!cmp.ok()) return reject(fmt::format("wrong at N = {}: {}", n, matmul::describe(n, cmp)));
        }
        if (o.race_pass) {
            verdict << "result=ok\n";
            return exit_ok;
        }

        // Timing at the ranking size: three input sets in turn, C poisoned before every launch,
        // every launch's C sampled and scanned.
        const int n = o.n;
        std::vector<std::vector<float>> as, bs;
        std::vector<cl::Buffer> abuf, bbuf;
        for (int s = 0; s < 3; ++s) {
            Rng r(gen());
            as.push_back(r.uniform_vector(static_cast<std::size_t>(n) * n));
            bs.push_back(r.uniform_vector(static_cast<std::size_t>(n) * n));
            abuf.push_back(bench.input(as.back()));
            bbuf.push_back(bench.input(bs.back()));
        }
        auto cb = bench.output(n);
        std::vector<double> times;
        for (int i = 0; i < o.warmups + o.repeats; ++i) {
            const int s = i % 3;
            double t = 0;
            const auto c = bench.run(n, abuf[s], bbuf[s], cb, &t);
            check_sample(n, as[s], bs[s], c, gen, fmt::format("timed launch {} at N = {}", i + 1, n));
            if (i >= o.warmups) times.push_back(t);
        }
        std::sort(times.begin(), times.end());
        const double median = times[times.size() / 2];
        verdict << "result=ok\n"
                << "device=" << one_line(choice.platform_name + " / " + choice.device_name) << "\n"
                << "driver=" << one_line(choice.device.getInfo<CL_DRIVER_VERSION>()) << "\n"
                << "n=" << n << "\nmedian_s=" << fmt::format("{:.9g}", median) << "\nmin_s="
                << fmt::format("{:.9g}", times.front()) << "\nmax_s=" << fmt::format("{:.9g}", times.back())
                << "\ngflops=" << fmt::format("{:.6g}", matmul::gflops(n, median)) << "\nrepeats=" << times.size()
                << "\nsizes=" << size_list << "\noptions=" << one_line(d.options) << "\nhash=" << fnv1a(source) << "\n";
        return exit_ok;
    } catch (...) {
        return reject(describe_exception(std::current_exception()));
    }
}

}  // namespace workbook::contest
