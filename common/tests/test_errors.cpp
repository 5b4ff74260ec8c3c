// Unit tests: OpenCL error names.
#include "workbook/errors.hpp"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("every OpenCL 3.0 error code has its name") {
    CHECK(std::string(workbook::error_name(-54)) == "CL_INVALID_WORK_GROUP_SIZE");
    CHECK(std::string(workbook::error_name(-11)) == "CL_BUILD_PROGRAM_FAILURE");
    CHECK(std::string(workbook::error_name(-72)) == "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
    CHECK(std::string(workbook::error_name(-1001)) == "CL_PLATFORM_NOT_FOUND_KHR");
    for (int code = 0; code >= -72; --code) {
        const bool defined = code >= -19 || code <= -30;  // -20..-29 are unused by the standard
        CAPTURE(code);
        CHECK((std::string(workbook::error_name(code)) != "unknown OpenCL error") == defined);
    }
}

TEST_CASE("describe_error gives the name and the number") {
    CHECK(workbook::describe_error(-5) == "CL_OUT_OF_RESOURCES (-5)");
    CHECK(workbook::describe_error(12345) == "unknown OpenCL error (12345)");
}
