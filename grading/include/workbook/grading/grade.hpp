// `workbook grade`, the front door: grades a class here, or on a Slurm cluster (slurm_grade.hpp),
// from the options (options.hpp). The grader reads the course and the instructor's build (`tree`)
// and writes only under options.out: never the student's progress (.workbook/), which is the CLI's.
#pragma once

#include "workbook/grading/options.hpp"

namespace workbook::grading {

int run_grade(const harness::CourseTree& tree, const GradeOptions& options);

}  // namespace workbook::grading
