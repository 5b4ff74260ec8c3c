// The workshop's verbs of the `workbook` command: `workbook contest ...` (submit, judge, board,
// baseline, final, the window, export, serve, and the judge's and Slurm jobs' hidden children),
// with their options and --help. The CLI (cli/main.cpp) hands them its app, as it hands `grade` to
// grading/commands.hpp; the contest and the server own their words.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace workbook::server {

// What the verbs need from the student's side of the CLI, which this room does not reach.
struct CommandHooks {
    // The token of the class this workbook joined (`workbook join`) when it is `server`, else "".
    std::function<std::string(const std::string& server)> joined_token;
    // Headings in bold where the terminal shows it.
    std::function<std::string(const std::string&)> bold;
};

// Adds the `contest` subcommand and its verbs to `app`; the returned function runs the verb that
// was chosen (call it when `contest` was parsed) and returns the exit status. `root`, `build`: the
// course's source and build trees, read once parsing is done (`serve --lab`, `--remote-checks`).
std::function<int()> add_contest_command(CLI::App& app, CLI::App*& contest, const std::string& root,
                                         const std::string& build, CommandHooks hooks);

}  // namespace workbook::server
