// Remote checks (`workbook check NN --remote`, `contest serve --remote-checks`): a joined student's
// edit files for one exercise, graded on the server's device by the grader itself (`workbook grade
// --only NN` on a class of one, in the grader's sandbox, with its race pass), the result sent back.
//
// What runs the student's code is the grader, as for a class: nothing the student sends reaches
// another student's check, the database, a token or the instructor's files. The server keeps the
// files only until the check has run.
//
//   POST /api/check       the student's token; multipart: `exercise` and one field per edit file
//                          (named as the file) -> {"id", "status":"queued"} (400, 401, 403 an
//                          exercise not offered, 413, 429)
//   GET  /api/check/ID    the student's token; their own check only -> state, queue place, result
//
// With a zoo (`--devices zoo.toml`, contest/zoo.hpp) a check names one of its devices (`device`;
// default: the first) and waits in that device's queue. A local device's checks run here, one at a
// time; a Slurm device's run as one job per check (`workbook contest check-job` on the node, with
// a token for that check alone, as a judging's job):
//   POST /api/check-job/start    the job's token -> the check: exercise, files, how to grade it
//   POST /api/check-job/result   the job's token; {"result": {...}} or {"failed": "why"}
#pragma once

#include "contest/db.hpp"
#include "contest/zoo.hpp"

#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace workbook::server {

struct RemoteCheckOptions {
    std::map<std::string, std::vector<std::string>> exercises;  // offered: id -> the files a student edits
    std::map<std::string, std::string> dirs;                    // id -> its folder (e.g. 15_sgemm_wpt)
    std::map<std::string, int> time_limits;                     // id -> the exercise's limit, seconds
    std::string workbook;                                      // the `workbook` that grades (this one)
    std::string root, build;                                   // its course tree
    std::filesystem::path jobs_dir;                            // one folder per check while it runs
    bool race_check = true, sandbox = true;
    contest::Zoo zoo;                       // its devices take checks; none: this machine's own device ("")
    std::string server_url;        // how a Slurm job reaches this server
    std::string node_workbook;     // the `workbook` a Slurm job runs (the zoo's, or this one)
    std::filesystem::path slurm_jobs_dir;  // a Slurm check job's folder (0700: its token)
    int max_jobs_per_device = 4;   // Slurm jobs of checks at once per device: the queue stays fair
    std::size_t max_bytes = 256 * 1024;  // all files of one check together
    int min_interval_s = 10;             // per student, between two checks
    int timeout_s = 0;                   // seconds per test run; 0: each exercise's own limit
    int batch = 1;                       // a local device's waiting checks of one exercise graded together
    int max_queued = 2;                  // per student, waiting at once
};

void add_remote_check_routes(httplib::Server& server, contest::Database& db, std::mutex& db_mutex,
                             const RemoteCheckOptions& options, const std::function<void(const std::string&)>& log);

void add_check_job_routes(httplib::Server& server, contest::Database& db, std::mutex& db_mutex,
                          const RemoteCheckOptions& options, const std::function<void(const std::string&)>& log);

// Runs the queued checks of this machine's devices one at a time until `stop` (a thread of the
// server); `db_file` is opened here. Each check holds the contest's judging lock exclusively
// (contest/judge.hpp: contest::JudgingLock) while it runs: speed verdicts and contest timings never share
// the device.
void remote_check_loop(const std::filesystem::path& db_file, const RemoteCheckOptions& options,
                       const std::atomic<bool>& stop, const std::function<void(const std::string&)>& log);
// Submits the queued checks of the zoo's Slurm devices, one job each, and follows them: a job that
// ends without a result, or stays silent past its device's result_timeout_s, fails its check with
// the reason.
void remote_check_slurm_loop(const std::filesystem::path& db_file, const RemoteCheckOptions& options,
                             const std::atomic<bool>& stop, const std::function<void(const std::string&)>& log);

// Checks of one exercise graded: the grader on a class of them in `dir` (created, removed after),
// with `env` (the device's choice) added; each one's result as JSON text: {"status", "passed",
// "score", "max", "output", "device", "seconds"}, "" where the grader gave none for it (Error
// when it gave none at all). A set `stop` kills the grader at once and throws Stopped: the checks
// were not graded, and go back to the queue at the next start.
struct Stopped : std::exception {
    const char* what() const noexcept override { return "stopped with the server"; }
};
std::vector<std::string> grade_checks(const std::vector<contest::RemoteCheck>& checks, const RemoteCheckOptions& options,
                                      const std::filesystem::path& dir, const std::vector<std::string>& env = {},
                                      const std::atomic<bool>* stop = nullptr);
// One check graded (a Slurm job's): Error when the grader gave no result.
std::string grade_one_check(const contest::RemoteCheck& check, const RemoteCheckOptions& options, const std::filesystem::path& dir,
                            const std::vector<std::string>& env = {});

// `contest checks`: the remote checks as a table, each with its student, exercise, state, verdict,
// submission time and device.
std::string remote_checks_table(contest::Database& db);

// `workbook contest check-job`: a Slurm job's side. Returns the exit status. The options are a
// judging job's (server/slurm_jobs.hpp): the server, the token file, the device choice.
struct JudgeJobOptions;
int check_job(const JudgeJobOptions& options);

}  // namespace workbook::server
