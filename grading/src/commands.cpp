// The instructor's verbs on the command line (see commands.hpp).
#include "workbook/grading/commands.hpp"

#include "workbook/grading/calibrate.hpp"
#include "workbook/grading/grade.hpp"
#include "workbook/grading/gradescope.hpp"
#include "workbook/harness/course_tree.hpp"

#include <memory>

namespace workbook::grading {

std::function<std::optional<int>()> add_commands(CLI::App& app, const std::string& root, const std::string& build) {
    // Filled by the parse, read when the returned function runs: they live as long as it does.
    auto grade_options_ptr = std::make_shared<GradeOptions>();
    auto calibrate_options_ptr = std::make_shared<CalibrateOptions>();
    auto package_out_ptr = std::make_shared<std::string>("autograder.zip");
    auto& grade_options = *grade_options_ptr;
    auto& calibrate_options = *calibrate_options_ptr;
    auto& package_out = *package_out_ptr;
    auto* grade = app.add_subcommand("grade", "instructors: grade a folder of submissions into a gradebook");
    grade->add_option("SUBMISSIONS", grade_options.submissions,
                      "a folder holding one folder, .zip, .tar or .tar.gz per student (not needed to collect a "
                      "--slurm run)");
    grade->add_option("--out", grade_options.out, "where the gradebook, reports and journal go")->required();
    grade->add_option("--jobs", grade_options.jobs, "submissions prepared and compiled in parallel")
        ->capture_default_str()->check(CLI::Range(1, 64));
    grade->add_option("--timeout", grade_options.timeout_s, "seconds per test run (default: each exercise's limit)")
        ->check(CLI::PositiveNumber);
    grade->add_option("--only", grade_options.only, "grade only these exercises (ids, e.g. --only 02 --only 05)");
    grade->add_option("--config", grade_options.config, "TOML: secret_seed = N, [weights] \"02\" = 2.0")
        ->check(CLI::ExistingFile);
    grade->add_option("--roster", grade_options.roster, "CSV lines: submission name,student id")->check(CLI::ExistingFile);
    auto* lms_roster = grade->add_option("--lms-roster", grade_options.exports.roster,
                                         "with --export: the class list downloaded from the LMS (Canvas: Grades > "
                                         "Export; Moodle: Grades > Export > Plain text file; csv: any CSV with a "
                                         "header, the student id first)")
                           ->check(CLI::ExistingFile);
    grade->add_option("--export", grade_options.exports.formats,
                      "also write a gradebook an LMS imports, matched to its students through --lms-roster: canvas "
                      "(canvas-import.csv), moodle (moodle-import.csv) or csv (lms-import.csv). "
                      "Submissions the roster lacks go to lms-unmatched.csv and stderr. Graded submissions are not "
                      "graded again: run it on a finished --out to export only")
        ->check(CLI::IsMember({"canvas", "moodle", "csv"}))
        ->needs(lms_roster);
    grade->add_option("--lms-missing", grade_options.exports.missing_zero,
                      "with --export: what a roster student without a submission gets, a blank cell (no grade; the "
                      "default) or an explicit 0")
        ->transform(
            CLI::CheckedTransformer(std::map<std::string, bool>{{"blank", false}, {"zero", true}}).description(""))
        ->type_name("blank|zero")
        ->default_str("blank");
    grade->add_option("--lms-total", grade_options.exports.total_column,
                      "with --export: one grade column, the total, under this name (e.g. an existing Canvas "
                      "assignment's header, \"Workbook (12345)\") instead of one column per exercise");
    grade->add_flag("--no-sandbox", grade_options.no_sandbox,
                    "without bubblewrap: resource limits only (NOT safe against hostile code)");
    grade->add_flag("--references-only", grade_options.references_only,
                    "run only the solutions' reference runs on the class's seed and keep them in --out: a grading "
                    "into a copy of that folder (same build, same device) starts from them (Gradescope's setup.sh)");
    grade->add_flag("--no-race-check", grade_options.no_race_check,
                    "grade without the Oclgrind race pass (bugs a CPU device or a GPU's lockstep hides then get full "
                    "marks; every report says so). Without this flag, grading refuses to start when Oclgrind is "
                    "missing");
    grade->add_option("--memory-mib", grade_options.budget.memory_mib,
                      "memory for one submission's processes together (a cgroup; said in every report)")
        ->capture_default_str()->check(CLI::Range(256L, 1L << 20));
    grade->add_option("--race-memory-mib", grade_options.budget.race_memory_mib,
                      "memory for one submission's race passes together (a cgroup of their own, and each process's "
                      "address space there; one race pass runs at a time)")
        ->capture_default_str()->check(CLI::Range(256L, 1L << 20));
    grade->add_option("--max-processes", grade_options.budget.processes, "processes and threads for one submission together")
        ->capture_default_str()->check(CLI::Range(64, 1 << 20));
    grade->add_option("--disk-mib", grade_options.budget.disk_mib,
                      "scratch space for one submission: the unpacked upload and its builds (larger: 0, \"too large\")")
        ->capture_default_str()->check(CLI::Range(64L, 1L << 20));
    grade->add_option("--max-files", grade_options.budget.files, "files in one submission's scratch space")
        ->capture_default_str()->check(CLI::Range(1000L, 10000000L));
    grade->add_option("--calibration", grade_options.calibration,
                      "a result of `workbook calibrate --json FILE` (on this device) to include in the summary and "
                      "reports: how many planted bugs this grading catches")
        ->check(CLI::ExistingFile);
    grade->add_flag("-q,--quiet", grade_options.quiet, "no progress lines");
    grade->add_flag("!--no-shared-work", grade_options.share_work,
                    "grade as before the speed-ups, to measure them (bench/grade_class.sh's before column): every "
                    "runner builds its own kernels, every checker computes its own expected results, every race "
                    "pass runs, after its graded test, on two simulator threads; host files compile without a "
                    "precompiled header");
    auto* slurm = grade->add_flag("--slurm", grade_options.slurm.submit,
                                  "grade on a Slurm cluster: submit one array job (a task per --per-task submissions, "
                                  "each graded as here) through sbatch and return; collect with --wait");
    grade->add_flag("--wait", grade_options.slurm.wait,
                    "with --slurm, or alone with --out DIR of a --slurm run: follow its tasks (squeue), submit once "
                    "more a task that failed or was preempted, then merge their journals into the gradebook and "
                    "reports (so does `workbook grade --out DIR`)");
    grade->add_option("--wait-limit", grade_options.slurm.wait_limit_min,
                      "with --wait: give up after this many minutes in which no task of ours ran (all pending), "
                      "saying why Slurm holds them; the tasks stay queued, collect later with --wait")
        ->capture_default_str()->check(CLI::PositiveNumber);
    grade->add_option("--partition", grade_options.slurm.partition, "the Slurm partition for the tasks (sbatch --partition)")
        ->needs(slurm);
    grade->add_option("--gres", grade_options.slurm.gres,
                      "generic resources per task, e.g. gpu:1 to grade on GPU nodes (sbatch --gres)")
        ->needs(slurm);
    grade->add_option("--array-limit", grade_options.slurm.array_limit,
                      "at most this many tasks at once (sbatch --array=...%N; default: as many as Slurm gives)")
        ->needs(slurm)->check(CLI::PositiveNumber);
    grade->add_option("--per-task", grade_options.slurm.per_task,
                      "submissions graded by one task (more per task: fewer jobs, longer tasks)")
        ->capture_default_str()->needs(slurm)->check(CLI::Range(1, 100000));
    grade->add_flag("--slurm-task", grade_options.slurm.task, "(internal: what each task of a --slurm job runs)")
        ->group("");
    auto* calibrate = app.add_subcommand(
        "calibrate", "instructors: what grading catches on this device (the suite's planted bugs and correct variants)");
    calibrate->footer(
        "Every planted bug (tests/mutants) and correct variant (tests/variants) of the build is graded as a\n"
        "submission, through the grader's checker and race pass, on the device that WORKBOOK_PLATFORM,\n"
        "WORKBOOK_DEVICE and WORKBOOK_DEVICE_TYPE choose. Prints a table per exercise: planted bugs caught by\n"
        "the graded test, caught only by the race pass, missed; correct variants accepted, rejected; and names\n"
        "each miss and rejection. Progress on stderr. Exit 0 when every bug is caught and every variant\n"
        "accepted, 1 otherwise, 2 on an error. Run it before a class on the grading device, and give its\n"
        "--json file to `workbook grade --calibration`.");
    calibrate->add_option("--json", calibrate_options.json_out, "also write the result to this JSON file");
    calibrate->add_option("--manifest", calibrate_options.manifest,
                          "the calibration.json CMake wrote (default: the one in --build-dir)");
    calibrate->add_option("--only", calibrate_options.only, "only these exercises (ids, e.g. --only 09 --only 10)");
    calibrate->add_flag("--no-race-check", calibrate_options.no_race_check,
                        "without the Oclgrind race pass, knowingly (the column \"only by the race pass\" reads "
                        "\"off\"). Without this flag, calibration refuses to start when Oclgrind is missing");
    calibrate->add_option("--seed", calibrate_options.seed, "the seed of the test inputs (default: a random one, "
                                                            "printed)")
        ->check(CLI::PositiveNumber);
    calibrate->add_option("--timeout", calibrate_options.timeout_s, "seconds per test run (default: each exercise's limit)")
        ->check(CLI::PositiveNumber);
    auto* package = app.add_subcommand("gradescope-package", "instructors: the zip that runs this checker on Gradescope");
    package->add_option("--out", package_out, "the zip to write")->capture_default_str();
    // The instructor's verbs read the course and the build; the student's progress is not theirs.
    return [=, &root, &build]() -> std::optional<int> {
        if (*grade) return run_grade(harness::CourseTree(root, build), *grade_options_ptr);
        if (*calibrate) return run_calibrate(harness::CourseTree(root, build), *calibrate_options_ptr);
        if (*package) return make_gradescope_package(harness::CourseTree(root, build).root(), *package_out_ptr);
        return std::nullopt;
    };
}

}  // namespace workbook::grading
