// The kernel fingerprint the board pools an alias's runs by: a comment or the indentation changed
// is the same kernel; anything the compiler or the launch sees changed is another.
#include "contest/run_one.hpp"

#include <doctest/doctest.h>

#include <string>

using workbook::contest::kernel_fingerprint;
using workbook::contest::kernel_text;

namespace {

const std::string kernel =
    "// ada's tiled kernel\n"
    "// contest: global = roundup(N, 16), roundup(N, 16)\n"
    "// contest: local = 16, 16\n"
    "#define TS 16\n"
    "__kernel void mmul(const int N, __global const float* A, __global const float* B, __global float* C) {\n"
    "    float sum = 0.0f;  /* the running sum */\n"
    "    for (int k = 0; k < N; k++) sum += A[get_global_id(1) * N + k] * B[k * N + get_global_id(0)];\n"
    "    C[get_global_id(1) * N + get_global_id(0)] = sum;\n"
    "}\n";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("kernel_fingerprint: comments, indentation and blank lines do not make another kernel") {
    const std::string same[] = {
        replaced(kernel, "// ada's tiled kernel\n", "// ada's tiled kernel, second try\n\n\n"),
        replaced(kernel, "/* the running sum */", "/* a comment\n   over two lines */"),
        replaced(kernel, "    float sum", "\t\tfloat   sum"),
        replaced(kernel, "sum;\n}", "sum;   // stored\n}"),
        replaced(kernel, "\n", "\r\n"),
        replaced(kernel, "#define TS 16\n", "#define TS 16 // the tile\n"),
    };
    for (const auto& text : same) {
        INFO(text);
        CHECK(kernel_fingerprint(text) == kernel_fingerprint(kernel));
    }
    CHECK(kernel_text(kernel).find("the running sum") == std::string::npos);
    CHECK(kernel_text(kernel).find("// contest: local = 16, 16\n") != std::string::npos);
}

TEST_CASE("kernel_fingerprint: what the compiler or the launch sees is another kernel") {
    const std::string other[] = {
        replaced(kernel, "// contest: local = 16, 16", "// contest: local = 8, 8"),
        replaced(kernel, "#define TS 16", "#define TS 32"),
        replaced(kernel, "k < N; k++", "k < N - 1; k++"),
        replaced(kernel, "sum += A", "sum+=A"),                       // conservative: spacing inside a line counts
        replaced(kernel, "#define TS 16\n", "#define TS 16 \\\n 0\n"),  // a continued #define
        replaced(kernel, "/* the running sum */", "/* the running sum */ sum = 1.0f;"),
    };
    for (const auto& text : other) {
        INFO(text);
        CHECK(kernel_fingerprint(text) != kernel_fingerprint(kernel));
    }
    // A newline ends a #define: joining two lines changes the program, so lines are kept apart.
    CHECK(kernel_fingerprint("#define A 1\nint x = A;\n") != kernel_fingerprint("#define A 1 int x = A;\n"));
    // "//" inside a literal is no comment; a comment's end inside a line comment is no end.
    CHECK(kernel_fingerprint("printf(\"a // b\");\n") != kernel_fingerprint("printf(\"a // c\");\n"));
    CHECK(kernel_fingerprint("x = 1; // a */ b\ny = 2;\n") == kernel_fingerprint("x = 1;\ny = 2;\n"));
    // A line comment continued by a backslash takes the next line with it.
    CHECK(kernel_fingerprint("x = 1; // note \\\ny = 2;\n") == kernel_fingerprint("x = 1;\n"));
    CHECK(kernel_fingerprint("") != kernel_fingerprint("x;\n"));
}
