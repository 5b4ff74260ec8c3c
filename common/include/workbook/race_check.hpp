// The race check: runs a graded test under Oclgrind (a simulated OpenCL device) with data-race
// and uninitialised-read detection, at the small sizes of WORKBOOK_SMALL=1, and collects what it
// reports. It finds the bugs a CPU device hides: a missing barrier, a read of local memory nobody
// wrote, an access outside a buffer. The CTest race tests use it now; the CLI, the grader and the
// contest judge are to use the same function.
#pragma once

#include "workbook/process.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace workbook::race {

// One Oclgrind report: its first line ("Read-write data race at local memory address ...") and
// the lines that follow it (kernel, work-items, source file and line).
struct Report {
    std::string headline;
    std::string details;
    // What this class of bug means and where to look, in a sentence.
    std::string explanation() const;
};

// Whether the check runs here, and if not, why (printed by every caller, never silent): it is
// switched off by WORKBOOK_RACE_CHECK=off (for a machine without Oclgrind, or to save time), or
// Oclgrind is not installed.
struct Availability {
    bool on = false;
    std::string command;  // the oclgrind binary when on
    std::string why_off;  // when off: the reason and how to turn it on
};
Availability availability();

struct Result {
    bool available = true;      // false: switched off or not installed (see skipped)
    std::string skipped;        // why it did not run
    ProcessResult run;          // the test under Oclgrind
    std::vector<Report> reports;
    bool clean() const { return available && reports.empty() && run.passed(); }
};

// The Oclgrind command used, or empty when it is not installed.
std::string oclgrind_path();

// Runs `test` (a graded test binary) under Oclgrind with WORKBOOK_SMALL=1 (small sizes, and
// device buffers without slack so an access one past the end is outside the buffer).
// `wrapper` is put in front of the command (the grader's sandbox); `env` adds variables.
Result check(const std::string& test, std::chrono::seconds timeout, const std::vector<std::string>& wrapper = {},
             const std::vector<std::string>& env = {});
// The same for any command line (the contest judge checks a submission through `workbook contest
// run-one --race-pass`). Oclgrind is its own OpenCL platform, so the WORKBOOK_* device choice is
// cleared for the child.
// `oclgrind_options` go to Oclgrind itself (--local-mem-size BYTES, --build-options ...).
Result check_command(const std::vector<std::string>& command, std::chrono::seconds timeout,
                     const std::vector<std::string>& wrapper = {}, const std::vector<std::string>& env = {},
                     const std::vector<std::string>& oclgrind_options = {});

// The same for a graded test whose runner is sandboxed (the grader): the checker runs as it is,
// with WORKBOOK_SMALL=1, and only its runner under `runner_wrapper` and then Oclgrind (through
// WORKBOOK_RUNNER_WRAPPER, runner.hpp).
// `sources`: the folder whose .cl files the reports may quote (see parse()).
Result check_runner(const std::string& checker, std::chrono::seconds timeout,
                    const std::vector<std::string>& runner_wrapper, const std::vector<std::string>& env,
                    const std::filesystem::path& sources = {});
// The same with a checker command line and options for Oclgrind (the contest judge's run-one).
Result check_runner(const std::vector<std::string>& checker, std::chrono::seconds timeout,
                    const std::vector<std::string>& runner_wrapper, const std::vector<std::string>& env,
                    const std::vector<std::string>& oclgrind_options, const std::filesystem::path& sources = {});

// Empty, or why `source` (an OpenCL C file) cannot be race-checked honestly: it tests a macro whose
// value differs between the device and Oclgrind (__OPTIMIZE__, __OPENCL_VERSION__, ...), so the
// race pass would check a different program from the one that runs. Names the line and the macro.
std::string device_dependent_macro(const std::string& source, const std::string& file_name);

// The reports in Oclgrind's output: every line followed by an indented "Kernel:" line.
// `sources` empty: each "At line" file is read where it is named (the course's own runs). Else
// (the grader, the judge: the file name comes from the kernel's #line text, which a student
// controls) only .cl files inside that folder, links resolved, are quoted.
std::vector<Report> parse(const std::string& output, const std::filesystem::path& sources = {});

}  // namespace workbook::race
