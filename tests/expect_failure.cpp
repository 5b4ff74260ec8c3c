// Runs a graded test that is meant to fail (a starter, or a planted-bug mutant) and succeeds only
// if it did fail the right way, showing its output either way. CTest's WILL_FAIL cannot tell a
// reported failure from a crash or a missing binary; this can.
//   expect_failure [--allow-crash] [--timeout S] [--kernel FILE]... [--expect-message TEXT]...
//                  [--expect-race-message TEXT]... -- TEST [ARGS...]
// With kernels that synchronise (barriers, local memory), a failure is also run through the race
// pass and its findings are shown first, as `workbook check` and the grader show them. Each
// --expect-message must appear in what a student would read (findings and test output); each
// --expect-race-message in the findings, and without the race pass the run is a skip (exit 77).
#include "reported_failure.hpp"
#include "workbook/process.hpp"
#include "workbook/race_check.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

int main(int argc, char** argv) {
    CLI::App app("Succeeds when the given graded test fails with a reported failure (or, with --allow-crash, "
                 "crashes); fails when it passes, hangs or cannot run");
    bool allow_crash = false;
    int timeout = 300;
    std::vector<std::string> command, kernels, messages, race_messages;
    app.add_flag("--allow-crash", allow_crash, "a crash (signal) also counts as the expected failure");
    app.add_option("--timeout", timeout, "seconds before the test is killed")->check(CLI::PositiveNumber);
    app.add_option("--kernel", kernels, "the test's kernel files: if one synchronises, a failure is explained by the "
                                        "race pass");
    app.add_option("--expect-message", messages, "text the failure's message must contain");
    app.add_option("--expect-race-message", race_messages, "text the race pass's findings must contain");
    app.add_option("command", command, "the test and its arguments")->required();
    // Everything after the test's path is the test's: its own options (--test-case=...) included.
    app.allow_extras();
    CLI11_PARSE(app, argc, argv);
    for (const auto& extra : app.remaining()) command.push_back(extra);
    // One of ours after the test's path, or misspelt (--expect-mesage), would reach the test, which
    // ignores it, and what it asks would silently go unchecked: no option of a doctest test starts so.
    for (std::size_t i = 1; i < command.size(); ++i)
        for (const char* own : {"--allow", "--timeout", "--kernel", "--expect", "-expect"})
            if (command[i].rfind(own, 0) == 0) {
                std::cerr << "expect_failure: " << command[i] << " would go to the test: expect_failure's own options "
                          << "come before the test's path (see --help)\n";
                return 2;
            }

    const auto r = workbook::run_process(command, std::chrono::seconds(timeout));
    bool ok = reported_test_failure(r) || (allow_crash && r.signaled);
    std::string explanation;
    bool race_ran = false;
    if (ok && !kernels.empty() && workbook::race::any_synchronises(kernels)) {
        const auto race = workbook::race::check(command.front(), std::chrono::seconds(600));
        race_ran = race.available;
        explanation = race.available ? workbook::race::explain_failure(race)
                                     : "race pass: not run (" + race.skipped + ")\n";
    }
    std::cout << explanation << r.output;
    fmt::print("\nexpect_failure: the test {} ({}): {}\n", ok ? "failed as expected" : "did not fail as expected",
               r.status(), ok ? "ok" : r.passed() ? "it PASSED" : "not a reported failure");
    auto expect = [&](const std::string& where, const std::string& m) {
        const bool said = where.find(m) != std::string::npos;
        fmt::print("expect_failure: the message {} \"{}\"\n", said ? "names" : "does NOT name", m);
        ok = ok && said;
    };
    for (const auto& m : messages) expect(explanation + r.output, m);
    if (!race_messages.empty() && ok && !race_ran) {
        fmt::print("expect_failure: the race pass did not run, so its findings cannot be checked: skipped\n");
        return 77;
    }
    for (const auto& m : race_messages) expect(explanation, m);
    return ok ? 0 : 1;
}
