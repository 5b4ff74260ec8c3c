// The lab dashboard's record of the room (`contest serve --lab`): what a joined student's check
// tells the server, and what the instructor's grid and the projector's counts are made of.
//
// A check carries the exercise, pass or fail, the first failure's kind (workbook/failure_kind.hpp:
// a word of a fixed list), the time on the exercise and the hints used; never messages, never code.
// The server keeps one row per student and exercise (counts, first and last check, first pass),
// so a flood of checks grows nothing.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace workbook::contest {

struct LabCheck {
    std::string exercise;             // a course exercise id, e.g. "07"
    bool passed = false;
    std::string failure;              // a failure kind when failed, "" when passed
    std::int64_t seconds_on_exercise = 0;
    int hints_used = 0;
    std::string checked_at;           // UTC, the database's format (the client's clock, clamped)
};

// Reads and checks a posted body: Error with the reason for anything else than an object with
// exactly the fields above, an exercise of `exercises`, a kind of the list (or none when passed),
// counts in range. `checked_at` is clamped to [now - 12 h, now]: a check queued while the server
// was away keeps its time, a clock in the future cannot push a row past the others.
LabCheck parse_lab_check(const std::string& body, const std::vector<std::string>& exercises, const std::string& now);

// One student's record on one exercise.
struct LabCell {
    std::string student, exercise;
    std::string first_at, last_at, passed_at;  // passed_at "" until the first pass
    int checks = 0, fails = 0, hints = 0;
    std::int64_t seconds = 0;                  // the client's time on the exercise, the largest sent
    std::string last_failure;                  // the latest check's kind ("" when it passed)
    std::map<std::string, int> failures;       // failing checks by kind
};

enum class LabState { not_started, working, stuck, passed };
const char* lab_state_name(LabState s);
// Passed once any check passed; stuck when not, and its first check is `stuck_after_s` or more
// before `now`; working otherwise.
LabState lab_state(const LabCell& cell, const std::string& now, std::int64_t stuck_after_s);

}  // namespace workbook::contest
