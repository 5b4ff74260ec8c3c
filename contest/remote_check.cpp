// Remote checks on the server (see remote_check.hpp).
#include "contest/remote_check.hpp"

#include "contest/http_json.hpp"
#include "contest/judge.hpp"
#include "contest/lab_routes.hpp"

#include "workbook/errors.hpp"
#include "workbook/process.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <optional>
#include <thread>

namespace workbook::contest {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr std::size_t form_overhead_bytes = 16 * 1024;

std::string offered(const RemoteCheckOptions& o) {
    std::string list;
    for (const auto& [id, files] : o.exercises) list += (list.empty() ? "" : ", ") + id;
    return list;
}

// The test's "Device: ..." line, where the graded test printed one.
std::string device_of(const std::string& output) {
    const auto at = output.find("Device: ");
    if (at == std::string::npos) return {};
    const auto end = output.find('\n', at);
    return output.substr(at + 8, end == std::string::npos ? std::string::npos : end - at - 8);
}

}  // namespace

void add_remote_check_routes(httplib::Server& server, Database& db, std::mutex& db_mutex,
                             const RemoteCheckOptions& options, const std::function<void(const std::string&)>& log) {
    server.Post("/api/check", [&db, &db_mutex, options, log](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(db_mutex);
        const auto st = student_of(req, db);
        if (!st) return refuse_student(res);
        if (req.body.size() > options.max_bytes + form_overhead_bytes)
            return send_error(res, 413, fmt::format("a check's files are at most {} bytes together", options.max_bytes));
        if (!req.is_multipart_form_data() || !req.has_file("exercise"))
            return send_error(res, 400, "send a multipart form: \"exercise\" and one field per file you edit");
        const std::string exercise = req.get_file_value("exercise").content;
        const auto it = options.exercises.find(exercise);
        if (it == options.exercises.end())
            return send_error(res, 403, fmt::format("exercise \"{}\" is not checked remotely here; these are: {}",
                                                    sanitize(exercise, 20), offered(options)));
        // Exactly the exercise's edit files: a field of another name is refused, never written.
        for (const auto& [name, field] : req.files)
            if (name != "exercise" && std::find(it->second.begin(), it->second.end(), name) == it->second.end())
                return send_error(res, 400, fmt::format("\"{}\" is not a file you edit in exercise {}",
                                                        sanitize(name, 60), exercise));
        std::vector<std::pair<std::string, std::string>> files;
        std::size_t bytes = 0;
        for (const auto& name : it->second) {
            if (!req.has_file(name))
                return send_error(res, 400, fmt::format("the file \"{}\" is missing: send every file you edit", name));
            files.emplace_back(name, req.get_file_value(name).content);
            bytes += files.back().second.size();
            if (files.back().second.find('\0') != std::string::npos)
                return send_error(res, 400, fmt::format("\"{}\" must be source text", name));
        }
        if (bytes > options.max_bytes)
            return send_error(res, 413, fmt::format("the files are {} bytes together; the limit is {}", bytes, options.max_bytes));
        std::int64_t id = 0;
        try {
            id = db.queue_check(st->id, exercise, files, options.min_interval_s, options.max_queued);
        } catch (const RateLimited& e) {
            res.set_header("Retry-After", std::to_string(options.min_interval_s));
            return send_error(res, 429, e.what());
        }
        log(fmt::format("remote check {} queued: exercise {} from student:{} ({} bytes)", id, exercise, st->id, bytes));
        const auto c = db.remote_check(id);
        send_json(res, {{"id", id}, {"status", "queued"}, {"queue_position", c ? c->queue_position : 0}});
    });

    server.Get(R"(/api/check/(\d{1,18}))", [&db, &db_mutex](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(db_mutex);
        const auto st = student_of(req, db);
        if (!st) return refuse_student(res);
        const auto c = db.remote_check(std::stoll(req.matches[1].str()));
        // Another student's check is answered as one that does not exist.
        if (!c || c->student != st->id) return send_error(res, 404, "no such check of yours");
        json j = {{"id", c->id},           {"exercise", c->exercise},   {"state", c->state},
                  {"queue_position", c->queue_position}, {"submitted_at", c->submitted_at},
                  {"finished_at", c->finished_at}};
        j["result"] = c->result.empty() ? json(nullptr) : json::parse(c->result, nullptr, false);
        send_json(res, j);
    });
    log(fmt::format("remote checks: exercises {} graded here by `workbook grade` (one at a time{}{})", offered(options),
                    options.sandbox ? "" : ", NO SANDBOX", options.race_check ? "" : ", no race pass"));
}

std::string grade_one_check(const RemoteCheck& check, const RemoteCheckOptions& o, const fs::path& dir) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    const fs::path subs = dir / "submissions", out = dir / "out";
    // In the exercise's folder: several exercises edit a file of one name (mmul.cl), and the
    // grader takes a loose one only when its name is the course's only one.
    const fs::path folder = subs / "student" / o.dirs.at(check.exercise);
    fs::create_directories(folder);
    for (const auto& [name, content] : check.files) {
        std::ofstream f(folder / name, std::ios::binary);
        f << content;
    }
    std::vector<std::string> argv{o.workbook, "--root", o.root, "--build-dir", o.build, "grade", subs.string(),
                                  "--out", out.string(), "--only", check.exercise, "-q"};
    if (!o.race_check) argv.push_back("--no-race-check");
    if (!o.sandbox) argv.push_back("--no-sandbox");
    const auto limit = o.time_limits.count(check.exercise) ? o.time_limits.at(check.exercise) : 60;
    const auto run = run_process(argv, std::chrono::seconds(300 + 12 * limit));
    const auto results = json::parse(read_file_or_empty(out / "results" / "student.json"), nullptr, false);
    fs::remove_all(dir, ec);
    if (results.is_discarded() || !results.contains("tests") || !results["tests"].is_array() || results["tests"].empty())
        throw Error(fmt::format("the grader gave no result ({}): {}", run.status(), clipped(run.output, 2000)));
    const json& t = results["tests"][0];
    const std::string status = t.value("status", "failed"), output = t.value("output", "");
    return json{{"status", status},
                {"passed", status == "passed"},
                {"score", t.value("score", 0.0)},
                {"max", t.value("max_score", 0.0)},
                {"output", output},
                {"device", device_of(output)},
                {"seconds", run.seconds}}
        .dump(-1, ' ', false, json::error_handler_t::replace);
}

void remote_check_loop(const fs::path& db_file, const RemoteCheckOptions& o, const std::atomic<bool>& stop,
                       const std::function<void(const std::string&)>& log) {
    try {
        Database db(db_file);
        db.requeue_running_checks();
        while (!stop) {
            const auto check = db.claim_check();
            if (!check) {
                for (int i = 0; i < 5 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
                continue;
            }
            // The device to itself: no contest judging times beside it, nor it beside one (the
            // judges' shared lock); waited for without blocking, so that the server stays free to stop.
            std::optional<JudgingLock> turn;
            while (!stop && !(turn.emplace(db_file, JudgingLock::Kind::exclusive, JudgingLock::IfFree{}), turn->held()))
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
            if (stop) break;  // the check goes back to the queue at the next start
            try {
                const std::string result = grade_one_check(*check, o, o.jobs_dir / std::to_string(check->id));
                db.finish_check(check->id, "done", result);
                log(fmt::format("remote check {} ({} of student:{}): graded", check->id, check->exercise, check->student));
            } catch (const std::exception& e) {
                db.finish_check(check->id, "failed",
                                json{{"status", "not graded"}, {"passed", false},
                                     {"output", "the server could not grade this check: its log says why"}}
                                    .dump());
                log(fmt::format("remote check {}: not graded: {}", check->id, e.what()));
            }
        }
    } catch (const std::exception& e) {
        log(fmt::format("remote checks: stopped: {}", e.what()));
    }
}

}  // namespace workbook::contest
