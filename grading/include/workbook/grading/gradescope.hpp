// `workbook gradescope-package`: the zip Gradescope's autograder takes (setup.sh and
// run_autograder from grading/gradescope/ at the top, the workbook's source beside them), so the
// same checker as `workbook grade` grades each submission there.
#pragma once

#include <filesystem>

namespace workbook::grading {

// `root`: the workbook's source tree, packed as it is (no build, no .workbook/).
int make_gradescope_package(const std::filesystem::path& root, const std::filesystem::path& zip);

}  // namespace workbook::grading
