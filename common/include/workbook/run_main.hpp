// The shell of every workbook program: device flags, --list, the seed, and the one catch chain
// that turns any failure into a clear message and a non-zero exit status.
//
//   int main(int argc, char** argv) {
//       workbook::App app("02 vadd: adds two random vectors on the device");
//       std::size_t count = 1 << 20;
//       app.cli().add_option("--count", count, "number of elements");
//       return app.run(argc, argv, [&](workbook::Run& run) { ...; return 0; });
//   }
#pragma once

#include "workbook/cl.hpp"
#include "workbook/device.hpp"
#include "workbook/errors.hpp"
#include "workbook/random.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>

namespace workbook {

// What the body of a program gets: the chosen device, a context and an in-order profiling queue
// on it, and the session seed.
struct Run {
    DeviceChoice choice;
    cl::Context context;
    cl::CommandQueue queue;
    std::uint64_t seed = 0;
};

class App {
public:
    explicit App(std::string description);
    CLI::App& cli() { return cli_; }
    // Parses flags, handles --list, chooses the device (printing it), then calls body inside the
    // catch chain. Returns the exit status for main().
    int run(int argc, char** argv, const std::function<int(Run&)>& body);

private:
    CLI::App cli_;
    DeviceQuery flags_;
    bool list_ = false;
};

// The catch chain, for callers that are not an App (test mains, tools): a message for whatever
// exception `error` holds, OpenCL codes by name with a hint for the common ones.
std::string describe_exception(std::exception_ptr error);

// A sentence on what usually causes an OpenCL error, or empty.
std::string error_hint(int code);

}  // namespace workbook
