// The main() of every doctest binary in the workbook: prints the device and the seed first,
// and teaches doctest to show OpenCL and workbook exceptions by name.
#define DOCTEST_CONFIG_IMPLEMENT
#include "workbook/errors.hpp"
#include "workbook/random.hpp"
#include "workbook/run_main.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>

REGISTER_EXCEPTION_TRANSLATOR(const workbook::Error& e) {
    return doctest::String(workbook::describe_exception(std::make_exception_ptr(e)).c_str());
}

REGISTER_EXCEPTION_TRANSLATOR(const cl::Error& e) {
    return doctest::String(workbook::describe_exception(std::make_exception_ptr(e)).c_str());
}

int main(int argc, char** argv) {
    doctest::Context context(argc, argv);
    try {
        std::cout << "Device: " << workbook::testing::device().choice.describe() << "\n"
                  << "Random " << workbook::seed_banner(workbook::session_seed()) << "\n";
    } catch (...) {
        // Tests that need the device fail with this same message; the others still run.
        std::cout << workbook::describe_exception(std::current_exception()) << "\n";
    }
    std::cout << std::flush;
    const int status = context.run();
    // Leave without destroying the static OpenCL objects: some implementations (Oclgrind 21.10)
    // corrupt their heap when those are released during exit, turning a pass into a crash.
    std::cout << std::flush;
    std::cerr << std::flush;
    std::_Exit(status);
}
