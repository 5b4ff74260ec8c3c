// `workbook tune EX [--reference]` (see tune.cpp).
#pragma once

#include "workspace.hpp"

namespace workbook::cli {

// Builds the exercise's graded test, runs its tuner with the terminal attached, and writes the
// fastest correct shape into the student's kernel file (or, with `reference`, the instructor's
// reference file). Returns the exit status.
int tune_command(const Workspace& ws, const Exercise& ex, bool reference);

}  // namespace workbook::cli
