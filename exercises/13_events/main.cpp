// Exercise 13 demo: runs your graph step by step, showing which commands the user events hold,
// then checks z = 2a + 3b and shows the commands' profiling timeline: in the terminal, and as a
// picture (an SVG file, --timeline) with an arrow for every wait-list entry.
#include "graph_harness.hpp"

#include "workbook/check.hpp"
#include "workbook/program.hpp"
#include "workbook/run_main.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <thread>

int main(int argc, char** argv) {
    using namespace workbook::ex13;
    workbook::App app("Exercise 13 (events): a dependency graph on an out-of-order queue, user events, a timeline");
    std::size_t count = 1 << 22;
    app.option("--count", count, "elements per buffer", std::size_t{1}, std::size_t{1} << 26);
    std::string timeline_file = "13_events-timeline.svg";
    app.option("--timeline", timeline_file, "where to write the timeline picture (SVG)");
    return app.run(argc, argv, [&](workbook::Run& run) {
        std::string note;
        cl::CommandQueue queue = make_graph_queue(run.context, run.choice.device, note);
        fmt::print("{}\n", note);
        const cl::Program program = workbook::build_program(run.context, workbook::kernel_source("events.cl"));
        if (!overtakes_held_commands(run.context, queue, program))
            fmt::print("(this device runs its out-of-order queue in enqueue order all the same)\n");
        auto rng = workbook::Rng::derived(run.seed, "demo");
        auto a = rng.uniform_vector(count), b = rng.uniform_vector(count);
        const std::size_t bytes = count * sizeof(float);
        const GraphBuffers buffers{cl::Buffer(run.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a.data()),
                                   cl::Buffer(run.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b.data()),
                                   cl::Buffer(run.context, CL_MEM_READ_WRITE, bytes),
                                   cl::Buffer(run.context, CL_MEM_READ_WRITE, bytes),
                                   cl::Buffer(run.context, CL_MEM_READ_WRITE, bytes), static_cast<cl_uint>(count)};
        cl::UserEvent release_first(run.context), release_second(run.context);

        const GraphEvents e = enqueue_graph_guarded(queue, program, buffers, release_first, release_second);
        auto show = [&](const char* when) {
            queue.flush();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            fmt::print("{:<32} first {:<10} second {:<10} joined {}\n", when, status_name(e.first),
                       status_name(e.second), status_name(e.joined));
        };
        show("enqueued, both held:");
        release_first.setStatus(CL_COMPLETE);
        e.first.wait();
        show("release_first set:");
        release_second.setStatus(CL_COMPLETE);
        e.joined.wait();
        show("release_second set:");

        std::vector<float> z(count);
        queue.enqueueReadBuffer(buffers.z, CL_TRUE, 0, bytes, z.data());
        const auto expected = expected_z(a, b);
        const auto first = workbook::event_times(e.first), second = workbook::event_times(e.second),
                   joined = workbook::event_times(e.joined);
        fmt::print("\n{}", workbook::format_timeline({{"first", first}, {"second", second}, {"joined", joined}}));
        // The arrows are the wait lists: joined waits for both. (second starts after first ends
        // too, but because this program releases it only then, not through a wait list.)
        workbook::write_timeline_svg(timeline_file,
                                     {{"first", first, {}}, {"second", second, {}}, {"joined", joined, {"first", "second"}}},
                                     fmt::format("Exercise 13 on {}: {} elements", run.choice.device.getInfo<CL_DEVICE_NAME>(), count));
        fmt::print("timeline picture: {} (open it in a browser)\n", std::filesystem::absolute(timeline_file).string());
        const auto result = workbook::compare(expected.z, z, ExpectedZ::tolerance, expected.scale);
        fmt::print("\n");
        return workbook::report_result("z = 2a + 3b", count, 0.0, result);
    });
}
