// The contest's web server (see serve.hpp).
//
// Threads: the caller's thread accepts connections, the gate (http_gate.hpp) reads requests in one
// thread and runs handlers on a few workers (they share one Database under a mutex), one thread
// waits for SIGINT/SIGTERM, and one runs the judge with a Database of its own. Nothing in a request
// ever becomes a path: the uploaded file name is only stored as text, sanitised.
#include "serve.hpp"

#include "contest/alias.hpp"
#include "server/http_gate.hpp"
#include "server/http_json.hpp"
#include "server/lab_routes.hpp"
#include "contest/page.hpp"
#include "contest/ranking.hpp"
#include "server/roster.hpp"
#include "server/slurm_jobs.hpp"
#include "contest/window.hpp"
#include "contest/zoo.hpp"
#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace workbook::server {

using contest::read_zoo;

using contest::Alias;
using contest::ContestWindow;
using contest::DeviceBoard;
using contest::Judging;
using contest::Outcome;
using contest::QueueRequest;
using contest::Submission;
using contest::alias_problem;
using contest::baseline_alias;
using contest::cross_device;
using contest::judge_next;
using contest::judge_source;
using contest::normalise_alias;
using contest::page_html;
using contest::public_reason;
using contest::reference_alias;
using contest::seconds_between;
using contest::ContestClosed;
using contest::Database;
using contest::JudgingLock;
using contest::RateLimited;
using contest::Zoo;

namespace {

using json = nlohmann::json;

// The upload's other fields (alias, file name, multipart boundaries) fit well within this.
constexpr std::size_t form_overhead_bytes = 16 * 1024;
constexpr std::size_t recent_submissions = 50;

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);  // the database's format (UTC)
    return buf;
}

// The uploaded file's name, kept only as a label: its last path component, restricted to
// [A-Za-z0-9._-], at most 64 characters, never starting with a dot.
std::string sanitise_file_name(const std::string& name) {
    const auto slash = name.find_last_of("/\\");
    const std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
    std::string out;
    for (char c : base) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '-';
        out += ok ? c : '_';
        if (out.size() == 64) break;
    }
    while (!out.empty() && out.front() == '.') out.erase(out.begin());
    return out.empty() ? "kernel.cl" : out;
}

// Who an upload counts against and the alias it goes under, or why it is refused.
struct Uploader {
    int status = 200;  // 200, or the HTTP error with `error`
    std::string error;
    std::string owner;
    Alias alias;
};

Uploader refused(int status, std::string error) { return {status, std::move(error), {}, {}}; }

std::string alias_field(const httplib::Request& req) {
    return req.has_file("alias") ? req.get_file_value("alias").content : std::string();
}

// With one shared token: anyone holding it, under any alias; the limits count per alias.
Uploader shared_uploader(const httplib::Request& req, const std::string& token) {
    if (!equal_constant_time(bearer_token(req), token))
        return refused(401, "missing or wrong upload token (Authorization: Bearer <token>)");
    const std::string raw = alias_field(req);
    if (const auto problem = alias_problem(raw); !problem.empty()) return refused(400, problem);
    const Alias a = normalise_alias(raw);
    return {200, {}, "alias:" + a.key, a};
}

// With a roster: the student whose token it is, under their alias (bound at the first upload
// unless the roster named it); the limits count per student.
Uploader student_uploader(const httplib::Request& req, Database& db) {
    const std::string token = bearer_token(req);
    const auto st = token.empty() ? std::nullopt : db.student_by_token_hash(token_hash(token));
    if (!st)
        return refused(401, "missing or unknown upload token: send \"Authorization: Bearer <token>\" with the token "
                            "your instructor gave you");
    const std::string raw = alias_field(req);
    if (raw.empty() && !st->alias_key.empty()) return {200, {}, "student:" + st->id, {st->alias, st->alias_key}};
    if (const auto problem = alias_problem(raw); !problem.empty()) return refused(400, problem);
    const Alias a = normalise_alias(raw);
    if (!st->alias_key.empty() && a.key != st->alias_key)
        return refused(403, fmt::format("your token's alias is \"{}\" (set by the roster or your first upload); "
                                        "upload as \"{}\" or leave the alias out",
                                        st->alias, st->alias));
    if (st->alias_key.empty() && !db.bind_alias(st->id, a.display, a.key))
        return refused(403, fmt::format("\"{}\" is another student's alias; choose another", a.display));
    return {200, {}, "student:" + st->id, a.key == st->alias_key ? Alias{st->alias, st->alias_key} : a};
}

// A zoo's boards in the zoo file's order, one for every device (empty until its first run), then
// any other board (merged from elsewhere: `contest merge`).
std::vector<DeviceBoard> zoo_boards(std::vector<DeviceBoard> boards, const Zoo& zoo) {
    std::vector<DeviceBoard> ordered, others;
    for (auto& b : boards)
        if (!zoo.find(b.device)) others.push_back(std::move(b));
    for (const auto& d : zoo.devices) {
        const auto it = std::find_if(boards.begin(), boards.end(), [&](const auto& b) { return b.device == d.name; });
        ordered.push_back(it != boards.end() ? std::move(*it) : DeviceBoard{d.name, {}, 0, {}});
    }
    for (auto& b : others) ordered.push_back(std::move(b));
    return ordered;
}

// The window for the page's countdown: seconds from the server's now, so the viewer's clock does
// not matter. null when the contest has no window and no freeze.
json window_json(const ContestWindow& w, const std::string& now) {
    if (w.opens.empty() && w.closes.empty() && w.frozen.empty()) return nullptr;
    const std::string state = !w.closed_by.empty()               ? "closed"
                              : !w.opens.empty() && now < w.opens ? "not open yet"
                                                                  : "open";
    json j = {{"state", state}, {"opens", w.opens}, {"closes", w.closes}, {"now", now},
              {"frozen", w.closed_by.empty() ? w.frozen : std::string()}};
    j["opens_in"] = w.opens.empty() ? json(nullptr) : json(seconds_between(now, w.opens));
    j["closes_in"] = w.closes.empty() ? json(nullptr) : json(seconds_between(now, w.closes));
    return j;
}

json board_json(const std::vector<DeviceBoard>& boards, bool race_pass) {
    json devices = json::array();
    for (const auto& b : boards) {
        json rows = json::array();
        for (const auto& r : b.rows)
            rows.push_back({{"rank", r.rank},
                            {"tied", r.tied},
                            {"alias", r.alias},
                            {"ratio", r.ratio},
                            {"ratio_low", r.ratio_low},
                            {"ratio_high", r.ratio_high},
                            {"gflops", r.gflops},
                            {"speedup", r.speedup},
                            {"when", r.when},
                            {"submission_id", r.submission_id},
                            {"runs", r.runs}});
        devices.push_back({{"device", b.device},
                           {"hardware", b.hardware},
                           {"baseline_gflops", b.baseline_gflops},
                           {"rows", std::move(rows)}});
    }
    // Across devices once there are two boards: x naive's geometric mean (contest/ranking.hpp).
    json cross = json::array();
    if (boards.size() >= 2)
        for (const auto& c : cross_device(boards)) {
            json per = json::array();
            for (const auto& [board, x] : c.speedups) per.push_back({{"device", board}, {"speedup", x}});
            cross.push_back({{"rank", c.rank}, {"alias", c.alias}, {"geomean", c.geomean}, {"speedups", per}});
        }
    return {{"devices", std::move(devices)},   {"generated_at", utc_now()}, {"baseline_alias", baseline_alias},
            {"reference_alias", reference_alias}, {"race_pass", race_pass ? "on" : "off"},
            {"cross_device", std::move(cross)}};
}

// The signal mask serve() was called with: children forked from its threads (the judge's) get it
// back rather than inheriting SIGINT and SIGTERM blocked.
sigset_t caller_mask;

void restore_caller_mask_in_child() { pthread_sigmask(SIG_SETMASK, &caller_mask, nullptr); }

void log_line(const std::string& line) {
    static std::mutex m;
    std::lock_guard lock(m);
    std::fputs((utc_now() + "  " + line + "\n").c_str(), stdout);
    std::fflush(stdout);
}

// Judges queued submissions until `stop`; sleeps a second when the queue is empty (longer after
// repeated errors, so that a missing device does not flood the log).
void judge_loop(const ServeOptions& options, const std::atomic<bool>& stop) {
    auto nap = [&](int seconds) {
        for (int i = 0; i < seconds * 10 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    };
    try {
        Database db(options.db);
        db.requeue_running();
        int errors = 0;
        while (!stop) {
            bool judged = false;
            try {
                const auto j = judge_next(db, options.judge_options, &stop);  // stays free to stop
                judged = j.has_value();
                if (j)
                    log_line(fmt::format("judged {} ({}): {}{}", j->id, j->alias, j->status,
                                         j->status == "done" ? fmt::format(", {:.2f} GFLOPS", j->gflops) : ""));
                errors = 0;
            } catch (const std::exception& e) {
                ++errors;
                log_line(fmt::format("judge: error: {}", e.what()));
            }
            if (!judged) nap(errors == 0 ? 1 : std::min(30, 1 << std::min(errors, 5)));
        }
    } catch (const std::exception& e) {
        log_line(fmt::format("judge: stopped: {}", e.what()));
    }
}

// The zoo's threads. The fan-out and the Slurm dispatcher share one loop; the local devices share
// one worker, so that two of this machine's devices never time kernels at the same moment.
void zoo_dispatch_loop(const ServeOptions& options, const Zoo& zoo, const std::string& server_url,
                       const std::atomic<bool>& stop) {
    try {
        Database db(options.db);
        std::vector<std::string> names;
        for (const auto& d : zoo.devices) names.push_back(d.name);
        std::optional<SlurmDispatcher> slurm;
        if (zoo.has_slurm()) {
            const std::string jobs = !zoo.jobs_dir.empty() ? zoo.jobs_dir : options.db.string() + ".jobs";
            const std::string wb =
                !zoo.workbook.empty() ? zoo.workbook : std::filesystem::read_symlink("/proc/self/exe").string();
            slurm.emplace(zoo, server_url, jobs, wb, log_line);
            log_line(fmt::format("zoo: Slurm jobs reach this server at {}; their folders are in {}", server_url, jobs));
        }
        while (!stop) {
            try {
                if (const int n = db.fan_out(names); n > 0)
                    log_line(fmt::format("zoo: {} submission(s) queued on {} device(s)", n, names.size()));
                if (slurm) slurm->step(db);
            } catch (const std::exception& e) {
                log_line(fmt::format("zoo: error: {}", e.what()));
            }
            for (int i = 0; i < 10 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    } catch (const std::exception& e) {
        log_line(fmt::format("zoo: stopped: {}", e.what()));
    }
}

void zoo_local_loop(const ServeOptions& options, const Zoo& zoo, const std::atomic<bool>& stop) {
    try {
        Database db(options.db);
        std::vector<std::string> local;
        for (const auto& d : zoo.devices)
            if (!d.slurm) local.push_back(d.name);
        db.requeue_running_judgings(local);
        std::size_t next = 0;
        while (!stop) {
            bool judged = false;
            // Round robin over the local devices: each one's oldest queued judging in turn.
            for (std::size_t k = 0; k < local.size() && !judged && !stop; ++k) {
                const auto& d = *zoo.find(local[(next + k) % local.size()]);
                // The final and the remote checks time alone: waited for in turn (judge.hpp),
                // without blocking, so that the server stays free to stop.
                if (!db.has_queued_judging(d.name)) continue;
                const JudgingLock turn(options.db, JudgingLock::Kind::shared, stop);
                if (!turn.held()) break;
                const auto sub = db.claim_judging(d.name);
                if (!sub) continue;
                judged = true;
                next = (next + k + 1) % local.size();
                Outcome out;
                try {
                    out = judge_source(*sub, options.judge_options, d.environment());
                } catch (const std::exception& e) {
                    out = {"failed", sanitize(e.what(), 2000), {}};
                }
                db.finish_judging(sub->id, d.name, out.status, out.reason, out.status == "done" ? &out.run : nullptr);
                log_line(fmt::format("judged {} ({}) on {}: {}{}", sub->id, sub->alias, d.name, out.status,
                                     out.status == "done" ? fmt::format(", {:.2f} GFLOPS", out.run.gflops)
                                                          : ": " + out.reason));
            }
            for (int i = 0; i < 10 && !judged && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    } catch (const std::exception& e) {
        log_line(fmt::format("zoo: the local judge stopped: {}", e.what()));
    }
}

void check_options(const ServeOptions& o) {
    if (o.roster.empty() == o.token.empty())
        throw Error("contest serve: give --roster FILE (one upload token per student: for a contest) or --token "
                    "SECRET (one token shared by everyone: for an informal workshop), exactly one of them");
    if (!o.reissue.empty() && o.roster.empty()) throw Error("contest serve: --reissue needs --roster");
    if (o.port < 0 || o.port > 65535)
        throw Error(fmt::format("contest serve: port {} is not between 0 and 65535", o.port));
    if (o.max_upload_bytes == 0) throw Error("contest serve: the upload limit must be positive");
    if (o.request_deadline_s <= 0 || o.request_deadline_s > 600)
        throw Error("contest serve: the request deadline must be between 0 and 600 seconds");
    if (o.max_queued < 1) throw Error("contest serve: --max-queued must be at least 1");
    if (o.lab && o.roster.empty())
        throw Error("contest serve: the lab dashboard (--lab) needs --roster: each student's checks come with their "
                    "own token");
    if (!o.remote.exercises.empty() && o.roster.empty())
        throw Error("contest serve: remote checks (--remote-checks) need --roster: each check comes with a student's "
                    "own token");
    if (o.lab && o.lab_exercises.empty()) throw Error("contest serve: the lab dashboard needs the course's exercises");
    if (o.lab && !(o.lab_stuck_minutes > 0 && o.lab_stuck_minutes <= 24 * 60))
        throw Error("contest serve: --stuck-after must be between 0 and 1440 minutes");
}

// The roster's new students get their tokens (written to the tokens file, nowhere else); says
// which upload mode is on.
std::string enrol_students(Database& db, const ServeOptions& o) {
    if (o.roster.empty())
        return "uploads: ONE SHARED TOKEN (informal mode): anyone who has it can upload under any alias, and the "
               "limits count per alias; for a contest, give each student a token with --roster FILE";
    const auto roster = read_roster(o.roster);
    auto file = o.tokens_file;
    if (file.empty()) file = o.roster.parent_path() / (o.roster.stem().string() + "-tokens.csv");
    const auto [issued, warnings] =
        enrol(db, roster, o.reissue, [&](const std::vector<IssuedToken>& tokens) { append_tokens(file, tokens); });
    std::string notes;
    for (const auto& w : warnings) notes += "warning: " + w + "\n";
    return notes + fmt::format("uploads: one token per student (roster {}, {} students); {}", o.roster.string(),
                       roster.size(),
                       issued.empty() ? std::string("no new tokens (the database holds only their hashes)")
                                      : fmt::format("{} new token(s) appended to {} (mode 0600): hand each student "
                                                    "their line; the database keeps only their hashes",
                                                    issued.size(), file.string()));
}

}  // namespace

int serve(const ServeOptions& options) {
    check_options(options);
    const Zoo zoo = options.devices.empty() ? Zoo{} : read_zoo(options.devices);
    Database web_db(options.db);  // shared by the HTTP handlers, one at a time
    std::mutex web_db_mutex;
    log_line(enrol_students(web_db, options));
    if (!options.opens.empty() || !options.closes.empty()) web_db.set_window(options.opens, options.closes);
    if (const ContestWindow w = web_db.window(); !w.opens.empty() || !w.closes.empty())
        log_line(fmt::format("window: entries from {} until {} (UTC){}; `workbook contest close` ends it by hand",
                             w.opens.empty() ? "now" : w.opens, w.closes.empty() ? "`contest close`" : w.closes,
                             w.closed_by.empty() ? "" : ", closed now"));
    if (!zoo.devices.empty()) {
        std::string list;
        for (const auto& d : zoo.devices) list += fmt::format("{}\"{}\" ({})", list.empty() ? "" : ", ", d.name,
                                                              d.slurm ? "Slurm" : "here");
        log_line(fmt::format("zoo {}: every submission is judged on {}", options.devices.string(), list));
    }

    GateLimits limits;
    limits.request_deadline = std::chrono::milliseconds(static_cast<long long>(options.request_deadline_s * 1000));
    limits.max_per_address = options.max_per_address;
    // The hard limit, past which the gate (and httplib) answer 413 without reading the body;
    // requests between it and a route's own limit get a 413 with a message from the handler. So it
    // is above every route's: a contest entry's, a remote check's files (which it once cut at
    // 144 KiB where the README promised 256) and a Slurm job's result (a check's output, escaped).
    limits.max_body_bytes = 2 * options.max_upload_bytes + form_overhead_bytes;
    if (!options.remote.exercises.empty())
        limits.max_body_bytes = std::max(limits.max_body_bytes, 2 * options.remote.max_bytes + form_overhead_bytes);
    GatedServer server(limits);
    log_line(fmt::format("limits: one upload per {} s and at most {} waiting per {}; a request must arrive whole "
                         "within {} s; {}",
                         options.min_interval_s, options.max_queued, options.roster.empty() ? "alias" : "student",
                         options.request_deadline_s,
                         options.max_per_address > 0
                             ? fmt::format("at most {} connections per client address", options.max_per_address)
                             : std::string("no cap on connections per address (behind a proxy)")));
    // httplib's default is SO_REUSEPORT, with which a second server (a forgotten one, another
    // student's) could bind the same port and take half the requests: SO_REUSEADDR only.
    server.set_socket_options([](auto sock) {
        int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    server.set_payload_max_length(limits.max_body_bytes);
    server.set_default_headers({{"X-Content-Type-Options", "nosniff"},
                                {"Referrer-Policy", "no-referrer"},
                                {"X-Frame-Options", "DENY"}});

    server.Get("/", [](const httplib::Request&, httplib::Response& res) { send_page(res, page_html); });

    server.Get("/api/board", [&](const httplib::Request&, httplib::Response& res) {
        std::vector<DeviceBoard> boards, finals;
        ContestWindow window;
        std::string now;
        {
            std::lock_guard lock(web_db_mutex);
            boards = web_db.board(true);  // as the public sees it: frozen until the close
            finals = web_db.final_board();
            window = web_db.window();
            now = web_db.now();
        }
        if (!zoo.devices.empty()) boards = zoo_boards(std::move(boards), zoo);
        json j = board_json(boards, options.judge_options.race_check);
        j["contest"] = window_json(window, now);
        // The final's boards (`contest final`), shown first once there are any.
        j["final"] = board_json(finals, options.judge_options.race_check)["devices"];
        send_json(res, j);
    });

    server.Get("/api/submissions", [&](const httplib::Request&, httplib::Response& res) {
        std::vector<Submission> subs;
        std::map<std::int64_t, std::vector<Judging>> judgings;
        {
            std::lock_guard lock(web_db_mutex);
            subs = web_db.submissions();
            if (subs.size() > recent_submissions) subs.resize(recent_submissions);
            if (!zoo.devices.empty())
                for (const auto& s : subs) judgings[s.id] = web_db.judgings_of(s.id);
        }
        json list = json::array();
        for (const auto& sub : subs) {
            json item = {{"id", sub.id},
                         {"alias", sub.alias},
                         {"status", sub.status},
                         // A category only: the reason quotes the entry's code (its owner reads it, /api/mine).
                         {"reason", public_reason(sub.status, sub.reason)},
                         {"submitted_at", sub.submitted_at}};
            if (!zoo.devices.empty()) {
                json per = json::array();
                for (const auto& j : judgings[sub.id])
                    per.push_back({{"device", j.device},
                                   {"state", j.state},
                                   {"reason", public_reason(j.state, j.reason)},
                                   {"job_id", j.job_id}});
                item["devices"] = std::move(per);
            }
            list.push_back(std::move(item));
        }
        send_json(res, {{"submissions", std::move(list)}});
    });

    // One participant's entries (`workbook contest status --server`): with a roster, the token's
    // student's; with the shared token, the ?alias= one's (as public as /api/submissions there).
    server.Get("/api/mine", [&](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(web_db_mutex);
        const bool roster = !options.roster.empty();
        std::string owner;
        if (roster) {
            const auto st = bearer_token(req).empty() ? std::nullopt : web_db.student_by_token_hash(token_hash(bearer_token(req)));
            if (st) owner = "student:" + st->id;
        } else if (equal_constant_time(bearer_token(req), options.token)) {
            const std::string raw = req.get_param_value("alias");
            if (const auto problem = alias_problem(raw); !problem.empty()) return send_error(res, 400, problem);
            owner = "alias:" + normalise_alias(raw).key;
        }
        if (owner.empty()) {
            res.set_header("WWW-Authenticate", "Bearer");
            return send_error(res, 401, roster ? "missing or unknown upload token: send \"Authorization: Bearer "
                                                 "<token>\" with the token your instructor gave you"
                                               : "missing or wrong upload token (Authorization: Bearer <token>)");
        }
        json list = json::array();
        for (const auto& e : web_db.entries_of(owner)) {
            const Submission& sub = e.submission;
            json item = {{"id", sub.id},         {"alias", sub.alias},     {"file_name", sub.file_name},
                         {"status", sub.status}, {"reason", sub.reason},   {"submitted_at", sub.submitted_at},
                         {"queue_position", e.queue_position}};
            if (!zoo.devices.empty()) {
                json per = json::array();
                for (const auto& j : web_db.judgings_of(sub.id))
                    per.push_back({{"device", j.device}, {"state", j.state}, {"reason", j.reason}});
                item["devices"] = std::move(per);
            }
            list.push_back(std::move(item));
        }
        send_json(res, {{"entries", std::move(list)}, {"contest", window_json(web_db.window(), web_db.now())}});
    });

    server.Post("/api/submit", [&](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(web_db_mutex);
        const bool roster = !options.roster.empty();
        // The token first (401 before anything about the form), the alias once the form is sound.
        if (bearer_token(req).empty() ||
            (roster ? !web_db.student_by_token_hash(token_hash(bearer_token(req)))
                    : !equal_constant_time(bearer_token(req), options.token))) {
            res.set_header("WWW-Authenticate", "Bearer");
            return send_error(res, 401, roster ? "missing or unknown upload token: send \"Authorization: Bearer "
                                                 "<token>\" with the token your instructor gave you"
                                               : "missing or wrong upload token (Authorization: Bearer <token>)");
        }
        if (req.body.size() > options.max_upload_bytes + form_overhead_bytes)
            return send_error(res, 413, fmt::format("the upload is larger than {} bytes", options.max_upload_bytes));
        if (!req.is_multipart_form_data() || !req.has_file("kernel") || (!roster && !req.has_file("alias")))
            return send_error(res, 400, "send a multipart form with the fields \"alias\" and \"kernel\" (the .cl file)");
        const auto kernel = req.get_file_value("kernel");
        if (kernel.content.size() > options.max_upload_bytes)
            return send_error(res, 413,
                              fmt::format("the kernel file is {} bytes; the limit is {} bytes", kernel.content.size(),
                                          options.max_upload_bytes));
        if (kernel.content.empty()) return send_error(res, 400, "the kernel file is empty");
        if (kernel.content.find('\0') != std::string::npos)
            return send_error(res, 400, "the kernel file must be OpenCL C source text");
        const Uploader who = roster ? student_uploader(req, web_db) : shared_uploader(req, options.token);
        if (who.status != 200) return send_error(res, who.status, who.error);
        const std::string file_name = sanitise_file_name(kernel.filename);
        std::int64_t id = 0;
        try {
            id = web_db.queue(QueueRequest{who.owner, who.alias.display, who.alias.key, file_name, kernel.content,
                                           options.min_interval_s, options.max_queued});
        } catch (const RateLimited& e) {
            return send_error(res, 429, e.what());
        } catch (const ContestClosed& e) {
            return send_error(res, 403, e.what());
        }
        log_line(fmt::format("queued submission {} ({} bytes, {}) from {} at {}", id, kernel.content.size(), file_name,
                             who.owner, req.remote_addr));
        send_json(res, {{"id", id}, {"status", "queued"}});
    });

    std::filesystem::path lab_token_file = options.lab_token_file;
    if (options.lab) {
        if (lab_token_file.empty()) lab_token_file = options.db.string() + ".instructor-token";
        LabOptions lab{options.lab_exercises, static_cast<std::int64_t>(options.lab_stuck_minutes * 60),
                       lab_instructor_token(lab_token_file)};
        add_lab_routes(server, web_db, web_db_mutex, lab, log_line);
    }
    RemoteCheckOptions remote = options.remote;
    if (!remote.exercises.empty()) {
        if (remote.jobs_dir.empty()) remote.jobs_dir = options.db.string() + ".checks";
        remote.race_check = options.judge_options.race_check;
        remote.sandbox = options.judge_options.sandbox;
        remote.zoo = zoo;
        remote.node_workbook = !zoo.workbook.empty() ? zoo.workbook : remote.workbook;
        remote.slurm_jobs_dir = (!zoo.jobs_dir.empty() ? zoo.jobs_dir : options.db.string() + ".jobs") + "/checks";
        add_remote_check_routes(server, web_db, web_db_mutex, remote, log_line);
        if (zoo.has_slurm()) add_check_job_routes(server, web_db, web_db_mutex, remote, log_line);
    }
    if (options.lab || !remote.exercises.empty()) {
        std::vector<std::string> offered, devices;
        for (const auto& [id, files] : remote.exercises) offered.push_back(id);
        if (!remote.exercises.empty())
            for (const auto& d : zoo.devices) devices.push_back(d.name);
        add_hello_route(server, web_db, web_db_mutex, options.lab, offered, devices);
    }
    if (zoo.has_slurm()) add_job_routes(server, web_db, web_db_mutex, zoo, options.judge_options, log_line);

    server.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown error";
        try {
            std::rethrow_exception(ep);
        } catch (const std::exception& e) {
            what = e.what();
        } catch (...) {
        }
        log_line(fmt::format("error in {} {}: {}", req.method, req.path, what));
        send_error(res, 500, "internal error");
    });
    // Errors httplib answers itself (404, 413 past the hard limit, malformed requests) get a JSON
    // body too; the handlers' own errors already have one.
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.body.empty()) {
            const char* what = res.status == 404   ? "not found"
                               : res.status == 413 ? "the upload is too large"
                                                   : "bad request";
            send_error(res, res.status, what);
        }
    });

    // Signals: blocked in every thread started from here on, and taken by one thread with
    // sigtimedwait, which can then stop the server safely (a signal handler could not).
    sigset_t signals, previous;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, &previous);
    caller_mask = previous;
    static std::once_flag at_fork;
    std::call_once(at_fork, [] { pthread_atfork(nullptr, nullptr, restore_caller_mask_in_child); });
    struct RestoreMask {
        sigset_t mask;
        ~RestoreMask() { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
    } restore{previous};

    int port = options.port;
    if (port == 0) {
        port = server.bind_to_any_port(options.host);
        if (port < 0) port = 0;
    } else if (!server.bind_to_port(options.host, port)) {
        port = 0;
    }
    if (port == 0)
        throw Error(fmt::format("contest serve: cannot listen on {}:{} (address in use, or not an address of this "
                                "machine?)",
                                options.host, options.port));

    std::atomic<bool> stopping{false}, finished{false};
    std::thread signal_thread([&] {
        int received = 0;
        auto first = std::chrono::steady_clock::now();
        const timespec tick{0, 200'000'000};
        while (!finished) {
            siginfo_t info;
            const int sig = sigtimedwait(&signals, &info, &tick);
            // A signal sent to the process and to its group (timeout(1) does that) arrives twice:
            // only one more than a second after the first counts as a second one.
            if (sig > 0 && received > 0 && std::chrono::steady_clock::now() - first < std::chrono::seconds(1)) continue;
            if (sig > 0) {
                if (++received == 1) {
                    first = std::chrono::steady_clock::now();
                    log_line(fmt::format("{}: stopping the server{}", sig == SIGINT ? "SIGINT" : "SIGTERM",
                                         options.judge ? " (the judge finishes the submission in progress; signal "
                                                         "again to exit at once)"
                                                       : ""));
                    stopping = true;
                } else {
                    log_line("exiting now (the submission in progress goes back to the queue at the next start)");
                    std::fflush(stdout);
                    std::_Exit(128 + sig);
                }
            }
            // Repeated, in case the signal came before the server had started listening.
            if (stopping && server.is_running()) server.stop();
        }
    });

    // How a zoo's Slurm jobs (judgings' and checks') reach this server.
    const bool bracket = options.host.find(':') != std::string::npos;
    const bool anywhere = options.host == "0.0.0.0" || options.host == "::";
    char host_name[256] = {};
    ::gethostname(host_name, sizeof host_name - 1);
    const std::string url = !zoo.server.empty() ? zoo.server
                                                : fmt::format("http://{}{}{}:{}", bracket && !anywhere ? "[" : "",
                                                              anywhere ? std::string(host_name) : options.host,
                                                              bracket && !anywhere ? "]" : "", port);
    remote.server_url = url;  // read by the checks' Slurm thread only, started below
    std::vector<std::thread> judges;
    if (options.judge && zoo.devices.empty()) judges.emplace_back([&] { judge_loop(options, stopping); });
    if (!remote.exercises.empty())
        judges.emplace_back([&] { remote_check_loop(options.db, remote, stopping, log_line); });
    if (!remote.exercises.empty() && zoo.has_slurm())
        judges.emplace_back([&] { remote_check_slurm_loop(options.db, remote, stopping, log_line); });
    if (options.judge && !zoo.devices.empty()) {
        judges.emplace_back([&, url] { zoo_dispatch_loop(options, zoo, url, stopping); });
        judges.emplace_back([&] { zoo_local_loop(options, zoo, stopping); });
    }

    log_line(fmt::format("contest board: http://{}{}{}:{}/  (uploads: POST /api/submit; Ctrl-C stops){}",
                         bracket ? "[" : "", options.host, bracket ? "]" : "", port,
                         options.host == "0.0.0.0" || options.host == "::" ? "  [all interfaces: use this machine's "
                                                                              "address]"
                                                                            : ""));
    if (options.lab)
        log_line(fmt::format("lab: the instructor's grid at http://{}{}{}:{}/lab#TOKEN (TOKEN: the line in {}); the "
                             "projector's view, without names, at /room",
                             bracket ? "[" : "", options.host, bracket ? "]" : "", port, lab_token_file.string()));
    bool ok = true;
    if (!stopping) ok = server.listen_after_bind();
    stopping = true;
    server.stop_gate();  // its workers run handlers that use web_db
    for (auto& t : judges) t.join();
    finished = true;
    signal_thread.join();
    log_line("server stopped");
    return ok ? 0 : 1;
}

}  // namespace workbook::server
