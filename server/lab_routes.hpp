// The lab dashboard's routes on the contest server (`contest serve --lab`, with a roster):
//
//   GET  /api/lab/hello   a student's token -> who they are on the roster, whether the lab is on and
//                          which exercises are checked remotely (`workbook join` asks; served with
//                          --lab or --remote-checks)
//   POST /api/lab/check   a student's token; one check (contest/lab.hpp), at most 4 KB -> 204
//                          (400 a body outside the vocabulary, 401 a bad token, 413, 429 a flood)
//   GET  /api/lab         the instructor's token -> the students x exercises grid, with names
//   GET  /api/lab/room    anyone -> per exercise, counts only (no name, no alias)
//   GET  /lab, /room      the instructor's page (its token in the address's #fragment, which the
//                          browser never sends) and the projector's
#pragma once

#include "contest/db.hpp"

#include <httplib.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace workbook::server {

struct LabOptions {
    std::vector<std::pair<std::string, std::string>> exercises;  // id and title, in course order
    std::int64_t stuck_after_s = 15 * 60;  // a student not past an exercise after this long is "stuck"
    std::string instructor_token;          // for /api/lab
};

// The roster's student whose token the request carries (Authorization: Bearer), if any.
std::optional<contest::Student> student_of(const httplib::Request& req, contest::Database& db);
// 401, saying how to join with the token the instructor gave.
void refuse_student(httplib::Response& res);

// The instructor's token, kept in `file` (created with mode 0600 at the first start, the same
// on every start after). Error for a file that is a link, not ours or readable by others.
std::string lab_instructor_token(const std::filesystem::path& file);

// /api/lab/hello: `lab` whether reports are taken, `remote` the exercises checked remotely,
// `devices` the zoo's devices a check may name (none: the server's own).
void add_hello_route(httplib::Server& server, contest::Database& db, std::mutex& db_mutex, bool lab,
                     const std::vector<std::string>& remote, const std::vector<std::string>& devices);

// `db` is shared with the other handlers under `db_mutex`.
void add_lab_routes(httplib::Server& server, contest::Database& db, std::mutex& db_mutex, const LabOptions& options,
                    const std::function<void(const std::string&)>& log);

}  // namespace workbook::server
