// Device discovery and selection (see device.hpp). Matching is deliberately simple and
// predictable: a number is an index, anything else a case-insensitive part of a name.
#include "workbook/device.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace workbook {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

bool is_index(const std::string& s) {
    return !s.empty() && s.size() < 10 &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool contains_ci(const std::string& haystack, const std::string& needle) {
    return lower(haystack).find(lower(needle)) != std::string::npos;
}

Criterion env_criterion(const char* name) {
    const char* v = std::getenv(name);
    return Criterion{v ? v : "", name};
}

// CLHPP may keep the terminating NUL of info strings; names are compared and printed without it.
std::string clean(std::string s) {
    while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back()))))
        s.pop_back();
    return s;
}

std::string icd_directory() {
    const char* v = std::getenv("OCL_ICD_VENDORS");
    return v ? v : "/etc/OpenCL/vendors";
}

Error no_platform_error(int code) {
    std::string icds;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(icd_directory(), ec))
        if (entry.path().extension() == ".icd") icds += "\n    " + entry.path().string();
    return Error(fmt::format(
        "no OpenCL platform found (the ICD loader returned {}).\n"
        "  ICD files in {}:{}\n"
        "Fix: install an OpenCL driver. For the CPU: sudo apt-get install pocl-opencl-icd\n"
        "     For an NVIDIA GPU whose driver has no ICD file: echo libnvidia-opencl.so.1 > "
        "/etc/OpenCL/vendors/nvidia.icd",
        describe_error(code), icd_directory(), icds.empty() ? " none" : icds));
}

cl_device_type parse_type(const Criterion& c) {
    const std::string t = lower(c.value);
    if (t.empty() || t == "all") return CL_DEVICE_TYPE_ALL;
    if (t == "cpu") return CL_DEVICE_TYPE_CPU;
    if (t == "gpu") return CL_DEVICE_TYPE_GPU;
    if (t == "accelerator") return CL_DEVICE_TYPE_ACCELERATOR;
    if (t == "default") return CL_DEVICE_TYPE_DEFAULT;
    throw Error(fmt::format("{}=\"{}\" is not a device type.\nFix: use one of cpu, gpu, accelerator, "
                            "default, all.",
                            c.source, c.value));
}

Error no_match(const Criterion& c, const std::vector<DeviceEntry>& all, const std::string& why) {
    return Error(fmt::format("no OpenCL device matches {}=\"{}\" ({}).\nAvailable devices:\n{}"
                             "Fix: give {} an index or part of a name from this list, or unset it.",
                             c.source, c.value, why, format_device_list(all), c.source));
}

}  // namespace

DeviceQuery DeviceQuery::from_environment() {
    return DeviceQuery{env_criterion("WORKBOOK_PLATFORM"), env_criterion("WORKBOOK_DEVICE"),
                       env_criterion("WORKBOOK_DEVICE_TYPE")};
}

DeviceQuery DeviceQuery::overridden_by(const DeviceQuery& flags) const {
    auto pick = [](const Criterion& flag, const Criterion& env) { return flag.value.empty() ? env : flag; };
    return DeviceQuery{pick(flags.platform, platform), pick(flags.device, device), pick(flags.type, type)};
}

std::string device_type_name(cl_device_type type) {
    std::string out;
    auto add = [&](cl_device_type bit, const char* name) {
        if (type & bit) out += (out.empty() ? "" : "+") + std::string(name);
    };
    add(CL_DEVICE_TYPE_CPU, "CPU");
    add(CL_DEVICE_TYPE_GPU, "GPU");
    add(CL_DEVICE_TYPE_ACCELERATOR, "accelerator");
    add(CL_DEVICE_TYPE_CUSTOM, "custom");
    return out.empty() ? "unknown" : out;
}

std::vector<DeviceEntry> list_devices() {
    std::vector<cl::Platform> platforms;
    try {
        cl::Platform::get(&platforms);
    } catch (const cl::Error& e) {
        throw no_platform_error(e.err());
    }
    if (platforms.empty()) throw no_platform_error(CL_PLATFORM_NOT_FOUND_KHR);

    std::vector<DeviceEntry> out;
    for (const auto& platform : platforms) {
        std::vector<cl::Device> devices;
        try {
            platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
        } catch (const cl::Error& e) {
            if (e.err() != CL_DEVICE_NOT_FOUND) throw;  // a platform with no device is not an error
        }
        for (const auto& device : devices) {
            out.push_back(DeviceEntry{out.size(), platform, device, clean(platform.getInfo<CL_PLATFORM_NAME>()),
                                      clean(device.getInfo<CL_DEVICE_NAME>()), device.getInfo<CL_DEVICE_TYPE>()});
        }
    }
    if (out.empty()) throw no_platform_error(CL_DEVICE_NOT_FOUND);
    return out;
}

std::string format_device_list(const std::vector<DeviceEntry>& devices) {
    std::string out;
    for (const auto& d : devices)
        out += fmt::format("  [{}] {} / {} ({})\n", d.index, d.platform_name, d.device_name, device_type_name(d.type));
    return out;
}

std::string DeviceChoice::describe() const {
    return fmt::format("{} / {} ({}, {})", platform_name, device_name,
                       device_type_name(device.getInfo<CL_DEVICE_TYPE>()), clean(device.getInfo<CL_DEVICE_VERSION>()));
}

DeviceChoice select_device(const DeviceQuery& query) {
    const auto all = list_devices();
    std::vector<DeviceEntry> candidates = all;
    auto keep = [&](auto predicate) {
        candidates.erase(std::remove_if(candidates.begin(), candidates.end(), [&](const auto& d) { return !predicate(d); }),
                         candidates.end());
    };

    if (!query.platform.value.empty()) {
        const auto& want = query.platform.value;
        std::vector<std::string> platform_names;
        for (const auto& d : all)
            if (std::find(platform_names.begin(), platform_names.end(), d.platform_name) == platform_names.end())
                platform_names.push_back(d.platform_name);
        if (is_index(want)) {
            const auto i = std::stoul(want);
            if (i >= platform_names.size())
                throw no_match(query.platform, all, fmt::format("there are {} platforms", platform_names.size()));
            keep([&](const DeviceEntry& d) { return d.platform_name == platform_names[i]; });
        } else {
            keep([&](const DeviceEntry& d) { return contains_ci(d.platform_name, want); });
        }
        if (candidates.empty()) throw no_match(query.platform, all, "no platform name contains it");
    }
    if (!query.type.value.empty()) {
        const cl_device_type type = parse_type(query.type);
        // "default" is the platform's default device; the first candidate stands in for it.
        const std::size_t first = candidates.front().index;
        keep([&](const DeviceEntry& d) {
            if (type == CL_DEVICE_TYPE_ALL) return true;
            return type == CL_DEVICE_TYPE_DEFAULT ? d.index == first : (d.type & type) != 0;
        });
        if (candidates.empty()) throw no_match(query.type, all, "no device of that type left");
    }
    if (!query.device.value.empty()) {
        const auto& want = query.device.value;
        if (is_index(want)) {
            const auto i = std::stoul(want);
            if (i >= candidates.size())
                throw no_match(query.device, all,
                               fmt::format("index out of range: {} device(s) pass the other criteria", candidates.size()));
            candidates = {candidates[i]};
        } else {
            keep([&](const DeviceEntry& d) { return contains_ci(d.device_name, want); });
            if (candidates.empty()) throw no_match(query.device, all, "no device name contains it");
        }
    }
    const auto& d = candidates.front();
    return DeviceChoice{d.platform, d.device, d.platform_name, d.device_name};
}

}  // namespace workbook
