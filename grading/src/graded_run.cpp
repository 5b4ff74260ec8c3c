// One graded run and its race pass, shared with `workbook calibrate` (see graded_run.hpp).
#include "grader.hpp"

#include "workbook/grading/graded_run.hpp"
#include "workbook/process.hpp"

namespace workbook::grading {

GradedRun run_graded_test(const GradedRunSpec& s) {
    fs::create_directories(s.evidence.parent_path());
    const std::vector<std::string> env = {fmt::format("WORKBOOK_SEED={}", s.seed), "WORKBOOK_KERNEL_DIR=" + s.kernel_dir.string(),
                                          "WORKBOOK_EVIDENCE_FILE=" + s.evidence.string(),
                                          "WORKBOOK_EVIDENCE_NONCE=" + s.nonce, "WORKBOOK_RUNNER=" + s.runner,
                                          "WORKBOOK_RUNNER_WRAPPER=" + join_words(s.runner_wrapper),
                                          // A runner silent for two thirds of the limit fails its case; the rest still count.
                                          fmt::format("WORKBOOK_RUNNER_TIMEOUT={}", std::max(1, s.limit_s * 2 / 3)),
                                          "WORKBOOK_REFERENCE_CACHE=" + s.reference_cache.string()};
    GradedRun g;
    g.process = run_process({s.checker}, std::chrono::seconds(s.limit_s), env, 64 * 1024);
    const std::string evidence = fs::exists(s.evidence) ? read_file_or_empty(s.evidence) : "";
    g.verdict = harness::judge_evidence(evidence, s.nonce, s.reference);
    if (const auto record = harness::read_evidence(evidence, s.nonce)) g.failures = record->failures();
    fs::remove(s.evidence);
    const auto& r = g.process;
    const auto& v = g.verdict;
    if (r.timed_out) g.status = "timed out";
    else if (r.signaled) g.status = "crashed";
    else if (!v.valid) g.status = "no evidence";
    // Every case passed but the process failed: the evidence and the exit disagree.
    else if (!r.passed() && v.cases_passed == v.cases_expected) g.status = "no evidence";
    else g.status = v.cases_passed == v.cases_expected ? "passed" : "failed";
    return g;
}

race::Result run_race_pass(const GradedRunSpec& s, const std::vector<std::string>& race_wrapper) {
    std::vector<std::string> checker{s.checker};
    if (!s.cases.empty()) checker.push_back("--test-case=" + s.cases);
    const int limit_s = s.race_limit_s > 0 ? s.race_limit_s : s.limit_s * 10;
    // One simulated launch may take most of the pass (rung 19 at N = 129: about 115 s on one
    // Oclgrind thread here), so a call may be silent as long as the pass may last, not the
    // runner's default 120 s; the pass's own limit still holds.
    return race::check_runner(checker, std::chrono::seconds(limit_s), race_wrapper,
                              {fmt::format("WORKBOOK_SEED={}", s.seed), "WORKBOOK_KERNEL_DIR=" + s.kernel_dir.string(),
                               "WORKBOOK_RUNNER=" + s.runner, fmt::format("WORKBOOK_RUNNER_TIMEOUT={}", limit_s)},
                              {}, s.kernel_dir);
}

}  // namespace workbook::grading
