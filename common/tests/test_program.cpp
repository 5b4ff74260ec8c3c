// Unit tests: program builds and their error reports.
#include "workbook/errors.hpp"
#include "workbook/program.hpp"
#include "local_device.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>

namespace {

workbook::KernelSource source(std::string text) { return {"broken.cl", "exercises/99_demo/broken.cl", std::move(text)}; }

}  // namespace

TEST_CASE("a build log's diagnostics are parsed, with or without a column") {
    const auto d = workbook::parse_build_log(
        "exercises/02_vadd/vadd.cl:7:13: error: use of undeclared identifier 'x'\n"
        "    c[i] = x;\n"
        "            ^\n"
        "<kernel>:4:1: warning: something\n"
        "vadd.cl:12: error: expected ';'\r\n"
        "error: exercises/04_vadd_abc/vadd_abc.cl:9:30: use of undeclared identifier 'e'\n");
    REQUIRE(d.size() == 4);
    CHECK(d[0].file == "exercises/02_vadd/vadd.cl");
    CHECK(d[0].line == 7);
    CHECK(d[0].column == 13);
    CHECK(d[0].severity == "error");
    CHECK(d[0].message == "use of undeclared identifier 'x'");
    CHECK(d[1].severity == "warning");
    CHECK(d[2].line == 12);
    CHECK(d[2].column == 0);
    CHECK(d[3].file == "exercises/04_vadd_abc/vadd_abc.cl");  // PoCL's shape: severity first
    CHECK(d[3].line == 9);
    CHECK(d[3].column == 30);
    CHECK(d[3].severity == "error");
    CHECK(d[3].message == "use of undeclared identifier 'e'");
}

TEST_CASE("diagnostics of compilers that ignore #line are mapped to the .cl file and line") {
    const workbook::Diagnostic nvidia{"<kernel>", 5, 49, "error", "use of undeclared identifier"};
    const auto mapped = workbook::locate_in_source(nvidia, "exercises/02_vadd/vadd.cl");
    CHECK(mapped.file == "exercises/02_vadd/vadd.cl");
    CHECK(mapped.line == 4);
    CHECK(mapped.column == 49);
    const workbook::Diagnostic clang{"exercises/02_vadd/vadd.cl", 4, 49, "error", "x"};
    CHECK(workbook::locate_in_source(clang, "exercises/02_vadd/vadd.cl").line == 4);
}

TEST_CASE("a valid kernel builds") {
    auto& dev = workbook::unit::device();
    const auto program = workbook::build_program(dev.context, source("__kernel void k(__global float* x) { x[0] = 2.0f; }"));
    CHECK_NOTHROW(cl::Kernel(program, "k"));
}

TEST_CASE("a syntax error reports the .cl file and line, the options and the log") {
    auto& dev = workbook::unit::device();
    try {
        workbook::build_program(dev.context, source("__kernel void k(__global float* x)\n{\n    x[0] = y;\n}\n"),
                                "-DWORKBOOK_TEST=1");
        FAIL("the build succeeded");
    } catch (const workbook::BuildError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK(msg.find("exercises/99_demo/broken.cl:3:") != std::string::npos);  // the line of `y`
        CHECK(msg.find("CL_BUILD_PROGRAM_FAILURE") != std::string::npos);
        CHECK(msg.find("-DWORKBOOK_TEST=1") != std::string::npos);
        CHECK(msg.find("build log") != std::string::npos);
    }
}

TEST_CASE("parse_build_log reads a log that quotes a 400 KB kernel line (no stack overflow)") {
    const std::string line = "vadd.cl:3:5: error: use of undeclared identifier 'x'" + std::string(400000, ' ') + "x";
    const auto d = workbook::parse_build_log(line + "\n" + std::string(400000, ' ') + "\n");
    REQUIRE(d.size() == 1);
    CHECK(d[0].line == 3);
}
