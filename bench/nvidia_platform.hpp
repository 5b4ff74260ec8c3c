// The GPU studies' small OpenCL programs (bench/results/2026-12-07-h100-*: dump_ptx, cpasync_probe)
// run on the lent GPU machine, where PoCL may be registered beside NVIDIA's driver: the NVIDIA
// platform when there is one, else the first, and its first device.
#pragma once
#include <CL/cl.h>

#include <cstring>
#include <vector>

inline bool nvidia_or_first_device(cl_platform_id& platform, cl_device_id& device) {
    cl_uint count = 0;
    clGetPlatformIDs(0, nullptr, &count);
    std::vector<cl_platform_id> platforms(count);
    clGetPlatformIDs(count, platforms.data(), nullptr);
    platform = nullptr;
    for (auto p : platforms) {
        char name[256] = {};
        clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
        if (!platform || std::strstr(name, "NVIDIA")) platform = p;
    }
    return platform && clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS;
}
