// Error types of the workbook and the names of OpenCL error codes.
// Library code throws these; only run_main() (run_main.hpp) turns them into messages and exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace workbook {

// Exit statuses of workbook programs.
inline constexpr int exit_ok = 0;
inline constexpr int exit_wrong_result = 1;  // ran, but the answer was wrong
inline constexpr int exit_error = 2;         // could not run: bad input, OpenCL error, build failure

// "CL_INVALID_WORK_GROUP_SIZE" for -54; "unknown OpenCL error" for a code no version up to 3.0
// (or the common KHR extensions) defines.
const char* error_name(int code);

// "CL_INVALID_WORK_GROUP_SIZE (-54)": the form every message in the workbook uses.
std::string describe_error(int code);

// A problem the user can fix (bad flag, no device, missing kernel file). The message owns its
// text and should say what is wrong and how to fix it.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An OpenCL program failed to build: what() holds the file:line summary, the options and every
// device's build log.
class BuildError : public Error {
public:
    using Error::Error;
};

}  // namespace workbook
