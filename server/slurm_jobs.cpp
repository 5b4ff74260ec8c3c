// The zoo's Slurm jobs, server side and job side (see slurm_jobs.hpp).
#include "server/slurm_jobs.hpp"

#include "workbook/grading/slurm.hpp"

#include "server/http_json.hpp"
#include "server/roster.hpp"
#include "contest/run_one.hpp"
#include "contest/run_record.hpp"

#include "workbook/errors.hpp"
#include "workbook/grading/sandbox.hpp"
#include "workbook/process.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>

#include <chrono>
#include <fcntl.h>
#include <iomanip>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace workbook::server {

using contest::final_state;
using contest::run_from_json;

using contest::Judging;
using contest::Outcome;
using contest::Submission;
using contest::implausible_run;
using contest::judge_source;
using contest::one_line;
using contest::race_check_skipped;
using contest::run_to_json;
using contest::Database;
using contest::JudgeOptions;
using contest::Zoo;
using contest::ZooDevice;

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace std::chrono_literals;

json options_to_json(const JudgeOptions& o) {
    return {{"ranking_n", o.ranking_n},     {"public_sizes", o.public_sizes},
            {"secret_sizes", o.secret_sizes}, {"sittings", o.sittings},
            {"warmups", o.warmups},         {"repeats", o.repeats},
            {"time_limit_s", o.time_limit.count()}, {"race_check", o.race_check},
            {"race_time_limit_s", o.race_time_limit.count()}, {"sandbox", o.sandbox}};
}

JudgeOptions options_from_json(const json& j) {
    JudgeOptions o;
    o.ranking_n = j.at("ranking_n").get<int>();
    o.public_sizes = j.at("public_sizes").get<std::vector<int>>();
    o.secret_sizes = j.at("secret_sizes").get<int>();
    o.sittings = j.at("sittings").get<int>();
    o.warmups = j.at("warmups").get<int>();
    o.repeats = j.at("repeats").get<int>();
    o.time_limit = std::chrono::seconds(j.at("time_limit_s").get<long long>());
    o.race_check = j.at("race_check").get<bool>();
    o.race_time_limit = std::chrono::seconds(j.at("race_time_limit_s").get<long long>());
    o.sandbox = j.at("sandbox").get<bool>();
    return o;
}

json outcome_to_json(const Outcome& o) {
    return {{"status", o.status}, {"reason", o.reason}, {"run", run_to_json(o.run)}};
}

Outcome outcome_from_json(const json& j) {
    Outcome o;
    o.status = j.at("status").get<std::string>();
    o.reason = j.at("reason").get<std::string>();
    if (o.status == "done") o.run = run_from_json(j.at("run"));
    return o;
}

// ---- the server's dispatcher ------------------------------------------------------------------

namespace {

// The job's folder name: the submission, the device's place in the zoo, the attempt.
std::string job_folder_name(const Zoo& zoo, const Judging& j) {
    std::size_t index = 0;
    while (index < zoo.devices.size() && zoo.devices[index].name != j.device) ++index;
    return fmt::format("{}-dev{}-try{}", j.submission_id, index + 1, j.attempts + 1);
}

}  // namespace

std::time_t parse_utc(const std::string& s) {
    std::tm tm{};
    std::istringstream in(s);
    in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
    return in.fail() ? 0 : timegm(&tm);
}

std::string last_job_line(const fs::path& dir) {
    std::string last;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().filename().string().rfind("slurm-", 0) != 0) continue;
        std::istringstream in(read_file_or_empty(e.path()));
        for (std::string line; std::getline(in, line);)
            if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    }
    return sanitize(last, 300);
}

SlurmDispatcher::SlurmDispatcher(Zoo zoo, std::string server, fs::path jobs_dir, std::string workbook,
                                 std::function<void(const std::string&)> log)
    // Absolute: the jobs start in folders of their own on the node.
    : zoo_(std::move(zoo)), server_(std::move(server)), workbook_(std::move(workbook)),
      jobs_dir_(fs::absolute(jobs_dir)),
      log_(std::move(log)) {
    fs::create_directories(jobs_dir_);
    fs::permissions(jobs_dir_, fs::perms::owner_all, fs::perm_options::replace);
}

void SlurmDispatcher::step(Database& db) {
    for (const auto& j : db.judgings("queued"))
        if (const auto* d = zoo_.find(j.device); d && d->slurm) submit(db, j, *d);
    follow(db);
}

std::string submit_device_job(const ZooDevice& d, const fs::path& dir, const std::string& name,
                              std::vector<std::string> command,
                              const std::function<void(const std::string&, const std::string&)>& record) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
    // The token: in a file only this user can read, which the job deletes once read.
    const std::string token = new_token();
    const fs::path token_file = dir / "token";
    {
        const int fd = ::open(token_file.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0 || ::write(fd, token.data(), token.size()) != static_cast<ssize_t>(token.size())) {
            if (fd >= 0) ::close(fd);
            return "could not write the job's token file in " + dir.string();
        }
        ::close(fd);
    }
    // The script only runs its arguments: nothing of the device's settings is quoted into shell.
    const fs::path script = dir / "job.sh";
    std::ofstream(script) << "#!/bin/sh\n# A job of workbook contest serve (a zoo's Slurm device): it runs here.\nexec \"$@\"\n";
    grading::slurm::Job sb;
    sb.hold = true;
    sb.name = name;
    sb.output = dir / "slurm-%j.out";
    sb.chdir = dir;
    sb.partition = d.partition;
    sb.gres = d.gres;
    sb.constraint = d.constraint;
    sb.extra = d.sbatch_options;
    sb.command = {script.string()};
    sb.command.insert(sb.command.end(), command.begin(), command.end());
    sb.command.insert(sb.command.end(), {"--token-file", token_file.string()});
    if (!d.platform.empty()) sb.command.insert(sb.command.end(), {"--platform", d.platform});
    if (!d.device.empty()) sb.command.insert(sb.command.end(), {"--device", d.device});
    if (!d.device_type.empty()) sb.command.insert(sb.command.end(), {"--device-type", d.device_type});
    grading::slurm::Submitted submitted;
    try {
        submitted = grading::slurm::submit(sb);
    } catch (const std::exception& e) {  // no sbatch on PATH
        submitted.error = e.what();
    }
    if (submitted.id.empty()) {
        fs::remove(token_file, ec);  // no job will read it
        return sanitize(one_line("sbatch did not take the job (" + submitted.error + ")"), 500);
    }
    // Held until now, so that the job is recorded before it can start.
    record(submitted.id, token_hash(token));
    if (std::string why = grading::slurm::release(submitted.id); !why.empty()) {
        grading::slurm::cancel(submitted.id);
        fs::remove(token_file, ec);
        return why;
    }
    return {};
}

std::optional<std::map<std::string, std::string>> slurm_job_states(bool& failing,
                                                                   const std::function<void(const std::string&)>& log) {
    // Every job of this user, finished ones included while Slurm keeps them (MinJobAge).
    grading::slurm::Queue q;
    try {
        q = grading::slurm::queue(true);
    } catch (const std::exception& e) {  // no squeue on PATH
        q.error = e.what();
    }
    if (!q.ok) {
        if (!failing) log(fmt::format("{}; the jobs are followed again when it answers", one_line(q.error)));
        failing = true;
        return std::nullopt;
    }
    failing = false;
    std::map<std::string, std::string> states;
    for (const auto& e : q.jobs) states[e.id] = e.state;
    return states;
}

void SlurmDispatcher::submit(Database& db, const Judging& j, const ZooDevice& d) {
    std::string id;
    const std::string why = submit_device_job(
        d, jobs_dir_ / job_folder_name(zoo_, j), "contest-" + std::to_string(j.submission_id),
        {workbook_, "contest", "judge-job", "--server", server_}, [&](const std::string& job, const std::string& hash) {
            id = job;
            db.set_job_token(j.submission_id, j.device, hash);
            db.move_judging(j.submission_id, j.device, {"queued"}, "submitted",
                            fmt::format("Slurm job {}{}", job, d.partition.empty() ? "" : " on partition " + d.partition),
                            job);
        });
    if (!why.empty()) {
        db.finish_judging(j.submission_id, j.device, "failed", why);
        return;
    }
    log_(fmt::format("submission {} on {}: Slurm job {}", j.submission_id, j.device, id));
}

void SlurmDispatcher::follow(Database& db) {
    std::vector<Judging> live;
    for (const auto& j : db.judgings())
        if ((j.state == "submitted" || j.state == "running") && !j.job_id.empty())
            if (const auto* d = zoo_.find(j.device); d && d->slurm) live.push_back(j);
    if (live.empty()) return;
    const auto states = slurm_job_states(squeue_failing_, log_);
    if (!states) return;
    const std::time_t now = std::time(nullptr);
    for (const auto& j : live) {
        const auto* d = zoo_.find(j.device);
        const auto it = states->find(j.job_id);
        const std::string state = it == states->end() ? "" : it->second;
        if (grading::slurm::alive(state)) {
            const std::time_t since = parse_utc(j.updated_at);
            if (since > 0 && now - since > d->result_timeout_s) {
                grading::slurm::cancel(j.job_id);
                db.finish_judging(j.submission_id, j.device, "failed",
                                  fmt::format("no result from Slurm job {} within {} s ({}); it was cancelled", j.job_id,
                                              d->result_timeout_s, state));
            }
            continue;
        }
        // Ended: a result would have arrived before the job's process exited.
        const auto still = db.judging(j.submission_id, j.device);
        if (!still || final_state(still->state)) continue;
        const fs::path dir = jobs_dir_ / job_folder_name(zoo_, j);
        const std::string log = last_job_line(dir);
        std::error_code ec;
        fs::remove(dir / "token", ec);  // spent anyway (its hash is cleared), but no secret lies about
        db.finish_judging(j.submission_id, j.device, "failed",
                          fmt::format("Slurm job {} ended ({}) without a result{}", j.job_id,
                                      state.empty() ? "no longer known to Slurm" : state,
                                      log.empty() ? "" : "; its last line: " + log));
        log_(fmt::format("submission {} on {}: Slurm job {} ended ({}) without a result", j.submission_id, j.device,
                         j.job_id, state.empty() ? "unknown" : state));
    }
}

// ---- the server's job routes ------------------------------------------------------------------

void add_job_routes(httplib::Server& server, Database& db, std::mutex& mutex, const Zoo& zoo,
                    const JudgeOptions& options, std::function<void(const std::string&)> log) {
    // A job's token names one judging of a Slurm device, and only while it waits for its result.
    auto judging_of = [&db, &zoo](const httplib::Request& req) -> std::optional<Judging> {
        const std::string token = bearer_token(req);
        if (token.size() != 64) return std::nullopt;
        auto j = db.judging_by_token(token_hash(token));
        if (!j || final_state(j->state)) return std::nullopt;
        const auto* d = zoo.find(j->device);
        if (!d || !d->slurm) return std::nullopt;
        return j;
    };
    server.Post("/api/job/start", [&db, &mutex, judging_of, options, log](const httplib::Request& req,
                                                                          httplib::Response& res) {
        std::lock_guard lock(mutex);
        const auto j = judging_of(req);
        if (!j) return send_error(res, 401, "unknown or spent job token");
        std::string node;
        try {
            node = json::parse(req.body).value("node", "");
        } catch (const std::exception&) {
        }
        db.move_judging(j->submission_id, j->device, {"submitted"}, "running",
                        fmt::format("Slurm job {}{}", j->job_id, node.empty() ? "" : " on " + sanitize(node, 64)));
        const auto sub = db.submission(j->submission_id);
        if (!sub) return send_error(res, 410, "the submission is gone");
        log(fmt::format("submission {} on {}: Slurm job {} running", j->submission_id, j->device, j->job_id));
        send_json(res, {{"submission_id", sub->id}, {"alias", sub->alias}, {"device", j->device}, {"source", sub->source},
                        {"options", options_to_json(options)}});
    });
    server.Post("/api/job/result", [&db, &mutex, judging_of, options, log](const httplib::Request& req,
                                                                           httplib::Response& res) {
        std::lock_guard lock(mutex);
        const auto j = judging_of(req);
        if (!j) return send_error(res, 401, "unknown or spent job token");
        Outcome out;
        std::string refused;
        try {
            out = outcome_from_json(json::parse(req.body));
            if (out.status != "done" && out.status != "rejected" && out.status != "failed")
                refused = "an unknown status";
        } catch (const std::exception& e) {
            refused = std::string("a result that does not parse: ") + e.what();
        }
        const auto sub = db.submission(j->submission_id);
        if (refused.empty() && out.status == "done") {
            out.run.device = sanitize(out.run.device, 256);
            out.run.driver = sanitize(out.run.driver, 256);
            refused = sub ? implausible_run(out.run, options, *sub) : "its submission is gone";
        }
        if (!refused.empty()) {
            db.finish_judging(j->submission_id, j->device, "failed", "the job's result was refused: " + refused);
            log(fmt::format("submission {} on {}: refused the result of Slurm job {}: {}", j->submission_id, j->device,
                            j->job_id, refused));
            return send_error(res, 422, "refused: " + refused);
        }
        db.finish_judging(j->submission_id, j->device, out.status, sanitize(out.reason, 2000),
                          out.status == "done" ? &out.run : nullptr);
        log(fmt::format("submission {} on {}: {} (Slurm job {})", j->submission_id, j->device, out.status, j->job_id));
        send_json(res, {{"state", out.status}});
    });
}

// ---- the job's side ---------------------------------------------------------------------------

JobLink::JobLink(const JudgeJobOptions& o, std::string who)
    : client_(o.server), server_(o.server), who_(std::move(who)) {
    token_ = read_plain_file(o.token_file, 256);
    std::error_code ec;
    fs::remove(o.token_file, ec);  // read once: nothing on the node keeps it
    if (token_.size() != 64) throw Error(who_ + ": " + o.token_file + " does not hold a job token");
    for (const auto& [name, value] : {std::pair{"WORKBOOK_PLATFORM", &o.platform}, std::pair{"WORKBOOK_DEVICE", &o.device},
                                      std::pair{"WORKBOOK_DEVICE_TYPE", &o.device_type}})
        if (!value->empty()) ::setenv(name, value->c_str(), 1);
    client_.set_connection_timeout(30);
    client_.set_read_timeout(60);
}

std::pair<int, std::string> JobLink::post(const std::string& path, const std::string& body, int attempts) {
    for (int i = 0; i < attempts; ++i) {
        if (i > 0) std::this_thread::sleep_for(std::chrono::seconds(std::min(30, 2 << i)));
        auto r = client_.Post(path, {{"Authorization", "Bearer " + token_}}, body, "application/json");
        if (r && r->status < 500) return {r->status, r->body};
        fmt::print(stderr, "{}: {} {}: {}\n", who_, path, r ? "HTTP " + std::to_string(r->status) : "no answer",
                   r ? "" : httplib::to_string(r.error()));
    }
    return {0, {}};
}

nlohmann::json JobLink::start(const std::string& path, const std::string& body, const std::string& what) {
    const auto [status, answer] = post(path, body, 6);
    if (status != 200)
        throw Error(fmt::format("{}: the server at {} did not hand out the {} (HTTP {}): {}", who_, server_, what, status,
                                one_line(answer)));
    return json::parse(answer);
}

void JobLink::finish(const std::string& path, const std::string& body) {
    const auto [sent, answer] = post(path, body, 8);
    if (sent != 200)
        throw Error(fmt::format("{}: the server did not take the result (HTTP {}): {}", who_, sent, one_line(answer)));
}

int judge_job(const JudgeJobOptions& o) {
    JobLink link(o, "judge-job");
    const json start = link.start("/api/job/start", json{{"node", hostname()}}.dump(), "judging");
    const JudgeOptions options = options_from_json(start.at("options"));
    Submission entry;
    entry.id = start.at("submission_id").get<std::int64_t>();
    entry.alias = start.at("alias").get<std::string>();
    entry.source = start.at("source").get<std::string>();
    fmt::print("judge-job: submission {} for {} on {}\n", start.at("submission_id").get<long long>(),
               start.at("device").get<std::string>(), hostname());
    Outcome out;
    // What this node lacks is the judging's failure, never the entry's.
    if (const auto problem = options.sandbox ? grading::sandbox_problem() : std::string(); !problem.empty())
        out = {"failed", "the node cannot run the judge's sandbox: " + problem, {}};
    else if (const auto why = race_check_skipped(options); !why.empty() && options.race_check)
        out = {"failed", "the node cannot run the race pass: " + why, {}};
    else
        out = judge_source(entry, options);
    fmt::print("judge-job: {}{}\n", out.status, out.reason.empty() ? "" : ": " + one_line(out.reason));
    std::fflush(stdout);
    link.finish("/api/job/result", outcome_to_json(out).dump());
    return 0;
}

}  // namespace workbook::server
