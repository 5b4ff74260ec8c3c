// Planted bug "memory_sizes_swapped" for the course check: the solution with one mistake students make.
// the query and the C++ type it returns, so no sizes or casts are needed.
#include "device_info.hpp"

namespace workbook::ex01 {

std::vector<PlatformInfo> query_platforms() {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);

    std::vector<PlatformInfo> result;
    for (const auto& platform : platforms) {
        PlatformInfo info{platform.getInfo<CL_PLATFORM_NAME>(), platform.getInfo<CL_PLATFORM_VENDOR>(),
                          platform.getInfo<CL_PLATFORM_VERSION>(), {}};
        std::vector<cl::Device> devices;
        // A platform may have no device at all: CLHPP reports that as CL_DEVICE_NOT_FOUND, which
        // here just means an empty list.
        try {
            platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
        } catch (const cl::Error& e) {
            if (e.err() != CL_DEVICE_NOT_FOUND) throw;
        }
        for (const auto& d : devices) {
            info.devices.push_back(DeviceInfo{
                d.getInfo<CL_DEVICE_NAME>(),
                d.getInfo<CL_DEVICE_VENDOR>(),
                d.getInfo<CL_DEVICE_VERSION>(),
                d.getInfo<CL_DEVICE_OPENCL_C_VERSION>(),
                d.getInfo<CL_DEVICE_TYPE>(),
                d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(),
                d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>(),
                d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>(),  // planted bug
                d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>(),
            });
        }
        result.push_back(std::move(info));
    }
    return result;
}

}  // namespace workbook::ex01
