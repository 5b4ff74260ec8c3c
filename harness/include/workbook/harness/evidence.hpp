// The evidence record: the one answer to "did this graded test pass, and why not?". The checker
// (the graded test, which runs no student code) writes it at the end of its run, under a nonce
// the reader chose; `workbook check`, watch mode, `workbook grade` and `workbook calibrate` read it
// here, and nobody reads a verdict from the test's console text. A runner never sees the file's
// name or the nonce (test_main.cpp takes both out of the environment before any runner starts).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace workbook::harness {

struct CaseEvidence {
    std::string name;                   // the doctest test case
    bool passed = false;
    std::vector<std::string> failures;  // each failed check's message (or exception), in order, no repeats
};

struct Evidence {
    std::string nonce;
    std::vector<CaseEvidence> cases;
    bool complete = false;  // the run reached its end (a killed or crashed run has no "run" line)
    int asserts = 0, asserts_failed = 0;
    std::string speed;      // a rung graded on speed: its table, and the verdict sentence that followed
    std::string timeline;   // the picture a test drew of the student's run (exercise 13), a path
    bool passed() const;    // complete, and every case passed
    // Every failed case's messages, in order, without repeats.
    std::vector<std::string> failures() const;
};

// The record as text: one item a line, every free text escaped (\\, \n, \t), so that nothing a
// message holds can start a line of its own.
std::string write_evidence(const Evidence& e);

// The record back, or nothing when the text is not one written under `nonce` (no file, another
// nonce, something else wrote it). Lines it does not know are skipped: a newer writer's additions
// never break an older reader.
std::optional<Evidence> read_evidence(const std::string& text, const std::string& nonce);

// One run judged against the solution's run on the same seed (`reference`: the solution's record):
// the share of the solution's test cases that passed, or why it counts for nothing. The grader's
// and calibration's verdict.
struct Verdict {
    bool valid = false;
    int cases_expected = 0, cases_passed = 0;
    std::string problem;  // why the evidence is missing or wrong
};
Verdict judge_evidence(const std::string& text, const std::string& nonce, const std::string& reference);

}  // namespace workbook::harness
