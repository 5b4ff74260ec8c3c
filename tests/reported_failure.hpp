// For the suite's own test programs (course_check, expect_failure): a graded test that ran to its
// end and reported failing checks (doctest's exit status 1 and its failure summary), as opposed to
// a crash, a hang or a program that could not start. The tools read verdicts from the evidence
// record (harness/evidence.hpp); only these tests of the tests read doctest's summary.
#pragma once

#include "workbook/process.hpp"

inline bool reported_test_failure(const workbook::ProcessResult& r) {
    return !r.signaled && !r.timed_out && r.exit_code == 1 && r.output.find("Status: FAILURE") != std::string::npos;
}
