// The contest's final (`contest final --top N`): once the contest has closed, the top entries of
// a board are judged again on fresh secret inputs with more sittings, one at a time and with no
// other judging of the contest beside them, and the final board ranks those runs only.
#pragma once

#include "contest/db.hpp"
#include "contest/judge.hpp"

#include <filesystem>
#include <functional>
#include <string>

namespace workbook::contest {

struct FinalOptions {
    int top = 3;         // student entries per board (the baseline and the reference rows come too)
    std::string board;   // which board, when the database has several
    JudgeOptions judge;  // the contest's settings; the final multiplies the sittings and repeats
    int more = 3;        // by this
};

// One entry of the final: judged again ("done", its run on the final board) or rejected by the
// fresh inputs (its reason in the entry's history).
struct FinalEntry {
    std::int64_t submission = 0;
    std::string alias, status, reason;
    double gflops = 0;
};

// Runs the final on the device WORKBOOK_* chooses (a board's runs must come from it); `progress`
// is told of each entry as it ends. Error when the contest is still open, the board is not
// chosen or not this device's, it has no entries, or an entry uploaded before the close is not
// judged yet (the board is read under the exclusive judging lock, so none can be judging then).
std::vector<FinalEntry> run_final(Database& db, const std::filesystem::path& db_file, const FinalOptions& options,
                                  const std::function<void(const FinalEntry&, int done, int all)>& progress);

}  // namespace workbook::contest
