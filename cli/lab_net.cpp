// The lab dashboard's network half on the student's side (see lab.hpp): asking the server who a
// token is, and the detached sender that empties .workbook/lab-outbox/.
#include "lab.hpp"

#include "client/client.hpp"
#include "client/http_client.hpp"

#include "workbook/errors.hpp"
#include "workbook/failure_kind.hpp"
#include "workbook/text.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <chrono>
#include <thread>

namespace workbook::cli {

namespace {

client::ServerClient client_for(const std::string& server, const std::string& token, int timeout_s) {
    return client::ServerClient(server, token, std::chrono::seconds(timeout_s));
}

std::string server_error(const client::HttpAnswer& r) {
    const auto j = nlohmann::json::parse(r.body, nullptr, false);
    return j.is_object() && j.contains("error") && j["error"].is_string() ? sanitize(j["error"].get<std::string>(), 300)
                                                                          : fmt::format("HTTP {}", r.status);
}

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

ClassInfo lab_hello(const std::string& server, const std::string& token) {
    client::check_server_address(server, "workbook join " + server);
    const auto client = client_for(server, token, 10);
    const auto r = client.get("/api/lab/hello");
    if (!r)
        throw Error(fmt::format("cannot reach the class's server at {} ({}): check the address your instructor gave, "
                                "and that this machine reaches it",
                                server, r.error));
    if (r.status == 401) throw Error(fmt::format("{}: {}", server, server_error(r)));
    if (r.status == 404)
        throw Error(fmt::format("{} keeps no class (no lab dashboard, no remote checks): your instructor starts it "
                                "with `workbook contest serve --roster FILE --lab` (or --remote-checks)",
                                server));
    const auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (r.status != 200 || !j.is_object() || !j.contains("student") || !j["student"].is_string())
        throw Error(fmt::format("{} answered HTTP {} with something that is not a class's server: is the address right?",
                                server, r.status));
    const auto str = [&](const char* key) {
        return j.contains(key) && j[key].is_string() ? sanitize(j[key].get<std::string>(), 100) : std::string();
    };
    ClassInfo c{server, token, str("student"), str("name"), str("alias"), {},
                j.contains("lab") && j["lab"].is_boolean() ? j["lab"].get<bool>() : true, {}, {}};
    if (j.contains("remote_checks") && j["remote_checks"].is_array())
        for (const auto& id : j["remote_checks"])
            if (id.is_string()) c.remote += (c.remote.empty() ? "" : " ") + sanitize(id.get<std::string>(), 8);
    if (j.contains("remote_devices") && j["remote_devices"].is_array())
        for (const auto& d : j["remote_devices"])
            if (d.is_string())
                c.devices += (c.devices.empty() ? "\"" : ", \"") + sanitize(d.get<std::string>(), 40) + "\"";
    return c;
}

// How many "too many" answers in a row a sender waits out before it leaves the reports to the next
// check.
constexpr int max_busy_refusals = 8;

int lab_send(const Workspace& ws) {
    const auto c = read_class(ws);
    if (!c) return exit_ok;
    // One sender at a time; a check that finds one running leaves its report to it.
    fs::create_directories(outbox_dir(ws));
    const int lock = ::open((outbox_dir(ws) / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) return exit_ok;
    const auto client = client_for(c->server, c->token, 10);
    int failures = 0, refusals = 0;
    for (;;) {
        const auto files = waiting_reports(ws);
        std::error_code ec;
        if (files.empty()) return exit_ok;
        const std::string body = read_file_or_empty(files.front());
        const auto r = client.post("/api/lab/check", body, "application/json");
        int wait_s = 0;
        if (!r) {
            // The server is away: try for about a minute, then leave it to the next check.
            note(ws, "", fmt::format("cannot reach {} ({})", c->server, r.error));
            if (++failures > 5) return exit_ok;
            wait_s = 1 << failures;
        } else if (r.status / 100 == 2) {
            fs::remove(files.front(), ec);
            note(ws, utc_now(), "");
            failures = refusals = 0;
        } else if (r.status == 429) {
            // Too many at once: waited for as the server asks, but not for ever (a server that
            // always says so would keep this process alive): the next check tries again.
            if (++refusals > max_busy_refusals) {
                note(ws, "", fmt::format("{} kept refusing the reports as too many (HTTP 429, {} times): gave up "
                                         "until your next check",
                                         c->server, refusals - 1));
                return exit_ok;
            }
            wait_s = std::clamp(std::atoi(r.retry_after.c_str()), 1, 30);
        } else if (r.status == 400 || r.status == 413) {
            // A report the server will never take (an exercise its course does not have): dropped.
            fs::remove(files.front(), ec);
            note(ws, "", fmt::format("{} refused a report: {}", c->server, server_error(r)));
        } else {
            // A revoked token, a server without the lab: kept until `workbook join` again or `leave`.
            note(ws, "", fmt::format("{} refused the reports (HTTP {}): {}; `workbook join` again, or `workbook leave`",
                                     c->server, r.status, server_error(r)));
            return exit_ok;
        }
        if (wait_s > 0) std::this_thread::sleep_for(std::chrono::seconds(wait_s));
    }
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

// The whole of a remote check, queue included: a server that never finishes one does not keep the
// student's terminal for ever. The server itself gives a grading at most 5 minutes and a few
// time limits; the rest is the queue of a busy class. WORKBOOK_REMOTE_DEADLINE_S sets it (tests).
std::chrono::seconds remote_check_deadline() {
    const char* v = std::getenv("WORKBOOK_REMOTE_DEADLINE_S");
    const long s = v ? std::atol(v) : 0;
    return std::chrono::seconds(s > 0 ? s : 30 * 60);
}

CheckResult check_remotely(const Workspace& ws, const Exercise& ex, const std::function<void(const std::string&)>& step,
                           const std::string& device) {
    const auto c = read_class(ws);
    if (!c)
        throw Error("a remote check goes to your class's server: `workbook join URL --token TOKEN` first (your "
                    "instructor gives both)");
    std::vector<client::FormPart> form{{"exercise", ex.id, ""}};
    if (!device.empty()) form.push_back({"device", device, ""});
    for (const auto& f : ex.edit) {
        const fs::path file = ws.exercise_dir(ex) / f;
        if (!fs::exists(file)) throw Error(fmt::format("{} is missing: `workbook reset {}` restores the starter", file.string(), ex.id));
        form.push_back({f, read_file(file), f});
    }
    const auto client = client_for(c->server, c->token, 20);
    const auto start = std::chrono::steady_clock::now();
    const auto posted = client.post_form("/api/check", form);
    if (!posted)
        throw Error(fmt::format("cannot reach the class's server at {} ({}): check it locally with `workbook check {}`",
                                c->server, posted.error, ex.id));
    if (posted.status != 200)
        throw Error(fmt::format("{} refused the check (HTTP {}): {}", c->server, posted.status, server_error(posted)));
    const auto id = nlohmann::json::parse(posted.body, nullptr, false).value("id", std::int64_t{0});
    const auto say = [&](const std::string& what) {
        if (step) step(what);
    };
    say(fmt::format("remote check {} of {} sent to {}", id, ex.id, c->server));
    std::string last;
    nlohmann::json j;
    for (;;) {
        if (std::chrono::steady_clock::now() - start > remote_check_deadline())
            throw Error(fmt::format("remote check {} of {}: no result from {} after {} s (the class's device may be "
                                    "busy, or the server stuck): check locally with `workbook check {}`, or ask your "
                                    "instructor",
                                    id, ex.id, c->server, remote_check_deadline().count(), ex.id));
        const auto r = client.get(fmt::format("/api/check/{}", id));
        if (!r) throw Error(fmt::format("lost the class's server at {} ({})", c->server, r.error));
        if (r.status == 429) {  // asked too often (another terminal polling too): wait as told
            std::this_thread::sleep_for(std::chrono::seconds(std::clamp(std::atoi(r.retry_after.c_str()), 1, 5)));
            continue;
        }
        j = nlohmann::json::parse(r.body, nullptr, false);
        if (r.status != 200 || !j.is_object())
            throw Error(fmt::format("{} answered HTTP {} about check {}: {}", c->server, r.status, id, server_error(r)));
        const std::string state = j.value("state", "");
        if (state == "done" || state == "failed") break;
        const std::string on = j.contains("device") && j["device"].is_string() && !j["device"].get<std::string>().empty()
                                   ? " on " + sanitize(j["device"].get<std::string>(), 40)
                                   : " on the server";
        const std::string now = state == "queued" ? fmt::format("queued{}, place {}", on, j.value("queue_position", 0))
                                                  : "running" + on;
        if (now != last) say(now);
        last = now;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    const auto& result = j["result"];
    CheckResult r;
    const std::string status = result.is_object() ? result.value("status", "not graded") : "not graded";
    // Made safe once where it enters (what a test prints can hold escape sequences): the messages,
    // the speed table and the log below are all cut from it.
    const std::string output = sanitize(result.is_object() ? result.value("output", "") : "", 256 * 1024);
    const std::string hardware = sanitize(result.is_object() ? result.value("device", "") : "", 200);
    const std::string board = j.contains("device") && j["device"].is_string() ? sanitize(j["device"].get<std::string>(), 40) : "";
    const std::string where = board.empty() ? (hardware.empty() ? "the server's device" : hardware)
                                            : hardware.empty() || hardware == board ? "\"" + board + "\""
                                                                                     : "\"" + board + "\": " + hardware;
    stage_from(status, r);
    r.problems = logged_messages(output);
    if (r.passed()) r.speed = printed_by_test(output);
    // Not graded: the output is the server's reason (a device Slurm cannot run, a grader that failed).
    if (r.problems.empty() && !r.passed())
        r.problems.push_back(status == "not graded" && !output.empty() ? clipped(output, 1000)
                                                                      : fmt::format("the server's grader says: {}", sanitize(status, 100)));
    r.log = output;
    r.race_note = fmt::format("remote check on {} ({}), {:.1f} s round trip", where, c->server, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return r;
}

}  // namespace workbook::cli
