// `workbook handin`: the student's hand-in, one .tar.gz of exactly the files course.toml says they
// edit, laid out as `workbook grade` reads a submission (exercises/NN_name/<file>), with a manifest
// (handin.json) for information only: the grader reads none of it.
#pragma once

#include "workspace.hpp"

namespace workbook::cli {

// The largest file a hand-in takes: the starters' source files are at most about 12 KiB.
inline constexpr std::uintmax_t handin_file_limit = 1 << 20;

// Writes the archive to `output` (a .tar.gz or .tgz file, or a folder to put it in; empty: the
// workbook's folder, named handin-<time>.tar.gz) and says what it holds, what is missing or
// untouched, and what it left out and why. Exit status: 0, or 1 when one of the student's edited
// files was refused (a link, not a plain file, too large) and so is not in the archive.
int handin_command(const Workspace& ws, const fs::path& output);

}  // namespace workbook::cli
