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
    bool no_race_check = false;        // grade without the race pass, knowingly (said in every report)
    fs::path calibration;              // a `workbook calibrate --json` result to include in the reports
    bool quiet = false;
    grading::BudgetLimits budget;      // per submission as a whole: memory, processes, disk, files
};

int run_grade(const Workspace& ws, const GradeOptions& options);

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
    std::vector<std::string> runner_wrapper;
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
