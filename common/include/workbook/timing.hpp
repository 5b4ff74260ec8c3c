// Timing: host wall clock and OpenCL event profiling, side by side. Nanosecond resolution
// throughout: sub-millisecond kernels are the common case, and a millisecond timer reads 0.
#pragma once

#include "workbook/cl.hpp"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace workbook {

class Stopwatch {
public:
    Stopwatch() : start_(std::chrono::steady_clock::now()) {}
    void restart() { start_ = std::chrono::steady_clock::now(); }
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

private:
    std::chrono::steady_clock::time_point start_;
};

// The four profiling timestamps of a finished command, in device nanoseconds.
struct EventTimes {
    cl_ulong queued = 0, submit = 0, start = 0, end = 0;
    double run_seconds() const { return static_cast<double>(end - start) * 1e-9; }
};

// Needs a queue created with profiling on (make_queue does that). Waits for the event first.
EventTimes event_times(const cl::Event& event);

// A text timeline of finished commands: for each, its queued, submit, start and end times relative
// to the earliest queued time, and a bar from start to end on a common scale.
std::string format_timeline(const std::vector<std::pair<std::string, EventTimes>>& commands, int width = 40);

// A finished command for the timeline picture: its name, its times, and the commands whose events
// were in its wait list (by name).
struct TimelineCommand {
    std::string name;
    EventTimes times;
    std::vector<std::string> waited_for;
};

// The timeline as an SVG picture: a row per command, a thin bar from queued to submit, a pale one
// from submit to start (waiting for the device), a solid one from start to end (running), each
// labelled with its times; an arrow from the end of every command a row waited for to its start.
// Every running bar is a <rect class="run" data-command="NAME"> (tests read them).
std::string timeline_svg(const std::vector<TimelineCommand>& commands, const std::string& title);

// Writes timeline_svg() to `path` (its folder is created); throws workbook::Error naming the file.
void write_timeline_svg(const std::string& path, const std::vector<TimelineCommand>& commands, const std::string& title);

// The queue every workbook program uses: in order, profiling enabled.
cl::CommandQueue make_queue(const cl::Context& context, const cl::Device& device);

// "834 ns", "12.5 us", "3.20 ms", "1.50 s"
std::string format_duration(double seconds);

}  // namespace workbook
