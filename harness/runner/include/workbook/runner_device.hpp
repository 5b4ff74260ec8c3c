// The runner's device: chosen once from WORKBOOK_PLATFORM / WORKBOOK_DEVICE / WORKBOOK_DEVICE_TYPE,
// as every program chooses it. Only runners (which run student code) touch OpenCL for a test.
#pragma once

#include "workbook/cl.hpp"
#include "workbook/device.hpp"

namespace workbook::runner {

struct RunnerDevice {
    DeviceChoice choice;
    cl::Context context;
    cl::CommandQueue queue;  // in order, profiling on
};

RunnerDevice& device();

}  // namespace workbook::runner
