// The evidence record: what the checker writes is what every reader reads, and nothing else is.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "workbook/harness/evidence.hpp"

#include <doctest/doctest.h>

using namespace workbook::harness;

namespace {

Evidence sample() {
    Evidence e;
    e.nonce = "n0nce";
    e.cases = {{"02_vadd: sums", true, {}},
               {"02_vadd kernel: sizes", false, {"vadd with N = 17: element 3 is 2.5, expected 1.5\nrepeat with WORKBOOK_SEED=7",
                                                 "a\\b\ttabbed"}}};
    e.complete = true;
    e.asserts = 12;
    e.asserts_failed = 2;
    e.speed = "speed at N = 512 on a cpu device\n  yours  1.0 GFLOPS";
    e.timeline = "/tmp/x/13_events-timeline.svg";
    return e;
}

}  // namespace

TEST_CASE("a record reads back as it was written, messages with newlines, tabs and backslashes included") {
    const Evidence e = sample();
    const auto back = read_evidence(write_evidence(e), "n0nce");
    REQUIRE(back.has_value());
    REQUIRE(back->cases.size() == 2);
    CHECK(back->cases[0].name == "02_vadd: sums");
    CHECK(back->cases[0].passed);
    CHECK_FALSE(back->cases[1].passed);
    CHECK(back->cases[1].failures == e.cases[1].failures);
    CHECK(back->speed == e.speed);
    CHECK(back->timeline == e.timeline);
    CHECK(back->complete);
    CHECK(back->asserts == 12);
    CHECK(back->asserts_failed == 2);
    CHECK_FALSE(back->passed());
    CHECK(back->failures().size() == 2);
}

TEST_CASE("a message cannot forge a line of its own") {
    Evidence e = sample();
    e.cases = {{"x", false, {"boom\ncase ok y\nrun cases=2"}}};
    e.complete = false;
    const auto back = read_evidence(write_evidence(e), "n0nce");
    REQUIRE(back.has_value());
    CHECK(back->cases.size() == 1);
    CHECK_FALSE(back->complete);
    CHECK(back->cases[0].failures.front() == "boom\ncase ok y\nrun cases=2");
}

TEST_CASE("another nonce, no header or an empty nonce is no record") {
    const std::string text = write_evidence(sample());
    CHECK_FALSE(read_evidence(text, "other").has_value());
    CHECK_FALSE(read_evidence("", "n0nce").has_value());
    CHECK_FALSE(read_evidence("case ok a\nrun cases=1\n", "n0nce").has_value());
    CHECK_FALSE(read_evidence(text, "").has_value());
}

TEST_CASE("passed() needs a complete run with every case passed") {
    Evidence e = sample();
    e.cases[1].passed = true;
    CHECK(e.passed());
    e.complete = false;
    CHECK_FALSE(e.passed());
    e.complete = true;
    e.cases.clear();
    CHECK_FALSE(e.passed());
}

TEST_CASE("judged against the solution's record: the share of its cases passed, or why none count") {
    Evidence ref;
    ref.nonce = "r";
    ref.cases = {{"a", true, {}}, {"b", true, {}}, {"c", true, {}}};
    ref.complete = true;
    const std::string reference = write_evidence(ref);

    Evidence run = ref;
    run.nonce = "s";
    run.cases[1].passed = false;
    Verdict v = judge_evidence(write_evidence(run), "s", reference);
    CHECK(v.valid);
    CHECK(v.cases_expected == 3);
    CHECK(v.cases_passed == 2);

    // Under another nonce (something else wrote the file): nothing counts.
    v = judge_evidence(write_evidence(run), "t", reference);
    CHECK_FALSE(v.valid);
    CHECK(v.problem.find("no valid evidence") != std::string::npos);

    // A run that stopped early, or left a case out, or added one: nothing counts.
    Evidence stopped = run;
    stopped.complete = false;
    CHECK_FALSE(judge_evidence(write_evidence(stopped), "s", reference).valid);
    Evidence fewer = run;
    fewer.cases.pop_back();
    CHECK(judge_evidence(write_evidence(fewer), "s", reference).problem == "the test run did not complete every test case");
    Evidence more = run;
    more.cases.push_back({"d", true, {}});
    CHECK_FALSE(judge_evidence(write_evidence(more), "s", reference).valid);

    // Every case passed.
    run.cases[1].passed = true;
    v = judge_evidence(write_evidence(run), "s", reference);
    CHECK(v.valid);
    CHECK(v.cases_passed == 3);
}

TEST_CASE("a record of the format before messages were kept still reads") {
    const auto back = read_evidence("evidence q\ncase ok one\ncase fail two\nrun cases=2 failed=1 asserts=3 asserts_failed=1\n", "q");
    REQUIRE(back.has_value());
    CHECK(back->cases.size() == 2);
    CHECK(back->complete);
    CHECK(back->asserts == 3);
    CHECK(back->cases[1].failures.empty());
}
