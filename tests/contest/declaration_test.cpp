// Unit tests: what a contest entry may not bring into the compiler, however it spells it.
#include "contest/declaration.hpp"

#include <doctest/doctest.h>

#include <string>

using workbook::contest::parse_declaration;

namespace {

const std::string head = "// contest: global = N, N\n// contest: local = 16, 16\n";
const std::string body = "kernel void mmul(const int N, global const float* A, global const float* B, global float* C) {}\n";

std::string refusal(const std::string& source) {
    try {
        parse_declaration(source);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("declaration: #include is refused in every spelling, on the line it starts") {
    CHECK(refusal(head + body) == "");
    CHECK(refusal(head + "#include \"/etc/passwd\"\n" + body).find("submission.cl:3: #include is not allowed") != std::string::npos);
    // Split by a line continuation, or by comments, it is still a directive to the compiler.
    CHECK(refusal(head + "#inc\\\nlude \"/etc/passwd\"\n" + body).find("submission.cl:3: #include") != std::string::npos);
    CHECK(refusal(head + "/**/ # /* x */ include </etc/passwd>\n" + body).find("submission.cl:3:") != std::string::npos);
    CHECK(refusal(head + "#\\\ninclude </etc/hostname>\n" + body).find("submission.cl:3:") != std::string::npos);
    // The digraph for #, and the other directives that read files.
    CHECK(refusal(head + "%:include </etc/passwd>\n" + body).find("#include is not allowed") != std::string::npos);
    CHECK(refusal(head + "#include_next <x>\n" + body).find("#include is not allowed") != std::string::npos);
    CHECK(refusal(head + "#embed </etc/passwd>\n" + body).find("#include is not allowed") != std::string::npos);
    // Inside a comment it is only text.
    CHECK(refusal(head + "// #include <x> would not be allowed\n/* #include <y>\n*/\n" + body) == "");
}

TEST_CASE("declaration: a very long line is read, not a crash (no recursive matcher on an entry's lines)") {
    // 300 KB on one line overflowed the stack of a recursive regex matcher.
    const std::string long_line(300000, 'x');
    CHECK(refusal(head + "// " + long_line + "\n" + body) == "");
    CHECK(refusal(head + "#" + std::string(300000, ' ') + "include <x>\n" + body).find("#include is not allowed") !=
          std::string::npos);
    CHECK(refusal(head + "// contest: options = -DX=" + long_line + "\n" + body) == "");
    CHECK(refusal(head + "// contest: options = " + long_line + "!\n" + body).find("options: only build flags") !=
          std::string::npos);
    CHECK(refusal(head + "// contest: " + long_line + "\n" + body).find("a declaration reads") != std::string::npos);
}
