// The contest database's zoo: a judging per (submission, device), its states and their history,
// the Slurm jobs' tokens, retries (see db.hpp).
#include "db.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <string>
#include <vector>

namespace workbook::contest {

namespace {

constexpr const char* judging_columns = "submission_id, device, state, reason, job_id, updated_at, attempts";

Judging read_judging(SQLite::Statement& s) {
    return {s.getColumn(0).getInt64(), s.getColumn(1).getString(), s.getColumn(2).getString(),
            s.getColumn(3).getString(), s.getColumn(4).getString(), s.getColumn(5).getString(),
            s.getColumn(6).getInt()};
}

std::vector<Judging> read_judgings(SQLite::Statement& s) {
    std::vector<Judging> out;
    while (s.executeStep()) out.push_back(read_judging(s));
    return out;
}

}  // namespace

void Database::add_event(std::int64_t submission, const std::string& device, const std::string& state,
                         const std::string& detail) {
    SQLite::Statement e(*db_, "INSERT INTO judging_events(submission_id, device, state, detail) VALUES (?, ?, ?, ?)");
    e.bind(1, submission);
    e.bind(2, device);
    e.bind(3, state);
    e.bind(4, detail);
    e.exec();
}

int Database::fan_out(const std::vector<std::string>& devices) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement s(*db_, "SELECT id FROM submissions WHERE status = 'queued' ORDER BY id");
    std::vector<std::int64_t> ids;
    while (s.executeStep()) ids.push_back(s.getColumn(0).getInt64());
    for (const auto id : ids) {
        for (const auto& device : devices) {
            SQLite::Statement j(*db_, "INSERT OR IGNORE INTO judgings(submission_id, device) VALUES (?, ?)");
            j.bind(1, id);
            j.bind(2, device);
            if (j.exec() > 0) add_event(id, device, "queued", "");
        }
        SQLite::Statement mark(*db_, "UPDATE submissions SET status = 'judging', reason = '' WHERE id = ?");
        mark.bind(1, id);
        mark.exec();
    }
    t.commit();
    return static_cast<int>(ids.size());
}

bool Database::has_queued_judging(const std::string& device) const {
    SQLite::Statement s(*db_, "SELECT 1 FROM judgings WHERE device = ? AND state = 'queued' LIMIT 1");
    s.bind(1, device);
    return s.executeStep();
}

std::optional<Submission> Database::claim_judging(const std::string& device) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement s(*db_, "SELECT j.submission_id FROM judgings j WHERE j.device = ? AND j.state = 'queued' "
                              "ORDER BY j.submission_id LIMIT 1");
    s.bind(1, device);
    if (!s.executeStep()) return std::nullopt;
    const auto id = s.getColumn(0).getInt64();
    SQLite::Statement mark(*db_, "UPDATE judgings SET state = 'running', reason = '', "
                                 "updated_at = strftime('%Y-%m-%dT%H:%M:%S','now') WHERE submission_id = ? AND device = ?");
    mark.bind(1, id);
    mark.bind(2, device);
    mark.exec();
    add_event(id, device, "running", "here");
    t.commit();
    return submission(id);
}

std::vector<Judging> Database::judgings(const std::string& state) const {
    SQLite::Statement s(*db_, fmt::format("SELECT {} FROM judgings WHERE ? = '' OR state = ? ORDER BY submission_id, "
                                          "rowid",
                                          judging_columns));
    s.bind(1, state);
    s.bind(2, state);
    return read_judgings(s);
}

std::vector<Judging> Database::judgings_of(std::int64_t submission) const {
    SQLite::Statement s(*db_, fmt::format("SELECT {} FROM judgings WHERE submission_id = ? ORDER BY rowid",
                                          judging_columns));
    s.bind(1, submission);
    return read_judgings(s);
}

std::optional<Judging> Database::judging(std::int64_t submission, const std::string& device) const {
    SQLite::Statement s(*db_, fmt::format("SELECT {} FROM judgings WHERE submission_id = ? AND device = ?",
                                          judging_columns));
    s.bind(1, submission);
    s.bind(2, device);
    if (!s.executeStep()) return std::nullopt;
    return read_judging(s);
}

bool Database::move_judging(std::int64_t submission, const std::string& device, const std::vector<std::string>& from,
                            const std::string& state, const std::string& detail, const std::string& job_id) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const auto now = judging(submission, device);
    if (!now || std::find(from.begin(), from.end(), now->state) == from.end()) return false;
    SQLite::Statement mark(*db_, "UPDATE judgings SET state = ?, job_id = CASE WHEN ? != '' THEN ? ELSE job_id END, "
                                 "updated_at = strftime('%Y-%m-%dT%H:%M:%S','now') WHERE submission_id = ? AND device = ?");
    mark.bind(1, state);
    mark.bind(2, job_id);
    mark.bind(3, job_id);
    mark.bind(4, submission);
    mark.bind(5, device);
    mark.exec();
    add_event(submission, device, state, detail);
    t.commit();
    return true;
}

void Database::set_job_token(std::int64_t submission, const std::string& device, const std::string& token_hash) {
    SQLite::Statement s(*db_, "UPDATE judgings SET token_hash = ? WHERE submission_id = ? AND device = ?");
    s.bind(1, token_hash);
    s.bind(2, submission);
    s.bind(3, device);
    s.exec();
}

std::optional<Judging> Database::judging_by_token(const std::string& token_hash) const {
    if (token_hash.empty()) return std::nullopt;
    SQLite::Statement s(*db_, fmt::format("SELECT {} FROM judgings WHERE token_hash = ?", judging_columns));
    s.bind(1, token_hash);
    if (!s.executeStep()) return std::nullopt;
    return read_judging(s);
}

bool Database::finish_judging(std::int64_t submission, const std::string& device, const std::string& state,
                              const std::string& reason, const Run* run) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const auto now = judging(submission, device);
    if (!now || final_state(now->state)) return false;
    if (state == "done") {
        if (!run) throw Error("finish_judging: a done judging needs its run");
        Run on_board = *run;
        on_board.board = device;
        insert_run(submission, on_board);
    }
    SQLite::Statement mark(*db_, "UPDATE judgings SET state = ?, reason = ?, token_hash = '', "
                                 "updated_at = strftime('%Y-%m-%dT%H:%M:%S','now') WHERE submission_id = ? AND device = ?");
    mark.bind(1, state);
    mark.bind(2, reason);
    mark.bind(3, submission);
    mark.bind(4, device);
    mark.exec();
    add_event(submission, device, state, reason);
    settle(submission);
    t.commit();
    return true;
}

// The submission's own status once every judging has ended: done where any device ranked it
// (its reason names the devices that did not), else rejected, else failed.
void Database::settle(std::int64_t submission) {
    const auto all = judgings_of(submission);
    std::string status = "judging", reason;
    if (!all.empty() && std::all_of(all.begin(), all.end(), [](const Judging& j) { return final_state(j.state); })) {
        const bool any_done = std::any_of(all.begin(), all.end(), [](const Judging& j) { return j.state == "done"; });
        const bool any_rejected =
            std::any_of(all.begin(), all.end(), [](const Judging& j) { return j.state == "rejected"; });
        status = any_done ? "done" : any_rejected ? "rejected" : "failed";
        for (const auto& j : all)
            if (j.state != "done")
                reason += fmt::format("{}{} on {}: {}", reason.empty() ? "" : "; ", j.state, j.device, j.reason);
    }
    SQLite::Statement mark(*db_, "UPDATE submissions SET status = ?, reason = ? WHERE id = ? AND status != 'withdrawn'");
    mark.bind(1, status);
    mark.bind(2, reason);
    mark.bind(3, submission);
    mark.exec();
}

std::vector<Judging> Database::retry(std::int64_t submission, const std::string& device) {
    SQLite::Transaction t(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement s(*db_, fmt::format("SELECT {} FROM judgings WHERE state = 'failed' AND (? = 0 OR submission_id = "
                                          "?) AND (? = '' OR device = ?) ORDER BY submission_id, rowid",
                                          judging_columns));
    s.bind(1, submission);
    s.bind(2, submission);
    s.bind(3, device);
    s.bind(4, device);
    auto failed = read_judgings(s);
    for (const auto& j : failed) {
        SQLite::Statement mark(*db_, "UPDATE judgings SET state = 'queued', reason = '', job_id = '', token_hash = '', "
                                     "attempts = attempts + 1, updated_at = strftime('%Y-%m-%dT%H:%M:%S','now') "
                                     "WHERE submission_id = ? AND device = ?");
        mark.bind(1, j.submission_id);
        mark.bind(2, j.device);
        mark.exec();
        add_event(j.submission_id, j.device, "queued", "retried by the instructor");
        settle(j.submission_id);
    }
    t.commit();
    return failed;
}

std::vector<JudgingEvent> Database::history(std::int64_t submission) const {
    SQLite::Statement s(*db_, "SELECT submission_id, device, state, detail, at FROM judging_events "
                              "WHERE submission_id = ? ORDER BY id");
    s.bind(1, submission);
    std::vector<JudgingEvent> out;
    while (s.executeStep())
        out.push_back({s.getColumn(0).getInt64(), s.getColumn(1).getString(), s.getColumn(2).getString(),
                       s.getColumn(3).getString(), s.getColumn(4).getString()});
    return out;
}

void Database::requeue_running_judgings(const std::vector<std::string>& devices) {
    for (const auto& device : devices)
        for (const auto& j : judgings("running"))
            if (j.device == device)
                move_judging(j.submission_id, device, {"running"}, "queued", "the server stopped during the judging");
}

}  // namespace workbook::contest
