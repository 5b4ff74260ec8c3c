// One identity per student: the roster (a CSV of student ids and optional display names), the
// upload tokens issued from it (random, handed out once, stored only as SHA-256 hashes) and the
// file that carries new tokens to the instructor (mode 0600, never overwritten).
#pragma once

#include "contest/db.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace workbook::server {

struct RosterEntry {
    std::string id;    // 1-64 of [A-Za-z0-9._@-]
    std::string name;  // the alias the student starts with ("" lets them pick one at first upload)
    int line = 0;
};

// Lines "id" or "id,name" (a name in double quotes may hold commas); blank lines, lines starting
// with '#' and a header line ("id,name", "student,...") are skipped. Throws workbook::Error naming
// the file and line for a bad id, a refused name, a repeated id or a name that is another's alias.
std::vector<RosterEntry> read_roster(const std::filesystem::path& file);

struct IssuedToken {
    std::string student, name, token;
};

struct Enrolment {
    std::vector<IssuedToken> issued;    // the tokens issued now: the only time they exist outside the students' hands
    std::vector<std::string> warnings;  // a roster name enrolled without its alias, and why
};

// Adds the roster's new students with fresh tokens (the old ones keep theirs; `reissue` lists ids
// whose token is replaced), and leaves only the roster's students able to upload. All in one
// transaction: `deliver` gets the new tokens before it commits, so a token works only once it has
// been handed over, and when anything fails (`deliver` included) the database is as it was. A
// roster name that another student already took as their alias at an upload is not given: that
// student is enrolled without an alias (they pick one at their first upload), with a warning.
Enrolment enrol(contest::Database& db, const std::vector<RosterEntry>& roster, const std::vector<std::string>& reissue,
                const std::function<void(const std::vector<IssuedToken>&)>& deliver);

// Appends the tokens to `file` as CSV (student,name,token), creating it with mode 0600; refuses a
// file that is a link, not ours, or readable by anyone else.
void append_tokens(const std::filesystem::path& file, const std::vector<IssuedToken>& tokens);

// A file only its owner can read, opened (created with mode 0600 when missing) with `flags`
// (O_WRONLY | O_APPEND, O_RDWR, ...); Error naming `what` for a link, another's file or one
// others can read. Closed at the end of its scope.
struct PrivateFile {
    PrivateFile(const std::filesystem::path& file, int flags, const std::string& what);
    ~PrivateFile();
    PrivateFile(const PrivateFile&) = delete;
    PrivateFile& operator=(const PrivateFile&) = delete;
    int fd = -1;
    long long size = 0;
};

std::string new_token();                          // 32 random bytes (OpenSSL's RAND_bytes), hex
std::string token_hash(const std::string& token);  // SHA-256, hex

}  // namespace workbook::server
