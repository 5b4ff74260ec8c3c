// Unit tests: event profiling and duration formatting.
#include "workbook/program.hpp"
#include "local_device.hpp"
#include "workbook/testing.hpp"
#include "workbook/timing.hpp"

#include <doctest/doctest.h>

TEST_CASE("a finished command's timestamps are ordered and its run time positive") {
    auto& dev = workbook::unit::device();
    const auto program = workbook::build_program(
        dev.context, {"spin.cl", "common/tests/spin.cl",
                      "__kernel void spin(__global float* x) { float s = 0; for (int i = 0; i < 100000; ++i) "
                      "s += sin((float)i); x[get_global_id(0)] = s; }"});
    cl::Buffer x(dev.context, CL_MEM_WRITE_ONLY, 64 * sizeof(float));
    cl::Kernel k(program, "spin");
    k.setArg(0, x);
    cl::Event e;
    dev.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64), cl::NullRange, nullptr, &e);
    const auto t = workbook::event_times(e);
    CHECK(t.queued <= t.submit);
    CHECK(t.submit <= t.start);
    CHECK(t.start < t.end);
    CHECK(t.run_seconds() > 0.0);
}

TEST_CASE("durations are printed in a unit that keeps digits") {
    CHECK(workbook::format_duration(834e-9) == "834 ns");
    CHECK(workbook::format_duration(12.5e-6) == "12.5 us");
    CHECK(workbook::format_duration(3.2e-3) == "3.20 ms");
    CHECK(workbook::format_duration(1.5) == "1.50 s");
}

TEST_CASE("the stopwatch measures elapsed time") {
    workbook::Stopwatch w;
    volatile double sink = 0;
    for (int i = 0; i < 1000000; ++i) sink = sink + i;
    CHECK(w.seconds() > 0.0);
}
