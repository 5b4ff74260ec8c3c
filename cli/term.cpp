// Colours, the progress bar and raw keyboard mode (see term.hpp).
#include "term.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <termios.h>
#include <unistd.h>

namespace workbook::cli {

Style Style::for_fd(int fd) {
    const char* no_color = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    return Style{isatty(fd) && !(no_color && *no_color) && !(term && std::strcmp(term, "dumb") == 0)};
}

std::string progress_bar(std::size_t done, std::size_t total, std::size_t width) {
    const std::size_t filled = total ? done * width / total : 0;
    return fmt::format("[{}{}] {}/{} exercises done", std::string(filled, '#'), std::string(width - filled, '.'), done,
                       total);
}

bool stdin_is_terminal() { return isatty(STDIN_FILENO); }

namespace {

termios saved;
bool active = false;

void restore() {
    if (active) tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    active = false;
}

void on_signal(int sig) {
    restore();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

}  // namespace

RawKeyboard::RawKeyboard() {
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved) != 0) return;
    termios raw = saved;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) != 0) return;
    active = true;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    std::signal(SIGHUP, on_signal);
}

RawKeyboard::~RawKeyboard() { restore(); }

}  // namespace workbook::cli
