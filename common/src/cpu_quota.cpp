// Processor quotas, throttling and other processes' processor time (see cpu_quota.hpp).
#include "workbook/cpu_quota.hpp"

#include "workbook/text.hpp"  // read_file_or_empty

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>

#include <thread>

#ifdef __linux__
#include <sched.h>
#include <time.h>
#endif

namespace fs = std::filesystem;

namespace workbook {

namespace {

// mountinfo writes a space in a path as \040 (octal escapes).
std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 3 < s.size() && s.find_first_not_of("01234567", i + 1) >= i + 4) {
            out += static_cast<char>(std::strtol(s.substr(i + 1, 3).c_str(), nullptr, 8));
            i += 3;
        } else {
            out += s[i];
        }
    }
    return out;
}

bool has_word(const std::string& list, const std::string& word) {
    return ("," + list + ",").find("," + word + ",") != std::string::npos;
}

// One hierarchy: where it is mounted, which of its groups the mount shows as its root.
struct Mount {
    fs::path point;
    std::string root;
};

// The mount of the v1 hierarchy with `controller` (v1) or of the unified one (v2).
bool find_mount(const std::string& mountinfo, bool v1, const std::string& controller, Mount& m) {
    std::istringstream lines(mountinfo);
    for (std::string line; std::getline(lines, line);) {
        const auto dash = line.find(" - ");
        if (dash == std::string::npos) continue;
        std::istringstream head(line.substr(0, dash)), tail(line.substr(dash + 3));
        std::string id, parent, devno, root, point, type, source, options;
        if (!(head >> id >> parent >> devno >> root >> point) || !(tail >> type >> source >> options)) continue;
        if (v1 ? (type == "cgroup" && has_word(options, controller)) : type == "cgroup2") {
            m = {unescape(point), unescape(root)};
            return true;
        }
    }
    return false;
}

// The quota of one group, in processors, and its period; false where it has none.
bool group_quota(const fs::path& dir, bool v1, double& processors, double& period_s) {
    long long quota = -1, period = 0;
    if (v1) {
        std::istringstream(read_file_or_empty(dir / "cpu.cfs_quota_us")) >> quota;
        std::istringstream(read_file_or_empty(dir / "cpu.cfs_period_us")) >> period;
    } else {
        std::istringstream max(read_file_or_empty(dir / "cpu.max"));
        std::string q;
        if (max >> q >> period && q != "max") quota = std::atoll(q.c_str());
    }
    if (quota <= 0 || period <= 0) return false;
    processors = static_cast<double>(quota) / static_cast<double>(period);
    period_s = static_cast<double>(period) * 1e-6;
    return true;
}

// This process's group in the hierarchy that holds `controller` (v1's where a v1 hierarchy has
// it: a hybrid machine's unified hierarchy then lacks it; else v2's), and the groups above it up
// to the mount's root, nearest first. Empty where none is readable.
std::vector<fs::path> own_groups(const fs::path& root, const std::string& controller, bool& v1_out) {
    // This process's group in each hierarchy: "4:cpu,cpuacct:/a/b" (v1), "0::/a/b" (v2).
    std::string v1_group, v2_group;
    bool v1 = false, v2 = false;
    std::istringstream lines(read_file_or_empty(root / "proc/self/cgroup"));
    for (std::string line; std::getline(lines, line);) {
        const auto a = line.find(':'), b = line.find(':', a == std::string::npos ? a : a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1);
        if (controllers.empty() && line.compare(0, a, "0") == 0)
            v2 = true, v2_group = line.substr(b + 1);
        else if (has_word(controllers, controller))
            v1 = true, v1_group = line.substr(b + 1);
    }
    const std::string mountinfo = read_file_or_empty(root / "proc/self/mountinfo");
    Mount m;
    const bool use_v1 = v1 && find_mount(mountinfo, true, controller, m);
    if (!use_v1 && !(v2 && find_mount(mountinfo, false, controller, m))) return {};
    v1_out = use_v1;
    const std::string group = use_v1 ? v1_group : v2_group;
    const fs::path mount = root / m.point.relative_path();
    fs::path dir = mount;
    if (m.root == "/" || group == m.root || group.rfind(m.root + "/", 0) == 0) {
        const std::string rest = m.root == "/" ? group : group.substr(m.root.size());
        std::error_code ec;
        if (fs::is_directory(mount / fs::path(rest).relative_path(), ec)) dir = mount / fs::path(rest).relative_path();
    }
    dir = dir.lexically_normal();
    if (!dir.empty() && dir.filename().empty()) dir = dir.parent_path();  // no trailing separator
    const fs::path top = mount.lexically_normal();
    std::vector<fs::path> out;
    for (fs::path d = dir;;) {
        out.push_back(d);
        const fs::path up = d.parent_path();
        if (d == top || up == d || up.string().size() < top.string().size()) break;
        d = up;
    }
    return out;
}

}  // namespace

CpuQuota read_cpu_quota(const fs::path& root) {
    CpuQuota q;
    bool v1 = false;
    // From this group up to the mount's root: a group's quota binds every group below it.
    for (const fs::path& d : own_groups(root, "cpu", v1)) {
        double processors = 0, period_s = 0;
        if (group_quota(d, v1, processors, period_s)) {
            q.stat_files.push_back(d / "cpu.stat");
            if (q.processors == 0 || processors < q.processors) {
                q.processors = processors;
                q.period_s = period_s;
                q.group = d.string();
            }
        }
    }
    return q;
}

std::uint64_t read_memory_limit(const fs::path& root) {
    std::uint64_t tightest = 0;
    bool v1 = false;
    for (const fs::path& d : own_groups(root, "memory", v1)) {
        // v1 writes "no limit" as a huge number (the page counter's maximum), v2 as "max".
        std::string text;
        std::istringstream(read_file_or_empty(d / (v1 ? "memory.limit_in_bytes" : "memory.max"))) >> text;
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::uint64_t bytes = std::strtoull(text.c_str(), nullptr, 10);
        if (bytes == 0 || bytes >= (std::uint64_t{1} << 60)) continue;
        if (tightest == 0 || bytes < tightest) tightest = bytes;
    }
    return tightest;
}

const CpuQuota& own_cpu_quota() {
    static const CpuQuota q = read_cpu_quota();
    return q;
}

int affinity_processors() {
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

double binding_quota_processors() {
    const CpuQuota& q = own_cpu_quota();
    return q.any() && q.processors < affinity_processors() ? q.processors : 0.0;
}

Throttling read_throttling(const CpuQuota& quota) {
    Throttling t;
    for (const auto& file : quota.stat_files) {
        std::istringstream in(read_file_or_empty(file));
        std::string key;
        long long value = 0;
        while (in >> key >> value) {
            if (key == "nr_throttled")
                t.events += value;
            else if (key == "throttled_time")
                t.time_ns += value;
            else if (key == "throttled_usec")
                t.time_ns += value * 1000;
        }
    }
    return t;
}

std::vector<int> descendant_processes(int pid, const fs::path& proc) {
    // Every process's parent, from its stat line: "pid (name) state ppid ...", the name in
    // parentheses possibly holding spaces and parentheses itself (so: after the last ')').
    std::multimap<int, int> children;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(proc, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::string stat = read_file_or_empty(e.path() / "stat");
        const auto close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(stat.substr(close + 1));
        std::string state;
        int parent = 0;
        if (rest >> state >> parent) children.emplace(parent, std::atoi(name.c_str()));
    }
    std::vector<int> out{pid};
    for (std::size_t i = 0; i < out.size(); ++i) {
        const auto [from, to] = children.equal_range(out[i]);
        for (auto it = from; it != to; ++it) out.push_back(it->second);
    }
    return out;
}

double processes_cpu_seconds(const std::vector<int>& pids) {
    double total = 0;
    for (const int pid : pids) {
#ifdef __linux__
        clockid_t clock;
        timespec ts{};
        if (::clock_getcpuclockid(pid, &clock) != 0 || ::clock_gettime(clock, &ts) != 0) return -1;
        total += static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
#else
        (void)pid;
        return -1;  // no cgroups there either: never asked
#endif
    }
    return total;
}

}  // namespace workbook
