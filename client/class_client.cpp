// The student's side of a class's server: hello, the lab's reports, remote checks (see
// class_client.hpp).
#include "client/class_client.hpp"

#include "client/client.hpp"
#include "client/http_client.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace workbook::client {

namespace {

std::string server_error(const HttpAnswer& r) {
    const auto j = nlohmann::json::parse(r.body, nullptr, false);
    return j.is_object() && j.contains("error") && j["error"].is_string() ? sanitize(j["error"].get<std::string>(), 300)
                                                                          : fmt::format("HTTP {}", r.status);
}

// How many "too many" answers in a row a sender waits out before it leaves the reports to the next
// check.
constexpr int max_busy_refusals = 8;

}  // namespace

ClassInfo class_hello(const std::string& server, const std::string& token) {
    check_server_address(server, "workbook join " + server);
    const ServerClient client(server, token, std::chrono::seconds(10));
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

void send_reports(const ClassInfo& c, const std::function<std::vector<std::filesystem::path>()>& waiting,
                  const std::function<void(bool sent, const std::string& error)>& note) {
    const ServerClient client(c.server, c.token, std::chrono::seconds(10));
    int failures = 0, refusals = 0;
    for (;;) {
        const auto files = waiting();
        std::error_code ec;
        if (files.empty()) return;
        const std::string body = read_file_or_empty(files.front());
        const auto r = client.post("/api/lab/check", body, "application/json");
        int wait_s = 0;
        if (!r) {
            // The server is away: try for about a minute, then leave it to the next check.
            note(false, fmt::format("cannot reach {} ({})", c.server, r.error));
            if (++failures > 5) return;
            wait_s = 1 << failures;
        } else if (r.status / 100 == 2) {
            std::filesystem::remove(files.front(), ec);
            note(true, "");
            failures = refusals = 0;
        } else if (r.status == 429) {
            // Too many at once: waited for as the server asks, but not for ever (a server that
            // always says so would keep this process alive): the next check tries again.
            if (++refusals > max_busy_refusals) {
                note(false, fmt::format("{} kept refusing the reports as too many (HTTP 429, {} times): gave up until "
                                     "your next check",
                                     c.server, refusals - 1));
                return;
            }
            wait_s = std::clamp(std::atoi(r.retry_after.c_str()), 1, 30);
        } else if (r.status == 400 || r.status == 413) {
            // A report the server will never take (an exercise its course does not have): dropped.
            std::filesystem::remove(files.front(), ec);
            note(false, fmt::format("{} refused a report: {}", c.server, server_error(r)));
        } else {
            // A revoked token, a server without the lab: kept until `workbook join` again or `leave`.
            note(false, fmt::format("{} refused the reports (HTTP {}): {}; `workbook join` again, or `workbook leave`",
                                 c.server, r.status, server_error(r)));
            return;
        }
        if (wait_s > 0) std::this_thread::sleep_for(std::chrono::seconds(wait_s));
    }
}

// The server itself gives a grading at most 5 minutes and a few time limits; the rest is the
// queue of a busy class: a server that never finishes one does not keep the terminal for ever.
std::chrono::seconds remote_check_deadline() {
    const char* v = std::getenv("WORKBOOK_REMOTE_DEADLINE_S");
    const long s = v ? std::atol(v) : 0;
    return std::chrono::seconds(s > 0 ? s : 30 * 60);
}

RemoteResult remote_check(const ClassInfo& c, const std::string& exercise,
                          const std::vector<std::pair<std::string, std::string>>& files, const std::string& device,
                          const std::function<void(const std::string&)>& step) {
    std::vector<FormPart> form{{"exercise", exercise, ""}};
    if (!device.empty()) form.push_back({"device", device, ""});
    for (const auto& [name, content] : files) form.push_back({name, content, name});
    const ServerClient client(c.server, c.token, std::chrono::seconds(20));
    const auto start = std::chrono::steady_clock::now();
    const auto posted = client.post_form("/api/check", form);
    if (!posted)
        throw Error(fmt::format("cannot reach the class's server at {} ({}): check it locally with `workbook check {}`",
                                c.server, posted.error, exercise));
    if (posted.status != 200)
        throw Error(fmt::format("{} refused the check (HTTP {}): {}", c.server, posted.status, server_error(posted)));
    RemoteResult out;
    out.id = nlohmann::json::parse(posted.body, nullptr, false).value("id", std::int64_t{0});
    const auto say = [&](const std::string& what) {
        if (step) step(what);
    };
    say(fmt::format("remote check {} of {} sent to {}", out.id, exercise, c.server));
    std::string last;
    nlohmann::json j;
    for (;;) {
        if (std::chrono::steady_clock::now() - start > remote_check_deadline())
            throw Error(fmt::format("remote check {} of {}: no result from {} after {} s (the class's device may be "
                                    "busy, or the server stuck): check locally with `workbook check {}`, or ask your "
                                    "instructor",
                                    out.id, exercise, c.server, remote_check_deadline().count(), exercise));
        const auto r = client.get(fmt::format("/api/check/{}", out.id));
        if (!r) throw Error(fmt::format("lost the class's server at {} ({})", c.server, r.error));
        if (r.status == 429) {  // asked too often (another terminal polling too): wait as told
            std::this_thread::sleep_for(std::chrono::seconds(std::clamp(std::atoi(r.retry_after.c_str()), 1, 5)));
            continue;
        }
        j = nlohmann::json::parse(r.body, nullptr, false);
        if (r.status != 200 || !j.is_object())
            throw Error(fmt::format("{} answered HTTP {} about check {}: {}", c.server, r.status, out.id, server_error(r)));
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
    out.status = sanitize(result.is_object() ? result.value("status", "not graded") : "not graded", 100);
    // Made safe once where it enters (what a test prints can hold escape sequences).
    out.output = sanitize(result.is_object() ? result.value("output", "") : "", 256 * 1024);
    const std::string hardware = sanitize(result.is_object() ? result.value("device", "") : "", 200);
    const std::string board = j.contains("device") && j["device"].is_string() ? sanitize(j["device"].get<std::string>(), 40) : "";
    out.where = board.empty() ? (hardware.empty() ? "the server's device" : hardware)
                : hardware.empty() || hardware == board ? "\"" + board + "\""
                                                        : "\"" + board + "\": " + hardware;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

}  // namespace workbook::client
