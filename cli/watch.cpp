// Watch mode (see watch.hpp): inotify on the exercise folder (editors that save by renaming are
// seen too), or polling with --poll or where inotify is unavailable; keys read in raw mode.
#include "watch.hpp"

#include "checker.hpp"
#include "lab.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <thread>

namespace workbook::cli {

std::string format_list(const Workspace& ws, const Style& style) {
    std::string out;
    const Exercise& cur = ws.current();
    for (const auto& ex : ws.course().exercises) {
        const Status s = ws.progress(ex).status;
        std::string mark = s == Status::done ? style.green("done   ") : s == Status::failing ? style.red("failing")
                                                                                             : style.dim("pending");
        const bool is_current = ex.id == cur.id;
        out += fmt::format("{} {}  {}  {}\n", is_current ? ">" : " ", ex.id, mark,
                           is_current ? style.bold(ex.title) : ex.title);
    }
    out += progress_bar(ws.done_count(), ws.course().exercises.size()) + "\n";
    return out;
}

std::string next_hint(Workspace& ws, const Exercise& ex) {
    auto& p = ws.progress(ex);
    if (ex.hints.empty()) return "This exercise has no hints: its README's \"Your task\" section is the guide.";
    if (p.hints_shown >= static_cast<int>(ex.hints.size())) {
        return fmt::format("Hint {}/{} (the last one): {}\n(No more hints. The README's \"API you will use\" section "
                           "lists every call you need.)",
                           ex.hints.size(), ex.hints.size(), ex.hints.back());
    }
    const int n = p.hints_shown++;
    ws.save();
    return fmt::format("Hint {}/{}: {}", n + 1, ex.hints.size(), ex.hints[static_cast<std::size_t>(n)]);
}

namespace {

using Clock = std::chrono::steady_clock;

// Notices changes to an exercise's files: inotify on its folder, else modification times.
class FileWatcher {
public:
    FileWatcher(bool poll) : poll_(poll) {
        if (!poll_) {
            fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
            if (fd_ < 0) poll_ = true;  // no inotify (some containers): fall back
        }
    }
    ~FileWatcher() {
        if (fd_ >= 0) close(fd_);
    }
    bool polling() const { return poll_; }
    int fd() const { return fd_; }

    void watch(const Workspace& ws, const Exercise& ex) {
        dir_ = ws.exercise_dir(ex);
        files_.clear();
        for (const auto& f : ex.edit) files_.push_back(dir_ / f);
        stamps_ = stamps();
        if (!poll_) {
            if (wd_ >= 0) inotify_rm_watch(fd_, wd_);
            wd_ = inotify_add_watch(fd_, dir_.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE);
            if (wd_ < 0) poll_ = true;
        }
    }

    // After poll() says the inotify fd is readable (or every half second when polling): true
    // when a file of the exercise changed since the last call.
    bool changed() {
        if (!poll_) {
            alignas(inotify_event) char buf[4096];
            while (read(fd_, buf, sizeof buf) > 0) {
            }
        }
        auto now = stamps();
        if (now == stamps_) return false;
        stamps_ = std::move(now);
        return true;
    }

private:
    std::vector<std::optional<fs::file_time_type>> stamps() const {
        std::vector<std::optional<fs::file_time_type>> out;
        for (const auto& f : files_) {
            std::error_code ec;
            const auto t = fs::last_write_time(f, ec);
            out.push_back(ec ? std::nullopt : std::optional(t));
        }
        return out;
    }
    bool poll_;
    int fd_ = -1, wd_ = -1;
    fs::path dir_;
    std::vector<fs::path> files_;
    std::vector<std::optional<fs::file_time_type>> stamps_;
};

class Screen {
public:
    Screen(Workspace& ws, const Style& style, const WatchOptions& options) : ws_(ws), style_(style), options_(options) {}

    int run() {
        FileWatcher files(options_.poll);
        ex_ = &ws_.current();
        files.watch(ws_, *ex_);
        watching_ = files.polling() ? "polling every 0.5 s" : "inotify";
        RawKeyboard keyboard;
        recheck();
        for (;;) {
            pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {files.fd(), POLLIN, 0}};
            const int n = ::poll(fds, files.polling() ? 1 : 2, files.polling() ? 500 : -1);
            if (n < 0) continue;  // EINTR
            if (fds[0].revents & (POLLHUP | POLLERR)) return 0;
            if (fds[0].revents & POLLIN) {
                char key = 0;
                if (read(STDIN_FILENO, &key, 1) <= 0) return 0;
                if (!on_key(key, files)) return 0;
            }
            if (files.polling() || (fds[1].revents & POLLIN)) {
                // Editors write in bursts (a temporary file, a rename): settle before checking.
                if (files.changed()) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(200));
                    files.changed();
                    note_ = "a file changed: checked again";
                    recheck();
                }
            }
        }
    }

private:
    // False: quit.
    bool on_key(char key, FileWatcher& files) {
        if (listing_ && key >= '0' && key <= '9') {
            typed_ += key;
            panel_ = format_list(ws_, style_) + fmt::format("\nJump to exercise: {}_  (Enter to go, Esc to cancel)", typed_);
            render();
            return true;
        }
        if (listing_ && (key == '\n' || key == '\r') && !typed_.empty()) {
            const Exercise* target = ws_.course().find(typed_.size() == 1 ? "0" + typed_ : typed_);
            listing_ = false;
            if (!target) {
                note_ = fmt::format("there is no exercise {}", typed_);
                typed_.clear();
                panel_.clear();
                render();
                return true;
            }
            typed_.clear();
            go_to(*target, files);
            return true;
        }
        listing_ = false;
        typed_.clear();
        switch (key) {
        case 'q': case 'Q': return false;
        case 'h': case 'H':
            panel_ = next_hint(ws_, *ex_);
            render();
            return true;
        case 'l': case 'L':
            listing_ = true;
            panel_ = format_list(ws_, style_) + "\nType an exercise number and Enter to jump there, or any key to close.";
            render();
            return true;
        case 'r': case 'R':
            note_ = "re-run";
            recheck();
            return true;
        case 'n': case 'N':
            if (!result_.passed()) {
                note_ = "n moves on once this exercise passes (l lets you jump anywhere)";
                render();
            } else if (const Exercise* next = ws_.next_after(*ex_)) {
                go_to(*next, files);
            } else {
                note_ = "that was the last exercise: well done! (q quits)";
                render();
            }
            return true;
        default:
            panel_.clear();
            render();
            return true;
        }
    }

    void go_to(const Exercise& ex, FileWatcher& files) {
        ex_ = &ex;
        ws_.set_current(ex);
        ws_.save();
        files.watch(ws_, ex);
        note_.clear();
        recheck();
    }

    void recheck() {
        panel_.clear();
        checking_ = "checking...";
        render();
        const auto step = [&](const std::string& what) {
            checking_ = what + "...";
            render();
        };
        try {
            result_ = options_.remote ? check_remotely(ws_, *ex_, step, options_.on) : check_exercise(ws_, *ex_, step);
            if (options_.remote) note_.clear();
        } catch (const Error& e) {
            // The class's server away or refusing: said on the screen, and watching goes on.
            checking_.clear();
            note_ = std::string("remote check: ") + e.what() + " (`workbook` without --remote checks here)";
            render();
            return;
        }
        checking_.clear();
        record_check(ws_, *ex_, result_);
        render();
    }

    void render() {
        std::string out = style_.color ? "\x1b[2J\x1b[H" : "\n";
        out += style_.bold(fmt::format("OpenCL Workbook · exercise {} of {}: {}", ws_.index_of(*ex_) + 1,
                                       ws_.course().exercises.size(), ex_->title)) + "\n";
        out += progress_bar(ws_.done_count(), ws_.course().exercises.size()) + "\n";
        out += "Edit:";
        for (const auto& f : ex_->edit) out += fmt::format(" exercises/{}/{}", ex_->dir(), f);
        out += fmt::format("\nRead: exercises/{}/README.md   (watching your files: {})\n\n", ex_->dir(), watching_);
        if (!checking_.empty()) {
            out += style_.yellow(checking_) + "\n";
        } else {
            out += format_result(*ex_, result_, style_, options_.verbose);
            if (result_.passed())
                out += "\n" + style_.green("Well done. Press n for the next exercise") + " (or keep improving it).\n";
        }
        if (!panel_.empty()) out += "\n" + panel_ + "\n";
        if (!note_.empty()) out += "\n" + style_.dim(note_) + "\n";
        out += "\n" + style_.dim("h hint · l list · r re-run · n next (after a pass) · q quit") + "\n";
        std::cout << out << std::flush;
    }

    Workspace& ws_;
    const Style& style_;
    const WatchOptions& options_;
    const Exercise* ex_ = nullptr;
    CheckResult result_;
    std::string panel_, note_, checking_, typed_, watching_;
    bool listing_ = false;
};

}  // namespace

int run_watch(Workspace& ws, const Style& style, const WatchOptions& options) {
    if (!stdin_is_terminal()) {
        // No keyboard to read: one check of the current exercise, like `workbook check`.
        const Exercise& ex = ws.current();
        fmt::print("stdin is not a terminal: checking the current exercise once (use `workbook check` in scripts)\n");
        const auto r = options.remote ? check_remotely(ws, ex, {}, options.on) : check_exercise(ws, ex);
        record_check(ws, ex, r);
        fmt::print("{}", format_result(ex, r, style, options.verbose));
        return r.passed() ? 0 : 1;
    }
    return Screen(ws, style, options).run();
}

}  // namespace workbook::cli
