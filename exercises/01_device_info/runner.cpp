// Exercise 01's runner (see workbook/runner.hpp): calls your query_platforms and sends what it
// returned, field by field, to the graded test. Do not edit.
#include "device_info.hpp"

#include "workbook/runner.hpp"

#include <fmt/format.h>

namespace {

namespace wr = workbook::runner;

const wr::Operation query_platforms("query_platforms", [](const wr::Message&) {
    const auto platforms = workbook::ex01::query_platforms();
    wr::Message m;
    m.text["platforms"] = std::to_string(platforms.size());
    for (std::size_t p = 0; p < platforms.size(); ++p) {
        const auto& gp = platforms[p];
        const std::string at = fmt::format("p{}.", p);
        m.text[at + "name"] = gp.name;
        m.text[at + "vendor"] = gp.vendor;
        m.text[at + "version"] = gp.version;
        m.text[at + "devices"] = std::to_string(gp.devices.size());
        for (std::size_t i = 0; i < gp.devices.size(); ++i) {
            const auto& d = gp.devices[i];
            const std::string dat = fmt::format("{}d{}.", at, i);
            m.text[dat + "name"] = d.name;
            m.text[dat + "vendor"] = d.vendor;
            m.text[dat + "version"] = d.version;
            m.text[dat + "opencl_c_version"] = d.opencl_c_version;
            m.text[dat + "type"] = std::to_string(d.type);
            m.text[dat + "compute_units"] = std::to_string(d.compute_units);
            m.text[dat + "max_work_group_size"] = std::to_string(d.max_work_group_size);
            m.text[dat + "global_mem_bytes"] = std::to_string(d.global_mem_bytes);
            m.text[dat + "local_mem_bytes"] = std::to_string(d.local_mem_bytes);
        }
    }
    return m;
});

}  // namespace
