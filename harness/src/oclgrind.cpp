// Whether Oclgrind can run here (race_check.hpp): the race pass and the traffic report ask it.
// Apart from race_check.cpp so that the graded tests' library needs no process control for it.
#include "workbook/race_check.hpp"

#include "workbook/device.hpp"
#include "workbook/errors.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace workbook::race {

std::string oclgrind_path() {
    if (const char* v = std::getenv("WORKBOOK_OCLGRIND"); v && *v) return v;
    for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
        const auto p = std::filesystem::path(dir) / "oclgrind";
        if (std::filesystem::exists(p)) return p.string();
    }
    return {};
}

namespace {

#ifndef WORKBOOK_OVERLAP_PLUGIN
#define WORKBOOK_OVERLAP_PLUGIN nullptr
#endif
#ifndef WORKBOOK_FINGERPRINT_PLUGIN
#define WORKBOOK_FINGERPRINT_PLUGIN nullptr
#endif
#ifndef WORKBOOK_LOCAL_INIT_PLUGIN
#define WORKBOOK_LOCAL_INIT_PLUGIN nullptr
#endif

// One of our Oclgrind plugins by the path compiled in (null: this build has none, for want of
// `packages`), or empty with `why_not` saying what it does and how to get it.
std::string plugin(const char* path, const char* what, const char* packages, std::string& why_not) {
    if (path && std::filesystem::exists(path)) return path;
    why_not = path ? fmt::format("the Oclgrind plugin that {} is missing ({}): rebuild the workbook", what, path)
                   : fmt::format("this build has no Oclgrind plugin that {}: apt-get install {}, then run "
                                 "scripts/setup.sh again",
                                 what, packages);
    return {};
}

}  // namespace

std::string overlap_plugin(std::string& why_not) {
    return plugin(WORKBOOK_OVERLAP_PLUGIN, "counts when global loads are issued and first used", "liboclgrind-dev llvm-14-dev",
                  why_not);
}

std::string fingerprint_plugin(std::string& why_not) {
    return plugin(WORKBOOK_FINGERPRINT_PLUGIN, "checks kernels for pointer bits", "llvm-14-dev liboclgrind-dev", why_not);
}

std::string local_init_plugin(std::string& why_not) {
    return plugin(WORKBOOK_LOCAL_INIT_PLUGIN, "checks reads of local memory no work-item wrote", "liboclgrind-dev",
                  why_not);
}

std::optional<cl::Device> graded_device() {
    static const std::optional<cl::Device> device = []() -> std::optional<cl::Device> {
        try {
            DeviceQuery q = DeviceQuery::from_environment();
            // Under the race pass this process's own choice is cleared (Oclgrind is the runner's
            // platform); prepare() below kept the graded one under other names.
            if (const char* v = std::getenv("WORKBOOK_RACE_PASS"); v && std::string(v) == "1") {
                auto kept = [](const char* name) {
                    const char* value = std::getenv(name);
                    return Criterion{value ? value : "", name};
                };
                q = DeviceQuery{kept("WORKBOOK_GRADED_PLATFORM"), kept("WORKBOOK_GRADED_DEVICE"), kept("WORKBOOK_GRADED_DEVICE_TYPE")};
            }
            return select_device(q).device;
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }();
    return device;
}

std::vector<std::string> graded_device_options() {
    const auto device = graded_device();
    if (!device) return {};
    return {"--local-mem-size", std::to_string(device->getInfo<CL_DEVICE_LOCAL_MEM_SIZE>())};
}

Availability availability() {
    if (const char* v = std::getenv("WORKBOOK_RACE_CHECK"); v && (std::string(v) == "off" || std::string(v) == "0"))
        return {false, {}, "switched off by WORKBOOK_RACE_CHECK=" + std::string(v) + " (unset it to run the check)"};
    const std::string oclgrind = oclgrind_path();
    if (!oclgrind.empty() && !std::filesystem::exists(oclgrind))
        return {false, {}, "WORKBOOK_OCLGRIND names " + oclgrind + ", which does not exist (unset it, or point it at "
                           "oclgrind)"};
    if (oclgrind.empty())
        return {false, {}, "Oclgrind is not installed (apt-get install oclgrind, or set WORKBOOK_RACE_CHECK=off to "
                           "skip the check knowingly)"};
    if (std::string why_not; local_init_plugin(why_not).empty()) return {false, {}, why_not};
    return {true, oclgrind, {}};
}

Availability require_available(const std::string& who, const std::string& without_it) {
    auto a = availability();
    if (!a.on)
        throw Error(who + " race pass cannot run: " + a.why_off + ".\nFix: apt-get install oclgrind, or pass "
                    "--no-race-check " + without_it);
    // A student's check runs without the pointer-bits plugin where the build has none; what
    // grades or ranks does not, or a kernel that keeps its barrier for the simulator only passes.
    if (std::string why_not; fingerprint_plugin(why_not).empty())
        throw Error(who + " race pass cannot run: " + why_not + ".\nOr pass --no-race-check " + without_it);
    return a;
}

}  // namespace workbook::race
