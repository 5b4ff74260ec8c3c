// The instructor's verbs of the `workbook` command: grade, calibrate and gradescope-package, with
// their options and --help. The CLI (cli/main.cpp) hands them its app; the grader owns their words.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>

namespace workbook::grading {

// Adds the three subcommands to `app`. After the parse, the returned function runs the one that
// was chosen and gives its exit status, or nothing when none was. `root` and `build` (the course's
// source and build trees) are read when it runs, so they may be filled by the same parse.
std::function<std::optional<int>()> add_commands(CLI::App& app, const std::string& root, const std::string& build);

}  // namespace workbook::grading
