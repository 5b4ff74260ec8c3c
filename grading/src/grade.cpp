// The front door of `workbook grade` (see grade.hpp).
#include "workbook/grading/grade.hpp"

#include "workbook/grading/slurm_grade.hpp"
#include "workbook/grading/step.hpp"

namespace workbook::grading {

int run_grade(const harness::CourseTree& tree, const GradeOptions& options) {
    // On a cluster, or collecting what its tasks graded: the Slurm driver runs the steps.
    if (slurm_involved(options)) return run_grade_slurm(tree, options);
    return run_grade_step(tree, options);
}

}  // namespace workbook::grading
