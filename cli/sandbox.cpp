// Building the sandbox command (see sandbox.hpp).
#include "sandbox.hpp"

#include <fmt/format.h>

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
    if (!namespaces) return w;
    for (const char* a : {"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                          "--unshare-all", "--die-with-parent", "--new-session"})
        w.push_back(a);
    for (const auto& v : visible) w.insert(w.end(), {"--ro-bind", v, v});
    for (const auto& h : hidden) w.insert(w.end(), {"--tmpfs", h});
    for (const auto& r : readable) w.insert(w.end(), {"--ro-bind", r, r});
    w.insert(w.end(), {"--bind", scratch, scratch, "--chdir", scratch, "--setenv", "HOME", scratch, "--setenv",
                       "POCL_CACHE_DIR", scratch + "/.pocl-cache", "--"});
    return w;
}

ProcessResult Sandbox::run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                           const std::vector<std::string>& env, std::size_t output_cap) const {
    std::vector<std::string> full = wrapper();
    full.insert(full.end(), argv.begin(), argv.end());
    std::vector<std::string> environment = env;
    if (!namespaces) environment.insert(environment.end(), {"HOME=" + scratch, "POCL_CACHE_DIR=" + scratch + "/.pocl"});
    return run_process(full, timeout, environment, output_cap);
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
