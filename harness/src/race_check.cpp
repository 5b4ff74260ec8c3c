// Running tests under Oclgrind and reading its reports (see race_check.hpp).
#include "workbook/race_check.hpp"
#include "workbook/errors.hpp"
#include "workbook/text.hpp"
#include <fmt/format.h>

#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace workbook::race {

std::string Report::explanation() const {
    const std::string h = headline;
    auto has = [&](const char* word) { return h.find(word) != std::string::npos; };
    // Our plugin's findings (harness/oclgrind_plugin/fingerprint.cpp): each headline says this.
    if (has("differs between the simulator and the device"))
        return "A pointer's value is where the simulator or the device put a buffer, not part of the computation, "
               "and a kernel that looks at it can behave differently where it is graded than where it is checked. "
               "Index with integers (A[i], not pointer values), and don't inspect, compare or forge pointer values.";
    if (has("order in which work-items ran"))
        return "Which work-item gets to an atomic first is up to the device: one after another in the simulator (and on "
               "a CPU), interleaved on a GPU. A kernel whose barriers depend on it can skip them where it is graded. "
               "Use atomics' results only after the last barrier, or not at all: this lesson needs none.";
    if (has("race"))
        return "Two work-items used the same memory with no barrier between them, so the result depends on timing: "
               "right on a CPU device, wrong on a GPU. Look for a missing barrier(CLK_LOCAL_MEM_FENCE) between "
               "writing local memory and reading it, or before it is overwritten.";
    if (has("Loading Oclgrind plugin failed"))
        return "One of the race pass's own checks (an Oclgrind plugin of the workbook) did not load, so the pass "
               "cannot say clean: rebuild the workbook (scripts/setup.sh), or report it to your instructor.";
    if (has("divergence"))
        return "Work-items of one group did not all reach the same barrier: every work-item must reach every "
               "barrier, so none may return early or skip one inside an if.";
    if (has("Uninitiali"))
        return "A value was read before anything was stored there, e.g. a slot of a local array that no work-item "
               "filled: the result is whatever the memory held.";
    if (has("Invalid read") || has("Invalid write"))
        return "An access outside a buffer or local array: check the bounds test and the index arithmetic.";
    return "Oclgrind found a problem that a CPU device did not show.";
}

std::string Report::describe() const {
    return fmt::format("Oclgrind: {}\n{}meaning: {}", headline, details, explanation());
}

namespace {

// Line `number` (1-based) of `path`, trimmed, or empty when the file or line is not there. A
// relative path (kernels are named relative to the course root) is tried from the working
// directory and each of its parents. With `only_in` (the grader, the judge) the path is the
// kernel's own `#line` text, which a student controls: read only when, links resolved, it is a
// .cl file inside that folder, and only as a plain file of sane size.
std::string source_line(const std::string& path, long number, const std::filesystem::path& only_in) {
    std::filesystem::path file = path;
    if (!only_in.empty()) {
        std::error_code ec;
        const auto root = std::filesystem::weakly_canonical(only_in, ec);
        // A relative name may start with the folder's own name ("11_pi/pi.cl").
        auto real = std::filesystem::weakly_canonical(file.is_relative() ? only_in / file : file, ec);
        if (file.is_relative() && !std::filesystem::exists(real, ec))
            real = std::filesystem::weakly_canonical(only_in.parent_path() / file, ec);
        // Or the path from somewhere else ("kernels/<copy>/02_vadd/vadd.cl", as the grader's
        // snapshot of a submission's kernels is named): the file of that name in the folder.
        if (file.is_relative() && !std::filesystem::exists(real, ec))
            real = std::filesystem::weakly_canonical(only_in / file.filename(), ec);
        const auto rel = real.lexically_relative(root);
        if (ec || real.extension() != ".cl" || rel.empty() || *rel.begin() == "..") return {};
        try {
            std::istringstream in(read_plain_file(real, 4 << 20));
            std::string line;
            for (long n = 1; n <= number && std::getline(in, line); ++n)
                if (n == number) return line.substr(std::min(line.find_first_not_of(" \t"), line.size()));
        } catch (const Error&) {
        }
        return {};
    }
    if (file.is_relative()) {
        std::error_code ec;
        std::vector<std::filesystem::path> dirs;
        for (auto dir = std::filesystem::current_path(ec); !ec && !dir.empty(); dir = dir.parent_path()) {
            dirs.push_back(dir);
            if (dir == dir.parent_path()) break;
        }
        for (const auto& dir : dirs)
            if (std::filesystem::exists(dir / file, ec)) {
                file = dir / file;
                break;
            }
    }
    std::ifstream in(file);
    std::string line;
    for (long n = 1; n <= number && std::getline(in, line); ++n)
        if (n == number) return line.substr(std::min(line.find_first_not_of(" \t"), line.size()));
    return {};
}

}  // namespace

std::vector<Report> parse(const std::string& output, const std::filesystem::path& sources) {
    static const std::regex kernel_line(R"(^\s+Kernel: )");
    static const std::regex entity_line(R"(^\s+(First entity|Second entity|Entity):)");
    static const std::regex at_line(R"(^\s+At line (\d+) \(column \d+\) of (.*):$)");
    std::vector<std::string> lines;
    std::istringstream in(output);
    // Clipped: the output quotes the kernel's lines and whatever the program printed (text.hpp).
    for (std::string line; std::getline(in, line);) lines.push_back(clipped(line));
    std::vector<Report> reports;
    // Oclgrind carries on without a plugin it could not load: a check of ours did not run.
    for (const auto& line : lines)
        if (line.find("Loading Oclgrind plugin failed") != std::string::npos) reports.push_back(Report{line, {}});
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        if (!std::regex_search(lines[i + 1], kernel_line) || lines[i].empty()) continue;
        Report r{lines[i], {}};
        // Kept: the kernel, the work-items, and each "At line" with the line itself. Dropped: the
        // LLVM instruction after each work-item (noise to a student), and Oclgrind's own excerpt,
        // which is one line off because the program source starts with a #line directive.
        for (std::size_t j = i + 1; j < lines.size() && !lines[j].empty() && j < i + 30; ++j) {
            const std::string& line = lines[j];
            std::smatch m;
            if (std::regex_search(line, kernel_line)) {
                r.details += line + "\n";
            } else if (std::regex_search(line, entity_line)) {
                r.details += line + "\n";
                ++j;  // the LLVM instruction
            } else if (std::regex_search(line, m, at_line)) {
                r.details += line + "\n";
                const std::string text = source_line(m[2].str(), std::stol(m[1].str()), sources);
                r.details += "\t  " + (text.empty() ? std::string("(source not available)") : text) + "\n";
                ++j;  // Oclgrind's excerpt
            }
        }
        reports.push_back(r);
    }
    return reports;
}

std::string Result::failure_without_report() const {
    if (clean()) return {};
    if (run.dropped_bytes > 0)
        return fmt::format("the test's output under Oclgrind passed the race pass's cap ({} bytes dropped, most likely "
                           "kernel printf): a report may be among what was dropped, so the pass cannot say clean. Remove "
                           "the printf calls (or print less) and check again",
                           run.dropped_bytes);
    return fmt::format("under Oclgrind the test did not pass ({})", run.status());
}

Result check(const std::string& test, std::chrono::seconds timeout, const std::vector<std::string>& wrapper,
             const std::vector<std::string>& env) {
    return check_command({test}, timeout, wrapper, env);
}

namespace {

// What every race run shares: Oclgrind with its checks (--max-errors keeps a kernel that races on
// every element from flooding the log) and `options`, and the environment: the device choice
// cleared (Oclgrind is its own platform), small sizes, `env`. False (and `r` says why) when the
// race check is off or unavailable.
// The folder a test was given its kernels from (WORKBOOK_KERNEL_DIR): where its reports' lines
// are read, and only there; empty: none given.
std::filesystem::path kernel_dir(const std::vector<std::string>& env) {
    const std::string key = "WORKBOOK_KERNEL_DIR=";
    for (const auto& e : env)
        if (e.rfind(key, 0) == 0 && e.size() > key.size()) return e.substr(key.size());
    return {};
}

bool prepare(Result& r, const std::vector<std::string>& options, const std::vector<std::string>& env,
             std::chrono::seconds timeout, std::vector<std::string>& oclgrind, std::vector<std::string>& environment) {
    const Availability a = availability();
    if (!a.on) {
        r.available = false;
        r.skipped = a.why_off;
        return false;
    }
    // Oclgrind's data-race check, and our plugins (one --plugins, ':'-separated: Oclgrind keeps
    // only the last). Local memory read before any work-item wrote it: local_init.cpp, in place
    // of Oclgrind's --uninitialized, which cost three quarters of the SGEMM rungs' passes and
    // could not run their optimised build (availability() requires it). A kernel that reads its
    // pointers' bits can tell this run from the graded one: fingerprint.cpp. Without that one (a
    // build without LLVM's headers) the rest of the pass still runs; require_available() keeps
    // the graders from that.
    oclgrind = {a.command, "--data-races", "--max-errors", "20"};
    std::string plugins, why_not;
    for (const std::string& plugin : {local_init_plugin(why_not), fingerprint_plugin(why_not)})
        if (!plugin.empty()) plugins += (plugins.empty() ? "" : ":") + plugin;
    if (!plugins.empty()) oclgrind.insert(oclgrind.end(), {"--plugins", plugins});
    oclgrind.insert(oclgrind.end(), options.begin(), options.end());
    if (std::find(options.begin(), options.end(), "--local-mem-size") == options.end()) {
        const auto sized = graded_device_options();
        oclgrind.insert(oclgrind.end(), sized.begin(), sized.end());
    }
    environment = {"WORKBOOK_PLATFORM=", "WORKBOOK_DEVICE=", "WORKBOOK_DEVICE_TYPE="};
    for (const char* name : {"PLATFORM", "DEVICE", "DEVICE_TYPE"})  // for graded_device() in the checker
        if (const char* v = std::getenv((std::string("WORKBOOK_") + name).c_str()))
            environment.push_back(std::string("WORKBOOK_GRADED_") + name + "=" + v);
    // One simulated launch may take most of the pass (rung 19 at N = 129: 57 s on two Oclgrind
    // threads alone, over 120 s beside the suite's other tests), so the runner may be silent as
    // long as the pass may last, not its default 120 s; `env` may say otherwise (the grader does).
    environment.push_back("WORKBOOK_RUNNER_TIMEOUT=" + std::to_string(timeout.count()));
    environment.insert(environment.end(), env.begin(), env.end());
    environment.push_back("WORKBOOK_SMALL=1");
    environment.push_back("WORKBOOK_RACE_PASS=1");  // what the simulator cannot do is left out (testing.hpp)
    return true;
}

}  // namespace

Result check_runner(const std::string& checker, std::chrono::seconds timeout,
                    const std::vector<std::string>& runner_wrapper, const std::vector<std::string>& env,
                    const std::filesystem::path& sources) {
    return check_runner(std::vector<std::string>{checker}, timeout, runner_wrapper, env, {}, sources);
}

Result check_runner(const std::vector<std::string>& checker, std::chrono::seconds timeout,
                    const std::vector<std::string>& runner_wrapper, const std::vector<std::string>& env,
                    const std::vector<std::string>& oclgrind_options, const std::filesystem::path& sources) {
    Result r;
    std::vector<std::string> oclgrind, environment;
    if (!prepare(r, oclgrind_options, env, timeout, oclgrind, environment)) return r;
    std::string joined;
    for (const auto& w : runner_wrapper) joined += w + "\x1f";
    for (const auto& w : oclgrind) joined += w + "\x1f";
    joined.pop_back();
    environment.push_back("WORKBOOK_RUNNER_WRAPPER=" + joined);
    r.run = run_process(checker, timeout, environment);
    r.reports = parse(r.run.output, sources);
    return r;
}

Result check_command(const std::vector<std::string>& command, std::chrono::seconds timeout,
                     const std::vector<std::string>& wrapper, const std::vector<std::string>& env,
                     const std::vector<std::string>& oclgrind_options) {
    Result r;
    std::vector<std::string> oclgrind, environment;
    if (!prepare(r, oclgrind_options, env, timeout, oclgrind, environment)) return r;
    std::vector<std::string> argv = wrapper;
    argv.insert(argv.end(), oclgrind.begin(), oclgrind.end());
    argv.insert(argv.end(), command.begin(), command.end());
    r.run = run_process(argv, timeout, environment);
    r.reports = parse(r.run.output, kernel_dir(env));
    return r;
}

bool synchronises(const std::string& source) {
    const std::string code = without_comments(source);
    for (const char* word : {"barrier", "work_group_barrier", "__local", "local", "async_work_group_copy",
                             "async_work_group_strided_copy", "wait_group_events"})
        if (has_word(code, word)) return true;
    return false;
}

bool any_synchronises(const std::vector<std::string>& kernel_files) {
    for (const auto& file : kernel_files) {
        std::ifstream in(file);
        if (!in) return true;
        std::ostringstream text;
        text << in.rdbuf();
        if (synchronises(text.str())) return true;
    }
    return false;
}

std::vector<std::string> concessions(const Result& race) {
    std::vector<std::string> out;
    std::istringstream lines(race.run.output);
    for (std::string line; std::getline(lines, line);)
        if (const auto at = line.find("race pass: "); at != std::string::npos) {
            std::string said = line.substr(at + 11);
            if (std::find(out.begin(), out.end(), said) == out.end()) out.push_back(said);
        }
    return out;
}

std::string explain_failure(const Result& race, std::size_t max_reports) {
    if (!race.available || race.reports.empty()) return {};
    // Oclgrind repeats a problem for every work-item, address and group: each kind of problem at
    // each source line once (the address and the work-items left out).
    auto key = [](const Report& r) {
        static const std::regex address(R"( (at |to |from )?(global|local|private|constant) memory address 0x[0-9a-fA-F]+)");
        std::string k = std::regex_replace(clipped(r.headline), address, "");
        std::istringstream lines(r.details);
        for (std::string line; std::getline(lines, line);)
            if (line.find("At line") != std::string::npos || line.find("Kernel:") != std::string::npos) k += line;
        return k;
    };
    std::vector<const Report*> distinct;
    std::vector<std::string> seen;
    for (const auto& r : race.reports)
        if (std::find(seen.begin(), seen.end(), key(r)) == seen.end()) {
            seen.push_back(key(r));
            distinct.push_back(&r);
        }
    // The cause before its symptoms: an uninitialised value written out is often what a race or
    // a divergent barrier left behind.
    auto rank = [](const Report* r) {
        const std::string& h = r->headline;
        if (h.find("divergence") != std::string::npos) return 0;
        if (h.find("race") != std::string::npos) return 1;
        if (h.find("Invalid") != std::string::npos) return 2;
        if (h.find("Uninitiali") != std::string::npos) return 4;
        return 3;
    };
    std::stable_sort(distinct.begin(), distinct.end(), [&](auto a, auto b) { return rank(a) < rank(b); });
    std::string out = "The race pass (this test under Oclgrind, at small sizes) found what most likely causes this "
                      "failure: fix it first, since the wrong values the test reports below may follow from it.\n";
    for (std::size_t i = 0; i < distinct.size() && i < max_reports; ++i) out += distinct[i]->describe() + "\n";
    if (distinct.size() > max_reports) out += fmt::format("(and {} more)\n", distinct.size() - max_reports);
    return out;
}

}  // namespace workbook::race
