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

#include <filesystem>
#include <functional>
#include <mutex>
#include <string>

namespace workbook::contest {

// The forms that travel between the server and a job.
nlohmann::json options_to_json(const JudgeOptions& o);
JudgeOptions options_from_json(const nlohmann::json& j);  // throws on a missing or mistyped field
nlohmann::json outcome_to_json(const Outcome& o);
Outcome outcome_from_json(const nlohmann::json& j);      // throws on a missing or mistyped field

class SlurmDispatcher {
public:
    // `server`: the URL the jobs reach this server at; `jobs_dir`: where each job's folder goes
    // (made 0700); `workbook`: the program the nodes run.
    SlurmDispatcher(Zoo zoo, std::string server, std::filesystem::path jobs_dir, std::string workbook,
                    std::function<void(const std::string&)> log);
    // Submits the queued judgings of Slurm devices and follows the submitted and running ones.
    void step(Database& db);

private:
    void submit(Database& db, const Judging& j, const ZooDevice& d);
    void follow(Database& db);
    Zoo zoo_;
    std::string server_, workbook_;
    std::filesystem::path jobs_dir_;
    std::function<void(const std::string&)> log_;
    bool squeue_failing_ = false;
};

// The job API's two routes, on the server. `db` is shared with the other handlers under `mutex`.
void add_job_routes(httplib::Server& server, Database& db, std::mutex& mutex, const Zoo& zoo,
                    const JudgeOptions& options, std::function<void(const std::string&)> log);

struct JudgeJobOptions {
    std::string server, token_file;
    std::string platform, device, device_type;  // the device choice on the node
};

// `workbook contest judge-job`: the job's side. Returns the exit status.
int judge_job(const JudgeJobOptions& options);

}  // namespace workbook::contest
