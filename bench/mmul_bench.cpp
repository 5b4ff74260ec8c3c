// The matmul ladder bench: serial CPU, every rung's solution kernel and, where installed, OpenBLAS
// and CLBlast, side by side in one process on the chosen device. Prints a table per size (GFLOPS,
// speed-up over the naive kernel, fraction of the best BLAS row), writes a CSV and an SVG chart.
// Every row's result is checked against a reference before its speed counts.
#include "05_mmul_naive/launch.hpp"
#include "07_mmul_row/launch.hpp"
#include "08_mmul_row_private/launch.hpp"
#include "09_mmul_col_local/launch.hpp"
#include "10_mmul_block/launch.hpp"
#include "15_sgemm_wpt/launch.hpp"
#include "16_sgemm_float4/launch.hpp"
#include "17_sgemm_2d_block/launch.hpp"
#include "18_sgemm_transpose/launch.hpp"
#include "19_sgemm_prefetch/launch.hpp"
#include "20_sgemm_tune/launch.hpp"
#include "chart.hpp"

#include "contest/reference.hpp"

#include "workbook/matmul_run.hpp"
#include "workbook/process.hpp"
#include "workbook/run_main.hpp"
#include "workbook/timing.hpp"
#include "workbook/tuning_rank.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#ifdef __linux__
#include <unistd.h>
#endif

#ifdef WORKBOOK_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef WORKBOOK_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace mm = workbook::matmul;
namespace contest = workbook::contest;

namespace {

struct Row {
    Row(std::string name_, int n_) : name(std::move(name_)), n(n_) {}
    std::string name;
    int n = 0;
    std::optional<mm::Timing> timing;  // empty: skipped
    std::string note;                   // why skipped, or the check's verdict
    bool checked_ok = false;
    bool blas = false;
    double gflops() const { return timing ? mm::gflops(n, timing->kernel_median) : 0.0; }
};

// What every row's C is compared with: OpenBLAS when present (a BLAS result has the same error
// bound as ours, so the tolerance doubles), else the double-precision CPU reference.
struct Reference {
    std::vector<float> c, scale;
    workbook::Tolerance tolerance;
    bool available = false;
};

// Host-timed repeats of `run` (which must finish its work before returning), after one warm-up.
mm::Timing time_host(int repeats, const std::function<void()>& run) {
    run();
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r) {
        workbook::Stopwatch clock;
        run();
        t.push_back(clock.seconds());
    }
    return mm::summarize(t, t);  // host-timed: the kernel time is the wall time
}

#ifdef WORKBOOK_HAVE_OPENBLAS
void openblas_sgemm(int n, const float* a, const float* b, float* c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
#endif

// OpenBLAS reads OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE once, when it loads; some machines set
// them (CORETYPE=Haswell forces the AVX2 kernels on an AVX-512 CPU and halves its speed). For a
// fair row the bench starts itself again without them, before anything else, unless
// --keep-openblas-env is given. The OpenBLAS row then names the kernel it ran.
const char* const openblas_overrides[] = {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"};

void restart_without_openblas_overrides(int argc, char** argv) {
#if defined(WORKBOOK_HAVE_OPENBLAS) && defined(__linux__)
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--keep-openblas-env") == 0) return;
    bool set = false;
    for (const char* name : openblas_overrides) set = set || std::getenv(name) != nullptr;
    if (!set) return;
    for (const char* name : openblas_overrides)
        if (const char* v = std::getenv(name)) fmt::print(stderr, "mmul_bench: unsetting {}={} for OpenBLAS's own choice of kernel\n", name, v);
    for (const char* name : openblas_overrides) unsetenv(name);
    execv("/proc/self/exe", argv);
    fmt::print(stderr, "mmul_bench: could not restart itself ({}); the OpenBLAS row keeps the overrides\n",
               std::strerror(errno));
#else
    (void)argc, (void)argv;
#endif
}

Reference make_reference(const mm::Problem& p, int check_max) {
    Reference ref;
    const int n = p.n;
#ifdef WORKBOOK_HAVE_OPENBLAS
    const std::size_t elements = static_cast<std::size_t>(n) * n;
    std::vector<float> abs_a(elements), abs_b(elements);
    std::transform(p.a.begin(), p.a.end(), abs_a.begin(), [](float x) { return std::fabs(x); });
    std::transform(p.b.begin(), p.b.end(), abs_b.begin(), [](float x) { return std::fabs(x); });
    ref.c.resize(elements);
    ref.scale.resize(elements);
    openblas_sgemm(n, p.a.data(), p.b.data(), ref.c.data());
    openblas_sgemm(n, abs_a.data(), abs_b.data(), ref.scale.data());
    const auto t = mm::tolerance(n);
    ref.tolerance = workbook::Tolerance{2 * t.abs, 2 * t.rel};
    ref.available = true;
#else
    if (n <= check_max) {
        ref.c = mm::reference(n, p.a, p.b);
        ref.scale = mm::magnitude(n, p.a, p.b);
        ref.tolerance = mm::tolerance(n);
        ref.available = true;
    }
#endif
    (void)check_max;
    return ref;
}

void check(Row& row, const Reference& ref, const std::vector<float>& c) {
    if (!ref.available) {
        row.note = "unchecked (no reference at this size)";
        return;
    }
    const auto result = workbook::compare(ref.c, c, ref.tolerance, ref.scale);
    row.checked_ok = result.ok();
    row.note = result.ok() ? "ok" : "WRONG: " + mm::describe(row.n, result);
}

// C filled with NaN before a row's launches: a kernel that leaves elements unwritten fails the
// check instead of passing on what the row before it wrote.
void poison_c(const workbook::Run& run, const mm::Problem& p) {
    run.queue.enqueueFillBuffer(p.c_buffer, std::nanf(""), 0, static_cast<std::size_t>(p.n) * p.n * sizeof(float));
    run.queue.finish();
}

std::vector<float> read_c(const workbook::Run& run, const mm::Problem& p) {
    std::vector<float> c(static_cast<std::size_t>(p.n) * p.n);
    run.queue.enqueueReadBuffer(p.c_buffer, CL_TRUE, 0, c.size() * sizeof(float), c.data());
    return c;
}

struct NamedRung {
    std::string name;
    mm::Rung rung;
};

std::vector<NamedRung> ladder() {
    auto qualified = [](std::string folder, mm::Rung r) {
        r.kernel_file = folder + "/mmul.cl";
        return r;
    };
    return {{"05 naive (element per work-item)", qualified("05_mmul_naive", workbook::ex05::rung())},
            {"07 row per work-item", qualified("07_mmul_row", workbook::ex07::rung())},
            {"08 row of A private", qualified("08_mmul_row_private", workbook::ex08::rung())},
            {"09 + column of B local", qualified("09_mmul_col_local", workbook::ex09::rung())},
            {"10 blocked 16x16 local", qualified("10_mmul_block", workbook::ex10::rung())},
            {"15 8 per work-item, 32x32", qualified("15_sgemm_wpt", workbook::ex15::rung())},
            {"16 float4, 2 rows per work-item", qualified("16_sgemm_float4", workbook::ex16::rung())},
            {"17 8x8 register blocks", qualified("17_sgemm_2d_block", workbook::ex17::rung())},
            {"18 + 8 x 16 per work-item, A transposed", qualified("18_sgemm_transpose", workbook::ex18::rung())},
            {"19 + next tile prefetched", qualified("19_sgemm_prefetch", workbook::ex19::rung())},
            {"20 tuned (reference's choice)", qualified("20_sgemm_tune", workbook::ex20::rung_choosing(workbook::ex20::reference_or_default))}};
}

// A rung's kernel built for this size, timed over `repeats` launches on a poisoned C, and the last
// result checked: the row, and the kernel and its launch for more timing (the tuner's rounds).
struct Checked {
    cl::Kernel kernel;
    mm::Launch launch;
    Row row;
};
Checked build_and_check(workbook::Run& run, const mm::Problem& p, const Reference& ref, const std::string& name,
                        const mm::Rung& rung, int repeats) {
    Checked c{mm::build_rung(run.context, run.choice.device, rung, p.n), {}, Row{name, p.n}};
    c.launch = rung.launch(run.choice.device, c.kernel, p.n);
    poison_c(run, p);
    c.row.timing = mm::time_launches(run.queue, c.kernel, p, c.launch, repeats);
    check(c.row, ref, read_c(run, p));
    return c;
}

std::string too_large(const mm::Rung& rung, int n) {
    return rung.max_n > 0 && n > rung.max_n ? fmt::format("this rung supports N <= {}", rung.max_n) : "";
}

// Times one rung's kernel at this size and checks the last result.
Row time_rung(workbook::Run& run, const mm::Problem& p, const Reference& ref, const std::string& name,
              const mm::Rung& rung, int repeats) {
    if (const auto why = too_large(rung, p.n); !why.empty()) {
        Row row{name, p.n};
        row.note = "skipped: " + why;
        return row;
    }
    return build_and_check(run, p, ref, name, rung, repeats).row;
}

// cuBLAS through PyTorch (scripts/cublas_sgemm.py), in a child process of this run: NVIDIA's own
// SGEMM on the same GPU, on its own random inputs, checked there against a float64 product.
Row cublas_row(int n, int repeats, const std::string& python) {
    Row row{"cuBLAS SGEMM (PyTorch, no TF32)", n};
    row.blas = true;
    const auto r = workbook::run_process({python, WORKBOOK_SOURCE_DIR "/scripts/cublas_sgemm.py", std::to_string(n),
                                          std::to_string(repeats)},
                                         std::chrono::seconds(300));
    std::istringstream out(r.output.substr(r.output.rfind('\n', r.output.size() - 2) + 1));
    double median = 0, lo = 0, hi = 0, error = 0;
    std::string verdict;
    if (!r.passed() || !(out >> median >> lo >> hi >> error >> verdict)) {
        row.note = fmt::format("skipped: {} ({}): {}", python, r.status(), r.output.substr(0, 200));
        return row;
    }
    row.timing = mm::summarize({median, lo, hi}, {median, lo, hi});
    row.checked_ok = verdict == "ok";
    row.note = row.checked_ok ? fmt::format("ok (max error {:.3g})", error) : "WRONG: " + verdict;
    return row;
}

// Which rows a run includes (--rows): by default all of them.
struct Selection {
    std::set<std::string> rows{"serial", "ladder", "reference", "openblas", "clblast", "cublas"};
    std::set<std::string> rungs;  // the ladder's rows by exercise number ("18"); empty: all
    bool has(const std::string& r) const { return rows.count(r) != 0; }
    bool has_rung(const std::string& name) const { return rungs.empty() || rungs.count(name.substr(0, 2)) != 0; }
};

// The reference row: the parameters for this device and N (tuned or default). A stored choice
// that no longer builds or checks is reported and replaced by the default.
Row reference_row(workbook::Run& run, const mm::Problem& p, const Reference& ref, int repeats) {
    std::string from;
    const auto params = contest::reference_params(run.choice.device, p.n, &from);
    fmt::print(stderr, "N = {}: contest reference kernel {} ({})\n", p.n, params.label(), from);
    std::string failure;
    try {
        const bool tuned = from.rfind("tuned", 0) == 0;
        Row row = time_rung(run, p, ref, tuned ? "contest reference (tuned)" : "contest reference (default)",
                            contest::reference_rung(params), repeats);
        if (row.checked_ok || row.note.rfind("unchecked", 0) == 0) {
            row.note += " [" + params.label() + "]";
            return row;
        }
        failure = row.note;
    } catch (const std::exception& e) {
        failure = e.what();
    }
    const auto fallback = contest::default_params(run.choice.device, p.n);
    if (fallback.values == params.values) throw workbook::Error("the reference kernel failed: " + failure);
    fmt::print(stderr, "N = {}: the stored choice {} failed ({}); ignored, using the default {}\n", p.n, params.label(),
               failure.substr(0, 200), fallback.label());
    Row row = time_rung(run, p, ref, "contest reference (default)", contest::reference_rung(fallback), repeats);
    row.note += " [" + fallback.label() + "; the stored choice failed]";
    return row;
}

std::vector<Row> bench_size(workbook::Run& run, int n, int repeats, int serial_max, int check_max,
                            const Selection& selection, const std::string& cublas_python) {
    std::vector<Row> rows;
    const mm::Problem p(run, n, run.seed);
    const Reference ref = make_reference(p, check_max);

    Row serial{"serial CPU, one core", n};
    if (!selection.has("serial")) {
        serial.note = "skipped: not in --rows";
    } else if (n <= serial_max) {
        std::vector<float> c(static_cast<std::size_t>(n) * n);
        // The textbook triple loop, as the serial program of the course: the baseline to beat.
        serial.timing = time_host(1, [&] {
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    float sum = 0.0f;
                    for (int k = 0; k < n; ++k) sum += p.a[i * n + k] * p.b[k * n + j];
                    c[static_cast<std::size_t>(i) * n + j] = sum;
                }
        });
        check(serial, ref, c);
    } else {
        serial.note = fmt::format("skipped: N > --serial-max {}", serial_max);
    }
    rows.push_back(serial);

    if (selection.has("ladder"))
        for (const auto& [name, rung] : ladder())
            if (selection.has_rung(name)) {
                // A rung that cannot run here (local memory, registers) is a row that says why, not
                // the end of the table.
                try {
                    rows.push_back(time_rung(run, p, ref, name, rung, repeats));
                } catch (const std::exception&) {
                    Row failed{name, n};
                    const std::string what = workbook::describe_exception(std::current_exception());
                    failed.note = "FAILED: " + what.substr(0, what.find('\n'));
                    rows.push_back(failed);
                }
            }
    // The last rung: the instructor's tuned contest kernel, with this device's parameters for N.
    if (selection.has("reference")) rows.push_back(reference_row(run, p, ref, repeats));

#ifdef WORKBOOK_HAVE_OPENBLAS
    if (selection.has("openblas")) {
        Row row{fmt::format("OpenBLAS sgemm ({})", openblas_get_corename()), n};
        row.blas = true;
        std::vector<float> c(static_cast<std::size_t>(n) * n);
        row.timing = time_host(repeats, [&] { openblas_sgemm(n, p.a.data(), p.b.data(), c.data()); });
        check(row, ref, c);
        rows.push_back(row);
    }
#endif
#ifdef WORKBOOK_HAVE_CLBLAST
    if (selection.has("clblast")) {
        Row row{"CLBlast SGEMM (device)", n};
        row.blas = true;
        cl_command_queue queue = run.queue();
        // CLBlast may run several kernels for one call and its event covers only the last, so the
        // whole call is timed on the host up to finish().
        row.timing = time_host(repeats, [&] {
            const auto status = clblast::Gemm(clblast::Layout::kRowMajor, clblast::Transpose::kNo,
                                              clblast::Transpose::kNo, n, n, n, 1.0f, p.a_buffer(), 0, n, p.b_buffer(),
                                              0, n, 0.0f, p.c_buffer(), 0, n, &queue);
            if (status != clblast::StatusCode::kSuccess)
                throw workbook::Error(fmt::format("CLBlast Gemm failed with status {}", static_cast<int>(status)));
            run.queue.finish();
        });
        check(row, ref, read_c(run, p));
        rows.push_back(row);
    }
#endif
    if (!cublas_python.empty() && selection.has("cublas")) rows.push_back(cublas_row(n, repeats, cublas_python));
    return rows;
}

// For reading what the compiler made of a candidate: its program binary (PTX on NVIDIA) and build
// log, with NVIDIA's register report when the platform is NVIDIA's.
void dump_binary(workbook::Run& run, const contest::ReferenceParams& p, const std::string& dir) {
    auto rung = contest::reference_rung(p);
    if (run.choice.platform_name.find("NVIDIA") != std::string::npos) rung.build_options += " -cl-nv-verbose";
    const cl::Kernel kernel = mm::build_rung(run.context, run.choice.device, rung, 0);
    const auto program = kernel.getInfo<CL_KERNEL_PROGRAM>();
    std::string name = p.label();
    std::replace(name.begin(), name.end(), ' ', '_');
    std::replace(name.begin(), name.end(), '=', '-');
    auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    if (!binaries.empty()) {
        // NVIDIA's binary is PTX text ending in a NUL byte, which ptxas refuses: cut it off.
        auto& b = binaries[0];
        while (!b.empty() && b.back() == 0) b.pop_back();
        std::ofstream(dir + "/" + name + ".bin").write(reinterpret_cast<const char*>(b.data()),
                                                        static_cast<std::streamsize>(b.size()));
    }
    std::ofstream(dir + "/" + name + ".log") << program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(run.choice.device);
}

// The tuner: every candidate parameter set of the reference kernel at size n, each built and
// checked once, then timed in `rounds` rounds in which the candidates take turns (the first to go
// moving on by one each round), so that a machine that slows down or speeds up meanwhile moves
// them all. Each is ranked by its fastest round (workbook::tuning::rank, the rule `workbook tune`
// uses); candidates within noise of the fastest are said to be tied with it. The choice is stored
// for this device and n's size class (contest::store_tuning).
void tune(workbook::Run& run, int n, int repeats, int rounds, int check_max) {
    const mm::Problem p(run, n, run.seed);
    const Reference ref = make_reference(p, check_max);
    struct Candidate {
        contest::ReferenceParams params;
        std::optional<cl::Kernel> kernel;  // empty: failed to build, run or check
        mm::Launch launch;
        std::string note;
    };
    std::vector<Candidate> candidates;
    fmt::print("\nTuning the reference kernel at N = {} (size class {}) on {}: each candidate checked, then {} rounds "
               "of {} launch(es) each, taking turns\n",
               n, contest::size_class(n), run.choice.device_name, rounds, repeats);
    std::fflush(stdout);
    for (const auto& params : contest::reference_candidates(run.choice.device, n)) {
        Candidate c{params, std::nullopt, {}, ""};
        try {
            const auto rung = contest::reference_rung(params);
            if (const auto why = too_large(rung, n); !why.empty()) throw workbook::Error(why);
            auto checked = build_and_check(run, p, ref, params.label(), rung, 1);
            c.launch = checked.launch;
            c.note = checked.row.note;
            // Only a checked result counts: an unchecked fast candidate could be a wrong one.
            if (checked.row.checked_ok) c.kernel = checked.kernel;
        } catch (const std::exception& e) {  // a candidate the device cannot run is left out
            c.note = std::string("failed: ") + e.what();
        }
        if (const char* dir = std::getenv("WORKBOOK_DUMP_BINARIES"); dir && *dir) dump_binary(run, params, dir);
        candidates.push_back(std::move(c));
    }
    std::vector<std::vector<double>> times(candidates.size());
    for (int r = 0; r < rounds; ++r) {
        for (std::size_t k = 0; k < candidates.size(); ++k) {
            const std::size_t i = (k + static_cast<std::size_t>(r)) % candidates.size();
            if (candidates[i].kernel)
                times[i].push_back(
                    mm::time_launches(run.queue, *candidates[i].kernel, p, candidates[i].launch, repeats).kernel_median);
        }
    }
    const auto ranking = workbook::tuning::rank(times);
    fmt::print("{:<56} {:>10} {:>8} {:>10}  {}\n", "parameters", "GFLOPS", "spread", "median", "check");
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const auto* r = ranking.find(i);
        const bool tied = std::find(ranking.tied.begin(), ranking.tied.end(), i) != ranking.tied.end();
        fmt::print("{:<56} {:>10} {:>8} {:>10}  {}{}\n", candidates[i].params.label(),
                   r ? fmt::format("{:.2f}", mm::gflops(n, r->fastest)) : "-",
                   r ? fmt::format("{:.1f}%", 100 * r->spread) : "-",
                   r ? fmt::format("{:.2f}", mm::gflops(n, r->median)) : "-", candidates[i].note.substr(0, 120),
                   !tied ? "" : i == ranking.chosen ? "  <- chosen" : "  (tied: within noise)");
    }
    if (ranking.tied.empty())
        throw workbook::Error(ref.available ? "no candidate ran correctly; nothing stored"
                                            : "no result could be checked at this size; nothing stored\n"
                                              "Fix: install libopenblas-dev, or raise --check-max to the tuning size");
    const auto& best = candidates[ranking.chosen].params;
    const double best_gflops = mm::gflops(n, ranking.find(ranking.chosen)->fastest);
    contest::store_tuning(run.choice.device, best, best_gflops, n);
    fmt::print("\nbest: {} ({:.2f} GFLOPS, its fastest of {} rounds; {}), stored for size class {} in {}\n",
               best.label(), best_gflops, rounds,
               ranking.clear ? fmt::format("faster than the rest beyond noise ({:.1f}%)", 100 * ranking.noise)
                             : fmt::format("{} other(s) within noise of it", ranking.tied.size() - 1),
               contest::size_class(n), contest::tuning_file());
    std::fflush(stdout);
}

void print_table(const std::vector<Row>& rows, int n) {
    double naive = 0, best_blas = 0;
    for (const auto& r : rows) {
        if (r.name.rfind("05 ", 0) == 0) naive = r.gflops();
        if (r.blas) best_blas = std::max(best_blas, r.gflops());
    }
    fmt::print("\nN = {}\n{:<32} {:>10} {:>9} {:>10} {:>12} {:>21}  {}\n", n, "case", "GFLOPS", "x naive", "of BLAS",
               "median", "range", "check");
    for (const auto& r : rows) {
        if (!r.timing) {
            fmt::print("{:<32} {:>10} {:>9} {:>10} {:>12} {:>21}  {}\n", r.name, "-", "-", "-", "-", "-", r.note);
            continue;
        }
        const auto& t = *r.timing;
        fmt::print("{:<32} {:>10.2f} {:>9} {:>10} {:>12} {:>21}  {}\n", r.name, r.gflops(),
                   naive > 0 ? fmt::format("{:.2f}", r.gflops() / naive) : "-",
                   best_blas > 0 ? fmt::format("{:.3f}", r.gflops() / best_blas) : "-",
                   workbook::format_duration(t.kernel_median),
                   fmt::format("{} - {}", workbook::format_duration(t.kernel_min), workbook::format_duration(t.kernel_max)),
                   r.note);
    }
}

}  // namespace

// One line per size: the reference kernel against CLBlast and the vendor BLAS rows, the ratios the
// contest's goals are stated in.
void print_summary(const std::vector<std::vector<Row>>& runs) {
    fmt::print("\n{:>6} {:>12} {:>12} {:>12} {:>12} {:>10} {:>10} {:>10}\n", "N", "reference", "CLBlast", "cuBLAS",
               "OpenBLAS", "/cuBLAS", "/OpenBLAS", "/CLBlast");
    for (const auto& rows : runs) {
        double ref = 0, clblast = 0, cublas = 0, openblas = 0;
        for (const auto& r : rows) {
            if (!r.timing || !r.checked_ok) continue;
            if (r.name.rfind("contest reference", 0) == 0) ref = r.gflops();
            if (r.name.rfind("CLBlast", 0) == 0) clblast = r.gflops();
            if (r.name.rfind("cuBLAS", 0) == 0) cublas = r.gflops();
            if (r.name.rfind("OpenBLAS", 0) == 0) openblas = r.gflops();
        }
        auto num = [](double x) { return x > 0 ? fmt::format("{:.1f}", x) : std::string("-"); };
        auto ratio = [&](double x) { return ref > 0 && x > 0 ? fmt::format("{:.3f}x", ref / x) : std::string("-"); };
        fmt::print("{:>6} {:>12} {:>12} {:>12} {:>12} {:>10} {:>10} {:>10}\n", rows.empty() ? 0 : rows.front().n, num(ref),
                   num(clblast), num(cublas), num(openblas), ratio(cublas), ratio(openblas), ratio(clblast));
    }
}

int main(int argc, char** argv) {
    restart_without_openblas_overrides(argc, argv);
    workbook::App app("Matmul ladder bench: serial CPU, every rung's solution kernel, OpenBLAS and CLBlast, side by "
                      "side on one device");
    std::vector<int> sizes{1024};
    int repeats = 3, rounds = 5, serial_max = 1024, check_max = 1024;
    std::string csv_path = "bench_mmul.csv", svg_path = "bench_mmul.svg", cublas_python;
    bool tune_only = false, keep_openblas_env = false;
    std::vector<std::string> rows;
    Selection selection;
    app.cli().add_option("--sizes", sizes, "matrix orders N to run (default 1024: under two minutes on 2 CPU cores)")
        ->delimiter(',')
        ->check(CLI::Range(1, 16384));
    app.cli().add_option("--repeats", repeats, "timed runs per case after one warm-up (median reported)")
        ->check(CLI::Range(1, 1000));
    app.cli().add_option("--rounds", rounds,
                         "with --tune: rounds in which the candidates take turns, --repeats launches each (ranked by "
                         "each candidate's fastest round)")
        ->check(CLI::Range(1, 100));
    app.cli().add_option("--serial-max", serial_max, "largest N for the (slow) serial CPU row");
    app.cli().add_option("--check-max", check_max, "largest N checked against the CPU reference when no OpenBLAS");
    app.cli().add_option("--csv", csv_path, "where to write the CSV");
    app.cli().add_option("--svg", svg_path, "where to write the chart (largest N)");
    app.cli().add_flag("--tune", tune_only,
                       "try the reference kernel's candidate parameters at each of --sizes and store the fastest for "
                       "this device and the size's class (WORKBOOK_TUNING_FILE, default ~/.cache/workbook/mmul_tuning.toml)");
    app.cli().add_option("--rows", rows, "rows to run: serial, ladder, reference, openblas, clblast, cublas (default all)")
        ->delimiter(',')
        ->check(CLI::IsMember({"serial", "ladder", "reference", "openblas", "clblast", "cublas"}));
    std::vector<std::string> rungs;
    app.cli().add_option("--rungs", rungs, "the ladder's rows to run, by exercise number: 17,18,19 (default all)")
        ->delimiter(',')
        ->check(CLI::IsMember({"05", "07", "08", "09", "10", "15", "16", "17", "18", "19", "20"}));
    app.cli().add_flag("--keep-openblas-env", keep_openblas_env,
                       "keep OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (by default the bench restarts itself without them)");
    app.cli().add_option("--cublas", cublas_python,
                         "add a cuBLAS row: the Python with PyTorch and CUDA to run scripts/cublas_sgemm.py with");
    return app.run(argc, argv, [&](workbook::Run& run) {
        if (tune_only) {
            for (const int n : sizes) tune(run, n, repeats, rounds, check_max);
            return workbook::exit_ok;
        }
        if (!rows.empty()) selection.rows = std::set<std::string>(rows.begin(), rows.end());
        selection.rungs = std::set<std::string>(rungs.begin(), rungs.end());
        std::ofstream csv(csv_path);
        if (!csv) throw workbook::Error(fmt::format("cannot write {}\nFix: give --csv a writable path", csv_path));
        csv << "device,case,n,gflops,median_s,min_s,max_s,repeats,check\n";
        std::vector<Row> last;
        std::vector<std::vector<Row>> runs;
        bool all_ok = true;
        for (const int n : sizes) {
            fmt::print(stderr, "running N = {} ...\n", n);
            last = bench_size(run, n, repeats, serial_max, check_max, selection, cublas_python);
            print_table(last, n);
            runs.push_back(last);
            std::fflush(stdout);
            for (const auto& r : last) {
                if (r.timing && !r.checked_ok && r.note.rfind("unchecked", 0) != 0) all_ok = false;
                if (r.note.rfind("FAILED", 0) == 0) all_ok = false;
                if (!r.timing) continue;
                csv << fmt::format("\"{}\",\"{}\",{},{:.4f},{:.6g},{:.6g},{:.6g},{},\"{}\"\n", run.choice.device_name,
                                   r.name, n, r.gflops(), r.timing->kernel_median, r.timing->kernel_min,
                                   r.timing->kernel_max, r.timing->repeats, r.checked_ok ? "ok" : r.note);
            }
        }
        std::vector<workbook::bench::Bar> bars;
        for (const auto& r : last)
            if (r.timing) bars.push_back({r.name, r.gflops()});
        std::ofstream(svg_path) << workbook::bench::bar_chart_svg(
            fmt::format("Matmul ladder, N = {}, {}", sizes.back(), run.choice.device_name), "GFLOPS", bars);
        print_summary(runs);
        fmt::print("\nwrote {} and {}\n", csv_path, svg_path);
        return all_ok ? workbook::exit_ok : workbook::exit_wrong_result;
    });
}
