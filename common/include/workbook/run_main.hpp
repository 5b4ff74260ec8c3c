// The shell of every workbook program: device flags, --list, the seed, and the one catch chain
// that turns any failure into a clear message and a non-zero exit status.
//
//   int main(int argc, char** argv) {
//       workbook::App app("02 vadd: adds two random vectors on the device");
//       std::size_t count = 1 << 20;
//       app.option("--count", count, "number of elements", std::size_t{1}, std::size_t{1} << 28);
//       return app.run(argc, argv, [&](workbook::Run& run) { ...; return 0; });
//   }
//
// CLI11 stays out of this header: it is header-only, and parsing it cost every file that
// includes this one (each demo, the test mains) about 6 s of compiling. A program that needs more
// than option() includes <CLI/CLI.hpp> and uses cli().
#pragma once

#include "workbook/cl.hpp"
#include "workbook/device.hpp"
#include "workbook/errors.hpp"
#include "workbook/random.hpp"

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>

namespace CLI {
class App;
}

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
    ~App();
    App(const App&) = delete;
    App& operator=(const App&) = delete;

    // A number flag and the range it must lie in (--help shows both; a value outside is refused
    // with the range). For int, long, std::size_t and std::uint64_t.
    template <class Number>
    void option(const std::string& name, Number& value, const std::string& what, Number low, Number high);
    // A text flag; --help shows its default.
    void option(const std::string& name, std::string& value, const std::string& what);
    // Everything else CLI11 can do (include <CLI/CLI.hpp> to use it).
    CLI::App& cli() { return *cli_; }

    // Parses flags, handles --list, chooses the device (printing it), then calls body inside the
    // catch chain. Returns the exit status for main().
    int run(int argc, char** argv, const std::function<int(Run&)>& body);

private:
    std::unique_ptr<CLI::App> cli_;
    DeviceQuery flags_;
    bool list_ = false;
};

// The catch chain, for callers that are not an App (test mains, tools): a message for whatever
// exception `error` holds, OpenCL codes by name with a hint for the common ones.
std::string describe_exception(std::exception_ptr error);

// A sentence on what usually causes an OpenCL error, or empty.
std::string error_hint(int code);

}  // namespace workbook
