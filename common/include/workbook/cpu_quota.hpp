// The cgroup limits this process runs under. A processor quota (a cgroup's cpu.max, or
// cpu.cfs_quota_us with cpu.cfs_period_us), how often it stopped this process's group, and the
// processor time of other processes: what a speed check on a CPU device needs where the machine's
// processors are rationed (Gradescope's half a processor, a container started with --cpus, a
// laptop's systemd CPUQuota=). And the memory limit, by which the grader decides what may run at
// once (Gradescope's 768 MB).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace workbook {

// The tightest quota over this process's cgroup and the groups above it, in the hierarchy that
// holds the cpu controller (cgroup v1's "cpu", else v2's unified one).
struct CpuQuota {
    double processors = 0;  // quota / period of the tightest group; 0: no quota anywhere
    double period_s = 0;    // that group's period
    std::string group;      // that group's folder, for messages
    // cpu.stat of every group with a quota: any of them can stop this process.
    std::vector<std::filesystem::path> stat_files;
    bool any() const { return processors > 0; }
};

// `root` stands for "/": the files read are root/proc/self/cgroup, root/proc/self/mountinfo and
// the cgroup folders under the mount points named there (the unit tests give a folder of fakes).
// Where the group named in /proc/self/cgroup lies outside the mount (a cgroup namespace, a
// container's v1 mount of its own group), the mount's root stands for it. Nothing readable: none.
CpuQuota read_cpu_quota(const std::filesystem::path& root = "/");

// The tightest memory limit over this process's cgroup and the groups above it (v1's
// memory.limit_in_bytes, v2's memory.max), in bytes; 0: none. `root` as above.
std::uint64_t read_memory_limit(const std::filesystem::path& root = "/");

// This process's quota (read once) and the processors it may use: those in its affinity mask
// (sched_getaffinity), or the quota where that is fewer.
const CpuQuota& own_cpu_quota();
int affinity_processors();
// The quota's processors where it binds (fewer than the affinity mask holds), else 0.
double binding_quota_processors();

// How often and how long the quota stopped the groups: the sums of cpu.stat's nr_throttled and
// throttled_time (v1, ns) or throttled_usec (v2). Two equal readings: no stop in between.
struct Throttling {
    long long events = 0;
    long long time_ns = 0;
    bool operator==(const Throttling&) const = default;
};
Throttling read_throttling(const CpuQuota& quota);

// The processes descended from `pid` (itself first), as `proc` (a /proc) shows them now.
std::vector<int> descendant_processes(int pid, const std::filesystem::path& proc = "/proc");
// The processor time (user and system, every thread, in seconds) that the kernel counts to these
// processes, read here (clock_getcpuclockid): nothing they report. Negative where one cannot be read.
double processes_cpu_seconds(const std::vector<int>& pids);

}  // namespace workbook
