// Runs a graded test that is meant to fail (a starter, or a planted-bug mutant) and succeeds only
// if it did fail the right way, showing its output either way. CTest's WILL_FAIL cannot tell a
// reported failure from a crash or a missing binary; this can.
//   expect_failure [--allow-crash] [--timeout S] -- TEST [ARGS...]
#include "workbook/process.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

int main(int argc, char** argv) {
    CLI::App app("Succeeds when the given graded test fails with a reported failure (or, with --allow-crash, "
                 "crashes); fails when it passes, hangs or cannot run");
    bool allow_crash = false;
    int timeout = 300;
    std::vector<std::string> command;
    app.add_flag("--allow-crash", allow_crash, "a crash (signal) also counts as the expected failure");
    app.add_option("--timeout", timeout, "seconds before the test is killed")->check(CLI::PositiveNumber);
    app.add_option("command", command, "the test and its arguments")->required();
    CLI11_PARSE(app, argc, argv);

    const auto r = workbook::run_process(command, std::chrono::seconds(timeout));
    std::cout << r.output;
    const bool ok = r.reported_test_failure() || (allow_crash && r.signaled);
    fmt::print("\nexpect_failure: the test {} ({}): {}\n", ok ? "failed as expected" : "did not fail as expected",
               r.status(), ok ? "ok" : r.passed() ? "it PASSED" : "not a reported failure");
    return ok ? 0 : 1;
}
