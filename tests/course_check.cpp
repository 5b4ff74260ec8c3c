// The course checks itself: every solution passes its graded test, every starter and every
// planted-bug mutant fails it with a reported failure (not a crash or a hang), every file a
// student edits holds a TODO in the starter and none in the solution, every exercise README has
// the manifest's headings in order, and CMake read the manifest the way toml++ does.
#include "workbook/errors.hpp"
#include "workbook/manifest.hpp"
#include "reported_failure.hpp"
#include "workbook/process.hpp"
#include "workbook/run_main.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace {

struct Built {
    std::string kind, dir, variant, path;
    std::map<std::string, std::string> attributes;  // edit=..., kernels=...
};

std::vector<Built> read_registry(const fs::path& file) {
    std::ifstream in(file);
    if (!in) throw workbook::Error(fmt::format("cannot read {}: build the project first", file.string()));
    std::vector<Built> out;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        Built b;
        if (!(words >> b.kind >> b.dir >> b.variant >> b.path)) continue;
        for (std::string w; words >> w;)
            if (const auto eq = w.find('='); eq != std::string::npos) b.attributes[w.substr(0, eq)] = w.substr(eq + 1);
        out.push_back(b);
    }
    return out;
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string joined(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ",")); }

std::string tail(const std::string& text, std::size_t lines) {
    std::size_t pos = text.size();
    for (std::size_t n = 0; n <= lines && pos != std::string::npos && pos > 0; ++n) pos = text.rfind('\n', pos - 1);
    return pos == std::string::npos ? text : text.substr(pos + 1);
}

class Report {
public:
    void check(bool ok, const std::string& what, const std::string& detail = "") {
        ++checks_;
        if (ok) return;
        ++failures_;
        fmt::print("  FAIL {}\n", what);
        if (!detail.empty()) fmt::print("{}\n", detail);
    }
    int failures() const { return failures_; }
    int checks() const { return checks_; }

private:
    int checks_ = 0, failures_ = 0;
};

void check_files(const fs::path& root, const workbook::Course& course, Report& report) {
    std::set<std::string> dirs;
    for (const auto& ex : course.exercises) {
        dirs.insert(ex.dir());
        const fs::path starter = root / "exercises" / ex.dir(), solution = root / "solutions" / ex.dir();
        for (const char* f : {"README.md", "main.cpp", "test.cpp", "CMakeLists.txt"})
            report.check(fs::exists(starter / f), fmt::format("{}: exercises/{}/{} exists", ex.dir(), ex.dir(), f));
        for (const auto& f : ex.edit) {
            report.check(fs::exists(starter / f) && read_text(starter / f).find("TODO") != std::string::npos,
                         fmt::format("{}: the starter {} holds a TODO", ex.dir(), f));
            report.check(fs::exists(solution / f) && read_text(solution / f).find("TODO") == std::string::npos,
                         fmt::format("{}: the solution {} exists and holds no TODO", ex.dir(), f));
        }
        for (const auto& k : ex.kernels)
            report.check(fs::exists(starter / k), fmt::format("{}: kernel file {} exists", ex.dir(), k));
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(solution, ec)) {
            const auto name = entry.path().filename().string();
            report.check(std::find(ex.edit.begin(), ex.edit.end(), name) != ex.edit.end(),
                         fmt::format("{}: solutions/{}/{} is a file the student edits (solutions mirror only those)",
                                     ex.dir(), ex.dir(), name));
        }
        // The headings, in the manifest's order, as "## " lines.
        std::istringstream readme(read_text(starter / "README.md"));
        std::vector<std::string> headings;
        for (std::string line; std::getline(readme, line);)
            if (line.rfind("## ", 0) == 0) headings.push_back(line.substr(3));
        report.check(headings == course.readme_headings,
                     fmt::format("{}: README.md has the headings {}", ex.dir(), joined(course.readme_headings)),
                     fmt::format("    found: {}", joined(headings)));
    }
    for (const char* top : {"exercises", "solutions"})
        for (const auto& entry : fs::directory_iterator(root / top))
            report.check(!entry.is_directory() || dirs.count(entry.path().filename().string()),
                         fmt::format("{}/{} is listed in course.toml", top, entry.path().filename().string()));
}

void check_cmake_agrees(const workbook::Course& course, const std::vector<Built>& built, Report& report) {
    std::vector<std::string> order;
    for (const auto& b : built)
        if (b.kind == "test" && (order.empty() || order.back() != b.dir)) order.push_back(b.dir);
    std::vector<std::string> expected;
    for (const auto& ex : course.exercises) expected.push_back(ex.dir());
    report.check(order == expected, "CMake builds the manifest's exercises in its order",
                 fmt::format("    CMake: {}\n    toml++: {}", joined(order), joined(expected)));
    for (const auto& b : built) {
        if (b.kind != "test" || b.variant != "solution") continue;
        const auto* ex = course.find(b.dir);
        if (!ex) continue;
        report.check(b.attributes.at("edit") == joined(ex->edit) && b.attributes.at("kernels") == joined(ex->kernels),
                     fmt::format("{}: CMake read the same edit and kernels lists as toml++", b.dir));
    }
}

void run_graded_tests(const workbook::Course& course, std::vector<Built> built, Report& report) {
    fmt::print("\n{:<18} {:<34} {:<8} {:>7}  {}\n", "exercise", "variant", "expect", "time", "result");
    for (const auto& b : built) {
        if (b.kind != "test") continue;
        if (b.attributes.count("race") && b.attributes.at("race") == "1") {
            fmt::print("{:<18} {:<34} {:<8} {:>7}  {}\n", b.dir, b.variant, "fail", "-",
                       "skipped here: a CPU device hides it; the race tests (ctest -L race) run it under Oclgrind");
            continue;
        }
        const auto* ex = course.find(b.dir);
        const int limit = ex ? ex->time_limit_s : 60;
        // Without the speed check: it times three kernels against each other, which a neighbour's
        // load distorts, so its verdicts are the serial ctest tests' (NN.solution.speed,
        // NN.speed-previous, NN.slow-*), asserted there once.
        const auto r = workbook::run_process({b.path, "--test-case-exclude=*speed*"}, std::chrono::seconds(limit));
        // Correct kernels in unusual styles (tests/variants/) must pass like the solution, and so
        // must the slow ones (tests/slow/) here: they are correct, and only their speed fails.
        const bool should_pass = b.variant == "solution" || b.variant.rfind("variant-", 0) == 0 ||
                                 b.variant.rfind("slow-", 0) == 0;
        // A crash, a hang or a missing binary fails the check even where failure was expected;
        // mutants may crash (an out-of-bounds private array): still caught, if not explained.
        const bool mutant_crash = b.variant.rfind("mutant-", 0) == 0 && r.signaled;
        const bool ok = should_pass ? r.passed() : (reported_test_failure(r) || mutant_crash);
        fmt::print("{:<18} {:<34} {:<8} {:>6.1f}s  {}\n", b.dir, b.variant, should_pass ? "pass" : "fail", r.seconds,
                   ok ? "ok" : "WRONG (" + r.status() + ")");
        report.check(ok, fmt::format("{} {}: the graded test should {}", b.dir, b.variant,
                                     should_pass ? "pass" : "fail with a reported failure"),
                     "    last output:\n" + tail(r.output, 30));
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("Checks the course itself: manifest, files, READMEs, and that solutions pass and starters fail");
    std::string root = ".", registry;
    bool no_run = false;
    app.add_option("--root", root, "the workbook's source tree")->check(CLI::ExistingDirectory);
    app.add_option("--registry", registry, "course_build.txt from the build tree")->required();
    app.add_flag("--no-run", no_run, "check files only; don't run the graded tests");
    CLI11_PARSE(app, argc, argv);
    try {
        const auto course = workbook::load_course(fs::path(root) / "course.toml");
        const auto built = read_registry(registry);
        Report report;
        fmt::print("Course check: {} exercises in course.toml\n", course.exercises.size());
        check_files(root, course, report);
        check_cmake_agrees(course, built, report);
        if (!no_run) run_graded_tests(course, built, report);
        fmt::print("\n{} of {} course checks passed\n", report.checks() - report.failures(), report.checks());
        return report.failures() == 0 ? workbook::exit_ok : workbook::exit_wrong_result;
    } catch (...) {
        fmt::print(stderr, "{}\n", workbook::describe_exception(std::current_exception()));
        return workbook::exit_error;
    }
}
