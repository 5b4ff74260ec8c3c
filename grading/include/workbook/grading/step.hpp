// One step of a grading run as the local grader does it (GradeOptions::step), and what it lists:
// what the front door (grade.hpp) and the Slurm driver (slurm_grade.hpp) both call.
#pragma once

#include "workbook/grading/options.hpp"

#include <string>
#include <vector>

namespace workbook::grading {

// Grades (or prepares, or gathers) as options.step says.
int run_grade_step(const harness::CourseTree& tree, const GradeOptions& options);
// The names the grader gives the submissions in `dir` (sorted; duplicates refused, as grading does).
std::vector<std::string> submission_names(const fs::path& dir, const fs::path& roster);
// The names that `out`'s journal holds (a finished local run, or a gather).
std::vector<std::string> journal_names(const fs::path& out);


}  // namespace workbook::grading
