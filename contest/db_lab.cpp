// The lab dashboard's rows in the contest database (see db.hpp and lab.hpp): one per student and
// exercise, and one per student, exercise and failure kind; checks are folded in, never appended.
#include "contest/db.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

namespace workbook::contest {

void Database::create_lab_schema() {
    db_->exec(R"(
        CREATE TABLE IF NOT EXISTS lab_progress (
            student_id TEXT NOT NULL, exercise TEXT NOT NULL, first_at TEXT NOT NULL, last_at TEXT NOT NULL,
            passed_at TEXT NOT NULL DEFAULT '', checks INTEGER NOT NULL DEFAULT 0, fails INTEGER NOT NULL DEFAULT 0,
            last_failure TEXT NOT NULL DEFAULT '', seconds INTEGER NOT NULL DEFAULT 0,
            hints INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (student_id, exercise));
        CREATE TABLE IF NOT EXISTS lab_failures (
            student_id TEXT NOT NULL, exercise TEXT NOT NULL, kind TEXT NOT NULL, count INTEGER NOT NULL,
            PRIMARY KEY (student_id, exercise, kind));)");
}

std::vector<Student> Database::students() const {
    SQLite::Statement s(*db_, "SELECT id, name, alias, COALESCE(alias_key, '') FROM students WHERE active = 1 ORDER BY id");
    std::vector<Student> out;
    while (s.executeStep())
        out.push_back({s.getColumn(0).getString(), s.getColumn(1).getString(), s.getColumn(2).getString(),
                       s.getColumn(3).getString()});
    return out;
}

void Database::record_lab_check(const std::string& student, const LabCheck& c) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    // A check delivered late (queued while the server was away) counts, but does not replace the
    // latest check's failure kind.
    SQLite::Statement row(*db_, R"(
        INSERT INTO lab_progress (student_id, exercise, first_at, last_at, passed_at, checks, fails, last_failure,
                                  seconds, hints)
        VALUES (?1, ?2, ?3, ?3, CASE WHEN ?4 THEN ?3 ELSE '' END, 1, NOT ?4, ?5, ?6, ?7)
        ON CONFLICT (student_id, exercise) DO UPDATE SET
            first_at = min(first_at, ?3),
            last_failure = CASE WHEN ?3 >= last_at THEN ?5 ELSE last_failure END,
            last_at = max(last_at, ?3),
            passed_at = CASE WHEN ?4 AND (passed_at = '' OR ?3 < passed_at) THEN ?3 ELSE passed_at END,
            checks = checks + 1, fails = fails + (NOT ?4),
            seconds = max(seconds, ?6), hints = max(hints, ?7))");
    row.bind(1, student);
    row.bind(2, c.exercise);
    row.bind(3, c.checked_at);
    row.bind(4, c.passed ? 1 : 0);
    row.bind(5, c.failure);
    row.bind(6, static_cast<std::int64_t>(c.seconds_on_exercise));
    row.bind(7, c.hints_used);
    row.exec();
    if (!c.passed) {
        SQLite::Statement kind(*db_, "INSERT INTO lab_failures (student_id, exercise, kind, count) VALUES (?, ?, ?, 1) "
                                     "ON CONFLICT (student_id, exercise, kind) DO UPDATE SET count = count + 1");
        kind.bind(1, student);
        kind.bind(2, c.exercise);
        kind.bind(3, c.failure);
        kind.exec();
    }
    t.commit();
}

std::vector<LabCell> Database::lab_cells() const {
    std::vector<LabCell> out;
    SQLite::Statement s(*db_, "SELECT student_id, exercise, first_at, last_at, passed_at, checks, fails, hints, seconds, "
                              "last_failure FROM lab_progress ORDER BY student_id, exercise");
    while (s.executeStep()) {
        LabCell c;
        c.student = s.getColumn(0).getString();
        c.exercise = s.getColumn(1).getString();
        c.first_at = s.getColumn(2).getString();
        c.last_at = s.getColumn(3).getString();
        c.passed_at = s.getColumn(4).getString();
        c.checks = s.getColumn(5).getInt();
        c.fails = s.getColumn(6).getInt();
        c.hints = s.getColumn(7).getInt();
        c.seconds = s.getColumn(8).getInt64();
        c.last_failure = s.getColumn(9).getString();
        out.push_back(std::move(c));
    }
    SQLite::Statement k(*db_, "SELECT student_id, exercise, kind, count FROM lab_failures");
    while (k.executeStep()) {
        const std::string student = k.getColumn(0).getString(), exercise = k.getColumn(1).getString();
        for (auto& c : out)
            if (c.student == student && c.exercise == exercise) c.failures[k.getColumn(2).getString()] = k.getColumn(3).getInt();
    }
    return out;
}

}  // namespace workbook::contest
