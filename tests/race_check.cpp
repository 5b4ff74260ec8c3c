// The race check from the command line, for CTest: runs a graded test under Oclgrind at small
// sizes and prints its reports, each with what that class of bug means.
//   race_check --expect clean  TEST    succeeds when Oclgrind reports nothing and the test passes
//   race_check --expect report TEST    succeeds when Oclgrind reports a problem (a planted race)
// Exit 77 when the check is switched off (WORKBOOK_RACE_CHECK=off) or Oclgrind is missing.
#include "workbook/race_check.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

int main(int argc, char** argv) {
    CLI::App app("Runs a graded test under Oclgrind (data races, uninitialised reads, out-of-bounds accesses) at "
                 "small sizes");
    std::string expect = "clean", test;
    int timeout = 600;
    app.add_option("--expect", expect, "clean: no report and a pass; report: at least one report")
        ->check(CLI::IsMember({"clean", "report"}));
    app.add_option("--timeout", timeout, "seconds")->check(CLI::PositiveNumber);
    app.add_option("test", test, "the graded test binary")->required();
    CLI11_PARSE(app, argc, argv);

    const auto r = workbook::race::check(test, std::chrono::seconds(timeout));
    if (!r.available) {
        fmt::print("race check: not run: {}; nothing was checked\n", r.skipped);
        return 77;  // CTest's SKIP_RETURN_CODE for the race tests: shown as skipped, not passed
    }
    for (const auto& report : r.reports)
        fmt::print("Oclgrind: {}\n{}  meaning: {}\n\n", report.headline, report.details, report.explanation());
    if (r.reports.empty()) std::cout << r.run.output.substr(0, 64 * 1024);
    if (r.reports.empty() && !r.clean()) fmt::print("race check: {}\n", r.failure_without_report());
    // `report`: a report, or output past the cap (where a report may hide) counts as caught.
    const bool ok = expect == "clean" ? r.clean() : !r.reports.empty() || r.run.dropped_bytes > 0;
    for (const auto& c : workbook::race::concessions(r)) fmt::print("race check: {}\n", c);
    fmt::print("race check: {} report(s), test {} under Oclgrind: {}\n", r.reports.size(), r.run.status(),
               ok ? "as expected" : fmt::format("NOT as expected (expected {})", expect));
    return ok ? 0 : 1;
}
