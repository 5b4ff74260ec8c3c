// The lab dashboard's routes (see lab_routes.hpp).
#include "server/lab_routes.hpp"

#include "server/http_json.hpp"
#include "server/lab_page.hpp"
#include "server/rate.hpp"
#include "server/roster.hpp"

#include "workbook/errors.hpp"
#include "workbook/failure_kind.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>

namespace workbook::server {

using contest::LabCell;
using contest::LabCheck;
using contest::Student;
using contest::lab_state_name;
using contest::parse_lab_check;
using contest::Database;
using contest::LabState;

namespace {

using json = nlohmann::json;

constexpr std::size_t max_check_bytes = 4096;
// Per student: a burst of this many checks, then one per refill interval (watch mode checks on
// every save; a script posting in a loop is slowed, and its rows only count up anyway).
constexpr double burst = 20, refill_s = 3;

// Per exercise: how many students passed, work on it, are stuck; the failure kinds by checks and
// by students. Names stay out: the projector's view is this and nothing more.
json exercise_counts(const LabOptions& o, const std::vector<LabCell>& cells, const std::string& now) {
    json out = json::array();
    for (const auto& [id, title] : o.exercises) {
        int passed = 0, working = 0, stuck = 0;
        std::map<std::string, std::pair<int, int>> kinds;  // checks, students
        for (const auto& c : cells) {
            if (c.exercise != id) continue;
            const LabState s = lab_state(c, now, o.stuck_after_s);
            passed += s == LabState::passed;
            working += s == LabState::working;
            stuck += s == LabState::stuck;
            for (const auto& [kind, n] : c.failures) {
                kinds[kind].first += n;
                kinds[kind].second += 1;
            }
        }
        json list = json::array();
        for (const auto& k : failure_kinds)
            if (const auto it = kinds.find(std::string(k.name)); it != kinds.end())
                list.push_back({{"kind", k.name}, {"label", k.label}, {"checks", it->second.first},
                                {"students", it->second.second}});
        // Most common first: by students, then by checks.
        std::stable_sort(list.begin(), list.end(), [](const json& a, const json& b) {
            return std::pair(a["students"].get<int>(), a["checks"].get<int>()) >
                   std::pair(b["students"].get<int>(), b["checks"].get<int>());
        });
        out.push_back({{"id", id}, {"title", title}, {"passed", passed}, {"working", working}, {"stuck", stuck},
                       {"failures", std::move(list)}});
    }
    return out;
}

json grid(const LabOptions& o, const std::vector<Student>& students, const std::vector<LabCell>& cells,
          const std::string& now) {
    json rows = json::array();
    for (const auto& st : students) {
        json row_cells = json::object();
        std::string last_seen, current;
        for (const auto& c : cells) {
            if (c.student != st.id) continue;
            const LabState s = lab_state(c, now, o.stuck_after_s);
            row_cells[c.exercise] = {{"state", lab_state_name(s)},
                                     {"checks", c.checks},
                                     {"fails", c.fails},
                                     {"last_failure", c.last_failure},
                                     {"minutes", c.seconds / 60},
                                     {"hints", c.hints},
                                     {"first_at", c.first_at},
                                     {"last_at", c.last_at}};
            if (c.last_at > last_seen) last_seen = c.last_at, current = c.exercise;
        }
        rows.push_back({{"id", st.id},
                        {"name", st.name},
                        {"alias", st.alias},
                        {"last_seen", last_seen},
                        {"current", current},
                        {"cells", std::move(row_cells)}});
    }
    json exercises = json::array();
    for (const auto& [id, title] : o.exercises) exercises.push_back({{"id", id}, {"title", title}});
    return {{"exercises", std::move(exercises)},
            {"students", std::move(rows)},
            {"per_exercise", exercise_counts(o, cells, now)},
            {"stuck_minutes", o.stuck_after_s / 60.0},
            {"generated_at", now}};
}

}  // namespace

std::optional<Student> student_of(const httplib::Request& req, Database& db) {
    const std::string token = bearer_token(req);
    return token.empty() ? std::nullopt : db.student_by_token_hash(token_hash(token));
}

void refuse_student(httplib::Response& res) {
    res.set_header("WWW-Authenticate", "Bearer");
    send_error(res, 401, "missing or unknown token: `workbook join URL --token TOKEN` with the token your instructor "
                         "gave you");
}

std::string lab_instructor_token(const std::filesystem::path& file) {
    const PrivateFile f(file, O_RDWR, "the instructor's token file");
    if (f.size == 0) {
        const std::string token = new_token();
        const std::string line = token + "\n";
        if (::write(f.fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
            throw Error(fmt::format("cannot write the instructor's token to {}: {}", file.string(), std::strerror(errno)));
        return token;
    }
    std::string text(static_cast<std::size_t>(std::min<long long>(f.size, 256)), '\0');
    if (::read(f.fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
        throw Error(fmt::format("cannot read the instructor's token from {}", file.string()));
    const std::string token = trim(text);
    if (token.size() < 32)
        throw Error(fmt::format("{} holds no instructor's token (32 characters or more): delete it and start "
                                "again for a new one",
                                file.string()));
    return token;
}

void add_hello_route(httplib::Server& server, Database& db, std::mutex& db_mutex, bool lab,
                     const std::vector<std::string>& remote, const std::vector<std::string>& devices) {
    server.Get("/api/lab/hello", [&db, &db_mutex, lab, remote, devices](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(db_mutex);
        const auto st = student_of(req, db);
        if (!st) return refuse_student(res);
        send_json(res, {{"student", st->id}, {"name", st->name}, {"alias", st->alias}, {"lab", lab},
                        {"remote_checks", remote}, {"remote_devices", devices}});
    });
}

void add_lab_routes(httplib::Server& server, Database& db, std::mutex& db_mutex, const LabOptions& options,
                    const std::function<void(const std::string&)>& log) {
    std::vector<std::string> ids;
    for (const auto& [id, title] : options.exercises) ids.push_back(id);
    auto buckets = std::make_shared<std::map<std::string, Rate>>();  // by student, under db_mutex

    server.Post("/api/lab/check", [&db, &db_mutex, ids, buckets, log](const httplib::Request& req,
                                                                       httplib::Response& res) {
        std::lock_guard lock(db_mutex);
        const auto st = student_of(req, db);
        if (!st) return refuse_student(res);
        if (req.body.size() > max_check_bytes)
            return send_error(res, 413, fmt::format("a check is at most {} bytes", max_check_bytes));
        if (const int wait = buckets->try_emplace(st->id, burst, refill_s).first->second.take(); wait > 0) {
            res.set_header("Retry-After", std::to_string(wait));
            return send_error(res, 429, fmt::format("too many checks at once: try again in {} s", wait));
        }
        LabCheck check;
        try {
            check = parse_lab_check(req.body, ids, db.now());
        } catch (const Error& e) {
            return send_error(res, 400, e.what());
        }
        db.record_lab_check(st->id, check);
        res.status = 204;
    });

    server.Get("/api/lab", [&db, &db_mutex, options](const httplib::Request& req, httplib::Response& res) {
        if (!equal_constant_time(bearer_token(req), options.instructor_token)) {
            res.set_header("WWW-Authenticate", "Bearer");
            return send_error(res, 401, "the instructor's token is missing or wrong: open the address `contest serve "
                                        "--lab` printed, with the token from its file after #");
        }
        std::lock_guard lock(db_mutex);
        send_json(res, grid(options, db.students(), db.lab_cells(), db.now()));
    });

    server.Get("/api/lab/room", [&db, &db_mutex, options](const httplib::Request&, httplib::Response& res) {
        std::lock_guard lock(db_mutex);
        const auto cells = db.lab_cells();
        std::size_t seen = 0;
        for (const auto& st : db.students())
            seen += std::any_of(cells.begin(), cells.end(), [&](const LabCell& c) { return c.student == st.id; });
        send_json(res, {{"exercises", exercise_counts(options, cells, db.now())},
                        {"students", seen},
                        {"stuck_minutes", options.stuck_after_s / 60.0},
                        {"generated_at", db.now()}});
    });

    server.Get("/lab", [](const httplib::Request&, httplib::Response& res) { send_page(res, lab_page_html); });
    server.Get("/room", [](const httplib::Request&, httplib::Response& res) { send_page(res, lab_page_html); });
    log(fmt::format("lab: {} exercises; a student is stuck after {} min on one", options.exercises.size(),
                    options.stuck_after_s / 60.0));
}

}  // namespace workbook::server
