// Event profiling and duration formatting (see timing.hpp).
#include "workbook/timing.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

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

std::string timeline_svg(const std::vector<TimelineCommand>& commands, const std::string& title) {
    // Layout in px: names on the left, the time axis across, one row per command.
    constexpr double left = 110, axis = 640, row = 46, top = 58, bar = 18;
    const double height = top + row * static_cast<double>(commands.size()) + 60;
    cl_ulong origin = commands.empty() ? 0 : commands.front().times.queued, last = origin;
    for (const auto& c : commands) {
        origin = std::min(origin, c.times.queued);
        last = std::max(last, c.times.end);
    }
    const double span = static_cast<double>(std::max<cl_ulong>(1, last - origin));
    auto x = [&](cl_ulong t) { return left + static_cast<double>(t - origin) / span * axis; };
    auto us = [&](cl_ulong t) { return static_cast<double>(t - origin) * 1e-3; };

    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
        "font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n"
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
        "orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#37474f\"/></marker></defs>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\" fill=\"#1f3b5c\">{2}</text>\n",
        left + axis + 40, height, html_escape(title));
    // The time axis: five ticks in microseconds from the first command queued.
    const double axis_y = top + row * static_cast<double>(commands.size()) + 8;
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#37474f\"/>\n", left,
                       axis_y, left + axis);
    for (int i = 0; i <= 4; ++i) {
        const double tx = left + axis * i / 4.0;
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#37474f\"/>"
                           "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\" fill=\"#37474f\">{4:.1f}</text>\n",
                           tx, axis_y, axis_y + 5, axis_y + 19, span * 1e-3 * i / 4.0);
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#37474f\">microseconds from the "
                       "first command queued</text>\n",
                       left + axis / 2, axis_y + 38);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"44\" fill=\"#37474f\">thin: queued → submitted · pale: submitted, "
                       "waiting to start · solid: running · arrow: a wait-list entry</text>\n",
                       left);

    for (std::size_t i = 0; i < commands.size(); ++i) {
        const auto& c = commands[i];
        const auto& t = c.times;
        const double y = top + row * static_cast<double>(i);
        const double run_width = std::max(2.0, x(t.end) - x(t.start));
        svg += fmt::format("<text x=\"10\" y=\"{:.1f}\" fill=\"#37474f\" font-weight=\"bold\">{}</text>\n", y + bar - 4,
                           html_escape(c.name));
        svg += fmt::format("<rect class=\"queued\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"4\" fill=\"#b0bec5\"/>\n",
                           x(t.queued), y + bar / 2 - 2, x(t.submit) - x(t.queued));
        svg += fmt::format("<rect class=\"waiting\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                           "fill=\"#cfe2f3\"/>\n",
                           x(t.submit), y, x(t.start) - x(t.submit), bar);
        svg += fmt::format("<rect class=\"run\" data-command=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                           "height=\"{:.1f}\" fill=\"#3b7dd8\"><title>{} ran {:.1f} to {:.1f} us</title></rect>\n",
                           html_escape(c.name), x(t.start), y, run_width, bar, html_escape(c.name), us(t.start), us(t.end));
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"#37474f\">start {:.1f}, end {:.1f} "
                           "us</text>\n",
                           std::min(x(t.start), left + axis - 150), y + bar + 11, us(t.start), us(t.end));
        // Arrows from the end of what this command waited for to its start.
        for (const auto& name : c.waited_for) {
            const auto from = std::find_if(commands.begin(), commands.end(),
                                           [&](const TimelineCommand& o) { return o.name == name; });
            if (from == commands.end()) continue;
            const double fy = top + row * static_cast<double>(from - commands.begin()) + bar / 2;
            svg += fmt::format("<line class=\"waits\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                               "stroke=\"#e06666\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n",
                               x(from->times.end), fy, x(t.start), y + bar / 2);
        }
    }
    svg += "</svg>\n";
    return svg;
}

void write_timeline_svg(const std::string& path, const std::vector<TimelineCommand>& commands, const std::string& title) {
    const std::filesystem::path p(path);
    std::error_code ec;
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
    std::ofstream out(p);
    out << timeline_svg(commands, title);
    out.close();
    if (!out) throw Error(fmt::format("cannot write the timeline picture {}: check that its folder is writable, or "
                                      "choose another file",
                                      path));
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
