// `workbook grade`: the instructor's auto-checker. Each submission's student-editable files (and
// only those) are compiled against the instructor's build into a runner, inside the sandbox
// (grading/sandbox.hpp) and the submission's budget (grading/budget.hpp); the trusted checker,
// outside, feeds it inputs from a secret seed, judges what comes back and alone writes the
// evidence, checked against the instructor's solution on the same inputs. See README.md.
#pragma once

#include "workbook/grading/budget.hpp"
#include "workbook/process.hpp"
#include "workbook/race_check.hpp"

#include "workspace.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace workbook::cli {

struct GradeOptions {
    fs::path submissions, out;
    int jobs = 2;
    int timeout_s = 0;                 // per test run; 0: each exercise's time_limit_s
    std::vector<std::string> only;     // exercise ids; empty: all
    fs::path config;                   // TOML: secret_seed, [weights]
    fs::path roster;                   // CSV: submission name, student id
    bool no_sandbox = false;           // limits only, no namespaces (said loudly)
    // The speed-ups: work done once per run and shared by identical inputs (grade.cpp:
    // seed_kernel_cache, expected_cache, clean_races_), the precompiled header, kernel-prebuild, and
    // race passes on their own lane; off only to measure what they save (bench/grade_class.sh).
    bool share_work = true;
    bool no_race_check = false;        // grade without the race pass, knowingly (said in every report)
    fs::path calibration;              // a `workbook calibrate --json` result to include in the reports
    bool quiet = false;
    grading::BudgetLimits budget;      // per submission as a whole: memory, processes, disk, files

    // On a Slurm cluster (grade_slurm.hpp): what the command line asks for.
    struct Slurm {
        bool submit = false;             // --slurm: one array job, a task per chunk of submissions
        bool wait = false;               // --wait: until the tasks end, then merge into the gradebook
        bool task = false;               // (hidden) --slurm-task: this process is one of the array's tasks
        std::string partition, gres;     // passed to sbatch
        int array_limit = 0;             // tasks running at once; 0: as many as Slurm gives
        int per_task = 1;                // submissions per task
    } slurm;

    // Which part of a grading run this process does; the Slurm driver sets it, never the command line.
    enum class Step {
        all,      // grade what the journal lacks and write the outputs (a local run)
        prepare,  // keep the class's secret seed in `out` and list the submissions; grade nothing
        part,     // grade `part_names` only, into out/slurm/<part>/ (own journal, scratch, references)
        gather,   // grade nothing: merge out/slurm/*/journal.jsonl into the journal, write the outputs
    } step = Step::all;
    std::string part;                              // with Step::part: e.g. "task-3"
    std::vector<std::string> part_names;           // with Step::part: the submissions it grades
    std::map<std::string, std::string> not_graded; // with Step::gather: submission -> why no task graded it
};

int run_grade(const Workspace& ws, const GradeOptions& options);
// One step of grading (GradeOptions::step) as the local grader does it; run_grade() starts here or
// in the Slurm driver.
int run_grade_step(const Workspace& ws, const GradeOptions& options);
// The names the grader gives the submissions in `dir` (sorted; duplicates refused, as grading does).
std::vector<std::string> submission_names(const fs::path& dir, const fs::path& roster);
// The names that `out`'s journal holds (a finished local run, or a gather).
std::vector<std::string> journal_names(const fs::path& out);

// Whether `program` is an executable file in a folder of PATH: the grader's tools (unzip, zip)
// come with `scripts/setup.sh --all`, not with the student's set-up, so they are checked first.
bool on_path(const std::string& program);

// One exercise's evidence file, judged against the solution's: the share of the expected test
// cases that passed, or a reason it counts for nothing. Exposed for the unit tests.
struct Verdict {
    bool valid = false;
    int cases_expected = 0, cases_passed = 0;
    std::string problem;  // why the evidence is missing or wrong
};
Verdict judge_evidence(const std::string& text, const std::string& nonce, const std::string& reference);

// One graded run as the grader makes it, shared with `workbook calibrate` (calibrate.hpp): the
// instructor's checker, on the inputs of `seed`, starts `runner` (behind `runner_wrapper`: the
// sandbox, or nothing) on the kernels in `kernel_dir`; the evidence it writes is judged against
// the solution's `reference` evidence.
struct GradedRunSpec {
    std::string checker, runner;
    fs::path kernel_dir;
    fs::path evidence;  // where the checker writes it (removed afterwards)
    std::uint64_t seed = 0;
    std::string nonce, reference;
    int limit_s = 60;
    int race_limit_s = 0;  // the race pass's own limit; 0: ten times limit_s (Oclgrind is slow)
    std::string cases;  // non-empty: only the checker's test cases that match (doctest --test-case)
    std::vector<std::string> runner_wrapper;
    // The checkers' cache of expected results (matmul.hpp: expected()): a folder of the grader's
    // own that no runner can reach; empty for none.
    fs::path reference_cache;
};
struct GradedRun {
    ProcessResult process;
    Verdict verdict;
    std::string status;  // passed, failed, timed out, crashed, no evidence
};
GradedRun run_graded_test(const GradedRunSpec& spec);
// The race pass of the same submission (after a pass, or to explain a failure): the same checker at
// small sizes, its runner under `race_wrapper` and Oclgrind; reports quote only `kernel_dir`.
race::Result run_race_pass(const GradedRunSpec& spec, const std::vector<std::string>& race_wrapper);

}  // namespace workbook::cli
