// One graded run and its race pass, shared with `workbook calibrate` (see graded_run.hpp).
#include "grader.hpp"

#include "workbook/grading/graded_run.hpp"
#include "workbook/process.hpp"

#include <set>

namespace workbook::grading {

Verdict judge_evidence(const std::string& text, const std::string& nonce, const std::string& reference) {
    Verdict v;
    std::set<std::string> expected;
    std::istringstream ref(reference);
    for (std::string line; std::getline(ref, line);)
        if (line.rfind("case ", 0) == 0) expected.insert(line.substr(line.find(' ', 5) + 1));
    v.cases_expected = static_cast<int>(expected.size());
    std::istringstream in(text);
    std::string first;
    if (!std::getline(in, first) || first != "evidence " + nonce) {
        v.problem = "the test left no valid evidence (it exited early, was killed, or something else wrote the file)";
        return v;
    }
    std::set<std::string> passed, seen;
    bool ended = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("case ok ", 0) == 0) passed.insert(line.substr(8)), seen.insert(line.substr(8));
        else if (line.rfind("case fail ", 0) == 0) seen.insert(line.substr(10));
        else if (line.rfind("run ", 0) == 0) ended = true;
    }
    if (!ended || seen != expected) {
        v.problem = "the test run did not complete every test case";
        return v;
    }
    v.valid = true;
    v.cases_passed = static_cast<int>(passed.size());
    return v;
}

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
    g.verdict = judge_evidence(fs::exists(s.evidence) ? read_file_or_empty(s.evidence) : "", s.nonce, s.reference);
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
    return race::check_runner(checker, std::chrono::seconds(s.race_limit_s > 0 ? s.race_limit_s : s.limit_s * 10), race_wrapper,
                              {fmt::format("WORKBOOK_SEED={}", s.seed), "WORKBOOK_KERNEL_DIR=" + s.kernel_dir.string(),
                               "WORKBOOK_RUNNER=" + s.runner},
                              {}, s.kernel_dir);
}

}  // namespace workbook::grading
