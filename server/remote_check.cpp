// Remote checks on the server (see remote_check.hpp).
#include "server/remote_check.hpp"

#include "server/http_json.hpp"
#include "contest/judge.hpp"
#include "server/lab_routes.hpp"
#include "server/rate.hpp"
#include "server/roster.hpp"
#include "contest/run_one.hpp"
#include "server/slurm_jobs.hpp"

#include "workbook/errors.hpp"
#include "workbook/grading/slurm.hpp"
#include "workbook/process.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <thread>

namespace workbook::server {

using contest::RemoteCheck;
using contest::one_line;
using contest::Database;
using contest::JudgingLock;
using contest::RateLimited;
using contest::Zoo;

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

std::string zoo_devices(const Zoo& zoo) {
    std::string list;
    for (const auto& d : zoo.devices) list += (list.empty() ? "\"" : ", \"") + d.name + "\"";
    return list;
}

// A check's folder under `parent`. The grader's unprivileged users must enter it, so it cannot be
// private; `parent` is made 0711 (entered, never listed) and the folder's name has a random part,
// so that another user of the machine cannot find a student's files while their check runs.
fs::path unlisted_folder(const fs::path& parent, const std::string& prefix) {
    fs::create_directories(parent);
    fs::permissions(parent, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::replace);
    return parent / (prefix + "-" + new_token().substr(0, 16));
}

// What a student sees of a check the server could not grade.
std::string not_graded(const std::string& why) {
    return json{{"status", "not graded"}, {"passed", false}, {"output", "the server could not grade this check: " + why}}
        .dump(-1, ' ', false, json::error_handler_t::replace);
}

// A check job's result, rebuilt from the fields a grade has: nothing else is stored or shown.
std::string result_from_job(const json& r) {
    const auto text = [&](const char* key, std::size_t cap) {
        return r.contains(key) && r[key].is_string() ? sanitize(r[key].get<std::string>(), cap) : std::string();
    };
    const auto number = [&](const char* key) { return r.contains(key) && r[key].is_number() ? r[key].get<double>() : 0.0; };
    if (!r.is_object() || !r.contains("status") || !r["status"].is_string() || !r.contains("passed") ||
        !r["passed"].is_boolean())
        throw Error("a result needs \"status\" and \"passed\"");
    // The output keeps its lines (sanitize keeps newlines): the client reads messages and the speed table.
    return json{{"status", text("status", 40)}, {"passed", r["passed"].get<bool>()}, {"score", number("score")},
                {"max", number("max")}, {"output", text("output", 256 * 1024)}, {"device", text("device", 256)},
                {"seconds", number("seconds")}}
        .dump(-1, ' ', false, json::error_handler_t::replace);
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
        // The device: one of the zoo's (the first by default), or this machine's own.
        std::string device = req.has_file("device") ? req.get_file_value("device").content : "";
        if (options.zoo.devices.empty() && !device.empty())
            return send_error(res, 400, "this server checks on its own device only: leave out the device");
        if (!options.zoo.devices.empty() && device.empty()) device = options.zoo.devices.front().name;
        if (!options.zoo.devices.empty() && !options.zoo.find(device))
            return send_error(res, 400, fmt::format("no device \"{}\" here; these are: {}", sanitize(device, 40),
                                                    zoo_devices(options.zoo)));
        // Exactly the exercise's edit files: a field of another name is refused, never written.
        for (const auto& [name, field] : req.files)
            if (name != "exercise" && name != "device" && std::find(it->second.begin(), it->second.end(), name) == it->second.end())
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
            id = db.queue_check(st->id, exercise, device, files, options.min_interval_s, options.max_queued);
        } catch (const RateLimited& e) {
            res.set_header("Retry-After", std::to_string(options.min_interval_s));
            return send_error(res, 429, e.what());
        }
        log(fmt::format("remote check {} queued: exercise {} from student:{} ({} bytes){}", id, exercise, st->id, bytes,
                        device.empty() ? "" : " on " + device));
        const auto c = db.remote_check(id);
        send_json(res, {{"id", id}, {"status", "queued"}, {"queue_position", c ? c->queue_position : 0}});
    });

    // Polls per student: the client asks twice a second; a script asking in a loop gets 429 and
    // holds the database's mutex no longer.
    auto polls = std::make_shared<std::map<std::string, Rate>>();  // by student, under db_mutex
    server.Get(R"(/api/check/(\d{1,18}))", [&db, &db_mutex, polls](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(db_mutex);
        const auto st = student_of(req, db);
        if (!st) return refuse_student(res);
        if (const int wait = polls->try_emplace(st->id, 20.0, 0.25).first->second.take(); wait > 0) {
            res.set_header("Retry-After", std::to_string(wait));
            return send_error(res, 429, fmt::format("too many polls: ask again in {} s", wait));
        }
        const auto c = db.remote_check(std::stoll(req.matches[1].str()));
        // Another student's check is answered as one that does not exist.
        if (!c || c->student != st->id) return send_error(res, 404, "no such check of yours");
        json j = {{"id", c->id},           {"exercise", c->exercise},   {"state", c->state}, {"device", c->device},
                  {"queue_position", c->queue_position}, {"submitted_at", c->submitted_at},
                  {"finished_at", c->finished_at}};
        j["result"] = c->result.empty() ? json(nullptr) : json::parse(c->result, nullptr, false);
        send_json(res, j);
    });
    log(fmt::format("remote checks: exercises {} graded by `workbook grade` ({}one grade at a time per device, up to "
                    "{} waiting checks of an exercise together{}{})",
                    offered(options), options.zoo.devices.empty() ? "here, " : "on the zoo's devices, ", options.batch,
                    options.sandbox ? "" : ", NO SANDBOX", options.race_check ? "" : ", no race pass"));
}

std::vector<std::string> grade_checks(const std::vector<RemoteCheck>& checks, const RemoteCheckOptions& o,
                                      const fs::path& dir, const std::vector<std::string>& env,
                                      const std::atomic<bool>* stop) {
    if (checks.empty()) return {};
    const std::string& exercise = checks.front().exercise;
    std::error_code ec;
    fs::remove_all(dir, ec);
    const fs::path subs = dir / "submissions", out = dir / "out";
    // The students' files are the server's user's alone (0700 folders, 0600 files): the grader
    // hands each sandbox a copy of its own, and a folder's name seen in a command line opens nothing.
    fs::create_directories(subs);
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::replace);
    fs::permissions(subs, fs::perms::owner_all, fs::perm_options::replace);
    for (const auto& check : checks) {
        if (check.exercise != exercise) throw Error("checks graded together must be of one exercise");
        // In the exercise's folder: several exercises edit a file of one name (mmul.cl), and the
        // grader takes a loose one only when its name is the course's only one.
        const fs::path folder = subs / fmt::format("c{}", check.id) / o.dirs.at(exercise);
        fs::create_directories(folder);
        for (const auto& [name, content] : check.files) {
            const fs::path file = folder / name;
            {
                std::ofstream f(file, std::ios::binary);
                fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
                f << content;
            }
        }
    }
    std::vector<std::string> argv{o.workbook, "--root", o.root, "--build-dir", o.build, "grade", subs.string(),
                                  "--out", out.string(), "--only", exercise, "-q"};
    if (!o.race_check) argv.push_back("--no-race-check");
    if (!o.sandbox) argv.push_back("--no-sandbox");
    if (o.timeout_s > 0) argv.insert(argv.end(), {"--timeout", std::to_string(o.timeout_s)});
    const auto limit = o.timeout_s > 0                    ? o.timeout_s
                       : o.time_limits.count(exercise) ? o.time_limits.at(exercise)
                                                       : 60;
    const auto run = run_process(argv, std::chrono::seconds(300 + 12 * limit * static_cast<long>(checks.size())), env,
                                 1 << 20, stop);
    if (run.cancelled) {
        fs::remove_all(dir, ec);
        throw Stopped();
    }
    std::vector<std::string> results;
    for (const auto& check : checks) {
        const auto r = json::parse(read_file_or_empty(out / "results" / fmt::format("c{}.json", check.id)), nullptr, false);
        if (r.is_discarded() || !r.contains("tests") || !r["tests"].is_array() || r["tests"].empty()) {
            results.emplace_back();  // no result for this one
            continue;
        }
        const json& t = r["tests"][0];
        const std::string status = t.value("status", "failed"), output = t.value("output", "");
        results.push_back(json{{"status", status},
                               {"passed", status == "passed"},
                               {"score", t.value("score", 0.0)},
                               {"max", t.value("max_score", 0.0)},
                               {"output", output},
                               {"device", device_of(output)},
                               {"seconds", run.seconds / static_cast<double>(checks.size())}}
                              .dump(-1, ' ', false, json::error_handler_t::replace));
    }
    fs::remove_all(dir, ec);
    if (std::all_of(results.begin(), results.end(), [](const std::string& r) { return r.empty(); }))
        throw Error(fmt::format("the grader gave no result ({}): {}", run.status(), clipped(run.output, 2000)));
    return results;
}

std::string grade_one_check(const RemoteCheck& check, const RemoteCheckOptions& o, const fs::path& dir,
                            const std::vector<std::string>& env) {
    auto results = grade_checks({check}, o, dir, env);
    return results.front();
}

void remote_check_loop(const fs::path& db_file, const RemoteCheckOptions& o, const std::atomic<bool>& stop,
                       const std::function<void(const std::string&)>& log) {
    try {
        Database db(db_file);
        db.requeue_running_checks();
        std::vector<std::string> here;
        for (const auto& d : o.zoo.devices)
            if (!d.slurm) here.push_back(d.name);
        if (o.zoo.devices.empty()) here.push_back("");
        while (!stop) {
            if (!db.has_queued_check(here)) {
                for (int i = 0; i < 5 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
                continue;
            }
            // The device to itself, in its turn (judge.hpp: one line for judgings, the final and the
            // checks); waited for without blocking, so that the server stays free to stop. The
            // check is chosen once the turn came, so the fair order is the one at that moment.
            const JudgingLock turn(db_file, JudgingLock::Kind::exclusive, stop);
            if (!turn.held()) break;
            const auto check = db.claim_check(here);
            if (!check) continue;
            // The other checks of this exercise waiting for this device go with it, as a class of
            // several: the grader runs the exercise's reference once for all of them (half of a
            // speed rung's grade), each student's test still alone with the device.
            std::vector<RemoteCheck> batch{*check};
            for (auto& more : db.claim_checks({check->device}, check->exercise, o.batch - 1, check->student))
                batch.push_back(std::move(more));
            std::string ids;
            for (const auto& c : batch) ids += (ids.empty() ? "" : ", ") + std::to_string(c.id);
            try {
                const auto* d = o.zoo.find(check->device);
                const auto results = grade_checks(batch, o, unlisted_folder(o.jobs_dir, std::to_string(check->id)),
                                                  d ? d->environment() : std::vector<std::string>{}, &stop);
                for (std::size_t i = 0; i < batch.size(); ++i)
                    db.finish_check(batch[i].id, results[i].empty() ? "failed" : "done",
                                    results[i].empty() ? not_graded("the grader gave no result for it") : results[i]);
                log(fmt::format("remote check{} {} ({}): graded{}", batch.size() > 1 ? "s" : "", ids, check->exercise,
                                batch.size() > 1 ? " together" : ""));
            } catch (const Stopped&) {
                // Left running: requeue_running_checks gives them back to the queue at the next start.
                log(fmt::format("remote check{} {}: stopped with the server, queued again at the next start",
                                batch.size() > 1 ? "s" : "", ids));
                break;
            } catch (const std::exception& e) {
                for (const auto& c : batch) db.finish_check(c.id, "failed", not_graded("its log says why"));
                log(fmt::format("remote check{} {}: not graded: {}", batch.size() > 1 ? "s" : "", ids, e.what()));
            }
        }
    } catch (const std::exception& e) {
        log(fmt::format("remote checks: stopped: {}", e.what()));
    }
}

// ---- a zoo's Slurm devices: one job per check ------------------------------------------------

void add_check_job_routes(httplib::Server& server, Database& db, std::mutex& db_mutex, const RemoteCheckOptions& o,
                          const std::function<void(const std::string&)>& log) {
    // A job's token names one running check of a Slurm device, until its result arrives.
    auto check_of = [&db, &o](const httplib::Request& req) -> std::optional<RemoteCheck> {
        const std::string token = bearer_token(req);
        if (token.size() != 64) return std::nullopt;
        auto c = db.check_by_token(token_hash(token));
        const auto* d = c ? o.zoo.find(c->device) : nullptr;
        if (!d || !d->slurm) return std::nullopt;
        return c;
    };
    server.Post("/api/check-job/start", [&db_mutex, check_of, o, log](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(db_mutex);
        const auto c = check_of(req);
        if (!c) return send_error(res, 401, "unknown or spent job token");
        json files = json::array();
        for (const auto& [name, content] : c->files) files.push_back({{"name", name}, {"content", content}});
        log(fmt::format("remote check {} on {}: Slurm job {} running", c->id, c->device, c->job_id));
        send_json(res, {{"id", c->id},
                        {"exercise", c->exercise},
                        {"dir", o.dirs.at(c->exercise)},
                        {"time_limit_s", o.time_limits.count(c->exercise) ? o.time_limits.at(c->exercise) : 60},
                        {"files", files},
                        {"root", o.root},
                        {"build", o.build},
                        {"race_check", o.race_check},
                        {"timeout_s", o.timeout_s},
                        {"sandbox", o.sandbox}});
    });
    server.Post("/api/check-job/result", [&db, &db_mutex, check_of, log](const httplib::Request& req,
                                                                        httplib::Response& res) {
        std::lock_guard lock(db_mutex);
        const auto c = check_of(req);
        if (!c) return send_error(res, 401, "unknown or spent job token");
        const json body = json::parse(req.body, nullptr, false);
        std::string result;
        try {
            if (body.is_object() && body.contains("failed") && body["failed"].is_string())
                result = not_graded(sanitize(body["failed"].get<std::string>(), 2000));
            else if (body.is_object() && body.contains("result"))
                result = result_from_job(body["result"]);
            else
                throw Error("send {\"result\": {...}} or {\"failed\": \"why\"}");
        } catch (const std::exception& e) {
            db.finish_check(c->id, "failed", not_graded("its Slurm job's result was refused"));
            log(fmt::format("remote check {}: refused the result of Slurm job {}: {}", c->id, c->job_id, e.what()));
            return send_error(res, 422, std::string("refused: ") + e.what());
        }
        const bool graded = !body.contains("failed");
        db.finish_check(c->id, graded ? "done" : "failed", result);
        log(fmt::format("remote check {} ({} of student:{}): {} (Slurm job {})", c->id, c->exercise, c->student,
                        graded ? "graded" : "not graded", c->job_id));
        send_json(res, {{"state", graded ? "done" : "failed"}});
    });
}

void remote_check_slurm_loop(const fs::path& db_file, const RemoteCheckOptions& o, const std::atomic<bool>& stop,
                             const std::function<void(const std::string&)>& log) {
    try {
        Database db(db_file);
        const fs::path jobs = fs::absolute(o.slurm_jobs_dir);  // the jobs start in folders of their own
        fs::create_directories(jobs);
        fs::permissions(jobs, fs::perms::owner_all, fs::perm_options::replace);
        bool squeue_failing = false;
        while (!stop) {
            std::map<std::string, int> running;
            std::vector<RemoteCheck> live;
            // Only the running ones: this runs every second, and the table keeps every result.
            for (const auto& c : db.remote_checks("running"))
                if (const auto* d = o.zoo.find(c.device); d && d->slurm) {
                    ++running[c.device];
                    if (!c.job_id.empty()) live.push_back(c);
                }
            for (const auto& d : o.zoo.devices) {
                if (!d.slurm) continue;
                while (running[d.name] < o.max_jobs_per_device) {
                    const auto check = db.claim_check({d.name});
                    if (!check) break;
                    ++running[d.name];
                    std::string id;
                    const std::string why = submit_device_job(
                        d, jobs / fmt::format("check-{}", check->id), fmt::format("check-{}", check->id),
                        {o.node_workbook, "contest", "check-job", "--server", o.server_url},
                        [&](const std::string& job, const std::string& hash) {
                            id = job;
                            db.set_check_job(check->id, job, hash);
                        });
                    if (!why.empty()) {
                        db.finish_check(check->id, "failed", not_graded(fmt::format("device \"{}\": {}", d.name, why)));
                        log(fmt::format("remote check {} on {}: not submitted: {}", check->id, d.name, why));
                    } else {
                        log(fmt::format("remote check {} on {}: Slurm job {}", check->id, d.name, id));
                    }
                }
            }
            if (!live.empty())
                if (const auto states = slurm_job_states(squeue_failing, log)) {
                    const std::time_t now = std::time(nullptr);
                    for (const auto& c : live) {
                        const auto* d = o.zoo.find(c.device);
                        const auto it = states->find(c.job_id);
                        const std::string state = it == states->end() ? "" : it->second;
                        const fs::path dir = jobs / fmt::format("check-{}", c.id);
                        std::string why;
                        if (grading::slurm::alive(state)) {
                            const std::time_t since = parse_utc(c.started_at);
                            if (since == 0 || now - since <= d->result_timeout_s) continue;
                            grading::slurm::cancel(c.job_id);
                            why = fmt::format("no result from Slurm job {} on \"{}\" within {} s ({}); it was cancelled",
                                              c.job_id, d->name, d->result_timeout_s, state);
                        } else {
                            // Ended: a result would have arrived before the job's process exited.
                            const auto still = db.remote_check(c.id);
                            if (!still || still->state != "running") continue;
                            const std::string last = last_job_line(dir);
                            why = fmt::format("Slurm job {} on \"{}\" ended ({}) without a result{}", c.job_id, d->name,
                                              state.empty() ? "no longer known to Slurm" : state,
                                              last.empty() ? "" : "; its last line: " + last);
                        }
                        std::error_code ec;
                        fs::remove(dir / "token", ec);
                        db.finish_check(c.id, "failed", not_graded(why));
                        log(fmt::format("remote check {}: {}", c.id, why));
                    }
                }
            for (int i = 0; i < 10 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    } catch (const std::exception& e) {
        log(fmt::format("remote checks on Slurm: stopped: {}", e.what()));
    }
}

int check_job(const JudgeJobOptions& o) {
    JobLink link(o, "check-job");
    const json start = link.start("/api/check-job/start", "{}", "check");
    json answer;
    try {
        RemoteCheck check;
        check.id = start.at("id").get<std::int64_t>();
        check.exercise = start.at("exercise").get<std::string>();
        for (const auto& f : start.at("files"))
            check.files.emplace_back(f.at("name").get<std::string>(), f.at("content").get<std::string>());
        RemoteCheckOptions grade;
        grade.dirs[check.exercise] = start.at("dir").get<std::string>();
        grade.time_limits[check.exercise] = start.at("time_limit_s").get<int>();
        grade.root = start.at("root").get<std::string>();
        grade.build = start.at("build").get<std::string>();
        grade.race_check = start.at("race_check").get<bool>();
        grade.sandbox = start.at("sandbox").get<bool>();
        grade.timeout_s = start.at("timeout_s").get<int>();
        grade.workbook = fs::read_symlink("/proc/self/exe").string();
        fmt::print("check-job: check {} of exercise {} on {}\n", check.id, check.exercise, hostname());
        std::fflush(stdout);
        // A folder of the node's own, nothing else of this job in it.
        std::string tmpl = (fs::temp_directory_path() / "workbook-check-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) throw Error("cannot make a folder in " + fs::temp_directory_path().string());
        try {
            answer = {{"result", json::parse(grade_one_check(check, grade, unlisted_folder(tmpl, "check")))}};
        } catch (...) {
            std::error_code ec;
            fs::remove_all(tmpl, ec);
            throw;
        }
        std::error_code ec;
        fs::remove_all(tmpl, ec);
    } catch (const std::exception& e) {
        answer = {{"failed", fmt::format("the node {} could not grade it: {}", hostname(), e.what())}};
    }
    fmt::print("check-job: {}\n", answer.contains("failed") ? one_line(answer["failed"].get<std::string>())
                                                           : answer["result"].value("status", std::string("?")));
    std::fflush(stdout);
    link.finish("/api/check-job/result", answer.dump(-1, ' ', false, json::error_handler_t::replace));
    return 0;
}

std::string remote_checks_table(contest::Database& db) {
    std::string out = fmt::format("{:>5}  {:<16} {:<3} {:<8} {:<12} {:<19}  {}\n", "id", "student", "ex", "state",
                                  "verdict", "submitted (UTC)", "device, seconds");
    for (const auto& c : db.remote_checks()) {
        const auto r = json::parse(c.result.empty() ? "{}" : c.result, nullptr, false);
        const auto field = [&](const char* k) {
            return r.is_object() && r.contains(k) && r[k].is_string() ? r[k].get<std::string>() : std::string();
        };
        const double seconds = r.is_object() && r.contains("seconds") && r["seconds"].is_number() ? r["seconds"].get<double>() : 0;
        const std::string board = c.device.empty() ? "" : "\"" + c.device + "\" ";
        const std::string detail = c.state == "done"     ? fmt::format("{}{}, {:.1f} s", board, field("device").substr(0, 60), seconds)
                                   : c.state == "failed" ? board + contest::one_line(field("output")).substr(0, 160)
                                   : !c.job_id.empty()   ? board + "Slurm job " + c.job_id
                                                         : board;
        out += fmt::format("{:>5}  {:<16} {:<3} {:<8} {:<12} {:<19}  {}\n", c.id, c.student.substr(0, 16), c.exercise,
                           c.state == "queued" ? fmt::format("queued {}", c.queue_position) : c.state,
                           field("status").substr(0, 12), c.submitted_at, detail);
    }
    return out;
}

}  // namespace workbook::server
