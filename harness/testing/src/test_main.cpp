// The main() of every graded test (a checker, see runner.hpp): prints the device its runner chose
// and the seed first, and teaches doctest to show OpenCL and workbook exceptions by name.
#define DOCTEST_CONFIG_IMPLEMENT
#include "workbook/errors.hpp"
#include "workbook/harness/evidence.hpp"
#include "workbook/random.hpp"
#include "workbook/run_main.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The evidence record (harness/evidence.hpp) for `workbook check`, the grader and calibration,
// which read no verdict from what a test prints: with WORKBOOK_EVIDENCE_FILE and
// WORKBOOK_EVIDENCE_NONCE set, every test case's verdict and failed checks, the speed table and
// the run's totals are written there at the end of the run, under the nonce. This process runs
// none of the student's code (the runner does, and never sees these variables).
struct Recorder {
    std::string file;
    workbook::harness::Evidence record;
};

Recorder& recorder() {
    static Recorder r;
    return r;
}

std::string stringify(const doctest::String& s) { return std::string(s.c_str(), s.size()); }

struct EvidenceListener : doctest::IReporter {
    explicit EvidenceListener(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats& s) override {
        auto& r = recorder();
        if (r.file.empty()) return;
        r.record.complete = true;
        r.record.asserts = s.numAsserts;
        r.record.asserts_failed = s.numAssertsFailed;
        std::ofstream(r.file, std::ios::trunc) << workbook::harness::write_evidence(r.record);
    }
    void test_case_start(const doctest::TestCaseData& data) override {
        current_ = {data.m_name, false, {}};
    }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& s) override {
        current_.passed = s.testCaseSuccess;
        recorder().record.cases.push_back(std::move(current_));
    }
    void test_case_exception(const doctest::TestCaseException& e) override { add(stringify(e.error_string)); }
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    // A failed check says what its CHECK_MESSAGE or INFO said (the active contexts), else which
    // expression failed and with what values.
    void log_assert(const doctest::AssertData& a) override {
        if (!a.m_failed) return;
        std::string message;
        const int n = doctest::IReporter::get_num_active_contexts();
        const doctest::IContextScope* const* contexts = doctest::IReporter::get_active_contexts();
        for (int i = 0; i < n; ++i) {
            std::ostringstream text;
            contexts[i]->stringify(&text);
            message += (message.empty() ? "" : "\n") + text.str();
        }
        if (message.empty() && a.m_threw) message = stringify(a.m_exception);
        if (message.empty()) message = std::string("check failed: ") + a.m_expr + " (values: " + stringify(a.m_decomp) + ")";
        add(message);
    }
    // FAIL_CHECK and FAIL are failures; MESSAGE and WARN only notes.
    void log_message(const doctest::MessageData& m) override {
        if (m.m_severity & doctest::assertType::is_warn) return;
        add(stringify(m.m_string));
    }
    void test_case_skipped(const doctest::TestCaseData&) override {}

private:
    void add(const std::string& message) {
        if (std::find(current_.failures.begin(), current_.failures.end(), message) == current_.failures.end())
            current_.failures.push_back(message);
    }
    workbook::harness::CaseEvidence current_;
};

REGISTER_LISTENER("workbook-evidence", 1, EvidenceListener);

void take_evidence_settings() {
    const char* file = std::getenv("WORKBOOK_EVIDENCE_FILE");
    const char* nonce = std::getenv("WORKBOOK_EVIDENCE_NONCE");
    if (file && nonce) {
        recorder().file = file;
        recorder().record.nonce = nonce;
    }
    unsetenv("WORKBOOK_EVIDENCE_NONCE");
    unsetenv("WORKBOOK_EVIDENCE_FILE");
}

}  // namespace

namespace workbook::testing {

void record_speed(const std::string& text) { recorder().record.speed = text; }
void record_timeline(const std::string& path) { recorder().record.timeline = path; }

}  // namespace workbook::testing

REGISTER_EXCEPTION_TRANSLATOR(const workbook::Error& e) {
    return doctest::String(workbook::describe_exception(std::make_exception_ptr(e)).c_str());
}

REGISTER_EXCEPTION_TRANSLATOR(const cl::Error& e) {
    return doctest::String(workbook::describe_exception(std::make_exception_ptr(e)).c_str());
}

int main(int argc, char** argv) {
    take_evidence_settings();
    doctest::Context context(argc, argv);
    if (workbook::runner::configured()) {
        try {
            std::cout << "Device: " << workbook::runner::client().device_description() << "\n";
        } catch (...) {
            // Tests that need the device fail with this same message; the others still run.
            std::cout << "The runner could not start: " << workbook::describe_exception(std::current_exception())
                      << "\n";
        }
    }
    std::cout << "Random " << workbook::seed_banner(workbook::session_seed()) << "\n";
    std::cout << std::flush;
    // `workbook tune NN`: the tuner instead of the test cases, where the exercise has one.
    const char* tune = std::getenv("WORKBOOK_TUNE");
    const int status = tune && *tune ? (workbook::testing::registered_tuner()
                                            ? workbook::testing::registered_tuner()()
                                            : (std::cout << "This exercise has no tuner (WORKBOOK_TUNE is set)\n", 2))
                                     : context.run();
    // The runner leaves first and is reaped (its processor time then counts to our parent).
    workbook::runner::close_client();
    // Leave without destroying the static OpenCL objects: some implementations (Oclgrind 21.10)
    // corrupt their heap when those are released during exit, turning a pass into a crash.
    std::cout << std::flush;
    std::cerr << std::flush;
    std::_Exit(status);
}
