// Event profiling and duration formatting (see timing.hpp).
#include "workbook/timing.hpp"

#include <fmt/format.h>

namespace workbook {

EventTimes event_times(const cl::Event& event) {
    event.wait();
    return EventTimes{event.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>(),
                      event.getProfilingInfo<CL_PROFILING_COMMAND_SUBMIT>(),
                      event.getProfilingInfo<CL_PROFILING_COMMAND_START>(),
                      event.getProfilingInfo<CL_PROFILING_COMMAND_END>()};
}

cl::CommandQueue make_queue(const cl::Context& context, const cl::Device& device) {
    return cl::CommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE);
}

std::string format_duration(double seconds) {
    if (seconds < 1e-6) return fmt::format("{:.0f} ns", seconds * 1e9);
    if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
    if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
    return fmt::format("{:.2f} s", seconds);
}

}  // namespace workbook
