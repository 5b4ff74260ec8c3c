// The zoo's Slurm side (contest/zoo.hpp): one job per (submission, device), on both ends.
//
// The server's dispatcher submits a queued judging with sbatch (held until its id is recorded,
// then released) and follows its job with squeue; a job that ends without a result, or stays
// silent past the device's result_timeout_s, fails its judging with the reason.
//
// The job (`workbook contest judge-job`, trusted code on the node) reads its token from a file
// only the instructor's user can read and deletes it, asks the server for the submission
// (POST /api/job/start), judges it with the same sandboxed judge as a local run (judge_source),
// and posts the outcome (POST /api/job/result). The token is valid for that one judging, from
// submission until its result arrives; it is never the upload token, and never reaches the
// sandboxed runner that runs the student's kernel. The server checks a job's run with the same
// implausible_run() as a local one.
#pragma once

#include "contest/db.hpp"
#include "contest/judge.hpp"
#include "contest/zoo.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace workbook::server {

// The forms that travel between the server and a job.
nlohmann::json options_to_json(const contest::JudgeOptions& o);
contest::JudgeOptions options_from_json(const nlohmann::json& j);  // throws on a missing or mistyped field
nlohmann::json outcome_to_json(const contest::Outcome& o);
contest::Outcome outcome_from_json(const nlohmann::json& j);      // throws on a missing or mistyped field

// A job on a Slurm device (a judging's or a remote check's), submitted one way: its folder `dir`
// (0700), a token file only this user can read (the job deletes it once read) and a script that
// only runs its arguments: `command`, then --token-file and the device's choice (--platform,
// --device, --device-type). Held until `record(job id, token hash)` has stored it, then released.
// Returns "" when submitted, else why not.
std::string submit_device_job(const contest::ZooDevice& d, const std::filesystem::path& dir, const std::string& name,
                              std::vector<std::string> command,
                              const std::function<void(const std::string& job_id, const std::string& token_hash)>& record);
// Every job of this user that Slurm knows, id -> state; nothing when squeue fails (said once in
// `log` until it answers again: `failing` keeps that).
std::optional<std::map<std::string, std::string>> slurm_job_states(bool& failing,
                                                                   const std::function<void(const std::string&)>& log);
// The last line a job printed (its slurm-*.out in `dir`), made safe to show.
std::string last_job_line(const std::filesystem::path& dir);
// The database's time format ("2026-11-27T16:40:00", UTC) as a time_t; 0 when it does not parse.
std::time_t parse_utc(const std::string& s);

class SlurmDispatcher {
public:
    // `server`: the URL the jobs reach this server at; `jobs_dir`: where each job's folder goes
    // (made 0700); `workbook`: the program the nodes run.
    SlurmDispatcher(contest::Zoo zoo, std::string server, std::filesystem::path jobs_dir, std::string workbook,
                    std::function<void(const std::string&)> log);
    // Submits the queued judgings of Slurm devices and follows the submitted and running ones.
    void step(contest::Database& db);

private:
    void submit(contest::Database& db, const contest::Judging& j, const contest::ZooDevice& d);
    void follow(contest::Database& db);
    contest::Zoo zoo_;
    std::string server_, workbook_;
    std::filesystem::path jobs_dir_;
    std::function<void(const std::string&)> log_;
    bool squeue_failing_ = false;
};

// The job API's two routes, on the server. `db` is shared with the other handlers under `mutex`.
void add_job_routes(httplib::Server& server, contest::Database& db, std::mutex& mutex, const contest::Zoo& zoo,
                    const contest::JudgeOptions& options, std::function<void(const std::string&)> log);

struct JudgeJobOptions {
    std::string server, token_file;
    std::string platform, device, device_type;  // the device choice on the node
};

// The job's side of both kinds (a judging's, a remote check's): its token read from its file,
// which is then deleted; the device chosen here (WORKBOOK_PLATFORM, _DEVICE, _DEVICE_TYPE of this
// process); the server reached with retries (it may be restarting). `who` names the job in its
// messages.
class JobLink {
public:
    JobLink(const JudgeJobOptions& options, std::string who);
    // Asks for the work; Error unless the server answers 200 with JSON. `what`: "judging", "check".
    nlohmann::json start(const std::string& path, const std::string& body, const std::string& what);
    // Posts the result; Error unless the server takes it.
    void finish(const std::string& path, const std::string& body);

private:
    std::pair<int, std::string> post(const std::string& path, const std::string& body, int attempts);
    httplib::Client client_;
    std::string server_, who_, token_;
};

// `workbook contest judge-job`: the job's side. Returns the exit status.
int judge_job(const JudgeJobOptions& options);

}  // namespace workbook::server
