// The race check: runs a graded test under Oclgrind (a simulated OpenCL device) with data-race
// and uninitialised-read detection, at the small sizes of WORKBOOK_SMALL=1, and collects what it
// reports. It finds the bugs a CPU device hides: a missing barrier, a read of local memory nobody
// wrote, an access outside a buffer. The CTest race tests use it now; the CLI, the grader and the
// contest judge are to use the same function.
#pragma once

#include "workbook/cl.hpp"
#include "workbook/process.hpp"

#include <chrono>
#include <optional>
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
    // "Oclgrind: <headline>\n<details>meaning: <explanation>", as every caller shows it.
    std::string describe() const;
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

// For the tools that grade or rank (grade, calibrate, the contest judge): availability(), or an
// Error naming why the pass cannot run (Oclgrind, or our pointer-bits plugin, is missing: see
// fingerprint_plugin()) and the two ways on, where `without_it` says what
// --no-race-check does in that tool ("to grade without it (every report then says so)").
Availability require_available(const std::string& who, const std::string& without_it);

struct Result {
    bool available = true;      // false: switched off or not installed (see skipped)
    std::string skipped;        // why it did not run
    ProcessResult run;          // the test under Oclgrind
    std::vector<Report> reports;
    // Output past the cap may hold a report (a kernel's printf can push one out of the window),
    // so a run that lost any is never clean: evidence that does not fit is a failure.
    bool clean() const { return available && reports.empty() && run.passed() && run.dropped_bytes == 0; }
    // Why a run with no report is not clean, in the student's terms ("" when clean).
    std::string failure_without_report() const;
};

// The Oclgrind command used, or empty when it is not installed.
std::string oclgrind_path();

// Oclgrind offers 32 KiB of local memory unless told otherwise. A launch that fits its tiles to
// the device's local memory (exercise 19: 16 deep where two sets fit, else 8) would then build
// another program under Oclgrind than on the graded device, and a kernel could drop a barrier, or
// the lesson's traffic, in the graded build only (`if (TSK == 16)`). So the race pass and the
// traffic count give Oclgrind what the graded device offers: {"--local-mem-size", bytes} of the
// device this process's WORKBOOK_PLATFORM, WORKBOOK_DEVICE and WORKBOOK_DEVICE_TYPE choose, as
// they choose it for the graded tests (asked once). Empty when no device answers (the graded run
// fails then anyway). The contest judge sets its own size.
std::vector<std::string> graded_device_options();
// That device itself, for a checker that chooses by its properties (exercise 20's shapes): under
// the race pass too, where the choice is passed on as WORKBOOK_GRADED_PLATFORM, _DEVICE and
// _DEVICE_TYPE (the usual names are cleared for Oclgrind). Empty when no device answers.
std::optional<cl::Device> graded_device();

// Our Oclgrind plugin that counts which global loads multiply-adds can hide and how often
// work-items wait for their loads (rungs 19 and 18's traffic rules,
// harness/oclgrind_plugin/overlap.cpp): its path, or empty, with `why_not` saying why, where this
// build has none or it is gone.
std::string overlap_plugin(std::string& why_not);
// Our Oclgrind plugin that reports a kernel reading its pointers' bits, by which it could tell
// the simulator from the device (harness/oclgrind_plugin/fingerprint.cpp): its path, or empty,
// with `why_not` saying why. Every Oclgrind run of the checkers loads it where the build has it;
// require_available() refuses to grade without it.
std::string fingerprint_plugin(std::string& why_not);
// Our Oclgrind plugin that reports a read of local memory no work-item of the group wrote
// (harness/oclgrind_plugin/local_init.cpp): its path, or empty with `why_not`. The race pass
// needs it (availability() says off without it): it replaced Oclgrind's --uninitialized.
std::string local_init_plugin(std::string& why_not);

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

// The reports in Oclgrind's output: every line followed by an indented "Kernel:" line.
// `sources` empty: each "At line" file is read where it is named (the course's own runs). Else
// (the grader, the judge: the file name comes from the kernel's #line text, which a student
// controls) only .cl files inside that folder, links resolved, are quoted.
std::vector<Report> parse(const std::string& output, const std::filesystem::path& sources = {});

// Whether an OpenCL C source synchronises the work-items of a group (a barrier, local memory, an
// async copy), comments aside. A wrong result from such a kernel is often a divergent or missing
// barrier, which the race pass names with its line where the graded test sees only wrong values.
bool synchronises(const std::string& source);
// The same for kernel files; a file that cannot be read counts as synchronising (run the pass).
bool any_synchronises(const std::vector<std::string>& kernel_files);

// What a graded test left out or changed for the simulator, as it printed it ("race pass: ..."
// lines, testing.hpp's race_pass()): each once, for the caller to repeat beside its verdict.
std::vector<std::string> concessions(const Result& race);

// After a graded test failed, for kernels that synchronise: the race pass's findings as the text
// to show BEFORE the test's own message ("The race pass ... found what most likely causes this
// failure ... Oclgrind: ..."), each distinct report once, at most `max_reports`; empty when it
// found nothing or did not run.
std::string explain_failure(const Result& race, std::size_t max_reports = 3);

}  // namespace workbook::race
