// Terminal output: colour only on a terminal and never with NO_COLOR set; the raw keyboard mode
// watch mode reads single keys in.
#pragma once

#include <string>

namespace workbook::cli {

struct Style {
    bool color = false;
    // Colour when `fd` is a terminal, NO_COLOR is unset and TERM is not "dumb".
    static Style for_fd(int fd);
    std::string green(const std::string& s) const { return wrap("32", s); }
    std::string red(const std::string& s) const { return wrap("31", s); }
    std::string yellow(const std::string& s) const { return wrap("33", s); }
    std::string bold(const std::string& s) const { return wrap("1", s); }
    std::string dim(const std::string& s) const { return wrap("2", s); }

private:
    std::string wrap(const char* code, const std::string& s) const {
        return color ? "\x1b[" + std::string(code) + "m" + s + "\x1b[0m" : s;
    }
};

// "[#####.....] 3/14 exercises done"
std::string progress_bar(std::size_t done, std::size_t total, std::size_t width = 30);

// Single keys without Enter and without echo while it lives; the terminal is restored on
// destruction and on SIGINT/SIGTERM.
class RawKeyboard {
public:
    RawKeyboard();
    ~RawKeyboard();
    RawKeyboard(const RawKeyboard&) = delete;
    RawKeyboard& operator=(const RawKeyboard&) = delete;
};

bool stdin_is_terminal();

}  // namespace workbook::cli
