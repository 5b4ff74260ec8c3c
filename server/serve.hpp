// The contest's web server: the projector page with the live leaderboard, its JSON API and the
// upload endpoint, with (optionally) the judge working through the queue in the background.
//
//   GET  /                 the page (self-contained: HTML, CSS and JS inline)
//   GET  /api/board        {"devices":[{"device","baseline_gflops","rows":[...]}], "generated_at"}
//   GET  /api/submissions  the most recent submissions: id, alias, status, reason, submitted_at (and
//                          with a zoo, "devices": each device's state, reason and Slurm job id)
//   POST /api/job/start, /api/job/result   a zoo's Slurm jobs (server/slurm_jobs.hpp), by job token
//   /lab, /room, /api/lab/...  the lab dashboard, with --lab (server/lab_routes.hpp)
//   /api/check             remote checks, with --remote-checks (server/remote_check.hpp)
//   POST /api/submit       Authorization: Bearer <token>; multipart fields `alias` and `kernel`
//                          -> {"id":..., "status":"queued"} (401 bad token, 400 bad form or alias,
//                          403 another student's alias, 413 too large, 429 rate limit or queue cap)
//
// Uploads carry either a student's own token (--roster: the alias is bound to it, limits count
// per student) or, for informal workshops, one shared token (limits count per alias).
#pragma once

#include "contest/judge.hpp"
#include "server/remote_check.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace workbook::server {

struct ServeOptions {
    std::filesystem::path db;
    std::string host = "127.0.0.1";
    int port = 8080;
    // Who may upload: the students of a roster, one token each (see server/roster.hpp) ...
    std::filesystem::path roster;
    std::filesystem::path tokens_file;       // where new tokens go (default: <roster stem>-tokens.csv beside it)
    std::vector<std::string> reissue;        // students whose token is replaced (a lost one)
    // ... or, without a roster, anyone holding this one shared token.
    std::string token;
    std::size_t max_upload_bytes = 64 * 1024;  // of the kernel file
    int min_interval_s = 60;                 // per student (per alias with a shared token), between two uploads
    int max_queued = 3;                      // entries one student (alias) may have waiting at once
    double request_deadline_s = 10;          // for a whole request, headers and body
    int max_per_address = 10;                // open connections per client address (0: no cap, behind a proxy)
    bool judge = true;                       // run judge_next in a background thread
    // The zoo (contest/zoo.hpp): judge every submission on each of these devices, a board each.
    std::filesystem::path devices;
    contest::JudgeOptions judge_options;
    // The contest's window (contest/window.hpp), stored in the database at start: entries are taken
    // from `opens` until `closes` (UTC, the database's format; "": as stored before, or none).
    std::string opens, closes;
    // The lab dashboard (server/lab_routes.hpp): needs a roster; the course's exercises (id, title).
    bool lab = false;
    std::vector<std::pair<std::string, std::string>> lab_exercises;
    double lab_stuck_minutes = 15;
    std::filesystem::path lab_token_file;  // the instructor's token (default: <db>.instructor-token)
    // Remote checks (server/remote_check.hpp), on when `remote.exercises` offers any; needs a
    // roster. Its jobs folder defaults to <db>.checks; its race pass and sandbox follow the judge's.
    RemoteCheckOptions remote;
};

// Serves until SIGINT or SIGTERM, then stops the server and waits for the judge to finish the
// submission in progress (a second signal exits at once; the submission is requeued at the next
// start). Throws workbook::Error when it cannot start (neither or both of a roster and a token, a
// bad roster, port in use); returns the exit status otherwise.
int serve(const ServeOptions& options);

}  // namespace workbook::server
