// Unit tests: child processes with time limits and capped output.
#include "workbook/process.hpp"

#include <doctest/doctest.h>

using namespace std::chrono_literals;

TEST_CASE("exit status and output are captured") {
    const auto r = workbook::run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10s);
    CHECK(r.exit_code == 3);
    CHECK_FALSE(r.passed());
    CHECK(r.output.find("out") != std::string::npos);
    CHECK(r.output.find("err") != std::string::npos);
    CHECK(r.status() == "exit 3");
}

TEST_CASE("a hung child and what it forked are killed at the deadline") {
    const auto r = workbook::run_process({"sh", "-c", "sleep 30 & sleep 30"}, 300ms);
    CHECK(r.timed_out);
    CHECK(r.seconds < 5.0);
}

TEST_CASE("a crash is reported as a signal, and a flood of output is capped") {
    const auto crash = workbook::run_process({"sh", "-c", "kill -SEGV $$"}, 10s);
    CHECK(crash.signaled);
    CHECK(crash.signal == 11);
    const auto flood = workbook::run_process({"sh", "-c", "yes | head -c 100000"}, 10s, {}, 1000);
    CHECK(flood.output.size() == 1000);
    CHECK(flood.dropped_bytes == 99000);
}

TEST_CASE("extra environment entries reach the child") {
    const auto r = workbook::run_process({"sh", "-c", "echo \"$WORKBOOK_PROBE\""}, 10s, {"WORKBOOK_PROBE=hello"});
    CHECK(r.output == "hello\n");
}
