// Unit tests: child processes with time limits and capped output.
#include "workbook/process.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <thread>

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

TEST_CASE("a set cancel flag stops a child and what it forked, whatever the deadline") {
    std::atomic<bool> cancel{false};
    std::thread setter([&] {
        std::this_thread::sleep_for(300ms);
        cancel = true;
    });
    // Left alone it would end after 60 s with exit 0; the flag must end it first.
    const auto r = workbook::run_process({"sh", "-c", "sleep 60 & sleep 60; exit 0"}, 600s, {}, 1 << 20, &cancel);
    setter.join();
    CHECK(r.cancelled);
    CHECK_FALSE(r.timed_out);
    CHECK_FALSE(r.passed());
    CHECK(r.status().find("stopped by its caller") == 0);
}
