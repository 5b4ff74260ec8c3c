// The grader's inside (grade.cpp is its front door, step.hpp what that door and the Slurm driver
// call): the pieces one grading run shares between its files. recipe.cpp: how a student's host
// code is built; submissions.cpp: what is in the submissions folder; journal.cpp: the grades and the journal that makes a run
// resumable; graded_run.cpp: one graded test and its race pass; grader.cpp: a run from start to
// gradebook; prepare.cpp: unpacking and compiling a submission in its sandbox; test.cpp: testing
// one exercise and its race-pass policy; schedule.cpp: the pipeline; report.cpp: the outputs.
#pragma once

#include "workbook/grading/budget.hpp"
#include "workbook/grading/options.hpp"
#include "workbook/grading/step.hpp"
#include "workbook/grading/graded_run.hpp"
#include "workbook/grading/phase_times.hpp"
#include "workbook/grading/sandbox.hpp"
#include "workbook/harness/course_tree.hpp"
#include "workbook/process.hpp"
#include "workbook/race_check.hpp"
#include "workbook/random.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace workbook::grading {

using json = nlohmann::json;
using namespace std::chrono_literals;

inline void write_text(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    const fs::path tmp = p.string() + ".tmp";
    std::ofstream(tmp, std::ios::binary) << text;
    fs::rename(tmp, p);
}

// Everything a student's code or files can put in a report passes here (text.hpp: valid UTF-8,
// no control characters, capped), so every writer after it is safe by construction.
inline std::string cap(const std::string& s, std::size_t n = 8000) { return sanitize(s, n); }

inline std::vector<std::string> split_words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

// A command line as WORKBOOK_RUNNER_WRAPPER carries it (runner.hpp): words joined by \x1f.
inline std::string join_words(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : "\x1f") + w;
    return out;
}

// A second line of defence behind cap(): JSON never throws on bytes that are not UTF-8.
inline std::string dump(const json& j, int indent = -1) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

// ---- what the instructor's build provides --------------------------------------------------

struct Recipe {
    std::vector<std::string> compile;  // for one host file: the words, with {src} and {obj}
    fs::path header;                   // non-empty: a precompiled header to force-include (see host_pch)
    fs::path compile_dir;
    std::vector<std::string> link;     // with {objs} (student objects) and {out}
    fs::path link_dir;
};

// How CMake built the starter's runner (recipe.cpp).
Recipe recipe_for(const harness::CourseTree& tree, const Exercise& ex, const json& commands);

// ---- submissions ----------------------------------------------------------------------------

struct Submission {
    std::string name;     // folder or file name without extension
    fs::path path;
    std::string student;  // from the roster, else the name
    std::string note;     // how the name was made from the file's, when it differs
};

// Every submission in `dir`, sorted by name, with its student from the roster (submissions.cpp).
std::vector<Submission> find_submissions(const fs::path& dir, const fs::path& roster);

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

json to_json(const SubmissionGrade& g);
SubmissionGrade from_json(const json& j);
// A journal's whole records, in order; `whole_bytes` gets how many bytes they fill. A kill can
// land in the middle of an append: a torn or damaged record ends the journal there.
std::vector<SubmissionGrade> read_journal(const fs::path& file, std::size_t* whole_bytes = nullptr);

// ---- the pipeline's threads (schedule.cpp) ---------------------------------------------------

// Work that only has to keep ahead of the graded tests (preparing the next submissions, the race
// passes) runs at this niceness, it and every process it starts: the graded tests, one at a time,
// set the pace of a run, and on two cores they ran 1.6 times slower than alone while the rest
// competed as equals. Nice 10, not 19: the background still gets about a tenth of a busy core, so
// its wall-clock limits (a compile's 300 s) are not reached for a neighbour's sake.
inline constexpr int background_nice = 10;

// Lowers the calling thread's priority (Linux: niceness is per thread, and a child process
// inherits its creator's). Best effort: where it fails, work only goes as before.
void run_in_background(int nice);

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
void remove_scratch(const fs::path& dir);

// ---- one grading run ------------------------------------------------------------------------

class Grader {
public:
    Grader(const harness::CourseTree& tree, const GradeOptions& o) : tree_(tree), o_(o) {}

    int run();

private:
    void say(const std::string& s) const;

    // Where this process keeps its journal, scratch folders and reference runs: the output folder,
    // or for a task of a Slurm array its own folder in there (tasks never share a file).
    fs::path base() const { return o_.step == GradeOptions::Step::part ? o_.out / "slurm" / o_.part : o_.out; }

    int gather();

    void read_config();

    double weight(const Exercise& ex) const;

    static constexpr fs::perms readable_by_all =
        fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;

    void check_race_pass();

    void read_calibration_result();

    void check_sandbox();

    fs::path journal() const { return base() / "journal.jsonl"; }

    void load_journal();

    void append_journal(const SubmissionGrade& g);

    bool edited_by_one_exercise(const std::string& file) const;

    fs::path build_source_dir() const;

    // A submission unpacked and built, ready for its tests.
    // The time one submission's own race passes share (its runner under Oclgrind): twice the sum
    // of its exercises' time limits, counted by PassMeter (sandbox.hpp) in processor time or time
    // asleep, never time spent waiting for a busy machine: load never fails a correct pass. A pass
    // may take up to ten times its exercise's limit (Oclgrind is slow), but never more than what is
    // left here, so a submission that stalls only under the simulator loses the exercises it
    // stalls in, and holds the one race lane (and the class behind it) no longer than that on an
    // idle machine. (Twice: a correct runner that is slow on purpose, such as one that runs a
    // shell command per call, under a loaded Slurm node took more than once.)
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
        std::shared_ptr<Budget> budget;  // its cgroups and scratch tmpfs, while it lives
        std::shared_ptr<Budget> race_cgroups;  // its race passes' cgroups (BudgetLimits::race_memory_mib)
        std::map<std::string, std::string> problem;  // exercise id -> why it cannot be tested
        std::map<std::string, fs::path> binary;      // exercise id -> the test to run
        std::map<std::string, std::string> graded_from;  // exercise id -> which files were taken, from where
        std::vector<std::string> notes;
        std::shared_ptr<RaceBudget> race_budget;  // the time all its race passes share
    };

    Sandbox sandbox_for(const Prepared& p) const;

    void find_workbook_paths(const json& commands);

    fs::path host_pch();

    std::string redact(std::string text) const;

    void reference_runs();

    std::optional<std::string> reference_run(const Exercise* ex, std::mutex& results);
    std::atomic<int> kept_references_{0};  // reference runs an earlier run left in the output folder

    static bool own_kernels(const Exercise& ex);

    static bool kernel_only(const Exercise& ex);

    std::string race_key(const Exercise& ex, const fs::path& dir) const;

    // The checkers' expected results, computed once per run for all submissions (matmul.hpp).
    fs::path expected_cache() const { return base() / "reference" / "expected"; }

    fs::path kernel_cache(const Exercise& ex) const { return base() / "reference" / "kernel-cache" / ex.dir(); }

    bool seed_kernel_cache(const Exercise& ex, const Prepared& p, const fs::path& dir);

    void warm_kernel_cache(const Prepared& p, const Sandbox& box);
    fs::path prebuild() const { return tree_.bin("kernel-prebuild"); }

    void snapshot_kernels(Prepared& p);

    Prepared prepare(const Submission& s, int uid, const std::string& slot);

    void compile(const Exercise& ex, Prepared& p, const Sandbox& box);

    // One exercise's grade; where a race pass follows, the grade comes when it is done. The pass
    // (Oclgrind, one thread) runs on a thread of its own while the next graded tests (PoCL) run.
    struct Tested {
        ExerciseGrade grade;
        std::future<ExerciseGrade> after_race;  // valid: the grade is this one's, not `grade`
    };

    Tested test(const Exercise& ex, const Prepared& p);

    race::Result with_kernels_alone(race::Result own, GradedRunSpec spec, const Sandbox& box, const Exercise& ex);

    void grade(const std::vector<const Submission*>& todo);

    void write_outputs(const std::vector<SubmissionGrade>& all) const;

    const harness::CourseTree& tree_;
    GradeOptions o_;
    std::vector<const Exercise*> exercises_;
    std::map<std::string, double> weights_;
    std::map<std::string, std::string> reference_;
    std::map<std::string, SubmissionGrade> done_;
    std::uint64_t seed_ = 0;
    std::string nonce_;
    std::string race_note_;  // non-empty: graded without the race pass, and why
    json calibration_;       // --calibration: what `workbook calibrate` measured; null without it
    std::unique_ptr<BudgetSupport> budget_support_;
    std::unique_ptr<Lane> race_lane_;  // while grade() runs
    // Race passes on their lane, beside the next graded test (share_work), unless the memory limit
    // this grader runs under is below race_beside_memory (grader.cpp).
    static constexpr std::uint64_t race_beside_memory = std::uint64_t{2} << 30;
    bool race_beside_ = true;
    PhaseTimes phases_;  // where the time goes (phase_times.hpp)
    std::map<std::string, race::Result> clean_races_;  // race_key -> a clean pass (test thread only)
    std::map<std::string, Recipe> recipes_;       // exercise id -> how its runner is built
    std::vector<std::string> workbook_paths_;     // what a sandbox mounts of the workbook
    // exercise id -> the programs its reference run built: kernel file name, build options
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> builds_;
};

}  // namespace workbook::grading
