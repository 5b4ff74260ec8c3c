// Where student code runs: bubblewrap (no network, new PID/IPC/UTS/user namespaces) over a file
// system built from an allow-list (the system's programs and libraries, the few files of the
// workbook's build that compiling and running a runner needs, the submission's own scratch
// folder), as an unprivileged user, inside the submission's budget (budget.hpp) and with
// per-process resource limits. Nothing else of the machine is mounted: no solution, no other
// submission, no grader output, no home folder.
#pragma once

#include "workbook/process.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace workbook::grading {

struct SandboxLimits {
    int cpu_s = 120;                 // RLIMIT_CPU
    long memory_mib = 4096;          // RLIMIT_AS (OpenCL runtimes map a lot of address space; none beside NVIDIA's driver)
    int processes = 512;             // RLIMIT_NPROC (threads count; PoCL starts one per core)
    long file_mib = 64;              // RLIMIT_FSIZE: no file larger than this
};

struct Sandbox {
    std::string scratch;                 // the only writable folder (besides a private /tmp)
    // Compiled kernels every process starts from (PoCL's cache as the grader's own builds left
    // it, read-only to the user): each process gets a copy in its private /tmp, where
    // POCL_CACHE_DIR points, so what one runner compiles or plants there no other process reads.
    // Empty: each starts with an empty cache.
    std::string kernel_cache;
    // Read-only binds besides the system's (/usr, /etc, /sys and the /bin, /lib links): the
    // workbook files the runner needs, the submission while it is unpacked.
    std::vector<std::string> readable;
    SandboxLimits limits;
    bool namespaces = true;              // false: limits only (--no-sandbox, said loudly)
    // The environment inside, and nothing else (an allow-list, never inherited): PATH, HOME and
    // POCL_CACHE_DIR (in the private /tmp; without namespaces, in the scratch folder), the device
    // choice and OpenCL loader variables of the grader's own environment, and these.
    std::vector<std::pair<std::string, std::string>> env;
    // The unprivileged user it runs as. The grader gives each submission its own, so that one
    // submission's fork bomb (RLIMIT_NPROC counts per user) cannot starve another's build.
    int uid = 65534;                     // -1: no switch (the caller is not root)
    // cgroup.procs files every process of the submission joins first (budget.hpp); empty: none.
    std::vector<std::string> cgroups;

    // The command prefix: [join the cgroups] prlimit ... setpriv ... bwrap ... -- [copy kernel_cache]
    std::vector<std::string> wrapper() const;
    // Runs argv inside; `env` adds variables (to the allow-list). Output captured and capped.
    ProcessResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                      const std::vector<std::string>& env = {}, std::size_t output_cap = 64 * 1024) const;
};

// Processor seconds so far of the cgroups whose cgroup.procs files are `procs` (v1 cpuacct.usage,
// v2 cpu.stat's usage_usec; a group without either counts 0).
double cgroups_cpu_seconds(const std::vector<std::string>& procs);

// The time a piece of sandboxed work (a race pass) is charged, in seconds a busy machine does not
// inflate: its wall time less the time its own tasks waited for a processor (each task's run
// delay, /proc/PID/task/TID/schedstat, read as it runs), or what its processes spent (their
// cgroups) where that is more. So a neighbour that makes it wait its turn costs it nothing, and
// time it sleeps is charged as on an idle machine. Past `grant` seconds its processes are stopped.
// Without cgroups it cannot see or stop them: the wall time, and the caller's wall-clock limit.
class PassMeter {
public:
    PassMeter(std::vector<std::string> cgroups, double grant_s);
    ~PassMeter();
    PassMeter(const PassMeter&) = delete;
    PassMeter& operator=(const PassMeter&) = delete;

    // Stops watching; what the work is charged.
    double finish();
    // Whether its processes were stopped past the grant.
    bool stopped() const { return stopped_; }
    // Of the time so far: the seconds its tasks waited for a processor, the processor seconds
    // they spent (for reports and tests).
    double waited() const;
    double cpu() const;

private:
    void look();  // reads every task's run delay (the watcher thread, and finish)
    double charged_now() const;
    std::vector<std::string> cgroups_;
    double grant_s_ = 0, cpu_start_ = 0;
    std::chrono::steady_clock::time_point start_;
    mutable std::mutex m_;
    std::map<std::string, double> waits_;  // "pid/tid" -> run delay seen since the start, seconds
    std::map<std::string, double> before_;  // tasks that were there at the start: their delay then
    std::atomic<bool> done_{false}, stopped_{false};
    double charged_ = 0;
    std::thread watcher_;
};

// For as long as it lives, what `box`'s processes spend in its cgroups is counted to this
// thread's work (count_thread_work_cpu): inside bubblewrap no wait reports it. Nothing where the
// box has no namespaces (the waits report it) or no cgroups (then it is not known).
class CpuCharge {
public:
    explicit CpuCharge(const Sandbox& box);
    ~CpuCharge();
    CpuCharge(const CpuCharge&) = delete;
    CpuCharge& operator=(const CpuCharge&) = delete;

private:
    std::vector<std::string> procs_;
    double start_ = 0;
};

// The system part of every sandbox's file system: the top-level folders of programs and
// libraries (or the links to them, on a merged /usr), the GPU's device nodes where there are
// any, and what the OpenCL loader is told to read. As bwrap arguments.
std::vector<std::string> system_mounts();

// Empty when bubblewrap runs here; otherwise why not (not installed, or namespaces refused).
std::string sandbox_problem();

}  // namespace workbook::grading
