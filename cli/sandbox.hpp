// The auto-checker's sandbox for a student's build and test: bubblewrap (no network, read-only
// system, new PID/IPC/UTS namespaces, the instructor's solutions and every other submission
// hidden behind empty tmpfs mounts, only the submission's scratch folder writable), run as an
// unprivileged user with resource limits (CPU time, address space, processes, file size).
#pragma once

#include "workbook/process.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace workbook::cli {

struct SandboxLimits {
    int cpu_s = 120;                 // RLIMIT_CPU
    long memory_mib = 4096;          // RLIMIT_AS (OpenCL runtimes map a lot of address space)
    int processes = 512;             // RLIMIT_NPROC (threads count; PoCL starts one per core)
    long file_mib = 64;              // RLIMIT_FSIZE: no file larger than this
};

struct Sandbox {
    std::string scratch;                 // the only writable folder (besides a private /tmp)
    // Read-only binds made before the hiding: the instructor's tree and build, which may live
    // under /tmp (the sandbox's /tmp is private and empty).
    std::vector<std::string> visible;
    std::vector<std::string> hidden;     // folders replaced by empty ones (solutions, submissions, output)
    std::vector<std::string> hidden_files;  // files replaced by an empty one (the grading config)
    std::vector<std::string> readable;   // read-only binds made after the hiding (this submission)
    SandboxLimits limits;
    bool namespaces = true;              // false: limits only (--no-sandbox, said loudly)
    // The environment inside, and nothing else (an allow-list, never inherited): PATH, HOME and
    // POCL_CACHE_DIR (the scratch folder), the device choice and OpenCL loader variables of the
    // grader's own environment, and these.
    std::vector<std::pair<std::string, std::string>> env;
    // The unprivileged user it runs as. The grader gives each submission its own, so that one
    // submission's fork bomb (RLIMIT_NPROC counts per user) cannot starve another's build.
    int uid = 65534;

    // The command prefix: prlimit ... setpriv ... bwrap ... --
    std::vector<std::string> wrapper() const;
    // Runs argv inside; `env` adds variables (to the allow-list). Output captured and capped.
    ProcessResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                      const std::vector<std::string>& env = {}, std::size_t output_cap = 64 * 1024) const;
};

// Empty when bubblewrap runs here; otherwise why not (not installed, or namespaces refused).
std::string sandbox_problem();

}  // namespace workbook::cli
