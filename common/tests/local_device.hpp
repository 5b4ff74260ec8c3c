// The util layer's own unit tests run small kernels of ours in their own process (they are not
// graded tests, which never touch OpenCL themselves: see runner.hpp).
#pragma once

#include "workbook/device.hpp"
#include "workbook/timing.hpp"

namespace workbook::unit {

struct LocalDevice {
    DeviceChoice choice;
    cl::Context context;
    cl::CommandQueue queue;
};

inline LocalDevice& device() {
    static LocalDevice d = [] {
        const auto choice = select_device(DeviceQuery::from_environment());
        cl::Context context(choice.device);
        return LocalDevice{choice, context, make_queue(context, choice.device)};
    }();
    return d;
}

}  // namespace workbook::unit
