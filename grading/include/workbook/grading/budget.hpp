// Budgets for a submission as a whole, not per process: memory and processes through a cgroup
// that every process of the submission joins (cgroup v2 memory.max and pids.max where the
// machine delegates them, else cgroup v1's memory and pids controllers), and disk and file count
// through a size- and inode-limited tmpfs as its scratch folder. Where a machine offers neither,
// the per-process limits (sandbox.hpp) stay the only bound, and the report says so.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace workbook::grading {

struct BudgetLimits {
    long memory_mib = 3072;  // every process of the submission together, tmpfs pages included
    // A submission's race passes, in a cgroup of their own: Oclgrind's checks of rung 19 at
    // N = 129 peak at 4.2 GiB on one simulator thread (8 GiB on two), past the submission's own
    // budget, so a correct kernel was stopped there. One race pass runs at a time (one lane).
    long race_memory_mib = 8192;
    int processes = 1024;    // tasks (threads count: PoCL starts one per core)
    long disk_mib = 1024;    // the scratch folder: the unpacked upload, builds, caches
    long files = 20000;      // inodes in the scratch folder
};

// What this machine offers, found once per grading run (and the run's parent cgroups made).
class BudgetSupport {
public:
    explicit BudgetSupport(BudgetLimits limits);
    ~BudgetSupport();  // removes the run's parent cgroups
    BudgetSupport(const BudgetSupport&) = delete;
    BudgetSupport& operator=(const BudgetSupport&) = delete;

    const BudgetLimits& limits() const { return limits_; }
    // One line for every report: which limits hold for a submission as a whole, and how.
    std::string describe() const;
    bool cgroups() const { return !parents_.empty(); }
    bool tmpfs() const { return why_no_tmpfs_.empty(); }

private:
    friend class Budget;
    BudgetLimits limits_;
    int version_ = 0;                    // 1 or 2; 0: none
    std::vector<std::string> parents_;   // v2: one; v1: memory, pids
    // v1: the run's cpuacct group, where the machine mounts one ("" else): processor time per
    // submission for the phase table (v2 counts it in every group).
    std::string cpu_parent_;
    std::string why_no_cgroups_, why_no_tmpfs_;
};

// What a grading run killed part-way left behind: scratch tmpfs mounts under `scratch_root`, and
// the cgroups of grading runs whose process is gone (their processes stopped). Returns a line
// per thing reclaimed.
std::vector<std::string> reclaim_leftovers(const std::filesystem::path& scratch_root);

// One submission's budget: its cgroup(s) and its scratch tmpfs, for as long as it lives.
class Budget {
public:
    // Makes the cgroups and mounts the tmpfs on `scratch` (an empty folder owned by `uid`).
    // Never throws: what could not be set up is in notes().
    Budget(const BudgetSupport& support, const std::string& name, const std::filesystem::path& scratch, int uid);
    // Cgroups alone, with `memory_mib` (the race passes': BudgetLimits::race_memory_mib).
    Budget(const BudgetSupport& support, const std::string& name, long memory_mib);
    ~Budget();  // kills what is left in the cgroups, removes them, unmounts the scratch
    Budget(const Budget&) = delete;
    Budget& operator=(const Budget&) = delete;

    // cgroup.procs files a process writes its pid to (Sandbox::cgroups).
    const std::vector<std::string>& procs() const { return procs_; }
    // How many times the kernel stopped a process of this submission for memory, so far.
    long oom_kills() const;
    // The scratch is full (bytes or files): what was being written was cut short.
    bool scratch_full() const;
    std::vector<std::string> notes() const { return notes_; }

private:
    void make_groups(const std::string& name, long memory_mib);
    const BudgetSupport& support_;
    std::vector<std::string> groups_;
    std::vector<std::string> procs_;
    std::filesystem::path scratch_;
    bool mounted_ = false;
    std::vector<std::string> notes_;
};

}  // namespace workbook::grading
