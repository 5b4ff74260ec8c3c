// One graded run as the grader makes it, shared with `workbook calibrate` (calibrate.hpp): the
// instructor's checker runs outside any sandbox, starts the runner (the code under test) behind a
// wrapper, and alone writes the evidence; the evidence is judged against the solution's.
#pragma once

#include "workbook/harness/evidence.hpp"
#include "workbook/process.hpp"
#include "workbook/race_check.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace workbook::grading {

namespace fs = std::filesystem;

// A run's verdict is read from its evidence record (harness/evidence.hpp: judge_evidence).
using harness::Verdict;

// The instructor's checker, on the inputs of `seed`, starts `runner` (behind `runner_wrapper`: the
// sandbox, or nothing) on the kernels in `kernel_dir`; the evidence it writes is judged against
// the solution's `reference` evidence.
struct GradedRunSpec {
    std::string checker, runner;
    fs::path kernel_dir;
    fs::path evidence;  // where the checker writes it (removed afterwards)
    std::uint64_t seed = 0;
    std::string nonce, reference;
    int limit_s = 60;
    int race_limit_s = 0;  // the race pass's own limit; 0: ten times limit_s (Oclgrind is slow)
    std::string cases;  // non-empty: only the checker's test cases that match (doctest --test-case)
    std::vector<std::string> runner_wrapper;
    // The checkers' cache of expected results (matmul.hpp: expected()): a folder of the grader's
    // own that no runner can reach; empty for none.
    fs::path reference_cache;
};
struct GradedRun {
    ProcessResult process;
    Verdict verdict;
    std::vector<std::string> failures;  // each failed check's message, from the evidence record
    std::string status;  // passed, failed, timed out, crashed, no evidence
};
GradedRun run_graded_test(const GradedRunSpec& spec);
// The race pass of the same submission (after a pass, or to explain a failure): the same checker at
// small sizes, its runner under `race_wrapper` and Oclgrind; reports quote only `kernel_dir`.
race::Result run_race_pass(const GradedRunSpec& spec, const std::vector<std::string>& race_wrapper);

}  // namespace workbook::grading
