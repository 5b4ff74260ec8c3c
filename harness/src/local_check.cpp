// The check of one exercise on the student's machine (see local_check.hpp).
#include "workbook/harness/local_check.hpp"

#include "workbook/errors.hpp"
#include "workbook/failure_kind.hpp"
#include "workbook/harness/evidence.hpp"
#include "workbook/process.hpp"
#include "workbook/race_check.hpp"
#include "workbook/random.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <regex>
#include <set>
#include <sstream>

namespace workbook::harness {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

void keep_unique(std::vector<std::string>& out, std::set<std::string>& seen, const std::string& item) {
    if (!item.empty() && seen.insert(item).second) out.push_back(item);
}

// One run of the graded test (its cases filtered by `cases`, a doctest option, or all), read
// into r: the time, the log, the speed table and timeline, and, on a failure, the problems, the
// stage and the failure's kind. The verdict, the failed checks' messages, the speed table and the
// timeline come from the evidence record the test writes (harness/evidence.hpp), never from its
// console text. Returns whether it passed.
bool graded_cases(const CourseTree& tree, const fs::path& state_dir, const Exercise& ex, const std::string& seed, const std::string& cases,
                  CheckResult& r, const std::vector<std::string>& extra_env = {}) {
    const std::string nonce = random_hex(8);
    fs::create_directories(state_dir);
    const fs::path evidence_file = state_dir / ("evidence-" + nonce);
    std::vector<std::string> argv{tree.test_binary(ex).string()};
    if (!cases.empty()) argv.push_back(cases);
    std::vector<std::string> env{"WORKBOOK_TIMELINE_DIR=" + (state_dir / "timelines").string(), seed,
                                 "WORKBOOK_EVIDENCE_FILE=" + evidence_file.string(), "WORKBOOK_EVIDENCE_NONCE=" + nonce};
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    const auto test = run_process(argv, std::chrono::seconds(ex.time_limit_s), env, 256 * 1024);
    const auto evidence = harness::read_evidence(read_file_or_empty(evidence_file), nonce);
    std::error_code gone;
    fs::remove(evidence_file, gone);
    r.test_s = test.seconds;
    r.log += "\n" + test.output;
    if (evidence) {
        if (!evidence->speed.empty()) r.speed = evidence->speed;
        if (!evidence->timeline.empty()) r.timeline = "timeline picture: " + evidence->timeline;
    }
    if (test.passed() && evidence && evidence->passed()) return true;
    r.problems = evidence ? evidence->failures() : std::vector<std::string>{};
    // A kernel build error's message ends with the device's whole build log: --verbose has it.
    for (auto& p : r.problems)
        if (const auto log = p.find("\n--- build log"); log != std::string::npos) p.erase(log);
    const bool kernel_build = std::any_of(r.problems.begin(), r.problems.end(), [](const std::string& p) {
        return p.find("CL_BUILD_PROGRAM_FAILURE") != std::string::npos;
    });
    r.stage = kernel_build ? Stage::kernel_build : Stage::test;
    r.failure = kernel_build ? failure::build_error : failure::wrong_values;
    // A kernel too slow: its table and verdict first.
    if (const auto slow = std::find(r.problems.begin(), r.problems.end(), r.speed);
        !r.speed.empty() && slow != r.problems.end()) {
        r.problems.erase(slow);
        r.problems.insert(r.problems.begin(), r.speed);
        if (r.problems.size() == 1) r.failure = failure::too_slow;  // the only failure: right values, too slow
    }
    if (test.timed_out) r.failure = failure::timeout;
    else if (!evidence || !evidence->complete || test.signaled) r.failure = failure::crash;
    if (!evidence || !evidence->complete || test.signaled || test.timed_out)
        r.problems.insert(r.problems.begin(),
                          fmt::format("the test did not finish normally: {}{}", test.status(),
                                      test.timed_out ? " (an endless loop, or a kernel far too slow?)" : ""));
    return false;
}

// The names of the test's cases that `filter` (a doctest option, or none) leaves, in their order.
std::vector<std::string> case_names(const CourseTree& tree, const Exercise& ex, const std::string& filter) {
    using namespace std::chrono_literals;
    std::vector<std::string> argv{tree.test_binary(ex).string(), "--list-test-cases"};
    if (!filter.empty()) argv.push_back(filter);
    const auto listed = run_process(argv, 30s, {}, 64 * 1024);
    std::vector<std::string> names;
    if (!listed.passed()) return names;
    int rules = 0;  // the names stand between two lines of '='
    for (const auto& line : split_lines(listed.output)) {
        if (line.rfind("=====", 0) == 0) ++rules;
        else if (rules == 1 && !line.empty()) names.push_back(line);
    }
    return names;
}

// The graded test's values cases side by side, each in a process of its own, where it has more
// than one: the verdict then waits for the slowest case, not for their sum (02: the kernel's case
// and the host code's each build their program, 0.9 and 1.1 s on two cores). Merged into r as one
// run would be: on a failure, the first failing case's stage and kind, every failing case's
// problems in the cases' order (a remote check, one process, says the same); the wall time of the
// whole.
bool values_cases(const CourseTree& tree, const fs::path& state_dir, const Exercise& ex, const std::string& seed,
                  const std::string& filter, CheckResult& r) {
    const auto names = case_names(tree, ex, filter);
    if (names.size() < 2) return graded_cases(tree, state_dir, ex, seed, filter, r);
    const auto start = std::chrono::steady_clock::now();
    std::vector<CheckResult> each(names.size(), r);
    std::vector<std::future<bool>> runs;
    for (std::size_t i = 0; i < names.size(); ++i) {
        // The exact name as a doctest filter: a comma would split it in two, and '?' matches it.
        std::string exact = names[i];
        std::replace(exact.begin(), exact.end(), ',', '?');
        runs.push_back(std::async(std::launch::async, [&, i, exact] {
            return graded_cases(tree, state_dir, ex, seed, "--test-case=" + exact, each[i]);
        }));
    }
    std::vector<bool> passed;
    for (auto& run : runs) passed.push_back(run.get());
    const auto first_failed = std::find(passed.begin(), passed.end(), false);
    const std::string log = r.log;
    const std::size_t first = first_failed == passed.end() ? 0 : static_cast<std::size_t>(first_failed - passed.begin());
    r = each[first];
    r.log = log;
    for (std::size_t i = 0; i < each.size(); ++i) {
        const auto& e = each[i];
        r.log += e.log.substr(std::min(log.size(), e.log.size()));
        if (r.speed.empty()) r.speed = e.speed;
        if (r.timeline.empty()) r.timeline = e.timeline;
        if (i > first && !passed[i]) r.problems.insert(r.problems.end(), e.problems.begin(), e.problems.end());
    }
    r.test_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return first_failed == passed.end();
}

// Kernels with barriers or local memory: a divergent or missing barrier shows in the test only as
// wrong values; the race pass names it with its line, so its finding comes first.
void explain_with_race_pass(const CourseTree& tree, const Exercise& ex, const std::string& seed, CheckResult& r,
                            const std::function<void(const std::string&)>& say) {
    using namespace std::chrono_literals;
    std::vector<std::string> kernels;
    for (const auto& k : ex.kernels) kernels.push_back((tree.exercise_dir(ex) / k).string());
    if (r.stage != Stage::test || !ex.race_check || !race::any_synchronises(kernels) || !race::availability().on) return;
    say("running the race check under Oclgrind to explain the failure (small sizes)");
    const auto race = race::check(tree.test_binary(ex).string(), 600s, {}, {seed});
    r.race_s = race.run.seconds;
    r.log += "\n" + race.run.output;
    if (const auto why = race::explain_failure(race, 2); !why.empty()) {
        r.problems.insert(r.problems.begin(), why);
        r.failure = failure::race;
    }
}

}  // namespace

std::string stage_message(Stage stage) {
    switch (stage) {
    case Stage::build: return "your code does not compile";
    case Stage::kernel_build: return "your kernel does not compile";
    case Stage::test: return "the graded test fails";
    case Stage::race: return "the race check found a problem the CPU device hides";
    case Stage::passed: return "passed";
    }
    return "";
}

std::vector<std::string> summarize_build_output(const std::string& output) {
    static const std::regex error(R"((error|undefined reference|No rule to make target|CMake Error))");
    const auto lines = split_lines(output);
    std::vector<std::string> out;
    std::set<std::string> seen;
    // The build tool's own lines say only that a step failed: make's "make[2]: ***", Ninja's
    // "FAILED: <output>" followed by the failed command line, and "ninja: build stopped".
    const auto tool_line = [&](std::size_t i) {
        const auto& l = lines[i];
        return l.rfind("make", 0) == 0 || l.rfind("gmake", 0) == 0 || l.rfind("ninja: build stopped", 0) == 0 ||
               l.rfind("FAILED: ", 0) == 0 || (i > 0 && lines[i - 1].rfind("FAILED: ", 0) == 0);
    };
    for (std::size_t i = 0; i < lines.size() && out.size() < 8; ++i) {
        if (!std::regex_search(lines[i], error) || tool_line(i)) continue;
        std::string item = trim(lines[i]);
        // gcc prints the offending source line and a caret under the error.
        if (i + 2 < lines.size() && lines[i + 2].find('^') != std::string::npos)
            item += "\n" + lines[i + 1] + "\n" + lines[i + 2];
        keep_unique(out, seen, item);
    }
    if (output.find("No rule to make target") != std::string::npos || output.find("ninja: error: unknown target") != std::string::npos)
        out.insert(out.begin(), "the build tree has no target for this exercise: it was configured before the "
                                "exercise existed. Run scripts/setup.sh (or cmake on the build folder) and try again.");
    if (out.empty() && !lines.empty()) out.push_back("the build failed; the last lines were:\n" + lines.back());
    return out;
}

CheckResult check_exercise(const CourseTree& tree, const fs::path& state_dir, const Exercise& ex,
                           const std::function<void(const std::string&)>& step) {
    using namespace std::chrono_literals;
    auto say = [&](const std::string& s) {
        if (step) step(s);
    };
    if (!fs::exists(tree.build() / "CMakeCache.txt"))
        throw Error(fmt::format("there is no build in {}: run scripts/setup.sh first (it installs what is missing "
                                "and builds), or pass --build-dir",
                                tree.build().string()));
    CheckResult r;

    say(fmt::format("building {} (only its graded test)", ex.dir()));
    const auto build = run_process({"cmake", "--build", tree.build().string(), "--target", tree.test_target(ex)}, 600s, {},
                                   256 * 1024);
    r.build_s = build.seconds;
    r.log = build.output;
    if (!build.passed()) {
        r.stage = Stage::build;
        r.failure = failure::build_error;
        r.problems = summarize_build_output(build.output);
        if (build.timed_out) r.problems.insert(r.problems.begin(), "the build " + build.status());
        return r;
    }

    // A test that can draw the student's run (exercise 13's timeline) writes it under .workbook/.
    // One seed for the test and its race pass: the race pass then checks the sizes drawn for
    // the test (testing.hpp: matmul_sizes).
    // WORKBOOK_SEED when set; else fresh for each check (watch mode runs many in one process).
    const char* fixed = std::getenv("WORKBOOK_SEED");
    const std::string seed = fmt::format("WORKBOOK_SEED={}", fixed && *fixed ? session_seed() : random_u64());
    // In the order of their cost, each said as it comes, a failure ending the check: the values
    // (seconds), the race pass, then, on the SGEMM track, the speed check (the kernels timed, the
    // traffic counted), or on 08-10 the traffic count. Those cases are the test's own; only the
    // order is the check's.
    const bool timed = !ex.speed_references.empty();
    const bool later = timed || !ex.traffic_references.empty();
    const char* later_cases = "*: speed*,*: traffic*";
    // The student's traffic figures of this check alone (below), removed whatever the verdict.
    fs::path traffic_file;
    struct RemoveAfter {
        fs::path& file;
        ~RemoveAfter() {
            std::error_code ec;
            if (!file.empty()) fs::remove(file, ec);
        }
    } remove_after{traffic_file};
    say(fmt::format("running the graded test of {}{}", ex.dir(), later ? ": the values first" : ""));
    if (!values_cases(tree, state_dir, ex, seed, later ? "--test-case-exclude=" + std::string(later_cases) : "", r)) {
        explain_with_race_pass(tree, ex, seed, r, say);
        return r;
    }

    if (ex.kernels.empty()) {
        r.race_note = "race check: not needed (no kernels)";
    } else if (!ex.race_check) {
        r.race_note = "race check: not run for this exercise (course.toml: Oclgrind cannot simulate it)";
    } else if (const auto a = race::availability(); !a.on) {
        r.race_note = "race check: SKIPPED, " + a.why_off;
    } else {
        say(fmt::format("values right ({:.1f} s); race check running under Oclgrind (small sizes)", r.test_s));
        // The SGEMM track's rungs graded on traffic (15-19: two speed references): the student's
        // kernel's traffic counted beside the race pass, both simulations, on the other core
        // (WORKBOOK_SPEED=traffic; its verdict is not used here), into a file of this check that
        // the speed check then reads instead of counting again (speed_testing.cpp,
        // student_figures). Stopped when the race pass fails.
        std::atomic<bool> stop_counting{false};
        std::future<ProcessResult> counting;
        if (ex.speed_references.size() == 2) {
            traffic_file = state_dir / ("student-traffic-" + random_hex(8));
            counting = std::async(std::launch::async, [&] {
                return run_process({tree.test_binary(ex).string(), "--test-case=" + std::string(later_cases)},
                                   std::chrono::seconds(ex.time_limit_s),
                                   {seed, "WORKBOOK_SPEED=traffic", "WORKBOOK_STUDENT_TRAFFIC_FILE=" + traffic_file.string()},
                                   64 * 1024, &stop_counting);
            });
        }
        // Stopped too when the race pass throws: the future's destructor waits for the count.
        const auto race = [&] {
            try {
                return race::check(tree.test_binary(ex).string(), 600s, {}, {seed});
            } catch (...) {
                stop_counting = true;
                throw;
            }
        }();
        if (!race.clean()) stop_counting = true;
        if (counting.valid()) counting.wait();
        r.race_s = race.run.seconds;
        r.log += "\n" + race.run.output;
        if (!race.clean()) {
            r.stage = Stage::race;
            r.failure = failure::race;
            for (const auto& report : race.reports)
                r.problems.push_back(fmt::format("Oclgrind: {}\n{}meaning: {}", report.headline, report.details,
                                                 report.explanation()));
            if (race.reports.empty())
                r.problems.push_back(race.failure_without_report() + ": see --verbose");
            if (r.problems.size() > 3) r.problems.resize(3);
            return r;
        }
        r.race_note = fmt::format("race check: clean ({:.1f} s under Oclgrind)", r.race_s);
        for (const auto& c : race::concessions(race)) r.race_note += "; " + c;
    }
    if (later) {
        const char* clean = r.race_note.rfind("race check: clean", 0) == 0 ? ", race check clean" : "";
        if (timed)
            say(fmt::format("values right{}; the speed check running (your kernel timed against the references{})", clean,
                            race::availability().on ? ", its memory traffic counted under Oclgrind" : ""));
        else
            say(fmt::format("values right{}; the traffic check running (your kernel's memory traffic counted under "
                            "Oclgrind beside the references')",
                            clean));
        const double values_s = r.test_s;
        std::vector<std::string> counted;
        if (!traffic_file.empty()) counted.push_back("WORKBOOK_STUDENT_TRAFFIC_FILE=" + traffic_file.string());
        const bool fast = graded_cases(tree, state_dir, ex, seed, "--test-case=" + std::string(later_cases), r, counted);
        r.test_s += values_s;
        if (!fast) return r;
    }
    r.stage = Stage::passed;
    return r;
}

}  // namespace workbook::harness
