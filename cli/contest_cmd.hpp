// `workbook contest ...`: submit, judge, board, baseline, serve (and run-one, the judge's child).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace workbook::cli {

// Adds the `contest` subcommand and its verbs to `app`; the returned function runs the verb that
// was chosen (call it when `contest` was parsed) and returns the exit status. `root`, `build`: the
// course's source and build trees, read once parsing is done (`serve --lab`, `--remote-checks`).
std::function<int()> add_contest_command(CLI::App& app, CLI::App*& contest, const std::string& root,
                                         const std::string& build);

}  // namespace workbook::cli
