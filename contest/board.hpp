// What the contest shows and exchanges of its boards: the terminal board (`contest board`), the
// Gradescope leaderboard entry of a submission, and a board merged from another contest's database.
#pragma once

#include "contest/db.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace workbook::contest {

struct JudgeOptions;

// Every board, best first, with the cross-device view when there are several; `bold` styles the
// headings. Every name in it is sanitised (runs may have been judged elsewhere).
// `public_view`: as the page shows it (Database::board); the heading says when the public board
// is frozen or the contest not open.
std::string board_text(const Database& db, const std::function<std::string(const std::string&)>& bold,
                       bool public_view = false);

// The rows of these boards, and the cross-device view when there are several (names sanitised).
std::string boards_text(const std::vector<DeviceBoard>& boards, const std::function<std::string(const std::string&)>& bold);

// `contest status`: every submission with its status and reason, each device's judging under it,
// and with `history` every state each judging went through.
std::string status_text(const Database& db, bool history);

// The final's board (`contest final`): its runs only; says so when no final has run.
std::string final_board_text(const Database& db, const std::function<std::string(const std::string&)>& bold);

// `contest export DIR`: boards.{csv,json} (every board as it stands, withdrawn entries off it),
// final-boards.{csv,json} (once `contest final` has run), runs.{csv,json} (every run, the final's marked), submissions.{csv,json} (every entry, its status, reason and
// history, withdrawals included), window.json, and with `with_sources` sources/<id>.cl. DIR must
// be new or empty: nothing is overwritten. Returns the number of files written.
int export_contest(const Database& db, const std::filesystem::path& dir, bool with_sources);

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
