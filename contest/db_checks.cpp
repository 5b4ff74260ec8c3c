// Remote checks in the contest database (see db.hpp and remote_check.hpp): the queue, and the
// files of each check until it has run.
#include "contest/db.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <set>

namespace workbook::contest {

namespace {

// The queue in the order checks are taken: the student who used the device least in the last 15
// minutes first (in seconds of their checks' gradings: a check still running counts to now), then
// the oldest. So a student whose checks run long (to the time limit, say) waits behind those whose
// checks were quick, rather than holding the device for everyone; counting checks instead gave one
// hog three quarters of the device. Start and finish are kept to the millisecond: in whole seconds a
// quick check that straddled a second's edge counted a full second, as much as one that ran 1.9 s.
// One queue per device: `device_is` is the SQL condition on
// c.device that picks it.
std::string fair_queue(const std::string& device_is) {
    return "WITH q AS (SELECT c.id, (SELECT COALESCE(SUM((julianday(CASE WHEN d.finished_at <> '' THEN "
           "d.finished_at ELSE strftime('%Y-%m-%dT%H:%M:%f','now') END) - julianday(d.started_at)) * 86400.0), 0) "
           "FROM remote_checks d WHERE d.student_id = c.student_id AND d.state <> 'queued' AND d.started_at > "
           "strftime('%Y-%m-%dT%H:%M:%S','now','-15 minutes')) AS recent "
           "FROM remote_checks c WHERE c.state = 'queued' AND c.device " + device_is + ") ";
}

std::string in_list(const std::vector<std::string>& devices) {
    std::string list;
    for (std::size_t i = 0; i < devices.size(); ++i) list += (i ? ", ?" : "?");
    return "IN (" + list + ")";
}

std::vector<std::pair<std::string, std::string>> files_of(SQLite::Database& db, std::int64_t id) {
    std::vector<std::pair<std::string, std::string>> files;
    SQLite::Statement f(db, "SELECT name, content FROM remote_check_files WHERE check_id = ? ORDER BY name");
    f.bind(1, static_cast<std::int64_t>(id));
    while (f.executeStep())
        files.emplace_back(f.getColumn(0).getString(),
                           std::string(static_cast<const char*>(f.getColumn(1).getBlob()),
                                       static_cast<std::size_t>(f.getColumn(1).getBytes())));
    return files;
}

}  // namespace

void Database::create_check_schema() {
    db_->exec(R"(
        CREATE TABLE IF NOT EXISTS remote_checks (
            id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, exercise TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'queued', result TEXT NOT NULL DEFAULT '',
            submitted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%S','now')),
            finished_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE IF NOT EXISTS remote_check_files (
            check_id INTEGER NOT NULL REFERENCES remote_checks(id), name TEXT NOT NULL, content BLOB NOT NULL);)");
    // The device a check runs on (a zoo's; '' the server's own) and its Slurm job, added to a
    // database of the first remote checks.
    bool has_device = false;
    SQLite::Statement columns(*db_, "PRAGMA table_info(remote_checks)");
    while (columns.executeStep()) has_device |= columns.getColumn(1).getString() == "device";
    if (!has_device)
        db_->exec(R"(
            ALTER TABLE remote_checks ADD COLUMN device TEXT NOT NULL DEFAULT '';
            ALTER TABLE remote_checks ADD COLUMN job_id TEXT NOT NULL DEFAULT '';
            ALTER TABLE remote_checks ADD COLUMN token_hash TEXT NOT NULL DEFAULT '';
            ALTER TABLE remote_checks ADD COLUMN started_at TEXT NOT NULL DEFAULT '';)");
    // The queue's questions (what waits on a device, what a student used lately) stay cheap with a
    // day of history: 8,000 rows made one poll cost 0.4 s without them.
    db_->exec(R"(
        CREATE INDEX IF NOT EXISTS remote_checks_waiting ON remote_checks(state, device);
        CREATE INDEX IF NOT EXISTS remote_checks_recent ON remote_checks(student_id, started_at);
        CREATE INDEX IF NOT EXISTS remote_check_files_check ON remote_check_files(check_id);)");
}

std::int64_t Database::queue_check(const std::string& student, const std::string& exercise, const std::string& device,
                                   const std::vector<std::pair<std::string, std::string>>& files, int min_interval_s,
                                   int max_queued) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement recent(*db_, "SELECT COUNT(*) FROM remote_checks WHERE student_id = ? AND "
                                   "submitted_at > strftime('%Y-%m-%dT%H:%M:%S','now', ?)");
    recent.bind(1, student);
    recent.bind(2, fmt::format("-{} seconds", min_interval_s));
    recent.executeStep();
    if (recent.getColumn(0).getInt() > 0)
        throw RateLimited(fmt::format("one remote check per {} s: try again in a moment", min_interval_s));
    SQLite::Statement waiting(*db_, "SELECT COUNT(*) FROM remote_checks WHERE student_id = ? AND state IN "
                                    "('queued', 'running')");
    waiting.bind(1, student);
    waiting.executeStep();
    if (waiting.getColumn(0).getInt() >= max_queued)
        throw RateLimited(fmt::format("you have {} remote checks waiting (at most {}): wait for their results",
                                      waiting.getColumn(0).getInt(), max_queued));
    SQLite::Statement add(*db_, "INSERT INTO remote_checks (student_id, exercise, device) VALUES (?, ?, ?)");
    add.bind(1, student);
    add.bind(2, exercise);
    add.bind(3, device);
    add.exec();
    const std::int64_t id = db_->getLastInsertRowid();
    for (const auto& [name, content] : files) {
        SQLite::Statement f(*db_, "INSERT INTO remote_check_files (check_id, name, content) VALUES (?, ?, ?)");
        f.bind(1, static_cast<std::int64_t>(id));
        f.bind(2, name);
        f.bind(3, content.data(), static_cast<int>(content.size()));
        f.exec();
    }
    t.commit();
    return id;
}

std::vector<RemoteCheck> Database::claim_checks(const std::vector<std::string>& devices, const std::string& exercise,
                                                int most, const std::string& not_student) {
    std::vector<RemoteCheck> claimed;
    if (devices.empty() || most < 1) return claimed;
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement s(*db_, fair_queue(in_list(devices)) +
                                  "SELECT c.id, c.student_id, c.exercise, c.submitted_at, c.device FROM q JOIN "
                                  "remote_checks c ON c.id = q.id WHERE ? IN ('', c.exercise) AND c.student_id <> ? "
                                  "ORDER BY q.recent, q.id");
    int at = 1;
    for (const auto& d : devices) s.bind(at++, d);
    s.bind(at++, exercise);
    s.bind(at, not_student);
    // One check per student in a batch: a student's second check waits for the next turn, so a
    // batch is never one student's several hanging checks in a row.
    std::set<std::string> students;
    while (static_cast<int>(claimed.size()) < most && s.executeStep()) {
        if (!students.insert(s.getColumn(1).getString()).second) continue;
        RemoteCheck c;
        c.id = s.getColumn(0).getInt64();
        c.student = s.getColumn(1).getString();
        c.exercise = s.getColumn(2).getString();
        c.submitted_at = s.getColumn(3).getString();
        c.device = s.getColumn(4).getString();
        c.state = "running";
        claimed.push_back(std::move(c));
    }
    for (auto& c : claimed) {
        c.files = files_of(*db_, c.id);
        SQLite::Statement mark(*db_, "UPDATE remote_checks SET state = 'running', "
                                     "started_at = strftime('%Y-%m-%dT%H:%M:%f','now') WHERE id = ?");
        mark.bind(1, static_cast<std::int64_t>(c.id));
        mark.exec();
    }
    t.commit();
    return claimed;
}

bool Database::has_queued_check(const std::vector<std::string>& devices) const {
    if (devices.empty()) return false;
    SQLite::Statement s(*db_, "SELECT 1 FROM remote_checks WHERE state = 'queued' AND device " + in_list(devices) +
                                  " LIMIT 1");
    int at = 1;
    for (const auto& d : devices) s.bind(at++, d);
    return s.executeStep();
}

std::optional<RemoteCheck> Database::claim_check(const std::vector<std::string>& devices) {
    auto one = claim_checks(devices, "", 1);
    if (one.empty()) return std::nullopt;
    return std::move(one.front());
}

void Database::set_check_job(std::int64_t id, const std::string& job_id, const std::string& token_hash) {
    SQLite::Statement s(*db_, "UPDATE remote_checks SET job_id = ?, token_hash = ? WHERE id = ?");
    s.bind(1, job_id);
    s.bind(2, token_hash);
    s.bind(3, static_cast<std::int64_t>(id));
    s.exec();
}

std::optional<RemoteCheck> Database::check_by_token(const std::string& token_hash) const {
    if (token_hash.empty()) return std::nullopt;
    SQLite::Statement s(*db_, "SELECT id, student_id, exercise, device, job_id FROM remote_checks WHERE "
                              "token_hash = ? AND state = 'running'");
    s.bind(1, token_hash);
    if (!s.executeStep()) return std::nullopt;
    RemoteCheck c;
    c.id = s.getColumn(0).getInt64();
    c.student = s.getColumn(1).getString();
    c.exercise = s.getColumn(2).getString();
    c.device = s.getColumn(3).getString();
    c.job_id = s.getColumn(4).getString();
    c.state = "running";
    c.files = files_of(*db_, c.id);
    return c;
}

void Database::finish_check(std::int64_t id, const std::string& state, const std::string& result) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    // The job's token stops working with the result.
    SQLite::Statement s(*db_, "UPDATE remote_checks SET state = ?, result = ?, token_hash = '', "
                              "finished_at = strftime('%Y-%m-%dT%H:%M:%f','now') WHERE id = ?");
    s.bind(1, state);
    s.bind(2, result);
    s.bind(3, static_cast<std::int64_t>(id));
    s.exec();
    SQLite::Statement files(*db_, "DELETE FROM remote_check_files WHERE check_id = ?");
    files.bind(1, static_cast<std::int64_t>(id));
    files.exec();
    t.commit();
}

namespace {

constexpr const char* check_columns =
    "SELECT id, student_id, exercise, state, result, submitted_at, finished_at, device, job_id, started_at "
    "FROM remote_checks c ";

// A queued check's place in the fair order (1: next).
int queue_place(SQLite::Database& db, std::int64_t id) {
    SQLite::Statement s(db, fair_queue("= (SELECT device FROM remote_checks WHERE id = ?1)") +
                                "SELECT COUNT(*) FROM q, (SELECT recent AS r0 FROM q WHERE id = ?1) "
                                "WHERE q.recent < r0 OR (q.recent = r0 AND q.id <= ?1)");
    s.bind(1, static_cast<std::int64_t>(id));
    return s.executeStep() ? s.getColumn(0).getInt() : 0;
}

RemoteCheck check_row(SQLite::Statement& s) {
    RemoteCheck c;
    c.id = s.getColumn(0).getInt64();
    c.student = s.getColumn(1).getString();
    c.exercise = s.getColumn(2).getString();
    c.state = s.getColumn(3).getString();
    c.result = s.getColumn(4).getString();
    c.submitted_at = s.getColumn(5).getString();
    c.finished_at = s.getColumn(6).getString();
    c.device = s.getColumn(7).getString();
    c.job_id = s.getColumn(8).getString();
    c.started_at = s.getColumn(9).getString();
    return c;
}

}  // namespace

std::optional<RemoteCheck> Database::remote_check(std::int64_t id) const {
    SQLite::Statement s(*db_, std::string(check_columns) + "WHERE id = ?");
    s.bind(1, static_cast<std::int64_t>(id));
    if (!s.executeStep()) return std::nullopt;
    RemoteCheck c = check_row(s);
    if (c.state == "queued") c.queue_position = queue_place(*db_, c.id);
    return c;
}

std::vector<RemoteCheck> Database::remote_checks(const std::string& state) const {
    SQLite::Statement s(*db_, std::string(check_columns) + "WHERE ? IN ('', state) ORDER BY id DESC");
    s.bind(1, state);
    std::vector<RemoteCheck> out;
    while (s.executeStep()) {
        out.push_back(check_row(s));
        if (out.back().state == "queued") out.back().queue_position = queue_place(*db_, out.back().id);
    }
    return out;
}

void Database::requeue_running_checks() {
    // A Slurm job of the last run still on its way gets 401 for its spent token.
    db_->exec("UPDATE remote_checks SET state = 'queued', job_id = '', token_hash = '' WHERE state = 'running'");
}

}  // namespace workbook::contest
