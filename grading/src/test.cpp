// The reference runs, and one exercise of one submission tested: the graded run, then the race-pass policy (see grader.hpp).
#include "grader.hpp"

#include "workbook/errors.hpp"
#include "workbook/process.hpp"

#include <atomic>
#include <cctype>
#include <iostream>
#include <optional>
#include <set>

namespace workbook::grading {

namespace {

// Whether doctest's summary says "test cases: 0 ...": no case ran. By hand (the output is the
// runner's too, and std::regex on it overflowed its stack on a long blank run: text.hpp).
bool no_test_case_ran(const std::string& output) {
    const std::string key = "test cases:";
    for (std::size_t at = output.find(key); at != std::string::npos; at = output.find(key, at + 1)) {
        std::size_t i = at + key.size();
        const std::size_t digits = output.find_first_not_of(" \t", i);
        if (digits == i || digits == std::string::npos) continue;
        if (output[digits] == '0' && digits + 1 < output.size() && std::isspace(static_cast<unsigned char>(output[digits + 1])))
            return true;
    }
    return false;
}

}  // namespace

// Two at a time: a run is one process busy, PoCL's second thread only while a kernel runs. Runs
// that time kernels (speed_references) run alone, after the others: no run of ours beside them
// slows what they measure. A run that fails is repeated alone, twice, before the class is stopped:
// one slow timing on a busy machine is the machine's doing, not a fault of the instructor's tree.
void Grader::reference_runs() {
    const PhaseTimes::Scope timed(phases_, "reference runs (once)");
    fs::create_directories(expected_cache());
    std::vector<const Exercise*> together, alone;
    for (const Exercise* ex : exercises_) (ex->speed_references.empty() ? together : alone).push_back(ex);
    std::atomic<std::size_t> next{0};
    std::mutex results;
    const auto worker = [&] {
        for (std::size_t i; (i = next++) < together.size();)
            if (reference_run(together[i], results)) {  // failed: run again alone, below
                const std::lock_guard lock(results);
                alone.push_back(together[i]);
            }
    };
    auto other = std::async(std::launch::async, worker);
    worker();
    other.get();
    for (const Exercise* ex : alone) {
        auto why = reference_run(ex, results);
        for (int again = 0; why && again < 2; ++again) {
            std::cerr << fmt::format("the solution of {} failed its own test ({}); running it again, alone\n", ex->dir(),
                                     why->substr(0, why->find('\n')));
            why = reference_run(ex, results);
        }
        if (why)
            throw Error(fmt::format("the solution of {} does not pass its own test on the secret seed, three times "
                                    "alone: fix the instructor's tree first\n{}",
                                    ex->dir(), *why));
    }
    if (kept_references_ > 0)
        say(fmt::format("reference runs: {} of {} kept from an earlier run in {} (same seed, build and device)",
                        kept_references_.load(), exercises_.size(), (base() / "reference").string()));
}

// One exercise's solution on the secret seed: its evidence, and the kernel builds it made; or why
// it failed.
std::optional<std::string> Grader::reference_run(const Exercise* ex, std::mutex& results) {
    const fs::path file = base() / "reference" / (ex->dir() + ".txt");
    fs::create_directories(file.parent_path());
    // The instructor's kernels, built by this run into a cache of their own (see seed_kernel_cache).
    const fs::path cache = kernel_cache(*ex);  // kept: PoCL keys it by source, options and device
    fs::create_directories(cache);
    const fs::path builds = base() / "reference" / (ex->dir() + "-builds.txt");
    // A run this output folder already holds, for the same seed, solution build and device choice,
    // is kept: a resumed grading, or Gradescope's run_autograder starting from the references its
    // setup.sh ran once (grading/gradescope), pays for none again.
    const fs::path stamp = base() / "reference" / (ex->dir() + ".stamp");
    const fs::path binary = tree_.test_binary(*ex, harness::solution);
    std::error_code ec;
    std::string what = fmt::format("solution={}:{}:{}", binary.string(), fs::file_size(binary, ec),
                                   fs::last_write_time(binary, ec).time_since_epoch().count());
    for (const char* name : {"WORKBOOK_PLATFORM", "WORKBOOK_DEVICE", "WORKBOOK_DEVICE_TYPE", "POCL_DEVICES"})
        if (const char* v = std::getenv(name)) what += fmt::format(" {}={}", name, v);
    // The seed by a digest only: no file of a grading but secret.toml holds it in the clear.
    what += fmt::format(" seed#{:016x}", std::hash<std::string>{}(fmt::format("{}|{}", seed_, what)));
    // (An exercise without kernels, 01, leaves no build log: none is needed.)
    const bool kept = fs::exists(file) && read_file_or_empty(stamp) == what;
    if (kept) ++kept_references_;
    ProcessResult r;
    if (!kept) {
        fs::remove(stamp);
        fs::remove(file);
        fs::remove(builds);
        r = run_process({tree_.test_binary(*ex, harness::solution).string()},
                               std::chrono::seconds(ex->time_limit_s * 2),
                               {fmt::format("WORKBOOK_SEED={}", seed_), "WORKBOOK_EVIDENCE_FILE=" + file.string(),
                                "WORKBOOK_EVIDENCE_NONCE=" + nonce_, "POCL_CACHE_DIR=" + cache.string(),
                                "WORKBOOK_REFERENCE_CACHE=" + (o_.share_work ? expected_cache().string() : ""),
                                "WORKBOOK_BUILD_LOG=" + builds.string()});
        if (!r.passed() || !fs::exists(file)) return fmt::format("{}\n{}", r.status(), cap(r.output, 2000));
        std::ofstream(stamp) << what;
    }
    const std::lock_guard<std::mutex> lock(results);
    reference_[ex->id] = read_file_or_empty(file);
    // Which programs its runner built (kernel file, options), once each: see warm_kernel_cache.
    std::set<std::pair<std::string, std::string>> seen;
    std::istringstream lines(read_file_or_empty(builds));
    for (std::string line; std::getline(lines, line);)
        if (const auto tab = line.find('\t'); tab != std::string::npos) {
            std::pair<std::string, std::string> b{line.substr(0, tab), line.substr(tab + 1)};
            // A file of the exercise's folder, by name (the grader copies them there so).
            if (b.first.empty() || b.first != fs::path(b.first).filename().string() || !seen.insert(b).second) continue;
            builds_[ex->id].push_back(std::move(b));
        }
    return std::nullopt;
}

// The student writes kernels as well as host code (02, 04).
bool Grader::own_kernels(const Exercise& ex) {
    return !kernel_only(ex) &&
           std::any_of(ex.edit.begin(), ex.edit.end(), [](const std::string& f) { return fs::path(f).extension() == ".cl"; });
}

bool Grader::kernel_only(const Exercise& ex) {
    return std::none_of(ex.edit.begin(), ex.edit.end(), [](const std::string& f) { return fs::path(f).extension() != ".cl"; });
}

// The exercise and every kernel file's name, length and text: the whole text, not a hash of it,
// which a student could try to collide with a clean entry's (the texts are a few kB each).
std::string Grader::race_key(const Exercise& ex, const fs::path& dir) const {
    std::string text = ex.id;
    for (const auto& k : ex.kernels) {
        const std::string body = read_file_or_empty(dir / fs::path(k).filename());
        text += fmt::format("\n{}\n{}\n", fs::path(k).filename().string(), body.size()) + body;
    }
    return text;
}

Grader::Tested Grader::test(const Exercise& ex, const Prepared& p) {
    ExerciseGrade g{ex.id, "", 0, weight(ex), ""};
    if (auto it = p.problem.find(ex.id); it != p.problem.end()) {
        const std::string& why = it->second;
        g.status = why.rfind("not submitted", 0) == 0 ? "not submitted"
                   : why.rfind("ambiguous", 0) == 0   ? "ambiguous"
                   : why.rfind("refused", 0) == 0     ? "refused"
                   : why.rfind("too large", 0) == 0   ? "too large"
                                                      : "build failed";
        g.output = why;
        if (auto from = p.graded_from.find(ex.id); from != p.graded_from.end()) g.output = from->second + g.output;
        return {g, {}};
    }
    // The checker (the instructor's graded test, which runs no student code) runs here, outside
    // the sandbox, and alone writes the evidence, where the sandbox cannot see; it starts the
    // runner (the student's code) inside the sandbox and judges what comes back.
    const fs::path dir = ex.kernels.empty() ? p.scratch / ex.dir() : p.kernels / ex.dir();
    Sandbox box = sandbox_for(p);
    box.env = {{"WORKBOOK_KERNEL_DIR", dir.string()}};
    const long oom_before = p.budget ? p.budget->oom_kills() : 0;
    GradedRunSpec spec;
    spec.checker = tree_.test_binary(ex).string();
    spec.runner = p.binary.at(ex.id).string();
    spec.kernel_dir = dir;
    spec.evidence = fs::absolute(base() / "evidence" / ("evidence-" + random_hex(8)));
    spec.seed = seed_;
    spec.nonce = nonce_;
    spec.reference = reference_.at(ex.id);
    spec.limit_s = o_.timeout_s > 0 ? o_.timeout_s : ex.time_limit_s;
    spec.runner_wrapper = box.wrapper();
    if (o_.share_work) spec.reference_cache = expected_cache();
    const GradedRun run = [&] {
        const PhaseTimes::Scope timed(phases_, "graded tests");
        const CpuCharge runners(box);
        return run_graded_test(spec);
    }();
    const auto& r = run.process;
    g.output = p.graded_from.count(ex.id) ? p.graded_from.at(ex.id) : "";
    g.output += cap(redact(r.output), 6000);
    if (p.budget && p.budget->oom_kills() > oom_before)
        g.output += fmt::format("\nthe submission's memory budget ({} MiB for all its processes) ran out: the system "
                                "stopped a process of it\n",
                                o_.budget.memory_mib);
    g.status = run.status;
    if (g.status != "passed" && g.status != "failed") {
        g.output = fmt::format("{} ({}). {}\n{}", g.status, r.status(), run.verdict.problem, g.output);
        return {g, {}};
    }
    g.score = g.max * run.verdict.cases_passed / std::max(1, run.verdict.cases_expected);
    if (!race_note_.empty() && !ex.kernels.empty()) g.output += "\n" + race_note_;
    // A failure of kernels with barriers or local memory: the race pass's finding (a divergent
    // barrier, with its line) goes first; it explains, and a report scores zero as on a pass.
    std::vector<std::string> kernel_files;
    for (const auto& k : ex.kernels) kernel_files.push_back((dir / fs::path(k).filename()).string());
    const bool explain = g.status == "failed" && race::any_synchronises(kernel_files);
    if ((g.status == "passed" || explain) && !ex.kernels.empty() && ex.race_check && race_note_.empty()) {
        const auto a = race::availability();
        if (!a.on) {
            g.output += "\nrace check: SKIPPED, " + a.why_off;
            return {g, {}};
        }
        Sandbox race_box = box;
        // Oclgrind's shadow state needs more than a graded run: the race passes' own cgroups and
        // address-space limit (BudgetLimits::race_memory_mib).
        if (p.race_cgroups && !p.race_cgroups->procs().empty()) race_box.cgroups = p.race_cgroups->procs();
        race_box.limits.memory_mib = std::max(race_box.limits.memory_mib, o_.budget.race_memory_mib);
        // And processor time: one runner simulates every race size, past the graded runs' 120 s
        // for rung 19 on one Oclgrind thread; the submission's race time (RaceBudget) bounds it.
        race_box.limits.cpu_s = std::max(race_box.limits.cpu_s, static_cast<int>(p.race_budget->total_s) + 1);
        // One simulator thread: the pass runs beside the graded tests, and Oclgrind on two threads
        // spends about 45% more processor time on the same pass (10_mmul_block: 6.8 s against 4.7 s).
        race_box.env.insert(race_box.env.end(), {{"WORKBOOK_SMALL", "1"}, {"WORKBOOK_PLATFORM", ""},
                                                 {"WORKBOOK_DEVICE", ""}, {"WORKBOOK_DEVICE_TYPE", ""}});
        if (o_.share_work) race_box.env.emplace_back("OCLGRIND_NUM_THREADS", "1");
        const std::string from = p.graded_from.count(ex.id) ? p.graded_from.at(ex.id) : std::string();
        std::packaged_task<ExerciseGrade()> pass([this, &ex, g, spec, race_box, dir, explain, from,
                                                  budget = p.race_budget]() mutable {
            int granted_s = 0;  // this pass's share of the submission's race time
            // Where the student wrote only kernels, the pass runs the instructor's checker and runner
            // with those kernels interpreted by Oclgrind: its outcome depends on their text alone, so
            // a clean pass is kept by content and not run again for the same files. (Only clean
            // ones: reports quote lines, and every student gets their own.)
            const std::string key = !kernel_only(ex) || !o_.share_work ? std::string() : race_key(ex, dir);
            const auto race = [&] {
                if (const auto hit = clean_races_.find(key); !key.empty() && hit != clean_races_.end()) {
                    const PhaseTimes::Scope timed(phases_, "race pass, same kernels as before");
                    return hit->second;
                }
                const PhaseTimes::Scope timed(phases_, "race pass (Oclgrind)");
                granted_s = budget->grant(spec.limit_s * 10);
                if (granted_s < 1) {
                    race::Result none;
                    none.run.timed_out = true;
                    return none;
                }
                // Charged by the meter (sandbox.hpp: processor time, or time slept), which stops
                // the pass past its grant; the wall clock only past ten times that, a load no
                // grading machine sees. Without cgroups the meter cannot stop it: wall time then.
                spec.race_limit_s = race_box.cgroups.empty() ? granted_s : granted_s * 10;
                race::Result r;
                {
                    const CpuCharge runners(race_box);
                    PassMeter meter(race_box.cgroups, granted_s);
                    r = run_race_pass(spec, race_box.wrapper());
                    budget->spend(meter.finish());
                    if (meter.stopped()) r.run.timed_out = true;
                }
                if (!key.empty() && r.clean()) clean_races_[key] = r;
                // The second pass runs the instructor's runner (no student host code) with the
                // student's kernels: its own limit, outside the budget.
                if (own_kernels(ex) && !r.run.timed_out) {
                    GradedRunSpec alone = spec;
                    alone.race_limit_s = 0;
                    r = with_kernels_alone(r, alone, race_box, ex);
                }
                return r;
            }();
            if (race.run.timed_out) {
                // Past its share of the submission's race time (or out of it): this exercise
                // scores nothing, and the lane moves on.
                g.score = 0;
                g.status = "timed out";
                g.output += fmt::format("\nthe race pass (Oclgrind) did not finish within its {} s: this submission's race "
                                        "passes share {:.0f} s in all (twice the sum of its exercises' time limits, counted "
                                        "in processor time or time asleep; waiting for a busy machine is not counted), and "
                                        "a pass that runs past its share scores 0",
                                        granted_s, budget->total_s);
                return g;
            }
            if (explain) {  // after the "graded from" lines, which every report starts with
                g.output.insert(g.output.rfind(from, 0) == 0 ? from.size() : 0,
                                cap(race::explain_failure(race), 8000));
                // A report scores zero here too: an exercise of several cases may have passed some
                // (09's values on PoCL, where the race hides, beside its traffic case failing).
                if (!race.reports.empty()) g.score = 0;
            } else if (!race.clean()) {
                g.score = 0;
                g.status = "race";
                for (const auto& rep : race.reports)
                    g.output += cap(fmt::format("\nOclgrind: {}\n{}meaning: {}\n", rep.headline, rep.details,
                                                rep.explanation()),
                                    4000);
                if (race.reports.empty()) {
                    // No report to quote: the end of what the test said there says why.
                    const std::string said = redact(race.run.output);
                    g.output += "\n" + race.failure_without_report() + "; the end of its output:\n" +
                                cap(said.substr(said.size() > 3000 ? said.size() - 3000 : 0), 3000);
                }
            }
            return g;
        });
        auto after = pass.get_future();
        if (!o_.share_work || !race_beside_) {  // the pass right after its graded test
            pass();
            return {after.get(), {}};
        }
        race_lane_->post(std::move(pass));
        return {g, std::move(after)};
    }
    return {g, {}};
}

// Where the student writes host code too, their process holds Oclgrind: it may unset the
// variables that switch on its race check, or silence its reports (they come on its stderr).
// So their kernels are checked again in a process of ours: the kernel test cases, through the
// instructor's runner (the starter's, whose host code those cases never call). That verdict
// is one no student code can reach; the pass through their own runner still checks how their
// host code uses the device, as far as their process lets it.
race::Result Grader::with_kernels_alone(race::Result own, GradedRunSpec spec, const Sandbox& box, const Exercise& ex) {
    spec.runner = tree_.runner_binary(ex).string();
    spec.cases = "*kernel:*";  // the cases that call the kernels directly, by their names
    race::Result alone;
    {
        const CpuCharge runners(box);
        alone = run_race_pass(spec, box.wrapper());
    }
    if (alone.run.passed() && no_test_case_ran(alone.run.output))
        throw Error(fmt::format("{}: no test case of its checker is named \"... kernel: ...\", so its kernels cannot be "
                                "race-checked apart from the student's host code.\nFix: name the checker's test "
                                "cases that call the kernels directly \"{} kernel: ...\" (see exercises/02_vadd/test.cpp).",
                                ex.dir(), ex.dir()));
    for (auto& rep : own.reports) {
        const bool seen = std::any_of(alone.reports.begin(), alone.reports.end(), [&](const race::Report& r) {
            return r.headline == rep.headline && r.details == rep.details;
        });
        if (!seen) alone.reports.push_back(std::move(rep));
    }
    if (alone.run.passed() && !own.run.passed()) alone.run = std::move(own.run);
    return alone;
}

}  // namespace workbook::grading
