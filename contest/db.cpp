// The contest database (see db.hpp).
#include "db.hpp"

#include "workbook/errors.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <map>

namespace workbook::contest {

Database::Database(const std::filesystem::path& file)
    : db_(std::make_unique<SQLite::Database>(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)) {
    db_->exec("PRAGMA journal_mode=WAL");
    db_->exec("PRAGMA busy_timeout=10000");  // the server and the judge write concurrently
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
}

Database::~Database() = default;

std::int64_t Database::queue(const std::string& alias, const std::string& file_name, const std::string& source,
                             int min_interval_s) {
    if (alias.empty() || alias.size() > 40)
        throw Error("the alias must be 1 to 40 characters long");
    for (unsigned char c : alias)
        if (c < 0x20 || c == 0x7f) throw Error("the alias may not contain control characters");
    SQLite::Transaction t(*db_);
    SQLite::Statement recent(*db_, "SELECT COUNT(*) FROM submissions WHERE alias = ? AND alias <> ? AND alias <> ? AND "
                                   "submitted_at > strftime('%Y-%m-%dT%H:%M:%S','now', ?)");
    recent.bind(1, alias);
    recent.bind(2, baseline_alias);
    recent.bind(3, reference_alias);
    recent.bind(4, fmt::format("-{} seconds", min_interval_s));
    recent.executeStep();
    if (recent.getColumn(0).getInt() > 0)
        throw Error(fmt::format("\"{}\" submitted less than {} s ago: one submission per alias per {} s", alias,
                                min_interval_s, min_interval_s));
    SQLite::Statement insert(*db_, "INSERT INTO submissions(alias, file_name, source) VALUES (?, ?, ?)");
    insert.bind(1, alias);
    insert.bind(2, file_name);
    insert.bind(3, source);
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

void Database::record(std::int64_t submission, const Run& run) {
    SQLite::Transaction t(*db_);
    SQLite::Statement dev(*db_, "INSERT OR IGNORE INTO devices(name, driver) VALUES (?, ?)");
    dev.bind(1, run.device);
    dev.bind(2, run.driver);
    dev.exec();
    SQLite::Statement insert(*db_, R"(INSERT INTO runs(submission_id, device_id, n, median_s, min_s, max_s, gflops,
        repeats, sizes, build_options, kernel_hash)
        VALUES (?, (SELECT id FROM devices WHERE name = ? AND driver = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?))");
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
    insert.exec();
    SQLite::Statement mark(*db_, "UPDATE submissions SET status = 'done', reason = '' WHERE id = ?");
    mark.bind(1, submission);
    mark.exec();
    t.commit();
}

void Database::reject(std::int64_t submission, const std::string& reason) {
    SQLite::Statement mark(*db_, "UPDATE submissions SET status = 'rejected', reason = ? WHERE id = ?");
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

std::vector<DeviceBoard> Database::board() const {
    // The best run of each alias on each device; ties go to the earlier run.
    SQLite::Statement s(*db_, R"(
        SELECT d.name || ' / ' || d.driver, sub.alias, r.gflops, r.finished_at, sub.id
        FROM runs r JOIN submissions sub ON sub.id = r.submission_id JOIN devices d ON d.id = r.device_id
        WHERE r.id = (SELECT r2.id FROM runs r2 JOIN submissions s2 ON s2.id = r2.submission_id
                      WHERE s2.alias = sub.alias AND r2.device_id = r.device_id
                      ORDER BY r2.gflops DESC, r2.id ASC LIMIT 1)
        ORDER BY d.id, r.gflops DESC, r.id ASC)");
    std::vector<DeviceBoard> boards;
    std::map<std::string, std::size_t> index;
    while (s.executeStep()) {
        const std::string device = s.getColumn(0).getString();
        if (!index.count(device)) {
            index[device] = boards.size();
            boards.push_back({device, 0, {}});
        }
        auto& b = boards[index[device]];
        const std::string alias = s.getColumn(1).getString();
        const double gflops = s.getColumn(2).getDouble();
        if (alias == baseline_alias) b.baseline_gflops = gflops;
        b.rows.push_back({0, alias, gflops, 0, s.getColumn(3).getString(), s.getColumn(4).getInt64()});
    }
    for (auto& b : boards) {
        int rank = 0;
        for (auto& r : b.rows) {
            r.rank = ++rank;
            r.speedup = b.baseline_gflops > 0 ? r.gflops / b.baseline_gflops : 0;
        }
    }
    return boards;
}

}  // namespace workbook::contest
