// Unit tests: every compiler is handed the program we preprocessed, with fixed macros.
#include "workbook/errors.hpp"
#include "workbook/preprocess.hpp"
#include "workbook/program.hpp"
#include "local_device.hpp"

#include <doctest/doctest.h>

#include <sstream>

namespace {

workbook::KernelSource kernel(std::string text) { return {"k.cl", "exercises/99_demo/k.cl", std::move(text)}; }

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// The message of the BuildError that preprocessing `text` throws, or "(no error)".
std::string refusal(const std::string& text, const std::string& options = "") {
    try {
        workbook::preprocess(kernel(text), options);
    } catch (const workbook::BuildError& e) {
        return e.what();
    }
    return "(no error)";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("preprocessing expands the build's -D macros and keeps every line where it was") {
    const std::string source = "int a;\n#if TS > 8\nint big;\n#else\nint small;\n#endif\n/* a\ncomment */ int t = TS;\nint z;\n";
    const auto p = workbook::preprocess(kernel(source), "-DTS=16 -cl-fast-relaxed-math -D WPT=2 -I /etc");
    const auto lines = lines_of(p.text);
    REQUIRE(lines.size() >= 9);
    CHECK(lines[0] == "int a;");
    CHECK(lines[2] == "int big;");
    CHECK(lines[4].empty());  // the #else branch is gone, its line kept
    CHECK(has(lines[7], "int t = 16;"));
    CHECK(lines[8] == "int z;");
    CHECK(p.options == "-cl-fast-relaxed-math");  // -D and -I are spent
}

TEST_CASE("a macro one compiler defines and another does not reads the same for both") {
    // __OPTIMIZE__ is defined by an optimising build (the device) and not under -cl-opt-disable
    // (the race pass of some rungs), __clang__ by PoCL's and Oclgrind's compilers only: after
    // preprocessing, every build sees the #else branches.
    const std::string source = "#ifdef __OPTIMIZE__\nint device;\n#else\nint same;\n#endif\n"
                               "#if defined(__clang__) || defined(__NV_CL_C_VERSION) || __OPENCL_VERSION__ >= 200\n"
                               "int vendor;\n#else\nint everyone;\n#endif\n"
                               "#ifdef __OPTI\\\nMIZE__\nint spliced;\n#endif\n";
    for (const std::string options : {"", "-cl-opt-disable", "-cl-fast-relaxed-math"}) {
        INFO(options);
        const auto text = workbook::preprocess(kernel(source), options).text;
        CHECK(has(text, "int same;"));
        CHECK(has(text, "int everyone;"));
        CHECK_FALSE(has(text, "device"));
        CHECK_FALSE(has(text, "vendor"));
        CHECK_FALSE(has(text, "spliced"));
    }
}

TEST_CASE("a compiler's macro pasted together or used as a value is refused, naming it and its line") {
    const std::string pasted = refusal("#define CAT(a, b) a##b\nint ok;\nint x = CAT(__OPTI, MIZE__);\n");
    CHECK(has(pasted, "exercises/99_demo/k.cl:3: uses __OPTIMIZE__"));
    CHECK(has(pasted, "reserved to the compiler"));
    CHECK(has(refusal("int v = __clang_major__;\n"), "uses __clang_major__"));
    // OpenCL's own keywords, string contents and pragmas are not names of that kind.
    CHECK(refusal("__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void k(__global int* o, __local int* l)\n"
                  "{ __constant char* s = \"__not_a_name\"; __private int p = 0; o[0] = p; }\n"
                  "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n") == "(no error)");
}

TEST_CASE("a _Pragma inside a macro becomes a #pragma line of its own, and the code after it stays code") {
    // The contest's GPU reference kernel unrolls its loops this way.
    const auto p = workbook::preprocess(
        kernel("#define SUM(n) _Pragma(\"unroll\") for (int i = 0; i < n; i++) { s += i; }\n"
               "__kernel void k(__global int* o)\n{\n    int s = 0; SUM(4) SUM(2)\n    o[0] = s;\n}\n"),
        "");
    bool pragma = false;
    for (const auto& line : lines_of(p.text)) {
        if (line.find("#pragma") != std::string::npos) {
            pragma = true;
            CHECK(line.find("unroll") != std::string::npos);
            CHECK(line.find("for") == std::string::npos);  // the loop is not swallowed by the pragma
        }
    }
    CHECK(pragma);
    auto& dev = workbook::unit::device();
    const auto program = workbook::build_program(dev.context, kernel("#define SUM(n) _Pragma(\"unroll\") for (int i = 0; i < n; i++) { s += i; }\n"
                                                                     "__kernel void k(__global int* o)\n{\n    int s = 0; SUM(4) SUM(2)\n    o[0] = s;\n}\n"));
    cl::Kernel k(program, "k");
    cl::Buffer out(dev.context, CL_MEM_READ_WRITE, sizeof(int));
    k.setArg(0, out);
    dev.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(1));
    int value = 0;
    dev.queue.enqueueReadBuffer(out, CL_TRUE, 0, sizeof value, &value);
    CHECK(value == 0 + 1 + 2 + 3 + 0 + 1);
}

TEST_CASE("a kernel that reads other files is refused before the preprocessor runs") {
    CHECK(has(refusal("int a;\n#include \"/etc/passwd\"\n"), "k.cl:2: a kernel is one file"));
    CHECK(has(refusal("#inc\\\nlude </etc/hostname>\n"), "k.cl:1: a kernel is one file"));
    CHECK(has(refusal("%:  include_next <x.h>\n"), "a kernel is one file"));
    CHECK(has(refusal("#if __has_include(\"/etc/shadow\")\nint yes;\n#endif\n"), "a kernel is one file"));
    CHECK(has(refusal("#embed \"/etc/passwd\"\n"), "a kernel is one file"));
}

TEST_CASE("preprocessor errors name the .cl file and line; a macro that explodes is stopped") {
    const std::string error = refusal("int a;\n\n#error not finished\n");
    CHECK(has(error, "exercises/99_demo/k.cl:3:"));
    CHECK(has(error, "not finished"));
    CHECK(has(error, "failed to preprocess"));
    // Each level doubles the one below: 2^40 tokens, stopped at the output cap in well under a minute.
    std::string bomb = "#define L0 x\n";
    for (int i = 1; i <= 40; ++i) bomb += "#define L" + std::to_string(i) + " L" + std::to_string(i - 1) + " L" + std::to_string(i - 1) + "\n";
    bomb += "int y = L40;\n";
    const std::string stopped = refusal(bomb);
    INFO(stopped.substr(0, 600));
    CHECK(has(stopped, "could not be preprocessed"));
}

TEST_CASE("the device compiles the text we preprocessed, not the source") {
    // PoCL's compiler defines __OPENCL_VERSION__ as its own version and __clang__; our fixed view
    // says 120 and no __clang__, and the kernel's stored results show which text was compiled.
    auto& dev = workbook::unit::device();
    const auto program = workbook::build_program(dev.context, kernel("__kernel void k(__global int* o)\n{\n"
                                                                     "    o[0] = __OPENCL_VERSION__;\n"
                                                                     "#ifdef __clang__\n    o[1] = 1;\n#else\n    o[1] = 2;\n#endif\n"
                                                                     "    o[2] = TS;\n}\n"),
                                                 "-DTS=7");
    cl::Kernel k(program, "k");
    cl::Buffer out(dev.context, CL_MEM_READ_WRITE, 3 * sizeof(int));
    k.setArg(0, out);
    dev.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(1));
    int values[3] = {0, 0, 0};
    dev.queue.enqueueReadBuffer(out, CL_TRUE, 0, sizeof values, values);
    CHECK(values[0] == 120);
    CHECK(values[1] == 2);
    CHECK(values[2] == 7);
}
