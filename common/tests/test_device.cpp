// Unit tests: device listing and selection, against whatever devices this machine has.
#include "workbook/device.hpp"
#include "workbook/errors.hpp"

#include <doctest/doctest.h>

#include <string>

using workbook::Criterion;
using workbook::DeviceQuery;

namespace {

std::string selection_error(const DeviceQuery& q) {
    try {
        workbook::select_device(q);
    } catch (const workbook::Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("the device list numbers every device") {
    const auto all = workbook::list_devices();
    REQUIRE_FALSE(all.empty());
    const auto text = workbook::format_device_list(all);
    CHECK(text.find("[0] ") != std::string::npos);
    CHECK(text.find(all.front().device_name) != std::string::npos);
}

TEST_CASE("a device that matches nothing is an error listing what exists") {
    const auto msg = selection_error(DeviceQuery{{}, Criterion{"nonexistent", "WORKBOOK_DEVICE"}, {}});
    CHECK(msg.find("WORKBOOK_DEVICE=\"nonexistent\"") != std::string::npos);
    CHECK(msg.find("Available devices") != std::string::npos);
    CHECK(msg.find(workbook::list_devices().front().device_name) != std::string::npos);
    CHECK(msg.find("Fix:") != std::string::npos);
}

TEST_CASE("indices out of range, bad types and unknown platforms are errors") {
    CHECK(selection_error(DeviceQuery{{}, Criterion{"999", "--device"}, {}}).find("index out of range") !=
          std::string::npos);
    CHECK(selection_error(DeviceQuery{{}, {}, Criterion{"gpuu", "--device-type"}}).find("not a device type") !=
          std::string::npos);
    CHECK(selection_error(DeviceQuery{Criterion{"no such vendor", "WORKBOOK_PLATFORM"}, {}, {}})
              .find("no platform name contains it") != std::string::npos);
}

TEST_CASE("selection by index, by part of a name in any case, and by type") {
    const auto first = workbook::list_devices().front();
    CHECK(workbook::select_device(DeviceQuery{{}, Criterion{"0", "--device"}, {}}).device_name == first.device_name);
    std::string part = first.device_name.substr(0, 4);
    for (auto& c : part) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CHECK(workbook::select_device(DeviceQuery{{}, Criterion{part, "--device"}, {}}).device_name == first.device_name);
    CHECK(workbook::select_device(DeviceQuery{Criterion{"0", "--platform"}, {}, Criterion{"all", "--device-type"}})
              .platform_name == first.platform_name);
}

TEST_CASE("flags override the environment one criterion at a time") {
    const DeviceQuery env{Criterion{"p-env", "WORKBOOK_PLATFORM"}, Criterion{"d-env", "WORKBOOK_DEVICE"}, {}};
    const DeviceQuery flags{{}, Criterion{"d-flag", "--device"}, Criterion{"cpu", "--device-type"}};
    const auto q = env.overridden_by(flags);
    CHECK(q.platform.value == "p-env");
    CHECK(q.device.source == "--device");
    CHECK(q.type.value == "cpu");
}

TEST_CASE("device type names") {
    CHECK(workbook::device_type_name(CL_DEVICE_TYPE_CPU) == "CPU");
    CHECK(workbook::device_type_name(CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR) == "GPU+accelerator");
}
