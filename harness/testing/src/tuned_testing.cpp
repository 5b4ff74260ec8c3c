// A rung whose shape is tuned per device (testing.hpp's TunedSpec, exercise 20): which shapes are
// graded, the correctness case, the speed check against the tuned reference, and the tuner.
//
// Who holds what, as in the speed check: the student's kernel runs in the test's runner
// (sandboxed when graded); the reference runs in a second runner started here without the
// sandbox, which builds only the solution embedded at build time. This process chooses every
// shape (the student's kernel file only proposes one, which must be a candidate), draws every
// input, keeps the clock on a CPU device, checks every C, and alone decides.
#include "workbook/testing.hpp"

#include "timed_launch.hpp"

#include "workbook/errors.hpp"
#include "workbook/kernels.hpp"
#include "workbook/race_check.hpp"
#include "workbook/run_main.hpp"
#include "workbook/tuning_rank.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>

namespace workbook::testing {

namespace {

bool contains(const std::vector<tuning::Choice>& all, const tuning::Choice& c) {
    return std::find(all.begin(), all.end(), c) != all.end();
}

cl::Device graded_device_or_throw() {
    const auto device = race::graded_device();
    if (!device)
        throw Error("no OpenCL device answers to this run's WORKBOOK_PLATFORM, WORKBOOK_DEVICE and WORKBOOK_DEVICE_TYPE");
    return *device;
}

bool is_cpu(const cl::Device& device) { return (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0; }

}  // namespace

std::vector<tuning::Choice> TunedPlan::graded() const {
    std::vector<tuning::Choice> out;
    for (const auto& o : others)
        if (!contains(out, o)) out.push_back(o);
    if (!contains(out, student)) out.push_back(student);
    return out;
}

TunedPlan plan_tuned(const TunedSpec& spec) {
    const cl::Device device = graded_device_or_throw();
    TunedPlan p;
    p.device_key = tuning::device_key(device);
    // The choices tuned nearest the speed check's N (drawn from the seed, so under the race pass
    // too): the best shape depends on N as well as on the device.
    p.n = speed_check_n(is_cpu(device));
    const auto all = spec.candidates(device);
    p.untuned = spec.default_choice(device);
    std::string why;
    if (const auto r = tuning::reference_choice(spec.exercise, p.device_key, all, &why, p.n)) {
        p.reference = *r;
        p.reference_from = "tuned for this device by your instructor (" + tuning::reference_file() + ")";
    } else {
        p.reference = p.untuned;
        p.reference_from = "untuned: " + why;
    }
    if (const auto s = tuning::student_choice(kernel_source("mmul.cl").text, p.device_key, all, &why, p.n)) {
        p.student = *s;
        p.student_from = "your tuned line for this device";
    } else {
        p.student = p.reference;
        p.student_from = "the reference's, since " + why + " (run `workbook tune " + spec.exercise.substr(0, 2) +
                         "` to tune it here)";
    }
    // Small shapes from the seed (cheap under the simulator), one for each loop of the kernel that
    // the student's shape does not already grade at 64 rows or fewer: both loops are graded, and
    // each in a small block too (on the H100 the student's shape is 128 x 256, and a kernel that
    // kept its prefetching barrier only in blocks of more than 64 rows passed there).
    auto r = rng("tuned shapes");
    for (const int prefetch : {0, 1}) {
        if (p.student.get("TSM") <= 64 && p.student.get("PREFETCH") == prefetch) continue;
        std::vector<tuning::Choice> small;
        for (const auto& c : all)
            if (c.get("TSM") <= 64 && c.get("PREFETCH") == prefetch) small.push_back(c);
        if (!small.empty()) p.others.push_back(small[r.next_u64() % small.size()]);
    }
    // And a block that is not square, where none of those is (a CPU's shapes are 64 x 64): a
    // kernel that mixes up the block's rows and columns (TSM for TSN) is right at every square one.
    const auto square = [](const tuning::Choice& c) { return c.get("TSM") == c.get("TSN"); };
    const auto graded = p.graded();
    if (std::all_of(graded.begin(), graded.end(), square)) {
        std::vector<tuning::Choice> oblong;
        for (const auto& c : all)
            if (!square(c) && c.get("TSM") <= 64) oblong.push_back(c);
        if (!oblong.empty()) p.others.push_back(oblong[r.next_u64() % oblong.size()]);
    }
    return p;
}

bool check_tuned_kernel(const TunedSpec& spec) {
    const TunedPlan p = plan_tuned(spec);
    MESSAGE(fmt::format("on {}: your shape {} ({}); the reference's {} ({})", p.device_key, p.student.text(), p.student_from,
                        p.reference.text(), p.reference_from));
    for (const auto& c : p.graded())
        if (!check_matmul_kernel(spec.rung(c), c.text())) return false;  // one clear failure beats a screenful
    // Without prefetching the kernel keeps one set of tiles: a kernel that always prefetches (exercise
    // 19's) is correct at every shape but ignores the choice the tuner makes. Its declared local
    // memory says which, asked of a runner of its own before any of its launches (a kernel that
    // has run could have written anything into its runner's memory).
    if (race_pass() || !spec.one_set_bytes) return true;
    bool ok = true;
    for (const auto& c : p.graded()) {
        if (c.get("PREFETCH") != 0) continue;
        runner::Client fresh;
        runner::Message ask;
        ask.text["shape"] = c.text();
        const auto bytes = static_cast<std::size_t>(fresh.call("local_memory", ask).num("bytes"));
        const std::size_t one_set = spec.one_set_bytes(c);
        ok = ok && bytes <= one_set + 64;
        CHECK_MESSAGE(bytes <= one_set + 64,
                      fmt::format("built with {}, your kernel declares {} bytes of local memory, but one set of its tiles "
                                  "is {} bytes: without prefetching (PREFETCH=0) the kernel must keep one set (SETS = "
                                  "PREFETCH + 1), or the tuner's choice means nothing. ({})",
                                  c.text(), bytes, one_set, repeat_hint()));
    }
    return ok;
}

void check_tuned_speed(const TunedSpec& spec) {
    if (race_pass() || small_sizes_only()) {
        MESSAGE("the speed check is left out under the simulator (WORKBOOK_SMALL=1): it times a real device");
        return;
    }
    // Spent only on a kernel correct at every graded shape (its failures are this case's too): a
    // starter, whose prefetching loop is given and fast, must not score for speed.
    if (!check_tuned_kernel(spec)) return;
    const TunedPlan p = plan_tuned(spec);
    runner::Client reference_client({}, false);
    Timed reference(reference_client, spec.exercise), student(runner::client(), "student");
    reference.shape = p.reference.text();
    student.shape = p.student.text();
    const bool cpu = is_cpu(graded_device_or_throw());
    const int n = p.n;
    auto r = rng("matmul-speed");
    std::mt19937_64 sample(r.next_u64());
    std::vector<double> t_student, t_reference;
    int warm_up = 0;  // the round that warms the runners up, not counted
    const auto time_round = [&](int round) {
        const auto a = r.uniform_vector(static_cast<std::size_t>(n) * n), b = r.uniform_vector(static_cast<std::size_t>(n) * n);
        Timed* order[2] = {&reference, &student};
        if (round % 2) std::swap(order[0], order[1]);  // each goes first in turn
        for (Timed* k : order) {
            std::vector<float> c;
            const double t = k->run(n, a, b, &c, cpu);
            matmul::check_sampled(n, a, b, c, sample, 1024, k->who() + " in a timed launch");
            if (round != warm_up) (k == &student ? t_student : t_reference).push_back(t);  // the first round warms up
        }
    };
    const auto ratio_now = [&] {
        return *std::min_element(t_reference.begin(), t_reference.end()) /
               *std::min_element(t_student.begin(), t_student.end());
    };
    int round = 0;
    for (; round <= spec.rounds; ++round) time_round(round);
    // Short of the mark, more rounds before the verdict stands: load only slows launches down, so
    // each kernel's fastest comes closer to what it can do (the solution against itself measured
    // 0.80x after 9 rounds on this quiet 2-core VM, one run in five). A truly slower kernel stays so.
    for (const int most = spec.rounds * spec.extra_round_factor; round <= most && ratio_now() < spec.of_reference; ++round)
        time_round(round);
    // On a CPU device one kernel can run slower in one runner process than in another for the
    // processes' whole lives (the reference's own shape: 0.81x to 1.27x of itself, best of 9
    // rounds, on an idle 2-core VM): short of the mark still, both runners are started afresh and
    // the rounds taken again; each kernel keeps its fastest round of all.
    if (cpu && ratio_now() < spec.of_reference) {
        reference_client.close();
        runner::client().close();
        warm_up = round;
        for (const int stop = round + spec.rounds; round <= stop; ++round) time_round(round);
    }
    const double best_student = *std::min_element(t_student.begin(), t_student.end());
    const double best_reference = *std::min_element(t_reference.begin(), t_reference.end());
    const double ratio = best_reference / best_student;
    const bool ok = ratio >= spec.of_reference;
    const std::string shown = fmt::format(
        "speed at N = {} on {} ({} device), the fastest of {} rounds, the two kernels taking turns on fresh inputs:\n"
        "  {:<12} {:9.1f} GFLOPS  {:.2f}x the reference  at {} ({})\n"
        "  {:<12} {:9.1f} GFLOPS  1.00x                at {} ({}){}\n"
        "{}",
        n, p.device_key, cpu ? "a CPU" : "a GPU", t_student.size(), "yours", matmul::gflops(n, best_student), ratio,
        p.student.text(), p.student_from, "reference", matmul::gflops(n, best_reference), p.reference.text(),
        p.reference_from, quota_note({&reference, &student}),
        ok ? fmt::format("Within the {:.2f}x of the reference this rung needs.", spec.of_reference)
           : fmt::format("Your kernel is correct but too slow for this rung: it needs {:.2f}x the reference's speed on "
                         "this device and reached {:.2f}x. Tune it here (`workbook tune {}`), or compare your kernel "
                         "with exercise 19's: see the README's Key concepts. ({})",
                         spec.of_reference, ratio, spec.exercise.substr(0, 2), repeat_hint()));
    record_speed(shown);
    if (ok) std::cout << shown << "\n";  // a failure prints it in its message
    CHECK_MESSAGE(ok, shown);
}

namespace {

// The tuner's timed rounds (and at most as many again for a tie), after each candidate's check and
// a launch to warm it up. Each round draws fresh inputs and times every candidate once, in an order
// rotated round by round, as the speed check takes turns: a busy spell slows whichever candidates
// it meets, and each candidate's fastest round ranks it, its next fastest saying how well that is
// reproduced (tuning_rank.hpp).
constexpr int tuner_rounds = 7;

std::string failure_note(const std::exception& e) {
    const std::string what = e.what();
    std::string note = "FAILED, never chosen: " + what.substr(0, what.find('\n'));
    if (const auto at = what.find("mmul.cl:"); at != std::string::npos)  // the build error's own line
        note += " " + what.substr(at, what.find('\n', at) - at);
    if (note.size() > 200) note = note.substr(0, 197) + "...";
    return note;
}

}  // namespace

int run_tuner(const TunedSpec& spec) {
    const char* out_file = std::getenv("WORKBOOK_TUNE");
    const char* ref = std::getenv("WORKBOOK_TUNE_REFERENCE");
    const bool of_reference = ref && std::string(ref) == "1";
    try {
        const cl::Device device = graded_device_or_throw();
        const std::string key = tuning::device_key(device);
        const bool cpu = is_cpu(device);
        const int n = speed_check_n(cpu, false);
        const auto all = spec.candidates(device);
        runner::Client reference_client({}, false);
        runner::Client& client = of_reference ? reference_client : runner::client();
        const std::string who = of_reference ? "the reference (" + spec.exercise + ")" : "your kernel";
        fmt::print("Tuning {} on {} at N = {}: {} candidates, each checked, then timed in {} rounds that take turns\n"
                   "(each round: fresh inputs, every candidate once, in a rotated order; more rounds of the top ones\n"
                   "while they are tied); each ranked by its fastest round, its spread being how far its next\n"
                   "fastest round lies above that.\n",
                   who, key, n, all.size(), tuner_rounds);
        std::vector<std::unique_ptr<Timed>> timed;
        std::vector<std::string> notes(all.size(), "ok");
        std::vector<std::vector<double>> rounds(all.size());
        std::vector<bool> alive(all.size(), true);
        auto r = rng("tuner");
        std::mt19937_64 sample(r.next_u64());
        // 1. Each candidate checked at an awkward size (partial blocks both ways), then launched
        //    once at the timed size to build and warm it up (not counted).
        for (std::size_t i = 0; i < all.size(); ++i) {
            const auto& c = all[i];
            timed.push_back(std::make_unique<Timed>(client, of_reference ? spec.exercise : "student"));
            Timed& k = *timed.back();
            k.shape = c.text();
            try {
                std::vector<float> cc;
                const int odd = c.get("TSM") + c.get("TSN") / 2 + 3;
                auto ro = rng("tuner odd", static_cast<std::uint64_t>(odd));
                const auto ao = ro.uniform_vector(static_cast<std::size_t>(odd) * odd), bo = ro.uniform_vector(static_cast<std::size_t>(odd) * odd);
                k.run(odd, ao, bo, &cc, cpu);
                const auto expected = matmul::expected(odd, ao, bo);
                const auto cmp = compare(expected.c, cc, matmul::tolerance(odd), expected.magnitude);
                if (!cmp.ok()) throw Error(fmt::format("wrong at N = {}: {}", odd, matmul::describe(odd, cmp)));
                const auto a = r.uniform_vector(static_cast<std::size_t>(n) * n), b = r.uniform_vector(static_cast<std::size_t>(n) * n);
                k.run(n, a, b, &cc, cpu);
                matmul::check_sampled(n, a, b, cc, sample, 1024, k.who() + " while tuning");
            } catch (const std::exception& e) {
                alive[i] = false;
                notes[i] = failure_note(e);
            }
            fmt::print("checked [{:>2}/{:<2}] {:<52} {}\n", i + 1, all.size(), c.text(), notes[i]);
            std::fflush(stdout);
        }
        // 2. The timed rounds, taking turns: every candidate that ran; then, while the top ones are
        //    tied within noise, up to as many rounds again of the tied alone (a second quiet round
        //    of each narrows its spread; under steady load they stay tied, and the tuner says so).
        const auto time_round = [&](int round, const std::vector<std::size_t>& among) {
            const auto a = r.uniform_vector(static_cast<std::size_t>(n) * n), b = r.uniform_vector(static_cast<std::size_t>(n) * n);
            std::vector<std::size_t> order;
            for (const std::size_t i : among)
                if (alive[i]) order.push_back(i);
            if (!order.empty())
                std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(round % order.size()), order.end());
            for (const std::size_t i : order) {
                try {
                    std::vector<float> cc;
                    const double t = timed[i]->run(n, a, b, &cc, cpu);
                    matmul::check_sampled(n, a, b, cc, sample, 1024, timed[i]->who() + " while tuning");
                    rounds[i].push_back(t);
                } catch (const std::exception& e) {  // wrong on these inputs: out, whatever its times
                    alive[i] = false;
                    rounds[i].clear();
                    notes[i] = failure_note(e);
                }
            }
        };
        std::vector<std::size_t> everyone(all.size());
        for (std::size_t i = 0; i < all.size(); ++i) everyone[i] = i;
        fmt::print("timing:");
        int round = 0;
        for (; round < tuner_rounds; ++round) {
            time_round(round, everyone);
            fmt::print(" {}", round + 1);
            std::fflush(stdout);
        }
        for (auto ranking = tuning::rank(rounds); !ranking.clear && round < 2 * tuner_rounds; ranking = tuning::rank(rounds)) {
            if (round == tuner_rounds) fmt::print(", then the {} tied:", ranking.tied.size());
            time_round(round++, ranking.tied);
            fmt::print(" {}", round);
            std::fflush(stdout);
        }
        fmt::print("\n\n");
        // 3. The ranking (tuning_rank.hpp) and the table.
        const auto ranking = tuning::rank(rounds);
        fmt::print("{:>7}  {:<52} {:>8} {:>12} {:>12} {:>12} {:>7}  {}\n", "", "shape", "GFLOPS", "fastest", "next", "median",
                   "spread", "check");
        for (std::size_t i = 0; i < all.size(); ++i) {
            const tuning::Ranked* k = ranking.find(i);
            std::string note = notes[i];
            if (k && i == ranking.chosen) note += ranking.clear ? ", chosen" : ", tied, chosen (the fastest round)";
            else if (k && std::find(ranking.tied.begin(), ranking.tied.end(), i) != ranking.tied.end()) note += ", tied";
            const auto ms = [&](double s) { return k ? fmt::format("{:.4f} ms", s * 1e3) : std::string("-"); };
            fmt::print("[{:>2}/{:<2}]  {:<52} {:>8} {:>12} {:>12} {:>12} {:>7}  {}\n", i + 1, all.size(), all[i].text(),
                       k ? fmt::format("{:.1f}", matmul::gflops(n, k->fastest)) : "-", ms(k ? k->fastest : 0),
                       ms(k ? k->next : 0), ms(k ? k->median : 0),
                       k ? fmt::format("{:.1f}%", k->spread * 100) : "-", note);
        }
        std::vector<const Timed*> everyone_timed;
        for (const auto& k : timed) everyone_timed.push_back(k.get());
        if (const std::string q = quota_note(everyone_timed); !q.empty()) fmt::print("{}\n", q);
        if (ranking.tied.empty()) {
            fmt::print("\nNo candidate ran correctly: nothing stored. Make the kernel correct first (`workbook check {}`).\n",
                       spec.exercise.substr(0, 2));
            return 1;
        }
        const tuning::Ranked& chosen = *ranking.find(ranking.chosen);
        const tuning::Choice& best = all[ranking.chosen];
        const tuning::Line line{key, best, matmul::gflops(n, chosen.fastest), n};
        if (ranking.order.size() == 1) {
            fmt::print("\nChosen: {} ({:.1f} GFLOPS at N = {}), the only candidate that ran correctly\n", best.text(), line.gflops, n);
        } else if (ranking.clear) {
            const tuning::Ranked& second = ranking.order[1];
            fmt::print("\nFastest: {} ({:.1f} GFLOPS at N = {}), {:.1f}% ahead of the runner-up {}, beyond the spread of "
                       "{:.1f}%\n",
                       best.text(), line.gflops, n, (second.fastest / chosen.fastest - 1) * 100, all[second.index].text(),
                       ranking.noise * 100);
        } else {
            fmt::print("\nTied within noise: {} candidates' fastest rounds lie within their spread of the fastest. Chosen by "
                       "the rule, the fastest round:\n{} ({:.1f} GFLOPS at N = {}); run the tuner on a quieter machine to "
                       "tell the tied apart.\n",
                       ranking.tied.size(), best.text(), line.gflops, n);
        }
        if (of_reference) {
            tuning::store_reference_choice(spec.exercise, line);
            fmt::print("stored as the reference's choice for this device in {}\n", tuning::reference_file());
        }
        std::ofstream(out_file) << tuning::format_line(line) << "\n";
        return 0;
    } catch (...) {
        fmt::print("The tuner stopped: {}\n", describe_exception(std::current_exception()));
        return 1;
    }
}

TunerRegistration::TunerRegistration(std::function<int()> tune) { registered_tuner() = std::move(tune); }

std::function<int()>& registered_tuner() {
    static std::function<int()> tuner;
    return tuner;
}

}  // namespace workbook::testing
