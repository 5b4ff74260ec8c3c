// `workbook tune EX [--reference]` (see tune.cpp).
#pragma once

#include "workspace.hpp"

namespace workbook::cli {

// Builds the exercise's graded test, runs its tuner with the terminal attached, and writes the
// fastest correct shape into the student's kernel file (or, with `reference`, the instructor's
// reference file). `n` > 0 tunes at that N instead of the speed check's. Returns the exit status.
int tune_command(const Workspace& ws, const Exercise& ex, bool reference, int n);

}  // namespace workbook::cli
