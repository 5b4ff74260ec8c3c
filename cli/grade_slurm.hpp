// `workbook grade --slurm`: a class graded by one Slurm array job instead of one machine. This
// process keeps the class's secret seed in the output folder, writes the job (slurm/job.json,
// slurm/task.sh) and submits it; each array task runs the local grader's `part` step on its chunk
// of the submissions, into a journal of its own; `--wait`, or a later `workbook grade --out DIR`,
// follows the tasks, submits once more the chunk of a task that failed or was preempted, and
// merges the journals into the gradebook with the local grader's `gather` step. See README.md.
#pragma once

#include "grade.hpp"

namespace workbook::cli {

// Whether the Slurm driver takes this command: --slurm, --wait, --slurm-task, no SUBMISSIONS, or
// an output folder that a Slurm run owns.
bool slurm_involved(const GradeOptions& options);

int run_grade_slurm(const Workspace& ws, const GradeOptions& options);

}  // namespace workbook::cli
