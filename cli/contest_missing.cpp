// `workbook contest ...` in a build without the contest (its libraries were not installed when
// CMake configured): the verb stays in --help, and any use of it says what to install instead of
// failing to parse.
#include "server/commands.hpp"
#include "lab.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>

namespace workbook::server {

std::function<int()> add_contest_command(CLI::App& app, CLI::App*& contest, const std::string&, const std::string&,
                                         CommandHooks) {
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

}  // namespace workbook::server

namespace workbook::cli {

// Joining a class talks to the contest's server: the same libraries.
ClassInfo lab_hello(const std::string&, const std::string&) {
    throw Error(fmt::format("joining a class is not in this build: its libraries were not installed when it was "
                            "configured. Fix: apt-get install {}, then run scripts/setup.sh again",
                            WORKBOOK_CONTEST_PACKAGES));
}

int lab_send(const Workspace&) { return exit_ok; }

CheckResult check_remotely(const Workspace&, const Exercise&, const std::function<void(const std::string&)>&,
                           const std::string&) {
    lab_hello("", "");  // throws: says what to install
    return {};
}

}  // namespace workbook::cli
