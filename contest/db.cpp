// The contest database (see db.hpp).
#include "db.hpp"

#include "contest/ranking.hpp"

#include "workbook/errors.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <string_view>
#include <thread>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace workbook::contest {

namespace {

// The database holds every entry's and every check's files, and the tokens' hashes: its owner's
// alone, made so before SQLite opens it (SQLite gives its -wal and -shm files the database's mode).
// A database some earlier version left readable to others is made private too.
// By path only, never by opening it: closing any descriptor of a file drops every POSIX lock this
// process holds on it, and another connection of this process (the server has several) relies on
// SQLite's locks; losing them lost a server's WAL.
const std::filesystem::path& owner_only(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        if (const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600); fd >= 0) ::close(fd);
    for (const char* tail : {"", "-wal", "-shm"}) ::chmod((file.string() + tail).c_str(), 0600);
    return file;
}

}  // namespace

Database::Database(const std::filesystem::path& file)
    : file_(file),
      db_(std::make_unique<SQLite::Database>(owner_only(file).string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)) {
    db_->exec("PRAGMA busy_timeout=10000");  // the server and the judge write concurrently
    // Two processes opening a new database at once (a server starting while the instructor queues
    // the baseline) can meet SQLITE_BUSY where SQLite waits for no busy handler: the switch to WAL
    // takes its exclusive lock without one. Every step below can run twice, so it is retried.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::minstd_rand jitter(static_cast<unsigned>(::getpid()));
    for (;;) {
        try {
            create_schema();
            return;
        } catch (const SQLite::Exception& e) {
            if ((e.getErrorCode() & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) throw;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10 + jitter() % 40));
    }
}

void Database::create_schema() {
    db_->exec("PRAGMA journal_mode=WAL");
    db_->exec(R"(
        CREATE TABLE IF NOT EXISTS submissions (
            id INTEGER PRIMARY KEY, alias TEXT NOT NULL, file_name TEXT NOT NULL, source TEXT NOT NULL,
            submitted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%S','now')),
            status TEXT NOT NULL DEFAULT 'queued', reason TEXT NOT NULL DEFAULT '');
        CREATE TABLE IF NOT EXISTS devices (
            id INTEGER PRIMARY KEY, name TEXT NOT NULL, driver TEXT NOT NULL, UNIQUE(name, driver));
        CREATE TABLE IF NOT EXISTS runs (
            id INTEGER PRIMARY KEY, submission_id INTEGER NOT NULL REFERENCES submissions(id),
            device_id INTEGER NOT NULL REFERENCES devices(id), n INTEGER NOT NULL,
            median_s REAL NOT NULL, min_s REAL NOT NULL, max_s REAL NOT NULL, gflops REAL NOT NULL,
            repeats INTEGER NOT NULL, sizes TEXT NOT NULL, build_options TEXT NOT NULL, kernel_hash TEXT NOT NULL,
            finished_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%S','now')));)");
    create_identity_schema();
    create_ranking_schema();
    create_zoo_schema();
    create_window_schema();
    create_lab_schema();
    create_check_schema();
}

// The zoo's tables (contest/zoo.hpp) and the board column of runs. Runs of an older database keep
// board '': named by their device and driver, as before.
void Database::create_zoo_schema() {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    bool has_board = false;
    SQLite::Statement columns(*db_, "PRAGMA table_info(runs)");
    while (columns.executeStep()) has_board |= columns.getColumn(1).getString() == "board";
    if (!has_board) db_->exec("ALTER TABLE runs ADD COLUMN board TEXT NOT NULL DEFAULT ''");
    db_->exec(R"(
        CREATE TABLE IF NOT EXISTS judgings (
            submission_id INTEGER NOT NULL REFERENCES submissions(id), device TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'queued', reason TEXT NOT NULL DEFAULT '', job_id TEXT NOT NULL DEFAULT '',
            token_hash TEXT NOT NULL DEFAULT '', attempts INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%S','now')),
            PRIMARY KEY (submission_id, device));
        CREATE INDEX IF NOT EXISTS judgings_state ON judgings(device, state);
        CREATE TABLE IF NOT EXISTS judging_events (
            id INTEGER PRIMARY KEY, submission_id INTEGER NOT NULL, device TEXT NOT NULL, state TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '', at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f','now')));)");
    t.commit();
}

// The yardstick columns of runs (contest/ranking.hpp). Runs of a database from before them keep
// ratio 0: ranked below every newer run, by GFLOPS among themselves.
void Database::create_ranking_schema() {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    bool has_ratio = false;
    SQLite::Statement columns(*db_, "PRAGMA table_info(runs)");
    while (columns.executeStep()) has_ratio |= columns.getColumn(1).getString() == "ratio";
    if (!has_ratio)
        db_->exec(R"(
            ALTER TABLE runs ADD COLUMN ratio REAL NOT NULL DEFAULT 0;
            ALTER TABLE runs ADD COLUMN ratio_low REAL NOT NULL DEFAULT 0;
            ALTER TABLE runs ADD COLUMN ratio_high REAL NOT NULL DEFAULT 0;
            ALTER TABLE runs ADD COLUMN yardstick TEXT NOT NULL DEFAULT '';
            ALTER TABLE runs ADD COLUMN yardstick_median_s REAL NOT NULL DEFAULT 0;)");
    t.commit();
}

// Who submitted (owner, alias_key) and the roster's students. A database from before these
// columns gets them, its old rows owned by their alias.
void Database::create_identity_schema() {
    // IMMEDIATE: the server's and the judge's connections may both find an old database.
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    bool has_owner = false;
    SQLite::Statement columns(*db_, "PRAGMA table_info(submissions)");
    while (columns.executeStep()) has_owner |= columns.getColumn(1).getString() == "owner";
    if (!has_owner) {
        db_->exec("ALTER TABLE submissions ADD COLUMN owner TEXT NOT NULL DEFAULT ''");
        db_->exec("ALTER TABLE submissions ADD COLUMN alias_key TEXT NOT NULL DEFAULT ''");
        db_->exec("UPDATE submissions SET owner = 'alias:' || alias, alias_key = alias");
    }
    db_->exec(R"(
        CREATE INDEX IF NOT EXISTS submissions_owner ON submissions(owner, status);
        CREATE TABLE IF NOT EXISTS students (
            id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE,
            alias TEXT NOT NULL DEFAULT '', alias_key TEXT UNIQUE, active INTEGER NOT NULL DEFAULT 1);)");
    t.commit();
}

Database::~Database() = default;

std::int64_t Database::queue(const std::string& alias, const std::string& file_name, const std::string& source,
                             int min_interval_s) {
    return queue(QueueRequest{"alias:" + alias, alias, alias, file_name, source, min_interval_s, 0});
}

namespace {

int count(SQLite::Database& db, const char* sql, const std::string& a, const std::string& b = {}) {
    SQLite::Statement s(db, sql);
    s.bind(1, a);
    if (s.getBindParameterCount() > 1) s.bind(2, b);
    s.executeStep();
    return s.getColumn(0).getInt();
}

// Throws RateLimited when `r.owner` is over either limit.
void check_limits(SQLite::Database& db, const QueueRequest& r) {
    const std::string who = r.owner.rfind("student:", 0) == 0 ? "you" : fmt::format("\"{}\"", r.alias);
    if (count(db, "SELECT COUNT(*) FROM submissions WHERE owner = ? AND "
                  "submitted_at > strftime('%Y-%m-%dT%H:%M:%S','now', ?)",
              r.owner, fmt::format("-{} seconds", r.min_interval_s)) > 0)
        throw RateLimited(fmt::format("{} submitted less than {} s ago: one submission per {} per {} s; try again "
                                      "later",
                                      who, r.min_interval_s, who == "you" ? "student" : "alias", r.min_interval_s));
    if (r.max_queued > 0) {
        const int waiting = count(db, "SELECT COUNT(*) FROM submissions WHERE owner = ? AND status = 'queued'", r.owner);
        if (waiting >= r.max_queued)
            throw RateLimited(fmt::format("{} already {} {} entr{} waiting for the judge (at most {} at once); submit "
                                          "again once one is judged",
                                          who, who == "you" ? "have" : "has", waiting, waiting == 1 ? "y" : "ies",
                                          r.max_queued));
    }
}

}  // namespace

std::int64_t Database::queue(const QueueRequest& r) {
    if (r.alias.empty() || r.alias.size() > 160)  // 40 characters of up to 4 bytes (contest/alias.hpp)
        throw Error("the alias must be 1 to 40 characters long");
    for (unsigned char c : r.alias)
        if (c < 0x20 || c == 0x7f) throw Error("the alias may not contain control characters");
    // IMMEDIATE: the limits read and the insert see one state, whatever the judge commits meanwhile.
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    if (!reserved_alias(r.alias)) {
        check_window();
        check_limits(*db_, r);
    }
    // One spelling per identity on the board: the first one used.
    SQLite::Statement first(*db_, "SELECT alias FROM submissions WHERE alias_key = ? ORDER BY id LIMIT 1");
    first.bind(1, r.alias_key);
    const std::string alias = first.executeStep() ? first.getColumn(0).getString() : r.alias;
    SQLite::Statement insert(*db_,
                             "INSERT INTO submissions(alias, file_name, source, owner, alias_key) VALUES (?, ?, ?, ?, ?)");
    insert.bind(1, alias);
    insert.bind(2, r.file_name);
    insert.bind(3, r.source);
    insert.bind(4, r.owner);
    insert.bind(5, r.alias_key);
    insert.exec();
    const auto id = db_->getLastInsertRowid();
    t.commit();
    return id;
}

namespace {

Submission read_submission(SQLite::Statement& s) {
    return {s.getColumn(0).getInt64(), s.getColumn(1).getString(), s.getColumn(2).getString(),
            s.getColumn(3).getString(), s.getColumn(4).getString(), s.getColumn(5).getString(),
            s.getColumn(6).getString()};
}

constexpr const char* submission_columns = "id, alias, file_name, source, submitted_at, status, reason";

}  // namespace

bool Database::has_queued() const {
    SQLite::Statement s(*db_, "SELECT 1 FROM submissions WHERE status = 'queued' LIMIT 1");
    return s.executeStep();
}

std::optional<Submission> Database::claim() {
    SQLite::Transaction t(*db_);
    SQLite::Statement s(*db_, fmt::format("SELECT {} FROM submissions WHERE status = 'queued' ORDER BY id LIMIT 1",
                                          submission_columns));
    if (!s.executeStep()) return std::nullopt;
    Submission sub = read_submission(s);
    SQLite::Statement mark(*db_, "UPDATE submissions SET status = 'running' WHERE id = ?");
    mark.bind(1, sub.id);
    mark.exec();
    t.commit();
    sub.status = "running";
    return sub;
}

namespace {

// "2026-11-24T10:49:03": the format of every time this database writes.
bool is_utc_time(const std::string& t) {
    static constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd";
    if (t.size() != shape.size()) return false;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (shape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(t[i])) : t[i] != shape[i]) return false;
    return true;
}

}  // namespace

void Database::insert_run(std::int64_t submission, const Run& run, bool final) {
    SQLite::Statement dev(*db_, "INSERT OR IGNORE INTO devices(name, driver) VALUES (?, ?)");
    dev.bind(1, run.device);
    dev.bind(2, run.driver);
    dev.exec();
    SQLite::Statement insert(*db_, R"(INSERT INTO runs(submission_id, device_id, n, median_s, min_s, max_s, gflops,
        repeats, sizes, build_options, kernel_hash, ratio, ratio_low, ratio_high, yardstick, yardstick_median_s, board,
        final, finished_at)
        VALUES (?, (SELECT id FROM devices WHERE name = ? AND driver = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                ?, COALESCE(?, strftime('%Y-%m-%dT%H:%M:%S','now'))))");
    int i = 1;
    insert.bind(i++, submission);
    insert.bind(i++, run.device);
    insert.bind(i++, run.driver);
    insert.bind(i++, run.n);
    insert.bind(i++, run.median_s);
    insert.bind(i++, run.min_s);
    insert.bind(i++, run.max_s);
    insert.bind(i++, run.gflops);
    insert.bind(i++, run.repeats);
    insert.bind(i++, run.sizes);
    insert.bind(i++, run.build_options);
    insert.bind(i++, run.kernel_hash);
    insert.bind(i++, run.ratio);
    insert.bind(i++, run.ratio_low);
    insert.bind(i++, run.ratio_high);
    insert.bind(i++, run.yardstick);
    insert.bind(i++, run.yardstick_median_s);
    insert.bind(i++, run.board);
    insert.bind(i++, final ? 1 : 0);
    // Only a time in the database's own format is kept (a merged file is checked, not trusted).
    if (is_utc_time(run.finished_at))
        insert.bind(i++, run.finished_at);
    else
        insert.bind(i++);
    insert.exec();
}

void Database::record(std::int64_t submission, const Run& run) {
    SQLite::Transaction t(*db_);
    insert_run(submission, run);
    SQLite::Statement mark(*db_, "UPDATE submissions SET status = 'done', reason = '' WHERE id = ? AND status != 'withdrawn'");
    mark.bind(1, submission);
    mark.exec();
    t.commit();
}

void Database::reject(std::int64_t submission, const std::string& reason) {
    SQLite::Statement mark(*db_, "UPDATE submissions SET status = 'rejected', reason = ? WHERE id = ? AND status != 'withdrawn'");
    mark.bind(1, reason);
    mark.bind(2, submission);
    mark.exec();
}

void Database::requeue_running() { db_->exec("UPDATE submissions SET status = 'queued' WHERE status = 'running'"); }

std::optional<Submission> Database::submission(std::int64_t id) const {
    SQLite::Statement s(*db_, fmt::format("SELECT {} FROM submissions WHERE id = ?", submission_columns));
    s.bind(1, id);
    if (!s.executeStep()) return std::nullopt;
    return read_submission(s);
}

std::vector<Submission> Database::submissions() const {
    // Without the sources: lists never show them, and a class's kernels add up.
    SQLite::Statement s(*db_, "SELECT id, alias, file_name, '', submitted_at, status, reason FROM submissions "
                              "ORDER BY id DESC");
    std::vector<Submission> out;
    while (s.executeStep()) out.push_back(read_submission(s));
    return out;
}

std::vector<Database::OwnEntry> Database::entries_of(const std::string& owner) const {
    // The judge takes the oldest queued entry first: a queued entry's place is the count of those
    // queued up to it.
    SQLite::Statement s(*db_, R"(
        SELECT id, alias, file_name, '', submitted_at, status, reason,
               CASE WHEN status = 'queued'
                    THEN (SELECT COUNT(*) FROM submissions q WHERE q.status = 'queued' AND q.id <= submissions.id)
                    ELSE 0 END
        FROM submissions WHERE owner = ? ORDER BY id DESC)");
    s.bind(1, owner);
    std::vector<OwnEntry> out;
    while (s.executeStep()) out.push_back({read_submission(s), s.getColumn(7).getInt()});
    return out;
}

std::vector<DeviceBoard> Database::board(bool public_view) const { return ranked_boards(public_view, false); }

std::vector<DeviceBoard> Database::final_board() const { return ranked_boards(false, true); }

std::vector<DeviceBoard> Database::ranked_boards(bool public_view, bool final) const {
    // Each alias's latest kernel on each board (the kernel text it submitted last among those judged
    // there), ranked by ratio to the yardstick (then GFLOPS, for runs from before the yardstick);
    // ties go to the earlier one. The runs of one alias's identical kernel text (its fingerprint)
    // are pooled into one record, their median run: resubmitting a kernel until noise favours it
    // gains nothing. Latest, not best: keeping each alias's best record gave the best of N draws of
    // noise to an alias that submitted N variants of one kernel (a #define changed each time). To
    // go back to an earlier kernel, submit it again: its new run joins its old ones. The instructor's
    // rows (the baseline, the reference) keep their best kernel: yardsticks, not entries, and an
    // instructor may queue several (the CPU's and the GPU's tuned kernels). A zoo's runs are on
    // their device's board, other runs on one board per device and driver.
    // Window functions, not a subquery per run: one sort, so a board of thousands of runs is
    // answered in milliseconds (a correlated subquery took 4 s at 3,000 runs on one device).
    SQLite::Statement s(*db_, R"(
        WITH keyed AS (
            SELECT r.id, r.gflops, r.finished_at, r.submission_id, r.ratio, r.ratio_low, r.ratio_high, sub.alias,
                   CASE WHEN r.board != '' THEN r.board ELSE d.name || ' / ' || d.driver END AS board_key,
                   d.name || ' / ' || d.driver AS hardware,
                   CASE WHEN r.kernel_hash != '' THEN r.kernel_hash ELSE 'run ' || r.id END AS text_key
            FROM runs r JOIN devices d ON d.id = r.device_id JOIN submissions sub ON sub.id = r.submission_id
            WHERE sub.status != 'withdrawn' AND (? = 0 OR r.id <= ?) AND r.final = ?),
        numbered AS (
            SELECT k.*,
                   ROW_NUMBER() OVER pool_by_ratio AS i,
                   COUNT(*) OVER pool AS pooled, MIN(k.id) OVER pool AS first_id,
                   MIN(k.submission_id) OVER pool AS first_submission, MAX(k.submission_id) OVER pool AS last_submission,
                   MAX(k.finished_at) OVER pool AS newest
            FROM keyed k
            WINDOW pool AS (PARTITION BY k.board_key, k.alias, k.text_key),
                   pool_by_ratio AS (PARTITION BY k.board_key, k.alias, k.text_key ORDER BY k.ratio, k.gflops, k.id)),
        pooled AS (
            SELECT board_key, alias, MIN(hardware) AS hardware, AVG(gflops) AS gflops, MAX(newest) AS finished_at,
                   MIN(first_submission) AS submission_id, AVG(ratio) AS ratio, AVG(ratio_low) AS ratio_low,
                   AVG(ratio_high) AS ratio_high, MAX(pooled) AS pooled, MIN(first_id) AS id,
                   MAX(last_submission) AS latest
            FROM numbered WHERE i IN ((pooled + 1) / 2, (pooled + 2) / 2)  -- the median: one run or the middle two
            GROUP BY board_key, alias, text_key),
        ordered AS (
            SELECT p.*,
                   ROW_NUMBER() OVER (PARTITION BY p.board_key, p.alias ORDER BY
                       CASE WHEN p.alias IN (?4, ?5) THEN p.ratio ELSE p.latest END DESC, p.gflops DESC, p.id ASC) AS nth,
                   MIN(p.id) OVER (PARTITION BY p.board_key) AS board_first
            FROM pooled p)
        SELECT board_key, alias, gflops, finished_at, submission_id, ratio, ratio_low, ratio_high, hardware, pooled
        FROM ordered WHERE nth = 1
        ORDER BY board_first, ratio DESC, gflops DESC, id ASC)");
    // Frozen and not closed yet: the public sees the runs up to the freeze.
    const ContestWindow w = public_view ? window() : ContestWindow{};
    const bool frozen = !w.frozen.empty() && w.closed_by.empty();
    s.bind(1, frozen ? 1 : 0);
    s.bind(2, frozen ? w.frozen_after_run : 0);
    s.bind(3, final ? 1 : 0);
    s.bind(4, baseline_alias);
    s.bind(5, reference_alias);
    std::vector<DeviceBoard> boards;
    std::map<std::string, std::size_t> index;
    std::map<std::string, double> baseline_ratios;
    while (s.executeStep()) {
        const std::string device = s.getColumn(0).getString();
        if (!index.count(device)) {
            index[device] = boards.size();
            boards.push_back({device, s.getColumn(8).getString(), 0, {}});
        }
        auto& b = boards[index[device]];
        BoardRow row;
        row.alias = s.getColumn(1).getString();
        row.gflops = s.getColumn(2).getDouble();
        row.when = s.getColumn(3).getString();
        row.submission_id = s.getColumn(4).getInt64();
        row.ratio = s.getColumn(5).getDouble();
        row.ratio_low = s.getColumn(6).getDouble();
        row.ratio_high = s.getColumn(7).getDouble();
        row.runs = s.getColumn(9).getInt();
        if (row.alias == baseline_alias) {
            b.baseline_gflops = row.gflops;
            baseline_ratios[device] = row.ratio;
        }
        b.rows.push_back(std::move(row));
    }
    for (auto& b : boards) {
        std::vector<Ranked> ranked;
        for (const auto& r : b.rows) ranked.push_back({{r.ratio, r.ratio_low, r.ratio_high}});
        assign_ranks(ranked);
        const double base_ratio = baseline_ratios.count(b.device) ? baseline_ratios[b.device] : 0;
        for (std::size_t i = 0; i < b.rows.size(); ++i) {
            auto& r = b.rows[i];
            r.rank = ranked[i].rank;
            r.tied = ranked[i].tied;
            // Over the naive baseline: by the ratios where both have one (drift cancels), else GFLOPS.
            r.speedup = base_ratio > 0 && r.ratio > 0 ? r.ratio / base_ratio
                        : b.baseline_gflops > 0      ? r.gflops / b.baseline_gflops
                                                     : 0;
        }
    }
    return boards;
}

bool Database::has_student(const std::string& id) const {
    return count(*db_, "SELECT COUNT(*) FROM students WHERE id = ?", id) > 0;
}

void Database::in_one_transaction(const std::function<void()>& work) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    work();
    t.commit();
}

void Database::add_student(const Student& st, const std::string& token_hash) {
    if (!st.alias_key.empty())
        if (const auto holder = alias_holder(st.alias_key))
            throw Error(fmt::format("students \"{}\" and \"{}\" would have the same alias \"{}\"; give one of them "
                                    "another name in the roster",
                                    *holder, st.id, st.alias));
    SQLite::Statement s(*db_, "INSERT INTO students(id, name, token_hash, alias, alias_key) VALUES (?, ?, ?, ?, ?)");
    s.bind(1, st.id);
    s.bind(2, st.name);
    s.bind(3, token_hash);
    s.bind(4, st.alias);
    if (st.alias_key.empty()) s.bind(5);  // NULL: unbound students do not collide
    else s.bind(5, st.alias_key);
    s.exec();
}

void Database::set_token_hash(const std::string& id, const std::string& token_hash) {
    SQLite::Statement s(*db_, "UPDATE students SET token_hash = ? WHERE id = ?");
    s.bind(1, token_hash);
    s.bind(2, id);
    if (s.exec() == 0) throw Error(fmt::format("no student \"{}\" in the database", id));
}

void Database::set_active_students(const std::vector<std::string>& ids) {
    // Inside the caller's transaction when there is one (enrolment's), else in one of its own.
    std::optional<SQLite::Transaction> own;
    if (sqlite3_get_autocommit(db_->getHandle())) own.emplace(*db_);
    db_->exec("UPDATE students SET active = 0");
    SQLite::Statement s(*db_, "UPDATE students SET active = 1 WHERE id = ?");
    for (const auto& id : ids) {
        s.bind(1, id);
        s.exec();
        s.reset();
    }
    if (own) own->commit();
}

std::optional<Student> Database::student_by_token_hash(const std::string& token_hash) const {
    SQLite::Statement s(*db_, "SELECT id, name, alias, COALESCE(alias_key, '') FROM students "
                              "WHERE token_hash = ? AND active = 1");
    s.bind(1, token_hash);
    if (!s.executeStep()) return std::nullopt;
    return Student{s.getColumn(0).getString(), s.getColumn(1).getString(), s.getColumn(2).getString(),
                   s.getColumn(3).getString()};
}

std::optional<std::string> Database::alias_holder(const std::string& alias_key) const {
    SQLite::Statement s(*db_, "SELECT id FROM students WHERE alias_key = ?");
    s.bind(1, alias_key);
    if (!s.executeStep()) return std::nullopt;
    return s.getColumn(0).getString();
}

bool Database::bind_alias(const std::string& id, const std::string& alias, const std::string& alias_key) {
    // One statement: two students binding one alias at once cannot both win.
    SQLite::Statement s(*db_, "UPDATE students SET alias = ?, alias_key = ? WHERE id = ? AND alias_key IS NULL "
                              "AND NOT EXISTS (SELECT 1 FROM students WHERE alias_key = ?)");
    s.bind(1, alias);
    s.bind(2, alias_key);
    s.bind(3, id);
    s.bind(4, alias_key);
    return s.exec() == 1;
}

std::vector<Database::Judged> Database::judged() const {
    std::vector<Judged> out;
    SQLite::Statement s(*db_, fmt::format("SELECT {} FROM submissions WHERE status IN ('done', 'rejected') ORDER BY id",
                                          submission_columns));
    while (s.executeStep()) out.push_back({read_submission(s), {}});
    for (auto& j : out) {
        SQLite::Statement r(*db_, R"(SELECT d.name, d.driver, r.n, r.median_s, r.min_s, r.max_s, r.gflops, r.repeats,
            r.sizes, r.build_options, r.kernel_hash, r.ratio, r.ratio_low, r.ratio_high, r.yardstick,
            r.yardstick_median_s, r.board, r.finished_at FROM runs r JOIN devices d ON d.id = r.device_id
            WHERE r.submission_id = ? AND r.final = 0
            ORDER BY r.id)");
        r.bind(1, j.submission.id);
        while (r.executeStep()) {
            Run run;
            int c = 0;
            run.device = r.getColumn(c++).getString();
            run.driver = r.getColumn(c++).getString();
            run.n = r.getColumn(c++).getInt();
            run.median_s = r.getColumn(c++).getDouble();
            run.min_s = r.getColumn(c++).getDouble();
            run.max_s = r.getColumn(c++).getDouble();
            run.gflops = r.getColumn(c++).getDouble();
            run.repeats = r.getColumn(c++).getInt();
            run.sizes = r.getColumn(c++).getString();
            run.build_options = r.getColumn(c++).getString();
            run.kernel_hash = r.getColumn(c++).getString();
            run.ratio = r.getColumn(c++).getDouble();
            run.ratio_low = r.getColumn(c++).getDouble();
            run.ratio_high = r.getColumn(c++).getDouble();
            run.yardstick = r.getColumn(c++).getString();
            run.yardstick_median_s = r.getColumn(c++).getDouble();
            run.board = r.getColumn(c++).getString();
            run.finished_at = r.getColumn(c++).getString();
            j.runs.push_back(std::move(run));
        }
    }
    return out;
}

std::optional<Submission> Database::find_submission(const std::string& alias, const std::string& source) const {
    SQLite::Statement s(*db_, fmt::format("SELECT {} FROM submissions WHERE alias = ? AND source = ? ORDER BY id LIMIT 1",
                                          submission_columns));
    s.bind(1, alias);
    s.bind(2, source);
    if (!s.executeStep()) return std::nullopt;
    return read_submission(s);
}

bool Database::merge_judging(std::int64_t submission, const std::string& board, const Run* run,
                             const std::string& reason, const std::string& from) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    if (const auto j = judging(submission, board); j && final_state(j->state)) return false;
    SQLite::Statement add(*db_, "INSERT OR IGNORE INTO judgings(submission_id, device) VALUES (?, ?)");
    add.bind(1, submission);
    add.bind(2, board);
    add.exec();
    add_event(submission, board, "queued", "judged elsewhere: " + from);
    t.commit();
    return finish_judging(submission, board, run ? "done" : "rejected", reason, run);
}

}  // namespace workbook::contest
