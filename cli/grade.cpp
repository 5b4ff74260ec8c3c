// The auto-checker (see grade.hpp). Phases: reference runs of the solutions on the secret seed;
// preparing and compiling every submission in parallel (in the sandbox); running the tests one
// at a time (timing-sensitive); writing the gradebook. Every finished submission is appended to
// a journal first, so a killed run resumes where it stopped and loses nothing.
#include "grade.hpp"

#include "calibrate.hpp"
#include "grade_slurm.hpp"
#include "phase_times.hpp"


#include "workbook/errors.hpp"
#include "workbook/grading/budget.hpp"
#include "workbook/grading/locate.hpp"
#include "workbook/grading/sandbox.hpp"
#include "workbook/grading/uid_lease.hpp"
#include "workbook/process.hpp"
#include "workbook/race_check.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <chrono>
#include <deque>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace workbook::cli {

using json = nlohmann::json;
using grading::Sandbox;
using namespace std::chrono_literals;

bool on_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && ::access((fs::path(dir) / program).c_str(), X_OK) == 0) return true;
    return false;
}

namespace {

void write_text(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    const fs::path tmp = p.string() + ".tmp";
    std::ofstream(tmp, std::ios::binary) << text;
    fs::rename(tmp, p);
}

// Everything a student's code or files can put in a report passes here (text.hpp: valid UTF-8,
// no control characters, capped), so every writer after it is safe by construction.
std::string cap(const std::string& s, std::size_t n = 8000) { return sanitize(s, n); }

std::vector<std::string> split_words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

// A command line as WORKBOOK_RUNNER_WRAPPER carries it (runner.hpp): words joined by \x1f.
std::string join_words(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : "\x1f") + w;
    return out;
}

std::string random_hex(int bytes) {
    std::random_device rd;
    std::string out;
    for (int i = 0; i < bytes; ++i) out += fmt::format("{:02x}", rd() & 0xff);
    return out;
}

// A second line of defence behind cap(): JSON never throws on bytes that are not UTF-8.
std::string dump(const json& j, int indent = -1) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

// ---- what the instructor's build provides --------------------------------------------------

struct Recipe {
    std::vector<std::string> compile;  // for one host file: the words, with {src} and {obj}
    fs::path header;                   // non-empty: a precompiled header to force-include (see host_pch)
    fs::path compile_dir;
    std::vector<std::string> link;     // with {objs} (student objects) and {out}
    fs::path link_dir;
};

// How CMake built the starter's runner (the half of a graded test that links the student's host
// code): the compile line of a host file (from compile_commands.json) and the link line
// (link.txt), with the starter's objects as slots.
Recipe recipe_for(const Workspace& ws, const Exercise& ex, const json& commands) {
    Recipe r;
    for (const auto& e : commands) {
        // The starter's own host file: <the build's source>/exercises/NN_name/<edited .cpp>.
        const fs::path file = std::string(e.at("file"));
        if (file.extension() != ".cpp" || file.parent_path().filename() != ex.dir() ||
            file.parent_path().parent_path().filename() != "exercises")
            continue;
        if (std::find(ex.edit.begin(), ex.edit.end(), file.filename().string()) == ex.edit.end()) continue;
        auto words = split_words(e.at("command"));
        for (std::size_t i = 0; i < words.size(); ++i) {
            if (words[i] == "-o" && i + 1 < words.size()) words[i + 1] = "{obj}";
            if (words[i] == "-c" && i + 1 < words.size()) words[i + 1] = "{src}";
        }
        // Grading needs the code right, not fast: no optimisation and no debug information
        // compile a student's file several times faster (the kernels run on the device anyway).
        std::erase_if(words, [](const std::string& w) { return w == "-g" || (w.size() == 3 && w.rfind("-O", 0) == 0); });
        words.insert(words.begin() + 1, "-O0");
        r.compile = words;
        r.compile_dir = std::string(e.at("directory"));
        break;
    }
    if (r.compile.empty())
        throw Error(fmt::format("{} has no compile command for {}'s host files: build the workbook first "
                                "(cmake --build {})",
                                (ws.build() / "compile_commands.json").string(), ex.dir(), ws.build().string()));
    const fs::path dir = ws.build() / "exercises" / ex.dir();
    const fs::path link_txt = dir / "CMakeFiles" / ("ex" + ex.dir() + "_starter_runner.dir") / "link.txt";
    if (!fs::exists(link_txt))
        throw Error(fmt::format("{} is missing: build the workbook first (cmake --build {})", link_txt.string(),
                                ws.build().string()));
    bool replaced = false;
    for (auto& w : split_words(read_file_or_empty(link_txt))) {
        if (w.find("_starter_host.dir/") != std::string::npos) {
            if (!replaced) r.link.push_back("{objs}");
            replaced = true;
        } else if (!r.link.empty() && r.link.back() == "-o") {
            r.link.push_back("{out}");
        } else {
            // Objects and libraries relative to the link directory become absolute.
            r.link.push_back(w.rfind("CMakeFiles/", 0) == 0 || w.rfind("../", 0) == 0 ? (dir / w).lexically_normal().string() : w);
        }
    }
    // Stripped: a runner is built per submission and exercise, into the submission's scratch budget.
    // With gold where binutils has it: it links these debug-laden objects in about half the time.
    r.link.insert(r.link.begin() + 1, "-s");
    if (fs::exists("/usr/bin/ld.gold")) r.link.insert(r.link.begin() + 1, "-fuse-ld=gold");
    r.link_dir = dir;
    return r;
}

// ---- submissions ----------------------------------------------------------------------------

struct Submission {
    std::string name;     // folder or file name without extension
    fs::path path;
    std::string student;  // from the roster, else the name
    std::string note;     // how the name was made from the file's, when it differs
};

// A submission's name is a file and folder name in every output and a cgroup's: letters, digits,
// '.', '_' and '-'. Anything else (a newline, a right-to-left override, a slash's look-alike)
// becomes '_', said in the report; two files that end up with one name are refused below.
std::string safe_name(const std::string& raw) {
    std::string n;
    for (const unsigned char c : raw) n += std::isalnum(c) || c == '.' || c == '_' || c == '-' ? static_cast<char>(c) : '_';
    if (n.empty() || n.front() == '.') n.insert(n.begin(), '_');
    return n;
}

std::string stem_of(const fs::path& p) {
    std::string n = p.filename().string();
    for (const char* ext : {".tar.gz", ".tgz", ".tar", ".zip"})
        if (n.size() > std::strlen(ext) && n.compare(n.size() - std::strlen(ext), std::string::npos, ext) == 0)
            return n.substr(0, n.size() - std::strlen(ext));
    return n;
}

std::vector<Submission> find_submissions(const fs::path& dir, const fs::path& roster) {
    if (!fs::is_directory(dir))
        throw Error(fmt::format("{} is not a folder of submissions (each one a folder, .zip, .tar or .tar.gz)",
                                dir.string()));
    std::map<std::string, std::string> ids;
    if (!roster.empty()) {
        std::ifstream in(roster);
        if (!in) throw Error(fmt::format("cannot read the roster {}", roster.string()));
        for (std::string line; std::getline(in, line);) {
            const auto comma = line.find(',');
            if (comma == std::string::npos || line.rfind("submission", 0) == 0) continue;
            ids[line.substr(0, comma)] = sanitize(line.substr(comma + 1), 200);
        }
    }
    std::vector<Submission> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string raw = stem_of(e.path()), name = safe_name(raw);
        const std::string note = name == raw ? std::string()
                                             : fmt::format("graded as \"{}\": the file name \"{}\" holds characters a "
                                                           "submission name may not have (letters, digits, '.', '_', '-')",
                                                           name, sanitize(e.path().filename().string(), 300));
        out.push_back({name, e.path(), ids.count(name) ? ids[name] : name, note});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    // One identity per submission: `alice/` and `alice.zip` would share a work folder and results.
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i].name == out[i - 1].name)
            throw Error(fmt::format("two submissions are both called \"{}\": {} and {}. Keep one of them (or rename "
                                    "one) and grade again",
                                    out[i].name, sanitize(out[i - 1].path.filename().string(), 300),
                                    sanitize(out[i].path.filename().string(), 300)));
    // Without unzip every zipped submission would score 0 for a failed unpacking: refuse instead.
    if (std::any_of(out.begin(), out.end(), [](const auto& s) { return s.path.extension() == ".zip"; }) &&
        !on_path("unzip"))
        throw Error("some submissions are .zip files and unzip is not installed: apt-get install unzip (or "
                    "scripts/setup.sh --all), then grade again");
    return out;
}

// ---- grades ---------------------------------------------------------------------------------

struct ExerciseGrade {
    std::string id, status;  // passed, failed, build failed, no evidence, timed out, crashed, race, not submitted, ambiguous, refused, too large, not graded (Slurm)
    double score = 0, max = 0;
    std::string output;
};

struct SubmissionGrade {
    std::string name, student;
    std::vector<ExerciseGrade> exercises;
    std::vector<std::string> notes;
    double total() const {
        double t = 0;
        for (const auto& e : exercises) t += e.score;
        return t;
    }
    double max() const {
        double t = 0;
        for (const auto& e : exercises) t += e.max;
        return t;
    }
};

json to_json(const SubmissionGrade& g) {
    json ex = json::array();
    for (const auto& e : g.exercises)
        ex.push_back({{"id", e.id}, {"status", e.status}, {"score", e.score}, {"max", e.max}, {"output", e.output}});
    return {{"name", g.name}, {"student", g.student}, {"exercises", ex}, {"notes", g.notes}};
}

SubmissionGrade from_json(const json& j) {
    SubmissionGrade g{j.at("name"), j.at("student"), {}, j.at("notes").get<std::vector<std::string>>()};
    for (const auto& e : j.at("exercises"))
        g.exercises.push_back({e.at("id"), e.at("status"), e.at("score"), e.at("max"), e.at("output")});
    return g;
}

// A journal's whole records, in order; `whole_bytes` gets how many bytes they fill. A kill can
// land in the middle of an append: a torn or damaged record ends the journal there.
std::vector<SubmissionGrade> read_journal(const fs::path& file, std::size_t* whole_bytes = nullptr) {
    const std::string text = read_file_or_empty(file);
    std::vector<SubmissionGrade> out;
    std::size_t good = 0;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = text.find('\n', at);
        if (end == std::string::npos) break;  // no newline: torn
        try {
            out.push_back(from_json(json::parse(text.substr(at, end - at))));
            good = end + 1;
        } catch (...) {
            break;  // a damaged record: it and whatever follows are graded again
        }
        at = end + 1;
    }
    if (whole_bytes) *whole_bytes = good;
    return out;
}

}  // namespace

Verdict judge_evidence(const std::string& text, const std::string& nonce, const std::string& reference) {
    Verdict v;
    std::set<std::string> expected;
    std::istringstream ref(reference);
    for (std::string line; std::getline(ref, line);)
        if (line.rfind("case ", 0) == 0) expected.insert(line.substr(line.find(' ', 5) + 1));
    v.cases_expected = static_cast<int>(expected.size());
    std::istringstream in(text);
    std::string first;
    if (!std::getline(in, first) || first != "evidence " + nonce) {
        v.problem = "the test left no valid evidence (it exited early, was killed, or something else wrote the file)";
        return v;
    }
    std::set<std::string> passed, seen;
    bool ended = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("case ok ", 0) == 0) passed.insert(line.substr(8)), seen.insert(line.substr(8));
        else if (line.rfind("case fail ", 0) == 0) seen.insert(line.substr(10));
        else if (line.rfind("run ", 0) == 0) ended = true;
    }
    if (!ended || seen != expected) {
        v.problem = "the test run did not complete every test case";
        return v;
    }
    v.valid = true;
    v.cases_passed = static_cast<int>(passed.size());
    return v;
}

GradedRun run_graded_test(const GradedRunSpec& s) {
    fs::create_directories(s.evidence.parent_path());
    const std::vector<std::string> env = {fmt::format("WORKBOOK_SEED={}", s.seed), "WORKBOOK_KERNEL_DIR=" + s.kernel_dir.string(),
                                          "WORKBOOK_EVIDENCE_FILE=" + s.evidence.string(),
                                          "WORKBOOK_EVIDENCE_NONCE=" + s.nonce, "WORKBOOK_RUNNER=" + s.runner,
                                          "WORKBOOK_RUNNER_WRAPPER=" + join_words(s.runner_wrapper),
                                          // A runner silent for two thirds of the limit fails its case; the rest still count.
                                          fmt::format("WORKBOOK_RUNNER_TIMEOUT={}", std::max(1, s.limit_s * 2 / 3)),
                                          "WORKBOOK_REFERENCE_CACHE=" + s.reference_cache.string()};
    GradedRun g;
    g.process = run_process({s.checker}, std::chrono::seconds(s.limit_s), env, 64 * 1024);
    g.verdict = judge_evidence(fs::exists(s.evidence) ? read_file_or_empty(s.evidence) : "", s.nonce, s.reference);
    fs::remove(s.evidence);
    const auto& r = g.process;
    const auto& v = g.verdict;
    if (r.timed_out) g.status = "timed out";
    else if (r.signaled) g.status = "crashed";
    else if (!v.valid) g.status = "no evidence";
    // Every case passed but the process failed: the evidence and the exit disagree.
    else if (!r.passed() && v.cases_passed == v.cases_expected) g.status = "no evidence";
    else g.status = v.cases_passed == v.cases_expected ? "passed" : "failed";
    return g;
}

race::Result run_race_pass(const GradedRunSpec& s, const std::vector<std::string>& race_wrapper) {
    std::vector<std::string> checker{s.checker};
    if (!s.cases.empty()) checker.push_back("--test-case=" + s.cases);
    return race::check_runner(checker, std::chrono::seconds(s.race_limit_s > 0 ? s.race_limit_s : s.limit_s * 10), race_wrapper,
                              {fmt::format("WORKBOOK_SEED={}", s.seed), "WORKBOOK_KERNEL_DIR=" + s.kernel_dir.string(),
                               "WORKBOOK_RUNNER=" + s.runner},
                              {}, s.kernel_dir);
}

namespace {

// Work that only has to keep ahead of the graded tests (preparing the next submissions, the race
// passes) runs at this niceness, it and every process it starts: the graded tests, one at a time,
// set the pace of a run, and on two cores they ran 1.6 times slower than alone while the rest
// competed as equals. Nice 10, not 19: the background still gets about a tenth of a busy core, so
// its wall-clock limits (a compile's 300 s) are not reached for a neighbour's sake.
constexpr int background_nice = 10;

// Lowers the calling thread's priority (Linux: niceness is per thread, and a child process
// inherits its creator's). Best effort: where it fails, work only goes as before.
void run_in_background(int nice) {
    if (nice > 0) ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice);
}

// One thread that runs queued work in order (the race passes: see Grader::test), at `nice`. Work
// still queued when it is destroyed is dropped; the one running is waited for.
class Lane {
public:
    explicit Lane(int nice) : nice_(nice), thread_([this] { loop(); }) {}
    ~Lane() {
        {
            std::lock_guard lock(m_);
            stop_ = true;
        }
        more_.notify_all();
        thread_.join();
    }
    Lane(const Lane&) = delete;
    Lane& operator=(const Lane&) = delete;
    void post(std::packaged_task<ExerciseGrade()> work) {
        {
            std::lock_guard lock(m_);
            queue_.push_back(std::move(work));
        }
        more_.notify_all();
    }

private:
    void loop() {
        run_in_background(nice_);
        for (;;) {
            std::packaged_task<ExerciseGrade()> work;
            {
                std::unique_lock lock(m_);
                more_.wait(lock, [&] { return stop_ || !queue_.empty(); });
                if (stop_) return;
                work = std::move(queue_.front());
                queue_.pop_front();
            }
            work();  // its exception, if any, goes to its future
        }
    }
    std::mutex m_;
    std::condition_variable more_;
    std::deque<std::packaged_task<ExerciseGrade()>> queue_;
    bool stop_ = false;
    int nice_;
    std::thread thread_;  // last: it starts once the rest is made
};

// A submission's processes may still be dying (its PID namespace is torn down after the test
// returns) and deleting their temporary files while we delete the folder: retry, and leave it
// behind rather than fail the class.
void remove_scratch(const fs::path& dir) {
    for (int attempt = 0; attempt < 10; ++attempt) {
        std::error_code ec;
        fs::remove_all(dir, ec);
        if (!ec) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

class Grader {
public:
    Grader(const Workspace& ws, const GradeOptions& o) : ws_(ws), o_(o) {}

    int run() {
        for (const auto& ex : ws_.course().exercises)
            if (o_.only.empty() || std::find(o_.only.begin(), o_.only.end(), ex.id) != o_.only.end())
                exercises_.push_back(&ex);
        if (exercises_.empty()) throw Error("--only matches no exercise (give ids such as 02)");
        // Everything the grader writes is its own (0600, 0700) unless made otherwise below: without
        // namespaces the runner, another user, must read none of it (results, evidence, the seed).
        ::umask(077);
        read_config();
        if (o_.step == GradeOptions::Step::prepare) return exit_ok;
        check_sandbox();
        check_race_pass();
        read_calibration_result();
        if (o_.step == GradeOptions::Step::gather) return gather();
        // A run killed part-way (the journal resumes it) leaves mounts and cgroups behind.
        for (const auto& line : grading::reclaim_leftovers(base() / "work")) say(line);
        {  // and its copies of kernels, which only it used (the journal re-grades what was not kept),
           // and its scratch folders: one killed between its journal line and its clean-up stays
           // behind, since the journal says that submission needs no second look.
            std::error_code ec;
            fs::remove_all(base() / "kernels", ec);
            for (const auto& e : fs::directory_iterator(base() / "work", ec)) remove_scratch(e.path());
        }
        budget_support_ = std::make_unique<grading::BudgetSupport>(o_.budget);
        say(budget_support_->describe());
        fs::create_directories(base() / "work");
        // The runners' users reach their scratch folders under work/ and can list nothing on the way.
        const auto pass_through = fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec;
        fs::permissions(o_.out, pass_through);
        if (o_.step == GradeOptions::Step::part) {  // out/slurm/task-K/work/
            fs::permissions(o_.out / "slurm", pass_through);
            fs::permissions(base(), pass_through);
        }
        fs::permissions(base() / "work", pass_through);
        auto subs = find_submissions(o_.submissions, o_.roster);
        if (o_.step == GradeOptions::Step::part)  // one task of a Slurm array: its chunk only
            std::erase_if(subs, [&](const Submission& s) {
                return std::find(o_.part_names.begin(), o_.part_names.end(), s.name) == o_.part_names.end();
            });
        load_journal();
        std::vector<const Submission*> todo;
        for (const auto& s : subs)
            if (!done_.count(s.name)) todo.push_back(&s);
        say(fmt::format("{} submission(s), {} already graded (journal), {} exercise(s) each; secret seed in {}",
                        subs.size(), subs.size() - todo.size(), exercises_.size(), (o_.out / "secret.toml").string()));
        if (!todo.empty()) {
            // The host-code recipes and their precompiled header, beside the reference runs.
            auto recipes = std::async(std::launch::async, [&] {
                find_workbook_paths(json::parse(read_file_or_empty(ws_.build() / "compile_commands.json")));
            });
            reference_runs();
            recipes.get();
            grade(todo);
        }
        if (o_.step == GradeOptions::Step::part) return exit_ok;  // the gather writes the outputs
        std::vector<SubmissionGrade> all;
        for (const auto& s : subs) all.push_back(done_.at(s.name));
        write_outputs(all);
        if (!calibration_.is_null()) say("\n" + calibration_text(calibration_));
        say(fmt::format("gradebook: {}", (o_.out / "gradebook.csv").string()));
        return exit_ok;
    }

private:
    void say(const std::string& s) const {
        if (!o_.quiet) fmt::print("{}\n", s);
        std::fflush(stdout);
    }

    // Where this process keeps its journal, scratch folders and reference runs: the output folder,
    // or for a task of a Slurm array its own folder in there (tasks never share a file).
    fs::path base() const { return o_.step == GradeOptions::Step::part ? o_.out / "slurm" / o_.part : o_.out; }

    // A Slurm run's tasks (grade_slurm.cpp) each wrote a journal of their own: what the journal
    // lacks of theirs goes into it, then the outputs are written as a local run writes them.
    int gather() {
        const auto subs = find_submissions(o_.submissions, o_.roster);
        load_journal();
        std::vector<fs::path> parts;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(o_.out / "slurm", ec))
            if (fs::exists(e.path() / "journal.jsonl")) parts.push_back(e.path() / "journal.jsonl");
        std::sort(parts.begin(), parts.end());
        int merged = 0, missing = 0;
        for (const auto& file : parts)
            for (const auto& g : read_journal(file))
                if (!done_.count(g.name)) append_journal(g), ++merged;
        std::vector<SubmissionGrade> all;
        for (const auto& s : subs) {
            if (const auto it = done_.find(s.name); it != done_.end()) {
                all.push_back(it->second);
                continue;
            }
            const auto why = o_.not_graded.count(s.name) ? o_.not_graded.at(s.name) : std::string("no task graded it");
            SubmissionGrade g{s.name, s.student, {}, {"not graded: " + cap(why, 4000)}};
            for (const Exercise* ex : exercises_)
                g.exercises.push_back({ex->id, "not graded", 0, weight(*ex), "not graded: " + cap(why, 4000)});
            all.push_back(g);
            ++missing;
        }
        write_outputs(all);
        say(fmt::format("merged {} graded submission(s) from {} task journal(s); gradebook: {}", merged, parts.size(),
                        (o_.out / "gradebook.csv").string()));
        if (missing == 0) return exit_ok;
        fmt::print(stderr, "{} of {} submission(s) were not graded; their rows and reports say why.\n", missing, subs.size());
        return exit_wrong_result;
    }

    // The seed stays the same across restarts (same inputs, same gradebook); the nonce is fresh.
    void read_config() {
        if (!o_.config.empty()) {
            toml::table t;
            try {
                t = toml::parse_file(o_.config.string());
            } catch (const toml::parse_error& e) {
                throw Error(fmt::format("{}: {}", o_.config.string(), e.description()));
            }
            if (auto s = t["secret_seed"].value<int64_t>()) seed_ = static_cast<std::uint64_t>(*s);
            if (const auto* w = t["weights"].as_table())
                for (const auto& [k, v] : *w) weights_[std::string(k.str())] = v.value_or(1.0);
        }
        const fs::path secret = o_.out / "secret.toml";
        if (fs::exists(secret)) {
            seed_ = static_cast<std::uint64_t>(toml::parse_file(secret.string())["seed"].value_or(int64_t{0}));
            if (seed_ == 0) throw Error(fmt::format("{} holds no seed: restore it, or grade into a new --out", secret.string()));
        } else if (o_.step == GradeOptions::Step::part || o_.step == GradeOptions::Step::gather) {
            // A Slurm task never makes a seed of its own: the submitting step kept the class's there.
            throw Error(fmt::format("{} is missing: the tasks of a Slurm run read the class's seed there (is the output "
                                    "folder on a file system the nodes share?)",
                                    secret.string()));
        } else {
            if (seed_ == 0) {
                std::random_device rd;
                seed_ = (static_cast<std::uint64_t>(rd()) << 20) ^ rd();
                seed_ &= 0x7fffffffffffULL;
            }
            write_text(secret, fmt::format("# The secret seed of this grading run (keep it from students).\nseed = {}\n", seed_));
        }
        nonce_ = random_hex(16);
    }

    double weight(const Exercise& ex) const {
        const auto it = weights_.find(ex.id);
        return it != weights_.end() ? it->second : ex.weight;
    }

    static constexpr fs::perms readable_by_all =
        fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;

    // No silent grade without the race pass: on a GPU, and for some bugs on a CPU, it is what
    // catches a missing barrier.
    void check_race_pass() {
        if (o_.no_race_check) {
            race_note_ = "race pass off (--no-race-check): missing barriers and waits, and reads past a tile, that "
                         "this device hides were not looked for";
            fmt::print(stderr, "WARNING: {}\n", race_note_);
            return;
        }
        if (o_.step == GradeOptions::Step::gather) return;  // the tasks, which ran the tests, checked
        race::require_available("the", "to grade without it (every report then says so)");
    }

    // What this grading catches, as `workbook calibrate` measured it (kept in the reports). Without
    // the race pass, the race note says what the graded tests alone catch.
    void read_calibration_result() {
        if (o_.calibration.empty()) return;
        calibration_ = read_calibration(o_.calibration);
        const auto& t = calibration_["total"];
        say(fmt::format("calibration from {}: measured on {} ({}, race pass {}): {} of {} planted bugs caught, {} of "
                        "{} correct variants accepted; grade on that device for these figures to hold",
                        o_.calibration.string(), calibration_.value("device", "?"), calibration_.value("date", "?"),
                        calibration_.value("race_pass", "?"), t.value("by_test", 0) + t.value("by_race_pass", 0),
                        t.value("planted", 0), t.value("accepted", 0), t.value("variants", 0)));
        if (!race_note_.empty())
            race_note_ += fmt::format("; on {}, the graded tests alone catch {} of the {} planted bugs (calibration)",
                                      calibration_.value("device", "?"), t.value("by_test", 0), t.value("planted", 0));
    }

    void check_sandbox() {
        if (o_.step == GradeOptions::Step::gather) return;  // nothing runs here
        const std::string problem = grading::sandbox_problem();
        if (!problem.empty() && !o_.no_sandbox)
            throw Error(fmt::format("the sandbox cannot run: {}.\nFix that, or pass --no-sandbox to grade with "
                                    "resource limits only (NOT safe against hostile code).",
                                    problem));
        // The sandbox unpacks each upload as the submission's own user: a folder on the way that
        // other users cannot enter would leave every exercise "not submitted", a silent 0.
        if (!o_.no_sandbox && o_.step != GradeOptions::Step::prepare && !o_.submissions.empty()) {
            const fs::path subs = fs::absolute(o_.submissions);
            for (fs::path at = subs; !at.empty(); at = at.parent_path()) {
                const auto perms = fs::status(at).permissions();
                const bool enter = (perms & fs::perms::others_exec) != fs::perms::none;
                const bool list = at != subs || (perms & fs::perms::others_read) != fs::perms::none;
                if (fs::exists(at) && (!enter || !list))
                    throw Error(fmt::format("the sandbox unpacks each submission as an unprivileged user, who cannot {} "
                                            "{}.\nFix: chmod o+{} {} (or grade a copy in a folder others may enter)",
                                            enter ? "list" : "enter", at.string(), enter ? "r" : "x", at.string()));
                if (at == at.parent_path()) break;
            }
        }
        if (o_.no_sandbox) {
            fmt::print(stderr, "WARNING: --no-sandbox: student code runs as its own user with resource limits but "
                               "WITHOUT namespaces: it can reach the network and read whatever other users may read.\n");
            // The checker still decides every verdict; what the runner could read is the file system's business.
            for (const fs::path& dir : {ws_.root() / "solutions", build_source_dir() / "solutions", o_.submissions})
                if (fs::exists(dir) && (fs::status(dir).permissions() & fs::perms::others_read) != fs::perms::none)
                    fmt::print(stderr, "WARNING: {} is readable by other users, so student code can read it here: "
                                       "chmod -R o-rwx {}\n",
                               dir.string(), dir.string());
        }
    }

    fs::path journal() const { return base() / "journal.jsonl"; }

    // Only whole records count (read_journal), and the file is cut back to the last of them, so the
    // next append starts on a line of its own (a torn record's submission is graded again, once).
    void load_journal() {
        std::size_t good = 0;
        for (auto& g : read_journal(journal(), &good)) done_[g.name] = std::move(g);
        std::error_code ec;
        const auto size = fs::exists(journal()) ? fs::file_size(journal(), ec) : 0;
        if (good < size) {
            fs::resize_file(journal(), good, ec);
            say(fmt::format("journal: dropped a torn last record ({} bytes); that submission is graded again",
                            size - good));
        }
    }

    void append_journal(const SubmissionGrade& g) {
        std::ofstream out(journal(), std::ios::app);
        out << dump(to_json(g)) << "\n";
        out.flush();
        done_[g.name] = g;
    }

    bool edited_by_one_exercise(const std::string& file) const {
        int n = 0;
        for (const auto& ex : ws_.course().exercises)
            n += static_cast<int>(std::count(ex.edit.begin(), ex.edit.end(), file));
        return n == 1;
    }

    // The tree the build was configured from (its compile lines include headers from there); it
    // differs from the workbook root when, say, Gradescope's copy is graded with another build.
    fs::path build_source_dir() const {
        std::ifstream in(ws_.build() / "CMakeCache.txt");
        const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
        for (std::string line; std::getline(in, line);)
            if (line.rfind(key, 0) == 0) return line.substr(key.size());
        return fs::absolute(ws_.root());
    }

    // A submission unpacked and built, ready for its tests.
    // The wall time one submission's own race passes share (its runner under Oclgrind): twice the
    // sum of its exercises' time limits. A pass may take up to ten times its exercise's limit
    // (Oclgrind is slow), but never more than what is left here, so a submission that stalls only
    // under the simulator loses the exercises it stalls in, and holds the one race lane (and the
    // class behind it) no longer than that. (Twice: a correct runner that is slow on purpose, such
    // as one that runs a shell command per call, under a loaded Slurm node took more than once.)
    struct RaceBudget {
        std::mutex m;
        double left_s = 0;
        double total_s = 0;
        int grant(int want_s) {
            std::lock_guard lock(m);
            return static_cast<int>(std::min<double>(want_s, std::max(0.0, left_s)));
        }
        void spend(double s) {
            std::lock_guard lock(m);
            left_s -= s;
        }
    };

    struct Prepared {
        fs::path scratch;
        fs::path kernels;  // the kernel files the tests read: a copy the submission's user cannot change
        int uid = 65534;
        std::shared_ptr<grading::Budget> budget;  // its cgroups and scratch tmpfs, while it lives
        std::map<std::string, std::string> problem;  // exercise id -> why it cannot be tested
        std::map<std::string, fs::path> binary;      // exercise id -> the test to run
        std::map<std::string, std::string> graded_from;  // exercise id -> which files were taken, from where
        std::vector<std::string> notes;
        std::shared_ptr<RaceBudget> race_budget;  // the time all its race passes share
    };

    // Each submission runs as its own user (see Sandbox::uid), inside its budget, and sees of the
    // workbook only what compiling and running its runners needs (workbook_paths()).
    Sandbox sandbox_for(const Prepared& p) const {
        Sandbox s;
        s.uid = p.uid;
        s.scratch = p.scratch.string();
        s.namespaces = !o_.no_sandbox;
        s.readable = workbook_paths_;
        if (!p.kernels.empty() && fs::exists(p.kernels)) s.readable.push_back(p.kernels.string());
        if (p.budget) s.cgroups = p.budget->procs();
        return s;
    }

    // The allow-list of the instructor's files a sandbox mounts: the include folders, objects and
    // libraries of the graded exercises' compile and link recipes (the starters' objects: public),
    // and the instructor's runners for exercises whose files are all kernels. Nothing else of
    // either tree: no solution, no planted bug, no test binary, no grading configuration.
    void find_workbook_paths(const json& commands) {
        std::set<std::string> paths;
        auto add = [&](const std::string& word) {
            std::string w = word.rfind("-I", 0) == 0 ? word.substr(2) : word;
            std::error_code ec;
            if (!w.empty() && w[0] == '/' && w.rfind("/usr/", 0) != 0 && fs::exists(w, ec)) paths.insert(fs::path(w).lexically_normal().string());
        };
        for (const Exercise* ex : exercises_) {
            bool host = false;
            for (const auto& f : ex->edit) host = host || fs::path(f).extension() == ".cpp";
            if (!host || own_kernels(*ex)) add((ws_.build() / "bin" / ("runner-" + ex->dir() + "-starter")).string());
            if (!host) continue;
            const Recipe r = recipe_for(ws_, *ex, commands);
            for (const auto& w : r.compile) add(w);
            for (const auto& w : r.link) add(w);
            recipes_.emplace(ex->id, r);
        }
        if (const char* o = std::getenv("WORKBOOK_OCLGRIND"); o && *o) add(fs::path(o).parent_path().string());
        if (o_.share_work) add(prebuild().string());
        if (o_.share_work && !recipes_.empty()) {
            const PhaseTimes::Scope timed(phases_, "precompile <CL/opencl.hpp> (once)");
            if (const fs::path dir = host_pch(); !dir.empty()) paths.insert(dir.string());
        }
        workbook_paths_.assign(paths.begin(), paths.end());
    }

    // Most of compiling a student's host file at -O0 is parsing <CL/opencl.hpp> (about 0.6 of 1.0 s
    // here), which every host file includes through its exercise's header (workbook/cl.hpp). It is
    // precompiled once per grading run, with each recipe's own flags, and force-included: the
    // student's code sees what it saw before, in the same order. GCC checks that a PCH matches the
    // flags and ignores one that does not (it parses the header itself): slower, never different.
    // Instructor's headers only; readable by the sandboxes, written by nobody else.
    fs::path host_pch() {
        const fs::path dir = fs::absolute(base() / "pch");
        std::error_code ec;
        fs::remove_all(dir, ec);
        fs::create_directories(dir);
        fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
        std::map<std::vector<std::string>, fs::path> made;  // flags (no -I, no files) -> header
        for (auto& [id, r] : recipes_) {
            std::vector<std::string> flags, argv;
            for (const auto& w : r.compile) {
                if (w.rfind("-I", 0) == 0) argv.push_back(w);
                else if (w == "{src}" || w == "{obj}" || w == "-c" || w == "-o") continue;
                else flags.push_back(w), argv.push_back(w);
            }
            if (auto it = made.find(flags); it != made.end()) {
                r.header = it->second;
                continue;
            }
            const fs::path header = dir / fmt::format("host{}.hpp", made.size());
            write_text(header, "#include \"workbook/cl.hpp\"\n");
            argv.insert(argv.end(), {"-x", "c++-header", header.string(), "-o", header.string() + ".gch"});
            const auto built = run_process(argv, 300s);
            if (!built.passed()) {
                say(fmt::format("note: precompiling the host header failed (students' host files are compiled "
                                "without it, more slowly): {}", cap(built.output, 500)));
                continue;
            }
            for (const fs::path& f : {header, fs::path(header.string() + ".gch")}) fs::permissions(f, readable_by_all);
            made.emplace(flags, header);
            r.header = header;
        }
        return made.empty() ? fs::path() : dir;
    }

    // The solution's evidence on the secret seed: which test cases a complete run has.
    // Outputs go back to students: the secret seed must not.
    std::string redact(std::string text) const {
        const std::string seed = std::to_string(seed_);
        for (auto at = text.find(seed); at != std::string::npos; at = text.find(seed, at))
            text.replace(at, seed.size(), "(secret)");
        return text;
    }

    // Two at a time: a run is one process busy, PoCL's second thread only while a kernel runs.
    void reference_runs() {
        const PhaseTimes::Scope timed(phases_, "reference runs (once)");
        fs::create_directories(expected_cache());
        std::atomic<std::size_t> next{0};
        std::mutex results;
        const auto worker = [&] {
            for (std::size_t i; (i = next++) < exercises_.size();) reference_run(exercises_[i], results);
        };
        auto other = std::async(std::launch::async, worker);
        worker();
        other.get();
    }

    // One exercise's solution on the secret seed: its evidence, and the kernel builds it made.
    void reference_run(const Exercise* ex, std::mutex& results) {
        const fs::path file = base() / "reference" / (ex->dir() + ".txt");
        fs::create_directories(file.parent_path());
        fs::remove(file);
        // The instructor's kernels, built by this run into a cache of their own (see seed_kernel_cache).
        const fs::path cache = kernel_cache(*ex);  // kept: PoCL keys it by source, options and device
        fs::create_directories(cache);
        const fs::path builds = base() / "reference" / (ex->dir() + "-builds.txt");
        fs::remove(builds);
        const auto r = run_process({(ws_.build() / "bin" / ("test-" + ex->dir() + "-solution")).string()},
                                   std::chrono::seconds(ex->time_limit_s * 2),
                                   {fmt::format("WORKBOOK_SEED={}", seed_), "WORKBOOK_EVIDENCE_FILE=" + file.string(),
                                    "WORKBOOK_EVIDENCE_NONCE=" + nonce_, "POCL_CACHE_DIR=" + cache.string(),
                                    "WORKBOOK_REFERENCE_CACHE=" + (o_.share_work ? expected_cache().string() : ""),
                                    "WORKBOOK_BUILD_LOG=" + builds.string()});
        if (!r.passed() || !fs::exists(file))
            throw Error(fmt::format("the solution of {} does not pass its own test on the secret seed ({}): "
                                    "fix the instructor's tree first\n{}",
                                    ex->dir(), r.status(), cap(r.output, 2000)));
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
    }

    // The student writes kernels as well as host code (02, 04).
    static bool own_kernels(const Exercise& ex) {
        return !kernel_only(ex) &&
               std::any_of(ex.edit.begin(), ex.edit.end(), [](const std::string& f) { return fs::path(f).extension() == ".cl"; });
    }

    static bool kernel_only(const Exercise& ex) {
        return std::none_of(ex.edit.begin(), ex.edit.end(), [](const std::string& f) { return fs::path(f).extension() != ".cl"; });
    }

    // The exercise and every kernel file's name, length and text: the whole text, not a hash of it,
    // which a student could try to collide with a clean entry's (the texts are a few kB each).
    std::string race_key(const Exercise& ex, const fs::path& dir) const {
        std::string text = ex.id;
        for (const auto& k : ex.kernels) {
            const std::string body = read_file_or_empty(dir / fs::path(k).filename());
            text += fmt::format("\n{}\n{}\n", fs::path(k).filename().string(), body.size()) + body;
        }
        return text;
    }

    // The checkers' expected results, computed once per run for all submissions (matmul.hpp).
    fs::path expected_cache() const { return base() / "reference" / "expected"; }

    fs::path kernel_cache(const Exercise& ex) const { return base() / "reference" / "kernel-cache" / ex.dir(); }

    // On PoCL a kernel build costs about a second (it links the built-in library), most of a small
    // exercise's graded test, and each submission's runner starts with an empty cache. Where every
    // kernel file of an exercise is byte for byte the instructor's (host-only exercises, and
    // students whose kernel is the solution's), the runner gets a copy of the cache the reference
    // run built, and links nothing. Never otherwise: that cache holds the solution's compiled
    // kernel. A copy, in the submission's own folder: nothing it writes reaches another.
    bool seed_kernel_cache(const Exercise& ex, const Prepared& p, const fs::path& dir) {
        const fs::path cache = kernel_cache(ex);
        if (!o_.share_work || ex.kernels.empty() || !fs::is_directory(cache)) return false;
        for (const auto& k : ex.kernels) {
            const bool edited = std::find(ex.edit.begin(), ex.edit.end(), k) != ex.edit.end();
            const fs::path theirs = dir / fs::path(k).filename();
            const fs::path ours = (edited ? ws_.solution_dir(ex) : ws_.exercise_dir(ex)) / k;
            if (!fs::is_regular_file(theirs) || !fs::is_regular_file(ours) ||
                read_file_or_empty(theirs) != read_file_or_empty(ours))
                return false;
        }
        const PhaseTimes::Scope timed(phases_, "seed kernel cache");
        const fs::path target = p.scratch / ".pocl-cache";
        std::error_code ec;
        fs::copy(cache, target, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
        if (ec) return false;  // a slower build, nothing worse
        return run_process({"chown", "-R", "--no-dereference", fmt::format("{}:{}", p.uid, p.uid), target.string()}, 60s)
            .passed();
    }

    // Before the tests, each exercise's programs go into the submission's compiler cache: a copy
    // of the reference run's where every kernel file is the instructor's (seed_kernel_cache), else
    // built by kernel-prebuild (grading/src/prebuild_main.cpp) in the sandbox, as the reference run
    // built them (builds_). One process for the whole submission pays PoCL's start-up once instead
    // of once per exercise, and it runs here, beside the previous submission's tests. A build it
    // could not do costs nothing: the runner builds as it always did.
    void warm_kernel_cache(const Prepared& p, const Sandbox& box) {
        if (!o_.share_work || !fs::exists(prebuild())) return;
        std::string list;
        for (const Exercise* ex : exercises_) {
            if (p.problem.count(ex->id) || ex->kernels.empty()) continue;
            const fs::path dir = p.scratch / ex->dir();
            if (seed_kernel_cache(*ex, p, dir)) continue;
            if (const auto it = builds_.find(ex->id); it != builds_.end())
                for (const auto& [name, options] : it->second) list += (dir / name).string() + '\t' + options + '\n';
        }
        if (list.empty()) return;
        const PhaseTimes::Scope timed(phases_, "prebuild kernels (one process)");
        const fs::path file = p.scratch / "prebuild.txt";
        write_text(file, list);
        fs::permissions(file, readable_by_all);
        box.run({prebuild().string(), file.string()}, 60s, {}, 4096);  // about 2 s for a whole workbook
        std::error_code ec;
        fs::remove(file, ec);
    }
    fs::path prebuild() const { return ws_.build() / "bin" / "kernel-prebuild"; }

    // The graded test and the race pass read the kernel files from a copy owned by root, readable by
    // the submission's user alone and writable by nobody: a race pass runs beside the next graded
    // tests, whose code (the same user's) must not swap the kernels one of them reads.
    void snapshot_kernels(Prepared& p) {
        const fs::path all = fs::absolute(base() / "kernels");
        fs::create_directories(all);
        fs::permissions(all, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
        p.kernels = all / random_hex(8);
        const auto mine = [&](const fs::path& f, fs::perms perms) {
            fs::permissions(f, perms);
            if (::chown(f.c_str(), 0, static_cast<gid_t>(p.uid)) != 0)
                throw Error(fmt::format("cannot give {} to group {}: {}", f.string(), p.uid, std::strerror(errno)));
        };
        const auto folder = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec;
        fs::create_directories(p.kernels);
        mine(p.kernels, folder);
        for (const Exercise* ex : exercises_) {
            if (p.problem.count(ex->id) || ex->kernels.empty()) continue;
            const fs::path to = p.kernels / ex->dir();
            fs::create_directories(to);
            mine(to, folder);
            for (const auto& k : ex->kernels) {
                // Root reads from a folder the submission's user may write: a plain file only, never
                // a link to somewhere else that the copy would then make readable to that user.
                const fs::path name = fs::path(k).filename();
                write_text(to / name, read_plain_file(p.scratch / ex->dir() / name, 4 << 20));
                mine(to / name, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
            }
        }
    }

    Prepared prepare(const Submission& s, int uid) {
        auto unpacking = std::make_unique<PhaseTimes::Scope>(phases_, "unpack and locate");
        Prepared p;
        p.uid = uid;
        p.race_budget = std::make_shared<RaceBudget>();
        for (const Exercise* ex : exercises_)
            if (ex->race_check && !ex->kernels.empty())
                p.race_budget->total_s += 2 * (o_.timeout_s > 0 ? o_.timeout_s : ex->time_limit_s);
        p.race_budget->left_s = p.race_budget->total_s;
        p.scratch = fs::absolute(base() / "work" / s.name);
        remove_scratch(p.scratch);
        fs::create_directories(p.scratch);
        // The submission's own user alone may enter its scratch folder.
        fs::permissions(p.scratch, fs::perms::owner_all);
        if (::chown(p.scratch.c_str(), static_cast<uid_t>(p.uid), static_cast<gid_t>(p.uid)) != 0)
            throw Error(fmt::format("cannot give {} to user {}: {}", p.scratch.string(), p.uid, std::strerror(errno)));
        // Its budget: the cgroups every process of it joins, and its scratch folder's quota.
        p.budget = std::make_shared<grading::Budget>(*budget_support_, fmt::format("s{}", uid), p.scratch, p.uid);
        p.notes.push_back(budget_support_->describe());
        for (const auto& n : p.budget->notes()) p.notes.push_back(n);
        const fs::path src = p.scratch / "src";
        fs::create_directories(src);
        fs::permissions(src, fs::perms::all);
        Sandbox box = sandbox_for(p);
        box.readable.push_back(fs::absolute(s.path).string());
        std::string from = fs::absolute(s.path).string();
        std::string too_large;
        if (o_.no_sandbox) {
            // Without namespaces the submissions folder stays unreadable to the students' users: the
            // grader hands each its own copy (links copied as links, never followed), in its quota.
            const fs::path copy = p.scratch / ("upload-" + s.path.filename().string());
            std::error_code copied;
            fs::copy(s.path, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks, copied);
            if (copied) too_large = "copying the upload: " + copied.message();
            run_process({"chown", "-R", "--no-dereference", fmt::format("{}:{}", p.uid, p.uid), copy.string()}, 60s);
            from = copy.string();
        }
        std::vector<std::string> unpack;
        if (fs::is_directory(s.path)) unpack = {"cp", "-r", "--no-preserve=mode", from + "/.", src.string()};
        else if (s.path.extension() == ".zip") unpack = {"unzip", "-q", "-o", from, "-d", src.string()};
        else unpack = {"tar", "-xf", from, "-C", src.string(), "--no-same-owner", "--no-same-permissions"};
        if (too_large.empty()) {
            const auto r = box.run(unpack, 60s);
            if (!r.passed()) p.notes.push_back(fmt::format("unpacking: {}: {}", r.status(), cap(r.output, 500)));
            if (!r.passed() && p.budget->scratch_full()) too_large = "unpacking stopped: " + cap(r.output, 300);
        }

        // Every file of the submission, by path relative to where it was unpacked; counted against
        // the quota where no tmpfs enforced it.
        std::vector<fs::path> files;
        std::uintmax_t bytes = 0;
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(src, fs::directory_options::skip_permission_denied, ec);
             too_large.empty() && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (it->is_regular_file(ec) && !it->is_symlink(ec)) {
                files.push_back(fs::relative(it->path(), src));
                bytes += it->file_size(ec);
            }
            if (files.size() > static_cast<std::size_t>(o_.budget.files) || bytes > (std::uintmax_t(o_.budget.disk_mib) << 20))
                too_large = "unpacked, it holds more than the quota";
        }
        if (!too_large.empty()) {
            const std::string why = fmt::format("too large: the submission does not fit its quota of {} MiB and {} files "
                                                "({}). Submit only your exercises/ folder.",
                                                o_.budget.disk_mib, o_.budget.files, too_large);
            p.notes.push_back(why);
            for (const Exercise* ex : exercises_) p.problem[ex->id] = why;
            return p;
        }

        // Which copy of each edited file is graded: one rule (grading/locate.hpp), said per exercise.
        std::vector<std::string> names, dirs;
        for (const auto& c : files) names.push_back(c.generic_string());
        for (const auto& ex : ws_.course().exercises) dirs.push_back(ex.dir());
        const grading::SubmissionFiles layout(names, dirs);
        p.notes.push_back("layout: " + layout.layout_name());
        p.notes.push_back(o_.no_sandbox ? "isolation: the runner as its own user, resource limits, an allow-listed environment; "
                                          "NO namespaces (--no-sandbox)"
                                        : "isolation: the runner in bubblewrap namespaces, as its own user, resource limits, "
                                          "an allow-listed environment; the checker outside");
        std::set<std::string> used;
        for (const Exercise* ex : exercises_) {
            const fs::path dir = p.scratch / ex->dir();
            fs::create_directories(dir);
            fs::permissions(dir, fs::perms::all);
            std::string graded;
            for (const auto& f : ex->edit) {
                const grading::Located found = layout.locate(ex->dir(), f, edited_by_one_exercise(f));
                if (found.outcome != grading::Located::Outcome::found) {
                    p.problem[ex->id] = cap(found.explain(), 2000);
                    break;
                }
                graded += cap(found.explain(), 2000) + "\n";
                used.insert(found.path);
                fs::copy_file(src / found.path, dir / f, fs::copy_options::overwrite_existing);
                fs::permissions(dir / f, readable_by_all);
            }
            p.graded_from[ex->id] = graded;
            // The exercise's other kernels, from the instructor's tree.
            for (const auto& k : ex->kernels)
                if (std::find(ex->edit.begin(), ex->edit.end(), k) == ex->edit.end())
                {
                    fs::copy_file(ws_.exercise_dir(*ex) / k, dir / fs::path(k).filename(),
                                  fs::copy_options::overwrite_existing);
                    fs::permissions(dir / fs::path(k).filename(), readable_by_all);
                }
        }
        // Anything else that differs from the instructor's copy is ignored, and said so.
        for (const auto& c : files) {
            if (used.count(c.generic_string())) continue;
            std::string rel = c.generic_string();
            const auto at = rel.find("exercises/");
            if (at != std::string::npos) rel = rel.substr(at);
            const fs::path mine = ws_.root() / rel;
            if (fs::exists(mine) && read_file_or_empty(mine) != read_file_or_empty(src / c))
                p.notes.push_back("ignored (differs from the instructor's copy): " + cap(rel, 400));
        }
        // The upload is not needed past this point: its space goes to the builds.
        fs::remove_all(src, ec);
        unpacking.reset();
        for (const Exercise* ex : exercises_)
            if (!p.problem.count(ex->id)) {
                const PhaseTimes::Scope timed(phases_, "compile host code");
                compile(*ex, p, box);
            }
        warm_kernel_cache(p, box);
        snapshot_kernels(p);
        return p;
    }

    void compile(const Exercise& ex, Prepared& p, const Sandbox& box) {
        const fs::path dir = p.scratch / ex.dir();
        std::vector<std::string> hosts;
        for (const auto& f : ex.edit)
            if (fs::path(f).extension() == ".cpp") hosts.push_back(f);
        if (hosts.empty()) {  // kernels only: the instructor's runner, the student's kernels
            p.binary[ex.id] = ws_.build() / "bin" / ("runner-" + ex.dir() + "-starter");
            return;
        }
        const Recipe& recipe = recipes_.at(ex.id);
        std::vector<std::string> objects;
        for (const auto& h : hosts) {
            std::vector<std::string> argv;
            const std::string obj = (dir / (h + ".o")).string();
            for (const auto& w : recipe.compile)
                argv.push_back(w == "{src}" ? (dir / h).string() : w == "{obj}" ? obj : w);
            if (!recipe.header.empty()) argv.insert(argv.begin() + 1, {"-include", recipe.header.string()});
            const auto r = box.run(argv, 300s, {}, 64 * 1024);
            if (!r.passed()) {
                p.problem[ex.id] = "build failed: " + r.status() + "\n" + cap(r.output, 4000);
                return;
            }
            objects.push_back(obj);
        }
        std::vector<std::string> argv;
        const fs::path out = dir / "runner";
        for (const auto& w : recipe.link) {
            if (w == "{objs}") argv.insert(argv.end(), objects.begin(), objects.end());
            else argv.push_back(w == "{out}" ? out.string() : w);
        }
        const auto r = box.run(argv, 300s, {}, 64 * 1024);
        if (!r.passed()) {
            p.problem[ex.id] = "build failed (link): " + r.status() + "\n" + cap(r.output, 4000);
            return;
        }
        p.binary[ex.id] = out;
    }

    // One exercise's grade; where a race pass follows, the grade comes when it is done. The pass
    // (Oclgrind, one thread) runs on a thread of its own while the next graded tests (PoCL) run.
    struct Tested {
        ExerciseGrade grade;
        std::future<ExerciseGrade> after_race;  // valid: the grade is this one's, not `grade`
    };

    Tested test(const Exercise& ex, const Prepared& p) {
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
        spec.checker = (ws_.build() / "bin" / ("test-" + ex.dir() + "-starter")).string();
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
        // barrier, with its line) goes first; it explains, the score stays the test's.
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
            // One simulator thread: the pass runs beside the graded tests, and Oclgrind on two threads
            // spends about 45% more processor time on the same pass (10_mmul_block: 6.8 s against 4.7 s).
            race_box.env.insert(race_box.env.end(), {{"WORKBOOK_SMALL", "1"}, {"WORKBOOK_PLATFORM", ""},
                                                     {"WORKBOOK_DEVICE", ""}, {"WORKBOOK_DEVICE_TYPE", ""}});
            if (o_.share_work) race_box.env.emplace_back("OCLGRIND_NUM_THREADS", "1");
            const std::string from = p.graded_from.count(ex.id) ? p.graded_from.at(ex.id) : std::string();
            std::packaged_task<ExerciseGrade()> pass([this, &ex, g, spec, race_box, dir, explain, from,
                                                      budget = p.race_budget]() mutable {
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
                    spec.race_limit_s = budget->grant(spec.limit_s * 10);
                    if (spec.race_limit_s < 1) {
                        race::Result none;
                        none.run.timed_out = true;
                        return none;
                    }
                    auto r = run_race_pass(spec, race_box.wrapper());
                    budget->spend(r.run.seconds);
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
                    g.output += fmt::format("\nthe race pass (Oclgrind) did not finish within {} s: this submission's race "
                                            "passes share {:.0f} s in all (twice the sum of its exercises' time limits), and a "
                                            "pass that runs past its share scores 0",
                                            spec.race_limit_s, budget->total_s);
                    return g;
                }
                if (explain) {  // after the "graded from" lines, which every report starts with
                    g.output.insert(g.output.rfind(from, 0) == 0 ? from.size() : 0,
                                    cap(race::explain_failure(race), 8000));
                } else if (!race.clean()) {
                    g.score = 0;
                    g.status = "race";
                    for (const auto& rep : race.reports)
                        g.output += cap(fmt::format("\nOclgrind: {}\n{}meaning: {}\n", rep.headline, rep.details,
                                                    rep.explanation()),
                                        4000);
                    if (race.reports.empty()) g.output += "\nunder Oclgrind the test did not pass: " + race.run.status();
                }
                return g;
            });
            auto after = pass.get_future();
            if (!o_.share_work) {  // as before: the pass right after its graded test
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
    race::Result with_kernels_alone(race::Result own, GradedRunSpec spec, const Sandbox& box, const Exercise& ex) {
        spec.runner = (ws_.build() / "bin" / ("runner-" + ex.dir() + "-starter")).string();
        spec.cases = "*kernel:*";  // the cases that call the kernels directly, by their names
        race::Result alone = run_race_pass(spec, box.wrapper());
        if (alone.run.passed() && std::regex_search(alone.run.output, std::regex(R"(test cases:\s+0\s)")))
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

    void grade(const std::vector<const Submission*>& todo) {
        // The users this run's submissions run as: no other live run on this machine (another
        // class, a Slurm task beside this one, a contest judge) holds any of them.
        const grading::UidLease users;
        // Preparing and compiling in parallel; testing in submission order, one at a time.
        std::vector<std::optional<Prepared>> prepared(todo.size());
        std::mutex m;
        std::condition_variable ready, room;
        std::atomic<std::size_t> next{0};
        std::size_t tested = 0;  // under m
        bool stop = false;       // under m
        std::vector<std::thread> workers;
        const std::size_t ahead = static_cast<std::size_t>(std::max(1, o_.jobs));
        for (int j = 0; j < std::max(1, o_.jobs); ++j)
            workers.emplace_back([&] {
                run_in_background(o_.share_work ? background_nice : 0);
                for (std::size_t i; (i = next++) < todo.size();) {
                    {
                        // A few submissions ahead of the tests, no more: each holds scratch space (memory, on a tmpfs).
                        std::unique_lock lock(m);
                        room.wait(lock, [&] { return stop || i <= tested + ahead; });
                        if (stop) return;
                    }
                    Prepared p;
                    try {
                        // A user per submission, from a block this run alone holds (uid_lease.hpp).
                        p = prepare(*todo[i], users.uid(i));
                    } catch (const std::exception& e) {
                        p = Prepared{};
                        p.scratch = fs::absolute(base() / "work" / todo[i]->name);
                        for (const Exercise* ex : exercises_) p.problem[ex->id] = cap(std::string("build failed: ") + e.what(), 4000);
                    }
                    std::lock_guard lock(m);
                    prepared[i] = std::move(p);
                    ready.notify_all();
                }
            });
        // Should anything below throw, stop the workers and join them before it propagates.
        struct Joiner {
            std::vector<std::thread>& threads;
            std::atomic<std::size_t>& next;
            std::size_t end;
            std::mutex& m;
            bool& stop;
            std::condition_variable& room;
            ~Joiner() {
                next = end;
                {
                    std::lock_guard lock(m);
                    stop = true;
                }
                room.notify_all();
                for (auto& t : threads)
                    if (t.joinable()) t.join();
            }
        } joiner{workers, next, todo.size(), m, stop, room};
        const auto start = std::chrono::steady_clock::now();
        // A submission's row is written once its race passes are done: meanwhile the next one's
        // graded tests run.
        struct Pending {
            std::size_t i;
            SubmissionGrade g;
            std::vector<Tested> tests;
        };
        std::optional<Pending> pending;
        race_lane_ = std::make_unique<Lane>(o_.share_work ? background_nice : 0);
        // Should anything throw, the lane stops (its running pass done) before the submissions' folders go.
        struct LaneStop {
            std::unique_ptr<Lane>& lane;
            ~LaneStop() { lane.reset(); }
        } lane_stop{race_lane_};
        const auto keep = [&](Pending& done) {
            const std::size_t i = done.i;
            SubmissionGrade& g = done.g;
            for (auto& t : done.tests) {
                if (!t.after_race.valid()) {
                    g.exercises.push_back(std::move(t.grade));
                    continue;
                }
                try {
                    g.exercises.push_back(t.after_race.get());
                } catch (const std::exception& e) {
                    g.exercises.push_back({t.grade.id, "error", 0, t.grade.max, std::string("grader error: ") + e.what()});
                }
            }
            append_journal(g);
            {
                const PhaseTimes::Scope timed(phases_, "clean up");
                prepared[i]->budget.reset();  // its processes stopped, its tmpfs unmounted
                remove_scratch(prepared[i]->scratch);
                if (!prepared[i]->kernels.empty()) remove_scratch(prepared[i]->kernels);
                prepared[i].reset();
            }
            {
                std::lock_guard lock(m);
                tested = i + 1;
            }
            room.notify_all();
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const double eta = elapsed / static_cast<double>(i + 1) * static_cast<double>(todo.size() - i - 1);
            say(fmt::format("[{}/{}] {:<24} {:6.2f} / {:<6.2f} ({:.0f} s elapsed, about {:.0f} s to go)", i + 1,
                            todo.size(), g.name, g.total(), g.max(), elapsed, eta));
        };
        for (std::size_t i = 0; i < todo.size(); ++i) {
            {
                std::unique_lock lock(m);
                ready.wait(lock, [&] { return prepared[i].has_value(); });
            }
            Pending now{i, SubmissionGrade{todo[i]->name, todo[i]->student, {}, prepared[i]->notes}, {}};
            if (!todo[i]->note.empty()) now.g.notes.insert(now.g.notes.begin(), todo[i]->note);
            for (const Exercise* ex : exercises_) {
                try {
                    now.tests.push_back(test(*ex, *prepared[i]));
                } catch (const std::exception& e) {
                    // The grader's own failure (e.g. no process left to start): graded as an
                    // error, not lost, and the class goes on.
                    now.tests.push_back({{ex->id, "error", 0, weight(*ex), std::string("grader error: ") + e.what()}, {}});
                }
                // The previous submission's row, as soon as its passes are done: a killed run then
                // grades again as little as possible.
                if (pending && std::all_of(pending->tests.begin(), pending->tests.end(), [](const Tested& t) {
                        return !t.after_race.valid() || t.after_race.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
                    })) {
                    keep(*pending);
                    pending.reset();
                }
            }
            if (pending) keep(*pending);
            pending = std::move(now);
        }
        if (pending) keep(*pending);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        say(fmt::format("\nwhere the time went ({} submission(s), {:.1f} s from the first preparation to the last "
                        "test; phases on several threads add up to more):\n{}",
                        todo.size(), wall, phases_.table(static_cast<int>(todo.size()))));
        write_text(base() / "phases.json", phases_.json());
    }

    void write_outputs(const std::vector<SubmissionGrade>& all) const;

    const Workspace& ws_;
    GradeOptions o_;
    std::vector<const Exercise*> exercises_;
    std::map<std::string, double> weights_;
    std::map<std::string, std::string> reference_;
    std::map<std::string, SubmissionGrade> done_;
    std::uint64_t seed_ = 0;
    std::string nonce_;
    std::string race_note_;  // non-empty: graded without the race pass, and why
    json calibration_;       // --calibration: what `workbook calibrate` measured; null without it
    std::unique_ptr<grading::BudgetSupport> budget_support_;
    std::unique_ptr<Lane> race_lane_;  // while grade() runs
    PhaseTimes phases_;  // where the time goes (phase_times.hpp)
    std::map<std::string, race::Result> clean_races_;  // race_key -> a clean pass (test thread only)
    std::map<std::string, Recipe> recipes_;       // exercise id -> how its runner is built
    std::vector<std::string> workbook_paths_;     // what a sandbox mounts of the workbook
    // exercise id -> the programs its reference run built: kernel file name, build options
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> builds_;
};

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

void Grader::write_outputs(const std::vector<SubmissionGrade>& all) const {
    // gradebook.csv
    std::string csv = "student,submission";
    for (const Exercise* ex : exercises_) csv += "," + ex->id;
    // Graded without the race pass: the header says so, where nobody can miss it.
    csv += race_note_.empty() ? ",total,max\n" : ",total (race pass off),max\n";
    for (const auto& g : all) {
        csv += csv_field(g.student) + "," + csv_field(g.name);
        for (const auto& e : g.exercises) csv += fmt::format(",{:.2f}", e.score);
        csv += fmt::format(",{:.2f},{:.2f}\n", g.total(), g.max());
    }
    write_text(o_.out / "gradebook.csv", csv);

    // Gradescope results.json per student, and the class summary.
    json summary = {{"submissions", all.size()}, {"exercises", json::array()}, {"students", json::array()},
                    {"race_pass", race_note_.empty() ? "on" : race_note_}};
    for (const Exercise* ex : exercises_) summary["exercises"].push_back({{"id", ex->id}, {"title", ex->title}});
    for (const auto& g : all) {
        json tests = json::array();
        for (const auto& e : g.exercises)
            tests.push_back({{"name", e.id + " " + ws_.find(e.id).title}, {"score", e.score}, {"max_score", e.max},
                             {"status", e.status == "passed" ? "passed" : "failed"}, {"output", e.output},
                             {"visibility", "visible"}});
        std::string notes;
        for (const auto& n : g.notes) notes += n + "\n";
        write_text(o_.out / "results" / (g.name + ".json"),
                   dump(json{{"score", g.total()}, {"max_score", g.max()}, {"tests", tests}, {"output", notes}}, 2));
        json row = {{"student", g.student}, {"submission", g.name}, {"total", g.total()}, {"max", g.max()}};
        for (const auto& e : g.exercises) row[e.id] = {{"score", e.score}, {"status", e.status}};
        summary["students"].push_back(row);
    }
    if (!calibration_.is_null()) {
        json c = calibration_;
        c.erase("entries");  // the per-run details stay in the calibration's own file
        c["file"] = fs::absolute(o_.calibration).string();
        summary["calibration"] = c;
    }
    write_text(o_.out / "summary.json", dump(summary, 2));

    // The HTML report: a class overview and one page per student.
    std::string page = "<!doctype html><meta charset=utf-8><title>Gradebook</title><style>body{font-family:sans-serif}"
                       "td,th{padding:2px 8px;border-bottom:1px solid #ddd}.passed{color:#070}.bad{color:#a00}</style>"
                       "<h1>Gradebook</h1>" +
                       (race_note_.empty() ? std::string() : "<p class=bad>" + html_escape(race_note_) + "</p>") +
                       "<table><tr><th>student</th>";
    for (const Exercise* ex : exercises_) page += "<th>" + html_escape(ex->id) + "</th>";
    page += "<th>total</th></tr>";
    for (const auto& g : all) {
        page += "<tr><td><a href=\"students/" + html_escape(g.name) + ".html\">" + html_escape(g.student) + "</a></td>";
        for (const auto& e : g.exercises)
            page += fmt::format("<td class={} title=\"{}\">{:.1f}</td>", e.status == "passed" ? "passed" : "bad",
                                html_escape(e.status), e.score);
        page += fmt::format("<td>{:.1f} / {:.1f}</td></tr>", g.total(), g.max());
        std::string sp = "<!doctype html><meta charset=utf-8><title>" + html_escape(g.student) +
                         "</title><style>body{font-family:sans-serif}pre{background:#f4f4f4;padding:8px;"
                         "white-space:pre-wrap}</style><p><a href=\"../report.html\">class</a></p><h1>" +
                         html_escape(g.student) + fmt::format("</h1><p>{:.2f} / {:.2f}</p>", g.total(), g.max());
        for (const auto& n : g.notes) sp += "<p>" + html_escape(n) + "</p>";
        for (const auto& e : g.exercises)
            sp += fmt::format("<h2>{} {}: {} ({:.2f} / {:.2f})</h2><pre>{}</pre>", html_escape(e.id),
                              html_escape(ws_.find(e.id).title), html_escape(e.status), e.score, e.max,
                              html_escape(e.output));
        write_text(o_.out / "students" / (g.name + ".html"), sp);
    }
    page += "</table>";
    if (!calibration_.is_null())
        page += "<h2>Calibration: what this grading catches</h2><pre>" + html_escape(calibration_text(calibration_)) + "</pre>";
    write_text(o_.out / "report.html", page);
}

}  // namespace

int run_grade_step(const Workspace& ws, const GradeOptions& options) { return Grader(ws, options).run(); }

int run_grade(const Workspace& ws, const GradeOptions& options) {
    // On a cluster, or collecting what its tasks graded: the Slurm driver runs the steps.
    if (slurm_involved(options)) return run_grade_slurm(ws, options);
    return run_grade_step(ws, options);
}

std::vector<std::string> submission_names(const fs::path& dir, const fs::path& roster) {
    std::vector<std::string> names;
    for (const auto& s : find_submissions(dir, roster)) names.push_back(s.name);
    return names;
}

std::vector<std::string> journal_names(const fs::path& out) {
    std::vector<std::string> names;
    for (const auto& g : read_journal(out / "journal.jsonl")) names.push_back(g.name);
    return names;
}

}  // namespace workbook::cli
