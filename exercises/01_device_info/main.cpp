// Exercise 01 demo: prints what your query_platforms() found, one block per platform.
#include "device_info.hpp"

#include "workbook/device.hpp"
#include "workbook/run_main.hpp"

#include <fmt/format.h>

int main(int argc, char** argv) {
    workbook::App app("Exercise 01 (device info): every OpenCL platform and device this machine can see");
    return app.run(argc, argv, [](workbook::Run&) {
        const auto platforms = workbook::ex01::query_platforms();
        if (platforms.empty()) {
            fmt::print("query_platforms() returned no platform: finish the TODOs in device_info.cpp.\n");
            return workbook::exit_wrong_result;
        }
        for (const auto& p : platforms) {
            fmt::print("\nPlatform: {}\n  vendor  {}\n  version {}\n", p.name, p.vendor, p.version);
            for (const auto& d : p.devices) {
                fmt::print("  Device: {} ({})\n", d.name, workbook::device_type_name(d.type));
                fmt::print("    vendor               {}\n", d.vendor);
                fmt::print("    version              {}\n", d.version);
                fmt::print("    OpenCL C version     {}\n", d.opencl_c_version);
                fmt::print("    compute units        {}\n", d.compute_units);
                fmt::print("    max work-group size  {}\n", d.max_work_group_size);
                fmt::print("    global memory        {:.1f} MiB\n", static_cast<double>(d.global_mem_bytes) / (1 << 20));
                fmt::print("    local memory         {:.1f} KiB\n", static_cast<double>(d.local_mem_bytes) / 1024);
            }
        }
        return workbook::exit_ok;
    });
}
