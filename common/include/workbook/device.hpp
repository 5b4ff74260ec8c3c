// Choosing the OpenCL device: by command-line flag or by WORKBOOK_PLATFORM, WORKBOOK_DEVICE and
// WORKBOOK_DEVICE_TYPE, with a message that lists what exists when the choice matches nothing.
#pragma once

#include "workbook/cl.hpp"

#include <string>
#include <vector>

namespace workbook {

// One criterion of the choice and where it came from, so an error can say "--device" or
// "WORKBOOK_DEVICE" as the user typed it.
struct Criterion {
    std::string value;   // empty: not given
    std::string source;  // "--device", "WORKBOOK_DEVICE", ...
};

struct DeviceQuery {
    Criterion platform;  // index or part of the platform name (case-insensitive)
    Criterion device;    // index among the remaining devices, or part of the device name
    Criterion type;      // cpu, gpu, accelerator, default or all

    // Reads WORKBOOK_PLATFORM, WORKBOOK_DEVICE and WORKBOOK_DEVICE_TYPE.
    static DeviceQuery from_environment();
    // Flags given on the command line win over the environment, criterion by criterion.
    DeviceQuery overridden_by(const DeviceQuery& flags) const;
};

// One device as --list shows it; `index` is its position in that list.
struct DeviceEntry {
    std::size_t index = 0;
    cl::Platform platform;
    cl::Device device;
    std::string platform_name;
    std::string device_name;
    cl_device_type type = 0;
};

struct DeviceChoice {
    cl::Platform platform;
    cl::Device device;
    std::string platform_name;
    std::string device_name;
    // "Portable Computing Language / pthread-haswell (CPU, OpenCL 3.0 PoCL ...)"
    std::string describe() const;
};

// Every device of every platform. Throws workbook::Error explaining how to install a driver
// when the ICD loader finds no platform at all.
std::vector<DeviceEntry> list_devices();

// The numbered table that --list prints and that selection errors include.
std::string format_device_list(const std::vector<DeviceEntry>& devices);

// The first device that satisfies every criterion given. Throws workbook::Error naming the
// criterion that matched nothing, listing the available devices and the fix.
DeviceChoice select_device(const DeviceQuery& query);

// "CPU", "GPU", "accelerator", "custom", or a '+'-joined combination.
std::string device_type_name(cl_device_type type);

}  // namespace workbook
