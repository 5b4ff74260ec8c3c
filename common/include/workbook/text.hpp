// Small text helpers: reading a whole file, and escaping for the tools that write HTML and SVG
// (the bench chart, the grader's report).
#pragma once

#include "workbook/errors.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace workbook {

// FNV-1a over `bytes` bytes, continuing from `h`: a cheap fingerprint for cache keys and seeds
// (not a defence against anyone choosing inputs to collide).
inline constexpr std::uint64_t fnv1a_start = 1469598103934665603ULL;
inline std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h = fnv1a_start) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

// A whole file, byte for byte; empty when it is missing or cannot be read.
inline std::string read_file_or_empty(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// A whole file, byte for byte; throws workbook::Error naming it when it cannot be read.
inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + path.string() + "\nFix: check the path and its permissions");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// A file someone else may have put in place (a student's kernel in their scratch folder): read only
// when it is a plain file (never a FIFO, a device or a symbolic link, which would block or lead
// elsewhere), and at most `limit` bytes; throws workbook::Error saying which of these it is not.
std::string read_plain_file(const std::filesystem::path& path, std::size_t limit);

// Text a student controls (program output, compiler messages quoting their source, file names),
// made safe once where it enters, for every writer after it (JSON, CSV, HTML, a terminal):
// invalid UTF-8 becomes U+FFFD, control characters other than newline and tab are shown as
// \xNN (an escape sequence cannot reach a terminal), and more than `limit` bytes are cut with a
// note saying how many.
std::string sanitize(std::string_view text, std::size_t limit = 64 * 1024);

// C or OpenCL C `source` with its comments blanked (newlines kept, so line numbers stay right).
std::string without_comments(const std::string& source);

// `source` as its preprocessor reads directives: lines continued with a backslash joined first
// (the newlines they held put back after the joined line, so line numbers stay right), then
// comments blanked. A rule about directives checked on raw lines misses `#inc\<newline>lude`.
std::string as_preprocessor_reads(const std::string& source);

// Text that anyone else wrote (a kernel, a build log, Oclgrind's or a program's output) is never
// handed whole to std::regex: libstdc++'s matcher recurses once per character, and one line of
// 60,000 blanks overflowed the stack of the process matching it (the grader's, the judge's).
// Rules about such text are written by hand, or match only its first `limit` bytes.
inline std::string clipped(const std::string& text, std::size_t limit = 2048) {
    return text.size() > limit ? text.substr(0, limit) : text;
}

// Whether a line, as the preprocessor reads it, reads another file: an #include, #include_next,
// #import or #embed directive in any spelling (`%:` for `#`, blanks around it), or
// __has_include, __has_include_next or __has_embed anywhere in it.
bool reads_another_file(const std::string& line);

// Whether `text` holds `word` as a whole identifier (not inside a longer one).
bool has_word(const std::string& text, const std::string& word);

// Safe inside HTML/SVG text and attribute values: & < > " ' replaced by entities.
// Without the spaces, tabs and line ends at either end.
inline std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

inline std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

}  // namespace workbook
