// `workbook grade`: the instructor's auto-checker. Each submission's student-editable files (and
// only those) are compiled against the instructor's build into a runner, inside the sandbox
// (grading/sandbox.hpp) and the submission's budget (grading/budget.hpp); the trusted checker,
// outside, feeds it inputs from a secret seed, judges what comes back and alone writes the
// evidence, checked against the instructor's solution on the same inputs. See README.md.
#pragma once

#include "workbook/grading/budget.hpp"

#include "workspace.hpp"

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
    bool quiet = false;
    grading::BudgetLimits budget;      // per submission as a whole: memory, processes, disk, files
};

int run_grade(const Workspace& ws, const GradeOptions& options);

// One exercise's evidence file, judged against the solution's: the share of the expected test
// cases that passed, or a reason it counts for nothing. Exposed for the unit tests.
struct Verdict {
    bool valid = false;
    int cases_expected = 0, cases_passed = 0;
    std::string problem;  // why the evidence is missing or wrong
};
Verdict judge_evidence(const std::string& text, const std::string& nonce, const std::string& reference);

}  // namespace workbook::cli
