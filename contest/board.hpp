// What the contest shows and exchanges of its boards: the terminal board (`contest board`), the
// Gradescope leaderboard entry of a submission, and a board merged from another contest's database.
#pragma once

#include "contest/db.hpp"

#include <functional>
#include <string>

namespace workbook::contest {

struct JudgeOptions;

// Every board, best first, with the cross-device view when there are several; `bold` styles the
// headings. Every name in it is sanitised (runs may have been judged elsewhere).
std::string board_text(const Database& db, const std::function<std::string(const std::string&)>& bold);

// Gradescope's results.json for the newest submission: full score when it is valid, its GFLOPS in
// the leaderboard array (higher is better).
void write_gradescope(const Database& db, const std::string& file);

// `contest merge`: each judging of the database `file` whose entry is one of this contest's (same
// alias, same source) becomes that entry's judging on `board`, checked against this contest's
// `settings` (its N and launches), never against what the rows say of themselves, every text
// sanitised as it enters. Returns the exit status (an error when a run was refused).
int merge_board(Database& db, const std::string& file, const std::string& board, const std::string& from,
                const JudgeOptions& settings);

}  // namespace workbook::contest
