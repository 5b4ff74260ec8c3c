// `workbook doctor` (see doctor.hpp). It follows the path the OpenCL stack takes: the ICD loader
// reads the .icd files, loads the driver libraries they name, asks them for platforms; then every
// device must build and run a kernel. Each step reports on its own, so one broken piece (a driver
// that crashes at build time, a stale .icd file) does not hide the state of the others.
#include "workbook/doctor.hpp"

#include "workbook/cl.hpp"
#include "workbook/device.hpp"
#include "workbook/errors.hpp"
#include "workbook/race_check.hpp"
#include "workbook/run_main.hpp"

#include <fmt/format.h>

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace workbook {
namespace {

namespace fs = std::filesystem;

const char* const install_pocl = "apt-get install pocl-opencl-icd";

// ---------------------------------------------------------------------------------------------
// Output

enum class Mark { ok, bad, warn };

class Report {
public:
    explicit Report(bool color) : color_(color) {}

    void heading(std::string_view title) const { fmt::print("\n{}\n", title); }

    // "  [ok] text"; the lines of a multi-line text after the first are indented under it.
    void item(Mark mark, std::string_view text) const {
        fmt::print("  {} ", marker(mark));
        print_indented(text, "       ");
    }

    // A line under the previous item, without a marker.
    void detail(std::string_view text) const {
        fmt::print("       ");
        print_indented(text, "       ");
    }

private:
    std::string marker(Mark mark) const {
        const char* text = mark == Mark::ok ? "[ok]" : mark == Mark::bad ? "[!!]" : "[--]";
        if (!color_) return text;
        const char* colour = mark == Mark::ok ? "\033[32m" : mark == Mark::bad ? "\033[31m" : "\033[33m";
        return fmt::format("{}{}\033[0m", colour, text);
    }

    static void print_indented(std::string_view text, std::string_view indent) {
        std::size_t start = 0;
        while (true) {
            const std::size_t end = text.find('\n', start);
            fmt::print("{}{}\n", start == 0 ? "" : indent, text.substr(start, end - start));
            if (end == std::string_view::npos || end + 1 == text.size()) break;
            start = end + 1;
        }
    }

    bool color_;
};

// OpenCL info strings may keep their terminating NUL; printed without it.
std::string clean(std::string s) {
    while (!s.empty() && (s.back() == '\0' || s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

// The message of any exception, for the per-device catch-alls (OpenCL errors by name).
std::string describe_current_exception() { return describe_exception(std::current_exception()); }

// ---------------------------------------------------------------------------------------------
// 1. ICD files

struct LibraryProbe {
    bool loaded = false;
    bool is_icd = false;   // has the entry point through which the loader finds its platforms
    std::string resolved;  // the file the dynamic linker chose
    std::string error;     // dlerror() when it did not load
};

// Loads the library as the ICD loader would, and keeps it loaded (RTLD_NODELETE): a driver
// unloaded and loaded again by the ICD loader runs its static initialisers twice, which PoCL's
// LLVM passes do not survive ("Option 'add-wi-metadata' registered more than once").
LibraryProbe probe_library(const std::string& name) {
    LibraryProbe probe;
    dlerror();
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle) {
        const char* why = dlerror();
        probe.error = why ? why : "dlopen failed without a reason";
        return probe;
    }
    probe.loaded = true;
    // The loader asks the driver's clGetExtensionFunctionAddress for clIcdGetPlatformIDsKHR; few
    // drivers export the latter directly.
    probe.is_icd = dlsym(handle, "clGetExtensionFunctionAddress") || dlsym(handle, "clIcdGetPlatformIDsKHR");
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) probe.resolved = map->l_name;
    dlclose(handle);
    return probe;
}

// The library name an .icd file holds: its first line, trimmed.
std::string read_icd_file(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    const auto first = line.find_first_not_of(" \t");
    return first == std::string::npos ? std::string{} : clean(line.substr(first));
}

void report_library(const Report& out, const std::string& icd, const std::string& library) {
    if (library.empty()) {
        out.item(Mark::bad, fmt::format("{}: empty, names no library.\nFix: write the driver library's name or "
                                        "path into it, or delete it",
                                        icd));
        return;
    }
    const LibraryProbe probe = probe_library(library);
    if (!probe.loaded) {
        out.item(Mark::bad, fmt::format("{}: {} cannot be loaded: {}\nFix: install the vendor's OpenCL driver "
                                        "package, or correct the library path in {}",
                                        icd, library, probe.error, icd));
    } else if (!probe.is_icd) {
        out.item(Mark::warn, fmt::format("{}: {} loads ({}) but exports no clGetExtensionFunctionAddress, so the "
                                         "loader will skip it: it is not an OpenCL ICD driver",
                                         icd, library, probe.resolved));
    } else {
        out.item(Mark::ok, fmt::format("{}: {} loads from {}", icd, library, probe.resolved));
    }
}

void check_icd_files(const Report& out) {
    out.heading("1. ICD files (the OpenCL drivers the loader knows)");
    const char* env = std::getenv("OCL_ICD_VENDORS");
    const std::string dir = env ? env : "/etc/OpenCL/vendors";
    out.detail(env ? fmt::format("OCL_ICD_VENDORS={} (instead of /etc/OpenCL/vendors)", dir) : "directory: " + dir);
    const std::string no_icd = fmt::format(
        "no ICD file: the loader finds no OpenCL driver.\nFix: {} (CPU) or your "
        "GPU vendor's OpenCL ICD package",
        install_pocl);

    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        // ocl-icd takes a value of OCL_ICD_VENDORS that is not a directory as one driver to load.
        if (env && (fs::exists(dir, ec) || dir.find('/') == std::string::npos)) {
            out.detail("not a directory: ocl-icd loads it as a single driver");
            report_library(out, "OCL_ICD_VENDORS", fs::path(dir).extension() == ".icd" ? read_icd_file(dir) : dir);
        } else {
            out.item(Mark::bad, fmt::format("{} does not exist: {}", dir, no_icd));
        }
        return;
    }
    std::vector<fs::path> icds;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".icd") icds.push_back(entry.path());
    std::sort(icds.begin(), icds.end());
    if (icds.empty()) out.item(Mark::bad, no_icd);
    for (const auto& icd : icds) report_library(out, icd.filename().string(), read_icd_file(icd));
}

// ---------------------------------------------------------------------------------------------
// 2. ICD loader

// ocl-icd's extension (the Khronos loader answers it too): its name and version.
using LoaderInfoFn = cl_int (*)(cl_uint, size_t, void*, size_t*);
constexpr cl_uint icdl_version = 2;
constexpr cl_uint icdl_name = 3;

std::string loader_info(LoaderInfoFn fn, cl_uint what) {
    char buffer[256] = {};
    if (fn(what, sizeof buffer - 1, buffer, nullptr) != CL_SUCCESS) return {};
    return clean(buffer);
}

void check_loader(const Report& out) {
    out.heading("2. ICD loader (libOpenCL.so.1)");
    // dladdr(&clGetPlatformIDs) alone can name the executable itself (a non-PIE binary resolves
    // the address to its own PLT stub), so ask the loaded libOpenCL.so.1 for the symbol first.
    void* handle = dlopen("libOpenCL.so.1", RTLD_LAZY | RTLD_NOLOAD);
    void* symbol = handle ? dlsym(handle, "clGetPlatformIDs") : nullptr;
    if (!symbol) symbol = reinterpret_cast<void*>(&clGetPlatformIDs);
    Dl_info info{};
    std::string path = dladdr(symbol, &info) && info.dli_fname ? info.dli_fname : "(unknown)";
    std::error_code ec;
    const auto real = fs::canonical(path, ec);
    if (!ec && real.string() != path) path += " -> " + real.string();

    // clGetExtensionFunctionAddress is deprecated in the headers; looked up by name instead.
    using GetAddressFn = void* (*)(const char*);
    auto get_address =
        handle ? reinterpret_cast<GetAddressFn>(dlsym(handle, "clGetExtensionFunctionAddress")) : nullptr;
    auto info_fn = get_address ? reinterpret_cast<LoaderInfoFn>(get_address("clGetICDLoaderInfoOCLICD")) : nullptr;
    if (info_fn) {
        out.item(Mark::ok,
                 fmt::format("{} {}: {}", loader_info(info_fn, icdl_name), loader_info(info_fn, icdl_version), path));
    } else {
        out.item(Mark::ok, fmt::format("{} (a loader without the clGetICDLoaderInfoOCLICD query)", path));
    }
    if (handle) dlclose(handle);
}

// ---------------------------------------------------------------------------------------------
// 3. Platforms and devices

struct DeviceRecord {
    std::size_t index = 0;  // as in the list of `--list` and WORKBOOK_DEVICE
    cl::Device device;
    std::string label;  // "Platform / Device"
    bool usable = false;
};

bool is_pocl(const cl::Platform& platform) {
    const std::string all = platform.getInfo<CL_PLATFORM_NAME>() + platform.getInfo<CL_PLATFORM_VENDOR>() +
                            platform.getInfo<CL_PLATFORM_VERSION>();
    return all.find("Portable Computing Language") != std::string::npos || all.find("pocl") != std::string::npos ||
           all.find("PoCL") != std::string::npos;
}

void print_device(const Report& out, std::size_t index, const cl::Device& device) {
    constexpr cl_ulong MiB = 1024 * 1024;
    out.item(Mark::ok, fmt::format("device [{}] {} ({})", index, clean(device.getInfo<CL_DEVICE_NAME>()),
                                   device_type_name(device.getInfo<CL_DEVICE_TYPE>())));
    out.detail(fmt::format("{}, driver {}", clean(device.getInfo<CL_DEVICE_OPENCL_C_VERSION>()),
                           clean(device.getInfo<CL_DRIVER_VERSION>())));
    out.detail(fmt::format("{} compute units, max work-group size {}", device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(),
                           device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>()));
    out.detail(fmt::format("global memory {} MiB, local memory {} KiB, max allocation {} MiB",
                           device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>() / MiB,
                           device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>() / 1024,
                           device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>() / MiB));
}

// The devices of one platform, printed and appended to `records`.
void list_platform(const Report& out, std::size_t number, const cl::Platform& platform,
                   std::vector<DeviceRecord>& records) {
    const std::string name = clean(platform.getInfo<CL_PLATFORM_NAME>());
    out.item(Mark::ok,
             fmt::format("platform {}: {} ({}), {}", number, name, clean(platform.getInfo<CL_PLATFORM_VENDOR>()),
                         clean(platform.getInfo<CL_PLATFORM_VERSION>())));
    std::vector<cl::Device> devices;
    try {
        platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error& e) {
        if (e.err() != CL_DEVICE_NOT_FOUND) throw;
    }
    if (devices.empty()) out.item(Mark::warn, "no device on this platform");
    for (const auto& device : devices) {
        const std::size_t index = records.size();
        records.push_back({index, device, name, false});
        try {
            records.back().label = name + " / " + clean(device.getInfo<CL_DEVICE_NAME>());
            print_device(out, index, device);
        } catch (...) {
            out.item(Mark::bad,
                     fmt::format("device [{}]: cannot read its properties: {}", index, describe_current_exception()));
        }
    }
}

std::vector<DeviceRecord> check_platforms(const Report& out) {
    out.heading("3. Platforms and devices");
    std::vector<DeviceRecord> records;
    // The C call, not cl::Platform::get, to see the loader's own status code.
    cl_uint count = 0;
    const cl_int err = clGetPlatformIDs(0, nullptr, &count);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && count == 0)) {
        out.item(Mark::bad, fmt::format("no OpenCL platform: the loader found no working driver.\nFix: {} (CPU) or "
                                        "your GPU vendor's OpenCL ICD package",
                                        install_pocl));
        return records;
    }
    if (err != CL_SUCCESS) {
        out.item(Mark::bad, fmt::format("clGetPlatformIDs failed: {} ({})", error_name(err), err));
        return records;
    }
    std::vector<cl_platform_id> ids(count);
    clGetPlatformIDs(count, ids.data(), nullptr);

    bool pocl = false;
    for (cl_uint i = 0; i < count; ++i) {
        const cl::Platform platform(ids[i]);
        try {
            pocl = pocl || is_pocl(platform);
            list_platform(out, i, platform, records);
        } catch (...) {
            out.item(Mark::bad, fmt::format("platform {}: {}", i, describe_current_exception()));
        }
    }
    if (!pocl)
        out.item(Mark::warn,
                 fmt::format("PoCL is not installed: the default CPU device of this course.\nFix: {}", install_pocl));
    return records;
}

// ---------------------------------------------------------------------------------------------
// 4. Test kernel

const char* const test_kernel_source = R"(
__kernel void twice(__global float* x) {
    size_t i = get_global_id(0);
    x[i] = 2.0f * x[i] + 1.0f;
}
)";

// The first `max_lines` lines of a build log.
std::string head(const std::string& log, std::size_t max_lines) {
    std::istringstream in(log);
    std::string out, line;
    std::size_t n = 0;
    while (std::getline(in, line)) {
        if (n++ == max_lines) return out + "...";
        out += line + "\n";
    }
    return out.empty() ? "(empty build log)" : out;
}

// Builds the kernel; on failure prints the log and returns false.
bool build_test_program(const Report& out, const cl::Program& program, const cl::Device& device) {
    try {
        program.build(std::vector<cl::Device>{device});
        return true;
    } catch (const cl::Error& e) {
        out.item(Mark::bad, fmt::format("the test kernel did not build: {} ({})", error_name(e.err()), e.err()));
        std::string log;
        try {
            log = clean(program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device));
        } catch (...) {
            log = "(no build log: " + describe_current_exception() + ")";
        }
        out.detail(head(log, 20));
        out.detail(
            "Fix: the driver's OpenCL C compiler fails on a trivial kernel: update or reinstall the driver\n"
            "(PoCL: apt-get install --reinstall pocl-opencl-icd libpocl2), or choose another device");
        return false;
    }
}

// Builds and runs `twice` on 1000 elements and checks every result.
bool test_device(const Report& out, const cl::Device& device) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const cl::Context context(device);
    const cl::CommandQueue queue(context, device);
    const cl::Program program(context, test_kernel_source);
    if (!build_test_program(out, program, device)) return false;

    constexpr std::size_t n = 1000;
    std::vector<float> data(n);
    std::iota(data.begin(), data.end(), 0.0f);
    const cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), data.data());
    cl::Kernel kernel(program, "twice");
    kernel.setArg(0, buffer);
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(n));
    queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(float), data.data());
    const double ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();

    for (std::size_t i = 0; i < n; ++i) {
        const float want = 2.0f * static_cast<float>(i) + 1.0f;
        if (data[i] != want) {
            out.item(Mark::bad, fmt::format("the test kernel ran but computed x[{}] = {} instead of {}.\nFix: the "
                                            "driver computes wrong results: update or reinstall it",
                                            i, data[i], want));
            return false;
        }
    }
    out.item(Mark::ok, fmt::format("ok (built and ran in {:.1f} ms)", ms));
    return true;
}

void check_kernels(const Report& out, std::vector<DeviceRecord>& records) {
    out.heading("4. Test kernel (build, run on 1000 elements, check)");
    if (records.empty()) out.item(Mark::bad, "no device to test");
    for (auto& r : records) {
        out.detail(fmt::format("device [{}] {}", r.index, r.label));
        try {
            r.usable = test_device(out, r.device);
        } catch (...) {
            out.item(Mark::bad, fmt::format("failed at run time: {}\nFix: update or reinstall this device's driver, "
                                            "or choose another device",
                                            describe_current_exception()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Race check

void check_race_tool(const Report& out) {
    out.heading("5. Oclgrind race check (optional)");
    const auto a = race::availability();
    if (!a.on) {
        out.item(Mark::warn, fmt::format("race check off: {}", a.why_off));
    } else if (a.command.find('/') != std::string::npos && access(a.command.c_str(), X_OK) != 0) {
        // availability() takes WORKBOOK_OCLGRIND on trust; a wrong path would fail only later.
        out.item(Mark::warn, fmt::format("race check: {} is not an executable file.\nFix: correct WORKBOOK_OCLGRIND "
                                         "or unset it",
                                         a.command));
    } else {
        out.item(Mark::ok, fmt::format("race check usable: {}", a.command));
    }
}

// ---------------------------------------------------------------------------------------------
// Summary

struct DefaultChoice {
    std::string description = "none";
    bool chosen = false;
    bool usable = false;  // it passed the test kernel
};

// The device workbook programs pick with no flags (WORKBOOK_* variables apply).
DefaultChoice default_device(const Report& out, const std::vector<DeviceRecord>& records) {
    DefaultChoice result;
    // With no device at all, select_device would only repeat the no-platform message above.
    if (records.empty()) return result;
    try {
        const DeviceChoice choice = select_device(DeviceQuery::from_environment());
        result.description = choice.describe();
        result.chosen = true;
        for (const auto& r : records)
            if (r.usable && r.device() == choice.device()) result.usable = true;
    } catch (...) {
        result.description = "none, the choice failed (see above)";
        out.item(Mark::bad, fmt::format("choosing the device failed: {}", describe_current_exception()));
    }
    return result;
}

void summarize(const Report& out, const std::vector<DeviceRecord>& records, std::size_t usable) {
    out.heading("Summary");
    const DefaultChoice choice = default_device(out, records);
    out.item(usable > 0 ? Mark::ok : Mark::bad,
             fmt::format("{} usable device(s); the workbook will use: {}", usable, choice.description));
    if (usable > 0 && choice.chosen && !choice.usable)
        out.item(Mark::warn,
                 "that device failed the test kernel above.\nFix: choose a usable one with "
                 "WORKBOOK_DEVICE=<index> (or --device), using the indices above");
    if (usable == 0)
        out.item(Mark::bad, fmt::format("no usable OpenCL device: no exercise can run. Fix the [!!] items above "
                                        "(without a GPU driver: {}), then run `workbook doctor` again.",
                                        install_pocl));
}

}  // namespace

int run_doctor(const DoctorOptions& options) {
    const Report out(options.color);
    fmt::print("workbook doctor: checks the OpenCL installation\n");
    check_icd_files(out);
    check_loader(out);
    auto records = check_platforms(out);
    check_kernels(out, records);
    check_race_tool(out);
    const auto usable = static_cast<std::size_t>(
        std::count_if(records.begin(), records.end(), [](const DeviceRecord& r) { return r.usable; }));
    summarize(out, records, usable);
    std::fflush(stdout);
    return usable > 0 ? exit_ok : exit_error;
}

}  // namespace workbook
