// The main() of every runner (see runner.hpp): its device, the "hello" operation the checker
// opens with, then the request loop. Exercises add their operations in their runner.cpp.
#include "workbook/runner.hpp"
#include "workbook/runner_device.hpp"
#include "workbook/timing.hpp"

#include <cstdio>
#include <cstdlib>

namespace workbook::runner {

RunnerDevice& device() {
    static RunnerDevice d = [] {
        const auto choice = select_device(DeviceQuery::from_environment());
        cl::Context context(choice.device);
        return RunnerDevice{choice, context, make_queue(context, choice.device)};
    }();
    return d;
}

namespace {
const Operation hello("hello", [](const Message&) {
    Message m;
    m.text["device"] = device().choice.describe();
    return m;
});
}  // namespace

}  // namespace workbook::runner

int main() {
    const int status = workbook::runner::serve();
    // As in the tests: leave without destroying static OpenCL objects (Oclgrind 21.10 corrupts its
    // heap when they are released during exit).
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(status);
}
