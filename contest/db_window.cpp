// The contest's window, freeze and withdrawals in the database (see db.hpp and window.hpp).
#include "contest/db.hpp"
#include "contest/window.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

namespace workbook::contest {

void Database::create_window_schema() {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    db_->exec("CREATE TABLE IF NOT EXISTS contest_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    // The final's runs (`contest final`): on the final board only, never on the running one.
    bool has_final = false;
    SQLite::Statement columns(*db_, "PRAGMA table_info(runs)");
    while (columns.executeStep()) has_final |= columns.getColumn(1).getString() == "final";
    if (!has_final) db_->exec("ALTER TABLE runs ADD COLUMN final INTEGER NOT NULL DEFAULT 0");
    t.commit();
}

void Database::record_final(std::int64_t submission, const Run& run) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    insert_run(submission, run, true);
    add_event(submission, run.board, "final", fmt::format("judged again for the final: {:.2f} GFLOPS", run.gflops));
    t.commit();
}

void Database::reject_final(std::int64_t submission, const std::string& board, const std::string& reason) {
    add_event(submission, board, "final rejected", reason);
}

std::string Database::setting(const std::string& key) const {
    SQLite::Statement s(*db_, "SELECT value FROM contest_settings WHERE key = ?");
    s.bind(1, key);
    return s.executeStep() ? s.getColumn(0).getString() : std::string();
}

void Database::set_setting(const std::string& key, const std::string& value) {
    SQLite::Statement s(*db_, "INSERT INTO contest_settings(key, value) VALUES (?, ?) "
                              "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    s.bind(1, key);
    s.bind(2, value);
    s.exec();
}

std::string Database::now() const {
    return db_->execAndGet("SELECT strftime('%Y-%m-%dT%H:%M:%S','now')").getString();
}

ContestWindow Database::window() const {
    ContestWindow w;
    w.opens = setting("opens");
    w.closes = setting("closes");
    w.frozen = setting("frozen");
    const std::string after = setting("frozen_after_run");
    w.frozen_after_run = after.empty() ? 0 : std::stoll(after);
    if (!w.closes.empty() && now() >= w.closes) w.closed_by = setting("closed_by").empty() ? "time" : setting("closed_by");
    return w;
}

void Database::check_window() const {
    const ContestWindow w = window();
    const std::string t = now();
    if (!w.opens.empty() && t < w.opens)
        throw ContestClosed(fmt::format("the contest opens at {} UTC ({}); entries are taken from then", w.opens,
                                        in_words(seconds_between(t, w.opens))));
    if (!w.closed_by.empty())
        throw ContestClosed(fmt::format("the contest closed at {} UTC; no more entries are taken", w.closes));
}

void Database::set_window(const std::string& opens, const std::string& closes) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::string o = opens.empty() ? setting("opens") : opens, c = closes.empty() ? setting("closes") : closes;
    if (!o.empty() && !c.empty() && c <= o)
        throw Error(fmt::format("the contest would close ({} UTC) before it opens ({} UTC)", c, o));
    if (!opens.empty()) set_setting("opens", opens);
    if (!closes.empty()) {
        set_setting("closes", closes);
        set_setting("closed_by", "");
    }
    t.commit();
}

std::string Database::open_now() {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::string at = now(), opens = setting("opens");
    if (opens.empty() || opens > at) set_setting("opens", at);
    // Opening by hand a contest that had closed takes entries again until a new close.
    if (const std::string closes = setting("closes"); !closes.empty() && closes <= at) {
        set_setting("closes", "");
        set_setting("closed_by", "");
    }
    t.commit();
    return setting("opens");
}

std::string Database::close_now() {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::string at = now(), closes = setting("closes");
    if (closes.empty() || closes > at) {
        set_setting("closes", at);
        set_setting("closed_by", "hand");
    }
    t.commit();
    return setting("closes");
}

std::string Database::freeze_now() {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    if (setting("frozen").empty()) {
        set_setting("frozen", now());
        set_setting("frozen_after_run", db_->execAndGet("SELECT COALESCE(MAX(id), 0) FROM runs").getString());
    }
    t.commit();
    return setting("frozen");
}

void Database::withdraw(std::int64_t submission, const std::string& reason) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement mark(*db_, "UPDATE submissions SET status = 'withdrawn', reason = ? WHERE id = ?");
    mark.bind(1, reason);
    mark.bind(2, submission);
    if (mark.exec() == 0) throw Error(fmt::format("there is no submission {} (`workbook contest status` lists them)", submission));
    add_event(submission, "", "withdrawn", reason);
    t.commit();
}

std::vector<Database::RunRow> Database::runs() const {
    SQLite::Statement s(*db_, R"(
        SELECT r.id, r.submission_id, sub.alias,
               CASE WHEN r.board != '' THEN r.board ELSE d.name || ' / ' || d.driver END,
               d.name, d.driver, r.n, r.median_s, r.min_s, r.max_s, r.gflops, r.repeats, r.sizes, r.build_options,
               r.kernel_hash, r.ratio, r.ratio_low, r.ratio_high, r.yardstick, r.yardstick_median_s, r.finished_at,
               r.final
        FROM runs r JOIN devices d ON d.id = r.device_id JOIN submissions sub ON sub.id = r.submission_id
        ORDER BY r.id)");
    std::vector<RunRow> rows;
    while (s.executeStep()) {
        RunRow row;
        int i = 0;
        row.id = s.getColumn(i++).getInt64();
        row.submission_id = s.getColumn(i++).getInt64();
        row.alias = s.getColumn(i++).getString();
        row.board = s.getColumn(i++).getString();
        Run& r = row.run;
        r.device = s.getColumn(i++).getString();
        r.driver = s.getColumn(i++).getString();
        r.n = s.getColumn(i++).getInt();
        r.median_s = s.getColumn(i++).getDouble();
        r.min_s = s.getColumn(i++).getDouble();
        r.max_s = s.getColumn(i++).getDouble();
        r.gflops = s.getColumn(i++).getDouble();
        r.repeats = s.getColumn(i++).getInt();
        r.sizes = s.getColumn(i++).getString();
        r.build_options = s.getColumn(i++).getString();
        r.kernel_hash = s.getColumn(i++).getString();
        r.ratio = s.getColumn(i++).getDouble();
        r.ratio_low = s.getColumn(i++).getDouble();
        r.ratio_high = s.getColumn(i++).getDouble();
        r.yardstick = s.getColumn(i++).getString();
        r.yardstick_median_s = s.getColumn(i++).getDouble();
        r.finished_at = s.getColumn(i++).getString();
        row.final = s.getColumn(i++).getInt() != 0;
        r.board = row.board;
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace workbook::contest
