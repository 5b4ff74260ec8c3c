// `workbook contest ...` in a build without the contest (its libraries were not installed when
// CMake configured): the verb stays in --help, and any use of it says what to install instead of
// failing to parse.
#include "contest_cmd.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>

namespace workbook::cli {

std::function<int()> add_contest_command(CLI::App& app, CLI::App*& contest) {
    contest = app.add_subcommand("contest", "the matmul contest (not in this build: see `workbook contest`)");
    // Whatever follows (`--help` too) reaches the message below instead of a parse error.
    contest->prefix_command();
    contest->set_help_flag();
    return [] {
        fmt::print(stderr,
                   "workbook contest is not in this build: its libraries were not installed when it was configured.\n"
                   "Fix: apt-get install {} (as root, or with sudo),\n"
                   "then run scripts/setup.sh again (or scripts/setup.sh --all, which installs them itself).\n",
                   WORKBOOK_CONTEST_PACKAGES);
        return exit_error;
    };
}

}  // namespace workbook::cli
