// Exercise 01: ask OpenCL what it can see. Fill in query_platforms(); the demo prints the result
// as a table, and the test compares every field with its own queries.
#include "device_info.hpp"

namespace workbook::ex01 {

std::vector<PlatformInfo> query_platforms() {
    std::vector<PlatformInfo> result;

    // TODO: get every platform with cl::Platform::get(&platforms).
    // TODO: for each platform, fill a PlatformInfo with platform.getInfo<CL_PLATFORM_NAME>() and
    //       the vendor and version the same way.
    // TODO: for each of its devices (platform.getDevices(CL_DEVICE_TYPE_ALL, &devices)), fill a
    //       DeviceInfo field by field; device_info.hpp names the CL_ query of each field.

    return result;
}

}  // namespace workbook::ex01
