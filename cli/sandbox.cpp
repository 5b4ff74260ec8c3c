// Building the sandbox command (see sandbox.hpp).
#include "sandbox.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace workbook::cli {

std::vector<std::string> Sandbox::wrapper() const {
    std::vector<std::string> w = {"prlimit",
                                  fmt::format("--cpu={}", limits.cpu_s),
                                  fmt::format("--as={}", limits.memory_mib << 20),
                                  fmt::format("--nproc={}", limits.processes),
                                  fmt::format("--fsize={}", limits.file_mib << 20),
                                  "--core=0",
                                  "--",
                                  "setpriv",
                                  // Never root: root ignores RLIMIT_NPROC.
                                  fmt::format("--reuid={}", uid),
                                  fmt::format("--regid={}", uid),
                                  "--clear-groups",
                                  "--inh-caps=-all",
                                  "--"};
    // The allow-listed environment (see sandbox.hpp).
    std::vector<std::pair<std::string, std::string>> vars = {
        {"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", scratch}, {"POCL_CACHE_DIR", scratch + "/.pocl-cache"}};
    for (const char* name : {"WORKBOOK_PLATFORM", "WORKBOOK_DEVICE", "WORKBOOK_DEVICE_TYPE", "OCL_ICD_VENDORS",
                             "OCL_ICD_FILENAMES", "POCL_DEVICES", "POCL_AFFINITY", "POCL_MAX_PTHREAD_COUNT", "LANG"})
        if (const char* v = std::getenv(name); v && *v) vars.emplace_back(name, v);
    vars.insert(vars.end(), env.begin(), env.end());
    if (!namespaces) {
        w.insert(w.end(), {"env", "-i"});
        for (const auto& [k, v] : vars) w.push_back(k + "=" + v);
        return w;
    }
    // bwrap itself starts with an empty environment: its own process (PID 1 inside, whose
    // /proc/1/environ the runner can read) must not carry the grader's.
    for (const char* a : {"env", "-i", "/usr/bin/bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                          "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"})
        w.push_back(a);
    for (const auto& v : visible) w.insert(w.end(), {"--ro-bind", v, v});
    for (const auto& h : hidden) w.insert(w.end(), {"--tmpfs", h});
    for (const auto& f : hidden_files) w.insert(w.end(), {"--ro-bind", "/dev/null", f});
    for (const auto& r : readable) w.insert(w.end(), {"--ro-bind", r, r});
    w.insert(w.end(), {"--bind", scratch, scratch, "--chdir", scratch});
    for (const auto& [k, v] : vars) w.insert(w.end(), {"--setenv", k, v});
    w.push_back("--");
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
    return run_process(full, timeout, {}, output_cap);
}

std::string sandbox_problem() {
    using namespace std::chrono_literals;
    if (!std::filesystem::exists("/usr/bin/bwrap"))
        return "bubblewrap is not installed (apt-get install bubblewrap)";
    Sandbox probe;
    probe.scratch = std::filesystem::temp_directory_path().string();
    const auto r = probe.run({"true"}, 20s);
    if (!r.passed())
        return fmt::format("bubblewrap cannot create its namespaces here ({}): {}", r.status(), r.output);
    return {};
}

}  // namespace workbook::cli
