// Per-submission budgets (see budget.hpp).
#include "workbook/grading/budget.hpp"

#include "workbook/text.hpp"  // read_file_or_empty

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace workbook::grading {

namespace {

// Writes `text` to a cgroup or proc file; the error, if any, as a sentence.
std::string write_to(const fs::path& file, const std::string& text) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return fmt::format("{}: {}", file.string(), std::strerror(errno));
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const int err = errno;
    ::close(fd);
    return ok ? std::string() : fmt::format("writing \"{}\" to {}: {}", text, file.string(), std::strerror(err));
}

// This process's group in a hierarchy: "0::/a/b" (v2) or "4:memory:/a/b" (v1).
std::string own_group(const std::string& controller) {
    std::istringstream in(read_file_or_empty("/proc/self/cgroup"));
    for (std::string line; std::getline(in, line);) {
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string list = line.substr(a + 1, b - a - 1);
        if (controller.empty() ? list.empty() : ("," + list + ",").find("," + controller + ",") != std::string::npos)
            return line.substr(b + 1);
    }
    return "/";
}

// The folder of this process's group under a mounted hierarchy; the mount's root where the two
// disagree (a cgroup namespace that the mount does not reflect).
fs::path own_folder(const fs::path& mount, const std::string& controller) {
    const fs::path p = mount / fs::path(own_group(controller)).relative_path();
    std::error_code ec;
    return fs::is_directory(p, ec) ? p : mount;
}

long counter(const fs::path& file, const std::string& key) {
    std::istringstream in(read_file_or_empty(file));
    for (std::string k; in >> k;) {
        long v = 0;
        if (!(in >> v)) break;
        if (k == key) return v;
    }
    return 0;
}

// Stops every process of a group and removes it; a group that will not empty is left behind.
void remove_group(const fs::path& g) {
    for (int attempt = 0; attempt < 50; ++attempt) {
        std::istringstream in(read_file_or_empty(g / "cgroup.procs"));
        bool any = false;
        for (long pid; in >> pid;) {
            any = true;
            ::kill(static_cast<pid_t>(pid), SIGKILL);
        }
        if (!any && ::rmdir(g.c_str()) == 0) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

// The folders where this machine keeps the cgroups of grading runs.
std::vector<fs::path> run_group_homes() {
    if (fs::exists("/sys/fs/cgroup/cgroup.controllers")) return {own_folder("/sys/fs/cgroup", "")};
    return {own_folder("/sys/fs/cgroup/memory", "memory"), own_folder("/sys/fs/cgroup/pids", "pids"),
            own_folder("/sys/fs/cgroup/cpuacct", "cpuacct")};
}

}  // namespace

std::vector<std::string> reclaim_leftovers(const fs::path& scratch_root) {
    std::vector<std::string> done;
    const std::string root = fs::weakly_canonical(scratch_root).string() + "/";
    std::istringstream mounts(read_file_or_empty("/proc/self/mountinfo"));
    for (std::string line; std::getline(mounts, line);) {
        std::istringstream f(line);
        std::string id, parent, devno, mount_root, point;
        f >> id >> parent >> devno >> mount_root >> point;
        if (point.rfind(root, 0) == 0 && ::umount2(point.c_str(), MNT_DETACH) == 0) done.push_back("unmounted " + point);
    }
    if (::geteuid() != 0) return done;
    std::error_code ec;
    for (const auto& home : run_group_homes())
        for (const auto& e : fs::directory_iterator(home, ec)) {
            const std::string n = e.path().filename().string();
            if (n.rfind("workbook-grade-", 0) != 0 || !e.is_directory()) continue;
            const long pid = std::atol(n.c_str() + 15);
            if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
            for (const auto& g : fs::directory_iterator(e.path(), ec))
                if (g.is_directory()) remove_group(g.path());
            remove_group(e.path());
            done.push_back("removed the cgroup " + e.path().string() + " of a grading run that was stopped");
        }
    return done;
}

BudgetSupport::BudgetSupport(BudgetLimits limits) : limits_(limits) {
    const std::string run = fmt::format("workbook-grade-{}", ::getpid());
    std::error_code ec;
    if (::geteuid() != 0) {
        why_no_cgroups_ = why_no_tmpfs_ = "the grader does not run as root";
    } else if (fs::exists("/sys/fs/cgroup/cgroup.controllers")) {
        const fs::path own = own_folder("/sys/fs/cgroup", "");
        const std::string offered = " " + read_file_or_empty(own / "cgroup.controllers");
        if (offered.find(" memory") == std::string::npos || offered.find(" pids") == std::string::npos) {
            why_no_cgroups_ = fmt::format("cgroup v2 offers no memory or pids controller to {}", own.string());
        } else if (auto e = write_to(own / "cgroup.subtree_control", "+memory +pids"); !e.empty()) {
            why_no_cgroups_ = fmt::format("cgroup v2: {} cannot hand memory and pids to child groups ({}); run the "
                                          "grader in a delegated group (systemd-run --scope -p Delegate=yes ...)",
                                          own.string(), e);
        } else if (const fs::path p = own / run; !fs::create_directory(p, ec) && ec) {
            why_no_cgroups_ = fmt::format("cgroup v2: cannot make {}: {}", p.string(), ec.message());
        } else if (auto e2 = write_to(p / "cgroup.subtree_control", "+memory +pids"); !e2.empty()) {
            why_no_cgroups_ = "cgroup v2: " + e2;
            ::rmdir(p.c_str());
        } else {
            version_ = 2;
            parents_ = {p.string()};
        }
    } else if (fs::is_directory("/sys/fs/cgroup/memory") && fs::is_directory("/sys/fs/cgroup/pids")) {
        for (const char* c : {"memory", "pids"}) {
            const fs::path p = own_folder(fs::path("/sys/fs/cgroup") / c, c) / run;
            if (!fs::create_directory(p, ec) && ec) {
                why_no_cgroups_ = fmt::format("cgroup v1: cannot make {}: {}", p.string(), ec.message());
                break;
            }
            parents_.push_back(p.string());
        }
        if (why_no_cgroups_.empty()) version_ = 1;
        else
            for (const auto& p : parents_) ::rmdir(p.c_str());
        if (!version_) parents_.clear();
        // Accounting only: a machine without it grades the same, with no processor seconds.
        if (const fs::path a = "/sys/fs/cgroup/cpuacct"; version_ && fs::is_directory(a, ec)) {
            const fs::path p = own_folder(a, "cpuacct") / run;
            if (fs::create_directory(p, ec) || !ec) cpu_parent_ = p.string();
        }
    } else {
        why_no_cgroups_ = "no cgroup file system offers memory and pids here";
    }
    if (why_no_tmpfs_.empty()) {
        char probe[] = "/tmp/workbook-tmpfs-XXXXXX";
        if (!::mkdtemp(probe)) {
            why_no_tmpfs_ = std::string("cannot make a folder in /tmp: ") + std::strerror(errno);
        } else {
            if (::mount("tmpfs", probe, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=16") != 0)
                why_no_tmpfs_ = std::string("cannot mount a tmpfs: ") + std::strerror(errno);
            else
                ::umount2(probe, MNT_DETACH);
            ::rmdir(probe);
        }
    }
}

BudgetSupport::~BudgetSupport() {
    for (const auto& p : parents_) remove_group(p);
    if (!cpu_parent_.empty()) remove_group(cpu_parent_);
}

std::string BudgetSupport::describe() const {
    std::string s = cgroups() ? fmt::format("budget for the submission as a whole: memory {} MiB and {} processes (cgroup v{})",
                                            limits_.memory_mib, limits_.processes, version_)
                              : fmt::format("budget: memory and processes limited per process only (4 GiB address space, "
                                            "512 processes per user): {}",
                                            why_no_cgroups_);
    s += tmpfs() ? fmt::format("; scratch {} MiB and {} files (tmpfs)", limits_.disk_mib, limits_.files)
                 : fmt::format("; disk: 64 MiB per file, {} MiB and {} files checked after unpacking ({})", limits_.disk_mib,
                               limits_.files, why_no_tmpfs_);
    if (cgroups()) s += fmt::format("; its race passes (Oclgrind) {} MiB, in a cgroup of their own", limits_.race_memory_mib);
    return s;
}

Budget::Budget(const BudgetSupport& support, const std::string& name, long memory_mib) : support_(support) {
    make_groups(name, memory_mib);
}

Budget::Budget(const BudgetSupport& support, const std::string& name, const fs::path& scratch, int uid)
    : support_(support), scratch_(scratch) {
    const BudgetLimits& l = support.limits_;
    make_groups(name, l.memory_mib);
    if (support.tmpfs()) {
        const std::string options = fmt::format("size={}m,nr_inodes={},mode=0700,uid={},gid={}", l.disk_mib, l.files, uid, uid);
        if (::mount("tmpfs", scratch.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) == 0) mounted_ = true;
        else notes_.push_back(fmt::format("budget: cannot mount the scratch tmpfs: {}", std::strerror(errno)));
    }
}

void Budget::make_groups(const std::string& name, long memory_mib) {
    const BudgetSupport& support = support_;
    const BudgetLimits& l = support.limits_;
    const long bytes = memory_mib << 20;
    std::vector<std::pair<std::string, std::string>> settings;  // file, value
    for (std::size_t i = 0; i < support.parents_.size(); ++i) {
        const fs::path g = fs::path(support.parents_[i]) / name;
        std::error_code ec;
        if (!fs::create_directory(g, ec) && ec) {
            notes_.push_back(fmt::format("budget: cannot make the cgroup {}: {}", g.string(), ec.message()));
            continue;
        }
        groups_.push_back(g.string());
        procs_.push_back((g / "cgroup.procs").string());
        const bool memory = support.version_ == 2 || i == 0, pids = support.version_ == 2 || i == 1;
        std::string e;
        if (memory && support.version_ == 2) {
            e += write_to(g / "memory.max", std::to_string(bytes));
            write_to(g / "memory.swap.max", "0");  // absent without swap accounting: fine
        } else if (memory) {
            e += write_to(g / "memory.limit_in_bytes", std::to_string(bytes));
            write_to(g / "memory.memsw.limit_in_bytes", std::to_string(bytes));
        }
        if (pids) e += write_to(g / "pids.max", std::to_string(l.processes));
        if (!e.empty()) notes_.push_back("budget: " + e);
    }
    if (!support.cpu_parent_.empty() && !groups_.empty()) {
        const fs::path g = fs::path(support.cpu_parent_) / name;
        std::error_code ec;
        if (fs::create_directory(g, ec) || !ec) {
            groups_.push_back(g.string());
            procs_.push_back((g / "cgroup.procs").string());
        }
    }
}

Budget::~Budget() {
    for (const auto& g : groups_) remove_group(g);
    if (mounted_) ::umount2(scratch_.c_str(), MNT_DETACH);
}

long Budget::oom_kills() const {
    long n = 0;
    for (const auto& g : groups_) {
        n += counter(fs::path(g) / "memory.events", "oom_kill");       // v2
        n += counter(fs::path(g) / "memory.oom_control", "oom_kill");  // v1 (kernel 4.13 on)
    }
    return n;
}

bool Budget::scratch_full() const {
    struct statvfs s {};
    if (!mounted_ || ::statvfs(scratch_.c_str(), &s) != 0) return false;
    return s.f_bavail * s.f_frsize < (1UL << 20) || s.f_favail < 8;
}

}  // namespace workbook::grading
