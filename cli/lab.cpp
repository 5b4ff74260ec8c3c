// The student's side of the lab dashboard: the class file, the outbox and the sender's start
// (see lab.hpp). The network half is lab_net.cpp.
#include "lab.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <toml++/toml.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

namespace workbook::cli {

namespace {

// A student offline all day keeps at most this many reports; the oldest go first.
constexpr std::size_t max_waiting = 500;

// The sender, detached (its own session, reparented to init): the check returns at once, and
// neither its exit nor a Ctrl-C in the student's terminal stops a delivery half-way.
void start_sender(const Workspace& ws) {
    std::error_code ec;
    const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec) return;
    const std::string root = ws.root().string(), build = ws.build().string();
    std::vector<const char*> argv{self.c_str(), "--root", root.c_str(), "--build-dir", build.c_str(), "lab-send", nullptr};
    const pid_t child = fork();
    if (child < 0) return;
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            const int null = open("/dev/null", O_RDWR);
            if (null >= 0) {
                dup2(null, 0);
                dup2(null, 1);
                dup2(null, 2);
            }
            execv(argv[0], const_cast<char* const*>(argv.data()));
        }
        _exit(0);
    }
    waitpid(child, nullptr, 0);
}

void report(const Workspace& ws, const Exercise& ex, const CheckResult& r) {
    if (const auto c = read_class(ws); !c || !c->lab) return;
    const auto now = std::chrono::system_clock::now();
    const long long now_unix = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    const auto& p = ws.progress(ex);
    // Exercise ids and failure kinds are plain words: nothing here needs escaping.
    const std::string body = fmt::format(
        R"({{"exercise":"{}","passed":{},"failure":"{}","seconds_on_exercise":{},"hints_used":{},"checked_at":"{}"}})",
        ex.id, r.passed() ? "true" : "false", r.passed() ? "" : r.failure, p.seconds_on_it(now_unix), p.hints_shown,
        utc_now());
    fs::create_directories(outbox_dir(ws));
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    write_private(outbox_dir(ws) / fmt::format("{:015d}-{}.json", ms, ::getpid()), body);
    auto files = waiting_reports(ws);
    for (std::size_t i = 0; i + max_waiting < files.size(); ++i) fs::remove(files[i]);
    start_sender(ws);
}

}  // namespace

std::string utc_now() {
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}", fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

std::vector<fs::path> waiting_reports(const Workspace& ws) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(outbox_dir(ws), ec))
        if (e.path().extension() == ".json" && e.path().filename().string()[0] != '.') files.push_back(e.path());
    std::sort(files.begin(), files.end());  // named by time: oldest first
    return files;
}

fs::path class_file(const Workspace& ws) { return ws.state_dir() / "class.toml"; }
fs::path outbox_dir(const Workspace& ws) { return ws.state_dir() / "lab-outbox"; }
fs::path lab_status_file(const Workspace& ws) { return ws.state_dir() / "lab-status.toml"; }

void write_private(const fs::path& file, const std::string& text) {
    const fs::path tmp = file.parent_path() / ("." + file.filename().string() + ".tmp");
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw Error(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(errno)));
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!ok) throw Error(fmt::format("cannot write {}: is the disk full?", tmp.string()));
    fs::rename(tmp, file);
}

std::optional<ClassInfo> read_class(const Workspace& ws) { return read_class_file(class_file(ws)); }

std::optional<ClassInfo> read_class_file(const fs::path& file) {
    if (!fs::exists(file)) return std::nullopt;
    try {
        const auto t = toml::parse_file(file.string());
        ClassInfo c{t["server"].value_or(std::string{}), t["token"].value_or(std::string{}),
                    t["student"].value_or(std::string{}), t["name"].value_or(std::string{}),
                    t["alias"].value_or(std::string{}), t["joined_at"].value_or(std::string{}),
                    t["lab"].value_or(true), t["remote_checks"].value_or(std::string{}),
                    t["remote_devices"].value_or(std::string{})};
        if (c.server.empty() || c.token.empty()) return std::nullopt;
        return c;
    } catch (const toml::parse_error&) {
        return std::nullopt;
    }
}

void record_check(Workspace& ws, const Exercise& ex, const CheckResult& r) {
    ws.record(ex, r.passed());
    ws.save();
    try {
        report(ws, ex, r);
    } catch (const std::exception&) {
        // The report is a courtesy to the instructor; the check's own result is already saved.
    }
}

int join_command(const Workspace& ws, const std::string& server, std::string token) {
    if (token.empty())
        if (const char* env = std::getenv("WORKBOOK_CONTEST_TOKEN")) token = env;
    if (token.empty() && isatty(0)) {
        std::cout << "Your token (from your instructor): " << std::flush;
        std::getline(std::cin, token);
        token = trim(token);
    }
    if (token.empty())
        throw Error("workbook join needs your token: --token TOKEN, or WORKBOOK_CONTEST_TOKEN, as your instructor gave it");
    ClassInfo c = lab_hello(server, token);
    c.joined_at = utc_now();
    toml::table t{{"server", c.server}, {"token", c.token},         {"student", c.student},
                  {"name", c.name},     {"alias", c.alias},         {"joined_at", c.joined_at},
                  {"lab", c.lab},       {"remote_checks", c.remote}, {"remote_devices", c.devices}};
    std::ostringstream text;
    text << "# The class this workbook reports its checks to (`workbook leave` stops it). Keep it private:\n"
            "# the token is yours.\n"
         << t << "\n";
    fs::create_directories(ws.state_dir());
    write_private(class_file(ws), text.str());
    const std::string who = c.name.empty() ? c.student : c.name;
    fmt::print("Joined the class at {} as {}{}.\n", c.server, who, c.alias.empty() || c.alias == who ? "" : " (" + c.alias + ")");
    if (c.lab)
        fmt::print("From now on each check tells the class's server: the exercise, pass or fail, the kind of the first "
                   "failure\n(build error, wrong values, race, too slow, timeout, crash), your time on the exercise "
                   "and the hints you used.\nNever your code. `workbook leave` stops it; `workbook progress` shows "
                   "where it reports.\n");
    else
        fmt::print("This server keeps no lab dashboard: your checks are not reported.\n");
    if (!c.remote.empty() && c.devices.empty())
        fmt::print("It checks these exercises on its own device: {} (`workbook check NN --remote`).\n", c.remote);
    else if (!c.remote.empty())
        fmt::print("It checks these exercises remotely: {} (`workbook check NN --remote`), on these devices: {}\n"
                   "(the first by default; `--on NAME` chooses).\n",
                   c.remote, c.devices);
    return exit_ok;
}

int leave_command(const Workspace& ws) {
    const auto c = read_class(ws);
    const std::size_t dropped = waiting_reports(ws).size();
    std::error_code ec;
    fs::remove(class_file(ws), ec);
    fs::remove_all(outbox_dir(ws), ec);
    fs::remove(lab_status_file(ws), ec);
    if (!c) {
        fmt::print("This workbook had not joined a class: nothing is reported.\n");
        return exit_ok;
    }
    fmt::print("Left the class at {}: checks are no longer reported{}.\n", c->server,
               dropped ? fmt::format(" ({} report(s) not yet sent were dropped)", dropped) : "");
    return exit_ok;
}

std::string lab_status_line(const Workspace& ws) {
    const auto c = read_class(ws);
    if (!c)
        return "Checks are not reported to a class. (`workbook join URL` with your instructor's token: it sends pass "
               "or fail, the failure's kind, time and hints, never your code.)";
    const std::string remote =
        c->remote.empty() ? ""
                          : fmt::format("\n  Remote checks ({}): `workbook check NN --remote`{}", c->remote,
                                        c->devices.empty() ? "" : " [--on NAME], on " + c->devices);
    if (!c->lab)
        return fmt::format("Joined {} as {}: checks are not reported (it keeps no lab dashboard).{}", c->server,
                           c->name.empty() ? c->student : c->name, remote);
    std::string line = fmt::format("Checks are reported to {} as {}", c->server, c->name.empty() ? c->student : c->name);
    const std::size_t n = waiting_reports(ws).size();
    line += n == 0 ? ": all sent" : fmt::format(": {} waiting to be sent", n);
    try {
        const auto s = toml::parse_file(lab_status_file(ws).string());
        const std::string sent = s["last_sent_at"].value_or(std::string{});
        const std::string error = s["last_error"].value_or(std::string{});
        if (!sent.empty()) line += fmt::format(", the last at {} UTC", sent);
        if (!error.empty() && n > 0)
            line += fmt::format("\n  last problem ({} UTC): {}", s["last_error_at"].value_or(std::string{}), error);
    } catch (const toml::parse_error&) {
        // No sender has run yet.
    }
    return line + ". (`workbook leave` stops it.)" + remote;
}

}  // namespace workbook::cli
