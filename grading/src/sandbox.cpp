// Building the sandbox command (see sandbox.hpp).
#include "workbook/grading/sandbox.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <signal.h>

namespace fs = std::filesystem;

namespace workbook::grading {

namespace {

// Joins every cgroup named before "--", as root (before setpriv), then runs the rest: a process
// cannot leave a cgroup it was put in without write access to another, which the user lacks.
constexpr const char* join_cgroups =
    "while [ \"$1\" != -- ]; do echo $$ > \"$1\" || exit 125; shift; done; shift; exec \"$@\"";

// Copies the read-only compiled kernels ($1) into this process's own cache, then runs the rest.
// Writable copies: PoCL notes each use and adds work-group variants in a program's folder. A copy
// that fails costs a build, nothing worse.
constexpr const char* copy_kernel_cache =
    "mkdir -p \"$POCL_CACHE_DIR\" && cp -R --no-preserve=mode \"$1\"/. \"$POCL_CACHE_DIR\"/ 2>/dev/null; shift; exec \"$@\"";

void bind_readonly(std::vector<std::string>& w, const fs::path& p) {
    std::error_code ec;
    if (fs::is_symlink(p, ec)) w.insert(w.end(), {"--symlink", fs::read_symlink(p, ec).string(), p.string()});
    else if (fs::exists(p, ec)) w.insert(w.end(), {"--ro-bind", p.string(), p.string()});
}

// The libraries an ICD file names outside the system folders (a driver unpacked under /opt).
void bind_icd_targets(std::vector<std::string>& w, const fs::path& vendors) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(vendors, ec)) {
        if (e.path().extension() != ".icd") continue;
        std::ifstream in(e.path());
        std::string lib;
        std::getline(in, lib);
        if (!lib.empty() && lib[0] == '/' && lib.rfind("/usr/", 0) != 0) bind_readonly(w, fs::path(lib).parent_path());
    }
}

}  // namespace

std::vector<std::string> system_mounts() {
    std::vector<std::string> w;
    for (const char* top : {"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) bind_readonly(w, top);
    // Read-only /sys: the CPU topology PoCL sizes its thread pool from.
    bind_readonly(w, "/sys");
    w.insert(w.end(), {"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"});
    // A GPU: its device nodes, which --dev leaves out.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/dev", ec)) {
        const std::string n = e.path().filename().string();
        if (n.rfind("nvidia", 0) == 0 || n == "dri" || n == "kfd") w.insert(w.end(), {"--dev-bind", e.path().string(), e.path().string()});
    }
    bind_icd_targets(w, "/etc/OpenCL/vendors");
    if (const char* v = std::getenv("OCL_ICD_VENDORS"); v && *v == '/') {
        bind_readonly(w, v);
        bind_icd_targets(w, v);
    }
    if (const char* v = std::getenv("OCL_ICD_FILENAMES"); v && *v) {
        std::istringstream in(v);
        for (std::string lib; std::getline(in, lib, ':');)
            if (!lib.empty() && lib[0] == '/' && lib.rfind("/usr/", 0) != 0) bind_readonly(w, lib);
    }
    return w;
}

std::vector<std::string> Sandbox::wrapper() const {
    std::vector<std::string> w;
    if (!cgroups.empty()) {
        w = {"sh", "-c", join_cgroups, "join-cgroups"};
        w.insert(w.end(), cgroups.begin(), cgroups.end());
        w.push_back("--");
    }
    // NVIDIA's OpenCL driver reserves far more address space than it uses (measured on the H100:
    // no platform under a 4 GiB RLIMIT_AS, found under 64 GiB), so on a machine with one the
    // address space is left unlimited; memory is then bounded by the cgroup where there is one.
    std::error_code ec;
    const std::string as = std::filesystem::exists("/dev/nvidiactl", ec) ? std::string("unlimited")
                                                                          : std::to_string(limits.memory_mib << 20);
    for (const std::string& a : {std::string("prlimit"), fmt::format("--cpu={}", limits.cpu_s),
                                 "--as=" + as, fmt::format("--nproc={}", limits.processes),
                                 fmt::format("--fsize={}", limits.file_mib << 20), std::string("--core=0"), std::string("--")})
        w.push_back(a);
    // Never root: root ignores RLIMIT_NPROC. (No uid: not root, nothing to switch.)
    if (uid >= 0)
        for (const std::string& a : {std::string("setpriv"), fmt::format("--reuid={}", uid), fmt::format("--regid={}", uid),
                                     std::string("--clear-groups"), std::string("--inh-caps=-all"), std::string("--")})
            w.push_back(a);
    // The allow-listed environment (see sandbox.hpp). HOME and the kernel cache in the process's
    // own /tmp: caches kept under HOME (PoCL's, NVIDIA's ~/.nv) are written by one runner of a
    // submission and read by the next, which must not run what another planted. Without
    // namespaces there is no private /tmp: the user's processes share the scratch folder's
    // cache, which each start restores from the compiled kernels (a process beside it can still write).
    const std::string own = namespaces ? std::string("/tmp") : scratch;
    std::vector<std::pair<std::string, std::string>> vars = {
        {"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", own}, {"POCL_CACHE_DIR", own + "/.pocl-cache"}};
    for (const char* name : {"WORKBOOK_PLATFORM", "WORKBOOK_DEVICE", "WORKBOOK_DEVICE_TYPE", "OCL_ICD_VENDORS",
                             "OCL_ICD_FILENAMES", "POCL_DEVICES", "POCL_AFFINITY", "POCL_MAX_PTHREAD_COUNT", "LANG"})
        if (const char* v = std::getenv(name); v && *v) vars.emplace_back(name, v);
    vars.insert(vars.end(), env.begin(), env.end());
    const auto copy_cache = [&] {
        if (!kernel_cache.empty()) w.insert(w.end(), {"sh", "-c", copy_kernel_cache, "copy-kernel-cache", kernel_cache});
    };
    if (!namespaces) {
        w.insert(w.end(), {"env", "-i"});
        for (const auto& [k, v] : vars) w.push_back(k + "=" + v);
        copy_cache();
        return w;
    }
    // bwrap itself starts with an empty environment: its own process (PID 1 inside, whose
    // /proc/1/environ and /proc/1/cmdline the runner can read) must not carry the grader's, and
    // its command line names only what is mounted anyway.
    for (const char* a : {"env", "-i", "/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"})
        w.push_back(a);
    const auto sys = system_mounts();
    w.insert(w.end(), sys.begin(), sys.end());
    for (const auto& r : readable) w.insert(w.end(), {"--ro-bind", r, r});
    w.insert(w.end(), {"--bind", scratch, scratch, "--chdir", scratch});
    if (!kernel_cache.empty()) w.insert(w.end(), {"--ro-bind", kernel_cache, kernel_cache});
    for (const auto& [k, v] : vars) w.insert(w.end(), {"--setenv", k, v});
    w.push_back("--");
    copy_cache();
    return w;
}

ProcessResult Sandbox::run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                           const std::vector<std::string>& env, std::size_t output_cap) const {
    Sandbox with = *this;
    for (const auto& e : env) {
        const auto eq = e.find('=');
        with.env.emplace_back(e.substr(0, eq), eq == std::string::npos ? "" : e.substr(eq + 1));
    }
    std::vector<std::string> full = with.wrapper();
    full.insert(full.end(), argv.begin(), argv.end());
    const CpuCharge charge(*this);
    return run_process(full, timeout, {}, output_cap);
}

double cgroups_cpu_seconds(const std::vector<std::string>& procs) {
    double seconds = 0;
    for (const auto& p : procs) {
        const std::filesystem::path group = std::filesystem::path(p).parent_path();
        if (std::ifstream v1(group / "cpuacct.usage"); v1) {
            double ns = 0;
            if (v1 >> ns) seconds += ns * 1e-9;
        } else if (std::ifstream v2(group / "cpu.stat"); v2) {
            std::string key;
            double value = 0;
            while (v2 >> key >> value)
                if (key == "usage_usec") {
                    seconds += value * 1e-6;
                    break;
                }
        }
    }
    return seconds;
}

namespace {

// Every process in the cgroups whose cgroup.procs files are `procs`.
std::set<long> cgroup_pids(const std::vector<std::string>& procs) {
    std::set<long> pids;
    for (const auto& file : procs) {
        std::ifstream in(file);
        for (long pid; in >> pid;) pids.insert(pid);
    }
    return pids;
}

// A task's run delay so far (time runnable but not running), in seconds; -1 when it is gone.
double run_delay(const fs::path& task) {
    std::ifstream in(task / "schedstat");
    double on_cpu = 0, waiting = 0;
    if (!(in >> on_cpu >> waiting)) return -1;
    return waiting * 1e-9;
}

}  // namespace

PassMeter::PassMeter(std::vector<std::string> cgroups, double grant_s)
    : cgroups_(std::move(cgroups)), grant_s_(grant_s), cpu_start_(cgroups_cpu_seconds(cgroups_)),
      start_(std::chrono::steady_clock::now()) {
    if (cgroups_.empty()) return;
    look();
    {
        const std::lock_guard lock(m_);
        before_ = waits_;  // tasks already there (none, for a pass that starts now) count from here
        for (auto& [task, w] : waits_) w = 0;
    }
    watcher_ = std::thread([this] {
        while (!done_) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            if (done_) break;
            look();
            if (charged_now() <= grant_s_) continue;
            stopped_ = true;
            for (const long pid : cgroup_pids(cgroups_)) ::kill(static_cast<pid_t>(pid), SIGKILL);
        }
    });
}

PassMeter::~PassMeter() { finish(); }

void PassMeter::look() {
    std::vector<std::pair<std::string, double>> seen;
    for (const long pid : cgroup_pids(cgroups_)) {
        std::error_code ec;
        for (fs::directory_iterator it(fmt::format("/proc/{}/task", pid), ec), end; !ec && it != end; it.increment(ec)) {
            const double d = run_delay(it->path());
            if (d >= 0) seen.emplace_back(fmt::format("{}/{}", pid, it->path().filename().string()), d);
        }
    }
    const std::lock_guard lock(m_);
    for (const auto& [task, d] : seen) {
        const auto was = before_.find(task);
        waits_[task] = std::max(waits_[task], d - (was == before_.end() ? 0.0 : was->second));
    }
}

double PassMeter::waited() const {
    const std::lock_guard lock(m_);
    double sum = 0;
    for (const auto& [task, w] : waits_) sum += w;
    return sum;
}

double PassMeter::cpu() const { return cgroups_cpu_seconds(cgroups_) - cpu_start_; }

double PassMeter::charged_now() const {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (cgroups_.empty()) return wall;
    return std::max(cpu(), wall - waited());
}

double PassMeter::finish() {
    if (!done_.exchange(true)) {
        if (watcher_.joinable()) watcher_.join();
        charged_ = charged_now();
    }
    return charged_;
}

CpuCharge::CpuCharge(const Sandbox& box) {
    if (box.namespaces) procs_ = box.cgroups;
    if (!procs_.empty()) start_ = cgroups_cpu_seconds(procs_);
}

CpuCharge::~CpuCharge() {
    if (!procs_.empty()) count_thread_work_cpu(std::max(0.0, cgroups_cpu_seconds(procs_) - start_));
}

std::string sandbox_problem() {
    using namespace std::chrono_literals;
    if (!fs::exists("/usr/bin/bwrap")) return "bubblewrap is not installed (apt-get install bubblewrap)";
    Sandbox probe;
    probe.scratch = fs::temp_directory_path().string();
    const auto r = probe.run({"true"}, 20s);
    if (!r.passed())
        return fmt::format("bubblewrap cannot create its namespaces here ({}): {}", r.status(), r.output);
    return {};
}

}  // namespace workbook::grading
