// The contest's web server: the projector page with the live leaderboard, its JSON API and the
// upload endpoint, with (optionally) the judge working through the queue in the background.
//
//   GET  /                 the page (self-contained: HTML, CSS and JS inline)
//   GET  /api/board        {"devices":[{"device","baseline_gflops","rows":[...]}], "generated_at"}
//   GET  /api/submissions  the most recent submissions: id, alias, status, reason, submitted_at
//   POST /api/submit       Authorization: Bearer <token>; multipart fields `alias` and `kernel`
//                          -> {"id":..., "status":"queued"} (401 bad token, 400 bad form or alias,
//                          413 too large, 429 rate limit)
#pragma once

#include "contest/judge.hpp"

#include <cstddef>
#include <filesystem>
#include <string>

namespace workbook::contest {

struct ServeOptions {
    std::filesystem::path db;
    std::string host = "127.0.0.1";
    int port = 8080;
    std::string token;                       // required: uploads must carry it as a Bearer token
    std::size_t max_upload_bytes = 64 * 1024;  // of the kernel file
    int min_interval_s = 60;                 // per alias, between two uploads
    bool judge = true;                       // run judge_next in a background thread
    JudgeOptions judge_options;
};

// Serves until SIGINT or SIGTERM, then stops the server and waits for the judge to finish the
// submission in progress (a second signal exits at once; the submission is requeued at the next
// start). Throws workbook::Error when it cannot start (no token, port in use); returns the exit
// status otherwise.
int serve(const ServeOptions& options);

}  // namespace workbook::contest
