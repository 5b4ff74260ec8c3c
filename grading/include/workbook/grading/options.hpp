// `workbook grade`'s options (grade.hpp is the front door). The instructor's auto-checker: each submission's student-editable files (and
// only those) are compiled against the instructor's build into a runner, inside the sandbox
// (grading/sandbox.hpp) and the submission's budget (grading/budget.hpp); the trusted checker,
// outside, feeds it inputs from a secret seed, judges what comes back and alone writes the
// evidence, checked against the instructor's solution on the same inputs. See README.md.
#pragma once

#include "workbook/grading/budget.hpp"
#include "workbook/grading/export.hpp"
#include "workbook/harness/course_tree.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace workbook::grading {

namespace fs = std::filesystem;

struct GradeOptions {
    fs::path submissions, out;
    int jobs = 2;
    int timeout_s = 0;                 // per test run; 0: each exercise's time_limit_s
    std::vector<std::string> only;     // exercise ids; empty: all
    fs::path config;                   // TOML: secret_seed, [weights]
    fs::path roster;                   // CSV: submission name, student id
    ExportOptions exports;             // --export: gradebooks an LMS imports (export.hpp)
    bool no_sandbox = false;           // limits only, no namespaces (said loudly)
    // The speed-ups: work done once per run and shared by identical inputs (grader.hpp:
    // seed_kernel_cache, expected_cache, clean_races_), the precompiled header, kernel-prebuild, and
    // race passes on their own lane; off only to measure what they save (bench/grade_class.sh).
    bool share_work = true;
    bool no_race_check = false;        // grade without the race pass, knowingly (said in every report)
    // Only the reference runs, kept in --out for a later grading into a copy of it (Gradescope's
    // setup.sh runs them once; run_autograder starts from them).
    bool references_only = false;
    fs::path calibration;              // a `workbook calibrate --json` result to include in the reports
    bool quiet = false;
    grading::BudgetLimits budget;      // per submission as a whole: memory, processes, disk, files

    // On a Slurm cluster (slurm_grade.hpp): what the command line asks for.
    struct Slurm {
        bool submit = false;             // --slurm: one array job, a task per chunk of submissions
        bool wait = false;               // --wait: until the tasks end, then merge into the gradebook
        bool task = false;               // (hidden) --slurm-task: this process is one of the array's tasks
        std::string partition, gres;     // passed to sbatch
        int array_limit = 0;             // tasks running at once; 0: as many as Slurm gives
        int per_task = 1;                // submissions per task
        // --wait-limit: --wait gives up (the tasks stay queued) after this many minutes in which
        // none of our tasks ran; a task pending for a reason that never clears would wait forever.
        double wait_limit_min = 120;
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

}  // namespace workbook::grading
