// sanitize(): what a student controls reaches no writer as invalid UTF-8 or a control character.
#include "workbook/text.hpp"

#include <doctest/doctest.h>

using workbook::sanitize;

TEST_CASE("sanitize keeps valid UTF-8, newlines and tabs as they are") {
    CHECK(sanitize("plain\ttext\nline two") == "plain\ttext\nline two");
    CHECK(sanitize("π ≈ 3.14159 · Σ|a·b| 🙂") == "π ≈ 3.14159 · Σ|a·b| 🙂");
}

TEST_CASE("sanitize replaces invalid UTF-8 and shows control characters escaped") {
    CHECK(sanitize("\xff") == "\xEF\xBF\xBD");
    CHECK(sanitize("a\xc0\xafz") == "a\xEF\xBF\xBD\xEF\xBF\xBDz");          // an overlong '/'
    CHECK(sanitize("\xed\xa0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
    CHECK(sanitize("\xe2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");             // cut short
    CHECK(sanitize("\x1b]0;title\x07") == "\\x1b]0;title\\x07");
    CHECK(sanitize("\xc2\x9b" "2J") == "\\u009b2J");                       // C1 CSI
    CHECK(sanitize(std::string("a\0b", 3)) == "a\\x00b");
    CHECK(sanitize("\x7f") == "\\x7f");
}

TEST_CASE("sanitize caps the length and says how much was cut") {
    const std::string out = sanitize(std::string(100, 'x'), 10);
    CHECK(out == std::string(10, 'x') + "\n... (90 more bytes not shown)");
}

TEST_CASE("as_preprocessor_reads joins continued lines and blanks comments, keeping line numbers") {
    using workbook::as_preprocessor_reads;
    // A directive split by a continuation, or by a comment, reads as the directive it is.
    CHECK(as_preprocessor_reads("#inc\\\nlude \"x\"\nnext\n") == "#include \"x\"\n\nnext\n");
    CHECK(as_preprocessor_reads("#inc\\\r\nlude\n") == "#include\n\n");
    CHECK(as_preprocessor_reads("/* a */#/**/include <y>\n") == std::string(7, ' ') + "#" + std::string(4, ' ') + "include <y>\n");
    // A // comment continued by a backslash goes on to the next line, as it does for the compiler.
    CHECK(as_preprocessor_reads("x // note \\\n#include <z>\ny\n") == "x" + std::string(21, ' ') + "\n\ny\n");
    // Nothing to join or blank: unchanged.
    CHECK(as_preprocessor_reads("kernel void k() {}\n") == "kernel void k() {}\n");
}

TEST_CASE("reads_another_file: every spelling of a directive that reads a file, and only those") {
    using workbook::reads_another_file;
    for (const char* line : {"#include <x>", "  #  include \"y\"", "%:include <x>", "#include_next <x>", "#import \"x\"",
                             "#embed </etc/passwd>", "#if __has_include(<x>)", "#elif __has_embed(\"y\")",
                             "\t#\tinclude <x>"})
        CHECK_MESSAGE(reads_another_file(line), line);
    for (const char* line : {"#define INCLUDE 1", "#includes", "int include = 0;", "// #include <x> is text here? no: "
                             "comments are blanked first, this line is not a directive", "x = my__has_include_flag;",
                             "#pragma once", ""})
        CHECK_MESSAGE(!reads_another_file(line), line);
}

TEST_CASE("text rules hold on lines far longer than a recursive matcher's stack allows") {
    const std::string blanks(400000, ' ');
    CHECK(workbook::reads_another_file("#" + blanks + "include <x>"));
    CHECK(!workbook::reads_another_file(blanks + "x"));
    CHECK(workbook::has_word(std::string(400000, 'a') + " barrier", "barrier"));
    CHECK(!workbook::has_word(std::string(400000, 'a') + "barrier", "barrier"));
    CHECK(workbook::clipped(blanks).size() == 2048);
    CHECK(workbook::clipped("short") == "short");
}
