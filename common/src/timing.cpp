// Event profiling and duration formatting (see timing.hpp).
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace workbook {

EventTimes event_times(const cl::Event& event) {
    event.wait();
    return EventTimes{event.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>(),
                      event.getProfilingInfo<CL_PROFILING_COMMAND_SUBMIT>(),
                      event.getProfilingInfo<CL_PROFILING_COMMAND_START>(),
                      event.getProfilingInfo<CL_PROFILING_COMMAND_END>()};
}

std::string format_timeline(const std::vector<std::pair<std::string, EventTimes>>& commands, int width) {
    if (commands.empty()) return {};
    cl_ulong origin = commands.front().second.queued, last = 0;
    for (const auto& [name, t] : commands) {
        origin = std::min(origin, t.queued);
        last = std::max(last, t.end);
    }
    const double span = static_cast<double>(std::max<cl_ulong>(1, last - origin));
    auto us = [&](cl_ulong t) { return static_cast<double>(t - origin) * 1e-3; };
    std::string out = fmt::format("{:<10} {:>11} {:>11} {:>11} {:>11}  (microseconds from the first queued)\n",
                                  "command", "queued", "submit", "start", "end");
    for (const auto& [name, t] : commands) {
        const int from = static_cast<int>(static_cast<double>(t.start - origin) / span * width);
        const int to = std::max(from + 1, static_cast<int>(static_cast<double>(t.end - origin) / span * width));
        out += fmt::format("{:<10} {:>11.1f} {:>11.1f} {:>11.1f} {:>11.1f}  |{}{}{}|\n", name, us(t.queued),
                           us(t.submit), us(t.start), us(t.end), std::string(from, ' '), std::string(to - from, '#'),
                           std::string(std::max(0, width - to), ' '));
    }
    return out;
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
