// `workbook grade --slurm`: a class graded by one Slurm array job, each task grading its chunk
// of the submissions with the local grader into a journal of its own; `--wait` follows the tasks,
// submits an unfinished chunk once more and merges the journals into the gradebook (README.md).
#pragma once

#include "workbook/grading/options.hpp"

namespace workbook::grading {

// Whether the Slurm driver takes this command: --slurm, --wait, --slurm-task, no SUBMISSIONS, or
// an output folder that a Slurm run owns.
bool slurm_involved(const GradeOptions& options);

int run_grade_slurm(const harness::CourseTree& tree, const GradeOptions& options);

}  // namespace workbook::grading
