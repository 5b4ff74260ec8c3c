// The lab dashboard's network half on the student's side (see lab.hpp): the verbs' end of
// client/class_client.hpp (who a token is, the detached sender that empties .workbook/lab-outbox/,
// remote checks), with the files under .workbook/ and the checker's terms.
#include "lab.hpp"

#include "client/class_client.hpp"

#include "workbook/errors.hpp"
#include "workbook/failure_kind.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <sstream>

namespace workbook::cli {

namespace {

// What the last delivery did, for `workbook progress`.
void note(const Workspace& ws, const std::string& sent_at, const std::string& error) {
    toml::table old;
    try {
        old = toml::parse_file(lab_status_file(ws).string());
    } catch (const toml::parse_error&) {
    }
    toml::table t{{"last_sent_at", sent_at.empty() ? old["last_sent_at"].value_or(std::string{}) : sent_at},
                  {"last_error", error.empty() ? old["last_error"].value_or(std::string{}) : error},
                  {"last_error_at", error.empty() ? old["last_error_at"].value_or(std::string{}) : utc_now()}};
    std::ostringstream text;
    text << t << "\n";
    write_private(lab_status_file(ws), text.str());
}

}  // namespace

ClassInfo lab_hello(const std::string& server, const std::string& token) { return client::class_hello(server, token); }

int lab_send(const Workspace& ws) {
    const auto c = read_class(ws);
    if (!c) return exit_ok;
    // One sender at a time; a check that finds one running leaves its report to it.
    fs::create_directories(outbox_dir(ws));
    const int lock = ::open((outbox_dir(ws) / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) return exit_ok;
    client::send_reports(
        *c, [&] { return waiting_reports(ws); },
        [&](bool sent, const std::string& error) { note(ws, sent ? utc_now() : "", error); });
    return exit_ok;
}

namespace {

// The failures a remote check's output names: each failed check's logged message, its lines up to
// the blank line doctest ends it with (a speed table is several lines).
std::vector<std::string> logged_messages(const std::string& output) {
    std::vector<std::string> out;
    std::istringstream in(output);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (const auto at = line.find("logged: "); at != std::string::npos) {
            out.push_back(clipped(line.substr(at + 8), 2000));
            inside = true;
        } else if (inside && !trim(line).empty() && out.back().size() < 16 * 1024) {
            out.back() += "\n" + clipped(line, 2000);
        } else {
            inside = false;
        }
    }
    return out;
}

// What a passing test printed besides doctest's and the harness's own lines: a speed rung's table
// and verdict.
std::string printed_by_test(const std::string& output) {
    std::string out;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("Device: ", 0) == 0 || line.rfind("Random seed", 0) == 0 || line.rfind("[doctest]", 0) == 0 ||
            line.rfind("=====", 0) == 0 || line.find(" graded from ") != std::string::npos)
            continue;
        if (out.size() < 16 * 1024) out += clipped(line, 2000) + "\n";
    }
    return trim(out);
}

// The grader's status in the checker's terms.
void stage_from(const std::string& status, CheckResult& r) {
    if (status == "passed") {
        r.stage = Stage::passed;
        return;
    }
    r.stage = status == "build failed" ? Stage::build : status == "race" ? Stage::race : Stage::test;
    r.failure = status == "build failed" ? failure::build_error
                : status == "race"      ? failure::race
                : status == "timed out" ? failure::timeout
                : status == "crashed"   ? failure::crash
                                        : failure::wrong_values;
}

}  // namespace

CheckResult check_remotely(const Workspace& ws, const Exercise& ex, const std::function<void(const std::string&)>& step,
                           const std::string& device) {
    const auto c = read_class(ws);
    if (!c)
        throw Error("a remote check goes to your class's server: `workbook join URL --token TOKEN` first (your "
                    "instructor gives both)");
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& f : ex.edit) {
        const fs::path file = ws.exercise_dir(ex) / f;
        if (!fs::exists(file)) throw Error(fmt::format("{} is missing: `workbook reset {}` restores the starter", file.string(), ex.id));
        files.emplace_back(f, read_file(file));
    }
    const auto got = client::remote_check(*c, ex.id, files, device, step);
    CheckResult r;
    stage_from(got.status, r);
    r.problems = logged_messages(got.output);
    if (r.passed()) r.speed = printed_by_test(got.output);
    // Not graded: the output is the server's reason (a device Slurm cannot run, a grader that failed).
    if (r.problems.empty() && !r.passed())
        r.problems.push_back(got.status == "not graded" && !got.output.empty()
                                 ? clipped(got.output, 1000)
                                 : fmt::format("the server's grader says: {}", got.status));
    r.log = got.output;
    r.race_note = fmt::format("remote check on {} ({}), {:.1f} s round trip", got.where, c->server, got.seconds);
    return r;
}

}  // namespace workbook::cli
