// `workbook reset EX` and `workbook reset --all`: the starter files back from the pristine
// snapshot (workspace.hpp), the student's files backed up first under .workbook/backups/.
#pragma once

#include "workspace.hpp"

namespace workbook::cli {

// Copies the student's edited files of `ex` into `dir` (made if missing); returns `dir`.
fs::path back_up_into(const Workspace& ws, const Exercise& ex, const fs::path& dir);
// Copies them into a folder of their own, .workbook/backups/NN_name-<time>/; returns it.
fs::path back_up(const Workspace& ws, const Exercise& ex);

// Restores the starters of `ex` (an Error, before anything changes, when the snapshot lacks one).
int reset_command(Workspace& ws, const Exercise& ex);
// Restores every exercise's starters, after backing up every exercise's files into one folder,
// .workbook/backups/all-<time>/NN_name/. Nothing changes when a starter is missing from the snapshot.
int reset_all_command(Workspace& ws);

}  // namespace workbook::cli
