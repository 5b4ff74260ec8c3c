// Running a child program with a time limit and captured, capped output. The course check
// uses it now; the CLI and the grader build on it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace workbook {

struct ProcessResult {
    int exit_code = -1;      // valid when !signaled && !timed_out
    int signal = 0;          // the signal that ended it, when signaled
    bool signaled = false;
    bool timed_out = false;  // killed (with its whole process group) at the deadline
    bool cancelled = false;  // killed (with its group) because the caller's cancel flag was set
    std::string output;      // stdout and stderr interleaved, at most the cap
    std::size_t dropped_bytes = 0;
    double seconds = 0.0;
    // Processor time (user + system) of the child and of every descendant it waited for: the
    // grader's phase table counts work in these, since wall time on a loaded machine says little.
    double cpu_seconds = 0.0;
    bool passed() const { return !signaled && !timed_out && exit_code == 0; }
    // "exit 1", "killed by signal 11 (SIGSEGV)", "timed out after 60 s"
    std::string status() const;
};

// Runs argv[0] (looked up in PATH) with extra environment entries ("NAME=value") added. A set
// `cancel` flag (read about every 100 ms) kills it as the deadline would: a server that stops
// does not wait for the grading in progress.
ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::vector<std::string>& extra_env = {}, std::size_t output_cap = 1 << 20,
                          const std::atomic<bool>* cancel = nullptr);

// For a child that must not grow past what its job needs (a preprocessor fed a student's macros):
// standard input given as text, exactly the environment given (nothing inherited, nothing set in
// the child after fork, which a threaded parent such as an OpenCL runner needs), and limits on
// its CPU seconds.
struct ProcessLimits {
    std::string stdin_text;                              // its whole standard input (held in memory)
    std::optional<std::vector<std::string>> environment;  // empty: inherited, plus extra_env
    long cpu_seconds = 0;                                // 0: no limit
};
ProcessResult run_bounded(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const ProcessLimits& limits, std::size_t output_cap = 1 << 20);

// Processor seconds spent by the calling thread itself and by every child that a run_process or
// run_bounded call on this thread waited for (with their waited-for descendants). Differences of
// two readings on one thread give one piece of work's cost, whatever ran on other threads.
double thread_work_cpu_seconds();
// Adds processor seconds that this thread's work cost but no wait reported: processes that a
// sandbox's PID namespace reaped itself (bubblewrap's reaper hands no usage up), measured by the
// caller through their cgroup.
void count_thread_work_cpu(double seconds);

// The full path of `program` in a folder of PATH where it is executable, or "" when none has it.
std::string find_on_path(const std::string& program);
// This machine's name ("" when it cannot be read).
std::string hostname();

}  // namespace workbook
