// `workbook gradescope-package`: the zip Gradescope's autograder takes (setup.sh and
// run_autograder from grading/gradescope/ at the top, the workbook's source beside them), so the
// same checker as `workbook grade` grades each submission there.
#pragma once

#include "workspace.hpp"

namespace workbook::cli {

int make_gradescope_package(const Workspace& ws, const fs::path& zip);

}  // namespace workbook::cli
