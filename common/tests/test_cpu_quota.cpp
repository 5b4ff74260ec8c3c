// Unit tests: reading a cgroup's processor quota and throttling from fake /proc and /sys trees
// (cgroup v1, v2, a container's namespace, nested quotas), and other processes' processor time.
#include "workbook/cpu_quota.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using workbook::read_cpu_quota;

namespace {

// A fresh folder standing for "/", removed with the object.
struct FakeRoot {
    fs::path dir;
    FakeRoot() {
        char name[] = "/tmp/cpu-quota-test.XXXXXX";
        dir = ::mkdtemp(name);
    }
    ~FakeRoot() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    void write(const std::string& path, const std::string& text) const {
        const fs::path p = dir / path;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
    }
};

const char* hybrid_mounts =
    "30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
    "31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:10 - cgroup cgroup rw,cpu,cpuacct\n"
    "32 25 0:28 / /sys/fs/cgroup/cpuset rw,nosuid shared:11 - cgroup cgroup rw,cpuset\n"
    "33 25 0:29 / /sys/fs/cgroup/memory rw,nosuid shared:12 - cgroup cgroup rw,memory\n";

}  // namespace

TEST_CASE("cgroup v1: the quota of a group above this one binds it (cpu.cfs_quota_us over cpu.cfs_period_us)") {
    FakeRoot r;
    r.write("proc/self/cgroup", "9:name=systemd:/\n4:memory:/m\n3:cpuset:/\n2:cpu,cpuacct:/grader/s1\n0::/\n");
    r.write("proc/self/mountinfo", hybrid_mounts);
    const std::string g = "sys/fs/cgroup/cpu,cpuacct/";
    r.write(g + "cpu.cfs_quota_us", "-1\n");
    r.write(g + "cpu.cfs_period_us", "100000\n");
    r.write(g + "grader/cpu.cfs_quota_us", "50000\n");
    r.write(g + "grader/cpu.cfs_period_us", "100000\n");
    r.write(g + "grader/cpu.stat", "nr_periods 10\nnr_throttled 3\nthrottled_time 5000000\n");
    r.write(g + "grader/s1/cpu.cfs_quota_us", "-1\n");
    r.write(g + "grader/s1/cpu.cfs_period_us", "100000\n");
    auto q = read_cpu_quota(r.dir);
    CHECK(q.processors == doctest::Approx(0.5));
    CHECK(q.period_s == doctest::Approx(0.1));
    REQUIRE(q.stat_files.size() == 1);
    CHECK(q.stat_files[0] == r.dir / g / "grader/cpu.stat");
    CHECK(q.group == (r.dir / g / "grader").string());
    const auto t = workbook::read_throttling(q);
    CHECK(t.events == 3);
    CHECK(t.time_ns == 5000000);
    // A looser quota of its own does not lift the tighter one above; both groups' stops count.
    r.write(g + "grader/s1/cpu.cfs_quota_us", "150000\n");
    r.write(g + "grader/s1/cpu.stat", "nr_periods 4\nnr_throttled 1\nthrottled_time 10\n");
    q = read_cpu_quota(r.dir);
    CHECK(q.processors == doctest::Approx(0.5));
    CHECK(q.stat_files.size() == 2);
    CHECK(workbook::read_throttling(q) == workbook::Throttling{4, 5000010});
    // A stop shows as a change of the counters.
    r.write(g + "grader/cpu.stat", "nr_periods 11\nnr_throttled 4\nthrottled_time 6000000\n");
    CHECK_FALSE(workbook::read_throttling(q) == t);
}

TEST_CASE("cgroup v2: cpu.max, in a container's namespace and on a laptop's nested slices") {
    FakeRoot r;
    // A container's own group as the root of its namespace (podman --cpus 0.5, docker --cpus 0.5).
    r.write("proc/self/cgroup", "0::/\n");
    r.write("proc/self/mountinfo", "40 30 0:35 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n");
    r.write("sys/fs/cgroup/cpu.max", "50000 100000\n");
    r.write("sys/fs/cgroup/cpu.stat", "usage_usec 900\nnr_periods 5\nnr_throttled 2\nthrottled_usec 7\n");
    auto q = read_cpu_quota(r.dir);
    CHECK(q.processors == doctest::Approx(0.5));
    CHECK(workbook::read_throttling(q) == workbook::Throttling{2, 7000});
    // No quota: "max".
    r.write("sys/fs/cgroup/cpu.max", "max 100000\n");
    CHECK_FALSE(read_cpu_quota(r.dir).any());
    // systemd's CPUQuota=200% on the user's slice, the session below it unlimited.
    FakeRoot l;
    l.write("proc/self/cgroup", "0::/user.slice/user-1000.slice/session-2.scope\n");
    l.write("proc/self/mountinfo", "24 18 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
    l.write("sys/fs/cgroup/user.slice/cpu.max", "max 100000\n");
    l.write("sys/fs/cgroup/user.slice/user-1000.slice/cpu.max", "200000 100000\n");
    l.write("sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope/cpu.max", "max 100000\n");
    q = read_cpu_quota(l.dir);
    CHECK(q.processors == doctest::Approx(2.0));
    CHECK(q.period_s == doctest::Approx(0.1));
    CHECK(q.stat_files.size() == 1);
}

TEST_CASE("a group outside the mount (a container's v1 mount of its own group) reads the mount's root") {
    FakeRoot r;
    r.write("proc/self/cgroup", "5:cpu,cpuacct:/docker/abc123\n3:memory:/docker/abc123\n");
    r.write("proc/self/mountinfo",
            "50 40 0:44 /docker/abc123 /sys/fs/cgroup/cpu\\040cpuacct ro,nosuid - cgroup cgroup rw,cpuacct,cpu\n");
    r.write("sys/fs/cgroup/cpu cpuacct/cpu.cfs_quota_us", "25000\n");
    r.write("sys/fs/cgroup/cpu cpuacct/cpu.cfs_period_us", "50000\n");
    auto q = read_cpu_quota(r.dir);
    CHECK(q.processors == doctest::Approx(0.5));
    CHECK(q.period_s == doctest::Approx(0.05));
    // The same where the mount shows the host's root but the group's folder is not there.
    r.write("proc/self/mountinfo",
            "50 40 0:44 / /sys/fs/cgroup/cpu\\040cpuacct ro,nosuid - cgroup cgroup rw,cpuacct,cpu\n");
    CHECK(read_cpu_quota(r.dir).processors == doctest::Approx(0.5));
    // Nothing readable, no cgroup mounted: no quota.
    FakeRoot empty;
    CHECK_FALSE(read_cpu_quota(empty.dir).any());
    CHECK(workbook::read_throttling(read_cpu_quota(empty.dir)) == workbook::Throttling{});
}

TEST_CASE("the memory limit: the tightest over the group and those above it, v1 and v2; none where unlimited") {
    FakeRoot r;  // v1 (hybrid): this group unlimited (v1's huge number), its parent 768 MiB, the root 2 GiB
    r.write("proc/self/cgroup", "9:name=systemd:/\n4:memory:/gradescope/s1\n2:cpu,cpuacct:/\n0::/\n");
    r.write("proc/self/mountinfo", hybrid_mounts);
    r.write("sys/fs/cgroup/memory/memory.limit_in_bytes", "2147483648\n");
    r.write("sys/fs/cgroup/memory/gradescope/memory.limit_in_bytes", "805306368\n");
    r.write("sys/fs/cgroup/memory/gradescope/s1/memory.limit_in_bytes", "9223372036854771712\n");
    CHECK(workbook::read_memory_limit(r.dir) == 805306368u);
    // No group with a limit: none.
    r.write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    r.write("sys/fs/cgroup/memory/gradescope/memory.limit_in_bytes", "9223372036854771712\n");
    CHECK(workbook::read_memory_limit(r.dir) == 0u);

    FakeRoot c;  // v2 in a container (podman --memory 768m): its own group is the mount's root
    c.write("proc/self/cgroup", "0::/\n");
    c.write("proc/self/mountinfo", "40 30 0:35 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n");
    c.write("sys/fs/cgroup/memory.max", "805306368\n");
    CHECK(workbook::read_memory_limit(c.dir) == 805306368u);
    c.write("sys/fs/cgroup/memory.max", "max\n");
    CHECK(workbook::read_memory_limit(c.dir) == 0u);

    FakeRoot none;  // nothing readable
    CHECK(workbook::read_memory_limit(none.dir) == 0u);
}

TEST_CASE("descendants are found by their parents in /proc, names with spaces and parentheses included") {
    FakeRoot r;
    r.write("proc/1/stat", "1 (init) S 0 1 1 0\n");
    r.write("proc/10/stat", "10 (sh) S 1 10 10 0\n");
    r.write("proc/11/stat", "11 (a (b) c) S 10 10 10 0\n");
    r.write("proc/12/stat", "12 (x) S 1 12 12 0\n");
    r.write("proc/13/stat", "13 (y) R 11 10 10 0\n");
    r.write("proc/self/stat", "99 (self) S 1 1 1 0\n");
    auto d = workbook::descendant_processes(10, r.dir / "proc");
    std::sort(d.begin(), d.end());
    CHECK(d == std::vector<int>{10, 11, 13});
}

TEST_CASE("another process's processor time is read here, and grows while it works") {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // works until killed
        volatile unsigned long sink = 0;
        for (;;) sink = sink + 1;
    }
    const auto mine = workbook::descendant_processes(::getpid());
    CHECK(std::find(mine.begin(), mine.end(), child) != mine.end());
    double s = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((s = workbook::processes_cpu_seconds({child})) < 0.05 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(s >= 0.05);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    CHECK(workbook::processes_cpu_seconds({child}) < 0);  // gone
}
