// Sanitising text a student controls (see text.hpp).
#include "workbook/text.hpp"

#include <fmt/format.h>

#include <cctype>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace workbook {

namespace {

// The length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one (overlong
// forms, surrogates and code points past U+10FFFF are refused too).
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((b(k) & 0xC0) != 0x80) return 0;
    if (n == 2 && c < 0xC2) return 0;                                    // overlong
    if (n == 3 && ((c == 0xE0 && b(1) < 0xA0) || (c == 0xED && b(1) >= 0xA0))) return 0;  // overlong, surrogate
    if (n == 4 && ((c == 0xF0 && b(1) < 0x90) || c > 0xF4 || (c == 0xF4 && b(1) >= 0x90))) return 0;
    return n;
}

}  // namespace

std::string sanitize(std::string_view text, std::size_t limit) {
    std::string out;
    out.reserve(std::min(text.size(), limit) + 16);
    std::size_t i = 0;
    for (; i < text.size() && out.size() < limit;) {
        const std::size_t n = utf8_length(text, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD
            ++i;
        } else if (n == 1 && (static_cast<unsigned char>(text[i]) < 0x20 || text[i] == 0x7F) && text[i] != '\n' &&
                   text[i] != '\t') {
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
            ++i;
        } else if (n == 2 && static_cast<unsigned char>(text[i]) == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));  // C1 controls (CSI)
            i += 2;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    if (i < text.size()) out += fmt::format("\n... ({} more bytes not shown)", text.size() - i);
    return out;
}

std::string read_plain_file(const std::filesystem::path& path, std::size_t limit) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer before fstat can refuse it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        throw Error(fmt::format("cannot read {}: {}", path.string(),
                                errno == ELOOP ? "it is a symbolic link" : std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(fmt::format("cannot read {}: it is not a plain file (a pipe, a device or a folder)", path.string()));
    }
    std::string text;
    char buffer[65536];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            throw Error(fmt::format("cannot read {}: {}", path.string(), std::strerror(err)));
        }
        text.append(buffer, static_cast<std::size_t>(n));
        if (text.size() > limit) {
            ::close(fd);
            throw Error(fmt::format("{} is larger than {} bytes: refused", path.string(), limit));
        }
    }
    ::close(fd);
    return text;
}

std::string without_comments(const std::string& source) {
    std::string code = source;
    for (std::size_t i = 0; i + 1 < code.size(); ++i) {
        if (code[i] == '/' && code[i + 1] == '/') {
            for (; i < code.size() && code[i] != '\n'; ++i) code[i] = ' ';
        } else if (code[i] == '/' && code[i + 1] == '*') {
            const std::size_t end = code.find("*/", i + 2);
            const std::size_t stop = end == std::string::npos ? code.size() : end + 2;
            for (; i < stop; ++i)
                if (code[i] != '\n') code[i] = ' ';
            --i;
        }
    }
    return code;
}

std::string as_preprocessor_reads(const std::string& source) {
    std::string spliced;
    spliced.reserve(source.size());
    std::size_t held = 0;  // newlines taken out by splices, put back after the joined line
    for (std::size_t i = 0; i < source.size(); ++i) {
        const bool crlf = source[i] == '\\' && i + 2 < source.size() && source[i + 1] == '\r' && source[i + 2] == '\n';
        if (source[i] == '\\' && ((i + 1 < source.size() && source[i + 1] == '\n') || crlf)) {
            i += crlf ? 2 : 1;
            ++held;
            continue;
        }
        spliced += source[i];
        if (source[i] == '\n') {
            spliced.append(held, '\n');
            held = 0;
        }
    }
    spliced.append(held, '\n');
    return without_comments(spliced);
}

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

bool has_word(const std::string& text, const std::string& word) {
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const bool starts = at == 0 || !identifier_char(text[at - 1]);
        const bool ends = at + word.size() == text.size() || !identifier_char(text[at + word.size()]);
        if (starts && ends) return true;
    }
    return false;
}

bool reads_another_file(const std::string& line) {
    static const char* blanks = " \t\r\f\v";
    for (const char* name : {"__has_include", "__has_include_next", "__has_embed"})
        if (has_word(line, name)) return true;
    std::size_t i = line.find_first_not_of(blanks);
    if (i == std::string::npos) return false;
    if (line.compare(i, 1, "#") == 0) i += 1;
    else if (line.compare(i, 2, "%:") == 0) i += 2;
    else return false;
    i = line.find_first_not_of(blanks, i);
    if (i == std::string::npos) return false;
    std::size_t end = i;
    while (end < line.size() && identifier_char(line[end])) ++end;
    const std::string name = line.substr(i, end - i);
    return name == "include" || name == "include_next" || name == "import" || name == "embed";
}

}  // namespace workbook
