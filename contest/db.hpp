// The contest's SQLite database (WAL): submissions queued by `contest submit` or the upload
// endpoint, claimed one at a time by the judge, and the runs it records per device. Finished
// results are committed one transaction each, so a killed judge loses only the run in progress
// (its submission goes back to the queue when the judge starts again).
#pragma once

#include "contest/lab.hpp"
#include "contest/types.hpp"

#include "workbook/errors.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace SQLite {
class Database;
}

namespace workbook::contest {

// An upload refused by a limit (HTTP 429), told apart from a bad request.
class RateLimited : public Error {
public:
    using Error::Error;
};

// An upload refused because the contest is not open (HTTP 403): before it opens or after it closed.
class ContestClosed : public Error {
public:
    using Error::Error;
};

// When the contest takes entries and what the public board shows (contest/window.hpp). Times are
// UTC, "2026-11-27T09:00:00"; "" where none was set.
struct ContestWindow {
    std::string opens, closes;  // uploads from `opens` (inclusive) until `closes` (exclusive)
    std::string frozen;         // when the public board stopped changing ("" if never)
    std::int64_t frozen_after_run = 0;  // the last run it shows while frozen
    std::string closed_by;      // "time" (its --closes came) or "hand" (`contest close`), once closed
};

// A student of the roster: one upload token (only its hash is stored), one alias.
struct Student {
    std::string id, name;
    std::string alias, alias_key;  // empty until bound: the roster's name, or the first alias used
};

// A remote check (server/remote_check.hpp): one student's files for one exercise.
struct RemoteCheck {
    std::int64_t id = 0;
    std::string student, exercise;
    std::string device;  // the zoo device it runs on; "": the server's own
    std::vector<std::pair<std::string, std::string>> files;  // name, content (until it has run)
    std::string state;   // queued, running, done, failed
    std::string result;  // JSON text once done
    std::string submitted_at, started_at, finished_at;
    std::string job_id;      // a Slurm device's job
    int queue_position = 0;  // while queued: 1 is next on its device (in claim_check's order)
};

class Database {
public:
    explicit Database(const std::filesystem::path& file);
    const std::filesystem::path& file() const { return file_; }
    ~Database();

    // Queues a submission. Throws RateLimited when the alias submitted less than
    // `min_interval_s` ago, workbook::Error when the alias is not 1-40 printable characters.
    std::int64_t queue(const std::string& alias, const std::string& file_name, const std::string& source,
                       int min_interval_s = 60);
    // Queues for an owner: RateLimited when it uploaded less than `min_interval_s` ago or already
    // has `max_queued` entries waiting (reserved aliases have no limits).
    std::int64_t queue(const QueueRequest& request);
    // The oldest queued submission, now marked running; nothing when the queue is empty.
    std::optional<Submission> claim();
    void record(std::int64_t submission, const Run& run);           // status done
    void reject(std::int64_t submission, const std::string& reason);  // status rejected
    void requeue_running();  // at judge start: runs cut short by a kill go back to the queue
    std::optional<Submission> submission(std::int64_t id) const;
    std::vector<Submission> submissions() const;  // newest first, `source` left empty
    // One uploader's entries ("student:ID" or "alias:KEY"), newest first, `source` left empty,
    // each queued one with its place in the judge's queue (1: next).
    struct OwnEntry {
        Submission submission;
        int queue_position = 0;
    };
    std::vector<OwnEntry> entries_of(const std::string& owner) const;
    // Every board, best first. `public_view`: as the page shows it (while the contest is frozen and
    // not yet closed, only runs recorded up to the freeze); withdrawn entries are never on it.
    std::vector<DeviceBoard> board(bool public_view = false) const;
    // The final (`contest final`): its runs only, each alias's best, ranked as the board is. Empty
    // before a final has run.
    std::vector<DeviceBoard> final_board() const;
    // A run of the final: on the final board only (the running board keeps its runs as they were).
    void record_final(std::int64_t submission, const Run& run);
    // An entry the final judged again and rejected (fresh inputs found it wrong): in its history.
    void reject_final(std::int64_t submission, const std::string& board, const std::string& reason);

    // The contest's window (contest/window.hpp). Entries are refused outside it (ContestClosed),
    // except the instructor's reserved aliases.
    ContestWindow window() const;
    // Sets either end ("" leaves it as it is); Error when it would close before it opens.
    void set_window(const std::string& opens, const std::string& closes);
    // By hand: opens now (if not open yet) / closes now (if not closed yet). Return the time set.
    std::string open_now();
    std::string close_now();
    // The public board stops at the runs recorded so far (until the contest closes). The freeze time.
    std::string freeze_now();
    // Hides an entry from every board and keeps it, with the reason, in its history. Error when
    // there is no such submission.
    void withdraw(std::int64_t submission, const std::string& reason);
    // Every run, oldest first, with its submission's alias and board (for `contest export`).
    struct RunRow {
        std::int64_t id = 0, submission_id = 0;
        std::string alias, board;
        Run run;
        bool final = false;  // a run of `contest final`
    };
    std::vector<RunRow> runs() const;
    // This database's clock, in its time format.
    std::string now() const;

    // The zoo. Each queued submission gets a judging per device and the status "judging" until
    // every one has ended; then "done" when any device ranked it, else "rejected" or "failed".
    int fan_out(const std::vector<std::string>& devices);  // returns the submissions fanned out
    std::optional<Submission> claim_judging(const std::string& device);  // oldest queued one, now running
    bool has_queued_judging(const std::string& device) const;
    std::vector<Judging> judgings(const std::string& state = "") const;  // every one, or those in a state
    std::vector<Judging> judgings_of(std::int64_t submission) const;
    std::optional<Judging> judging(std::int64_t submission, const std::string& device) const;
    // Moves a judging to `state` (not a final one: finish_judging) when it is in one of `from`;
    // false when it was not. `job_id` replaces the stored one when given.
    bool move_judging(std::int64_t submission, const std::string& device, const std::vector<std::string>& from,
                      const std::string& state, const std::string& detail, const std::string& job_id = "");
    // A Slurm job's token: only its hash is kept, valid until the job's result arrives.
    void set_job_token(std::int64_t submission, const std::string& device, const std::string& token_hash);
    std::optional<Judging> judging_by_token(const std::string& token_hash) const;
    // Ends a judging that is not final yet: "done" records `run` on the device's board, "rejected"
    // and "failed" keep `reason`. The token stops working. False when it had ended already.
    bool finish_judging(std::int64_t submission, const std::string& device, const std::string& state,
                        const std::string& reason, const Run* run = nullptr);
    // Failed judgings back to the queue (of one submission or all: 0; of one device or all: "").
    std::vector<Judging> retry(std::int64_t submission, const std::string& device);
    std::vector<JudgingEvent> history(std::int64_t submission) const;
    // Every judged submission (done with its runs, or rejected), to merge into another contest:
    // `contest merge` brings a board judged elsewhere (a machine the server cannot reach) in.
    struct Judged {
        Submission submission;  // source included
        std::vector<Run> runs;  // none when rejected
    };
    std::vector<Judged> judged() const;
    // This contest's submission with this alias and exactly this source, if any.
    std::optional<Submission> find_submission(const std::string& alias, const std::string& source) const;
    // Records a judging done elsewhere as this submission's judging on `board`: done with `run`
    // (nullptr: rejected with `reason`). False when the submission has a final judging there already.
    bool merge_judging(std::int64_t submission, const std::string& board, const Run* run, const std::string& reason,
                       const std::string& from);
    // At server start: judgings of these (local) devices that a stop cut short go back to the queue.
    void requeue_running_judgings(const std::vector<std::string>& devices);

    // The roster (server/roster.hpp): students, their token hashes and bound aliases.
    bool has_student(const std::string& id) const;
    // Runs `work` in one transaction: all it writes, or (when it throws) nothing.
    void in_one_transaction(const std::function<void()>& work);
    void add_student(const Student& student, const std::string& token_hash);  // Error if the alias is taken
    void set_token_hash(const std::string& id, const std::string& token_hash);
    void set_active_students(const std::vector<std::string>& ids);  // everyone else's token stops working
    std::optional<Student> student_by_token_hash(const std::string& token_hash) const;  // active ones only
    std::optional<std::string> alias_holder(const std::string& alias_key) const;  // the student id
    // Binds the alias to the student unless they have one or another student holds it (false then).
    bool bind_alias(const std::string& id, const std::string& alias, const std::string& alias_key);
    std::vector<Student> students() const;  // the active ones, by id

    // The lab dashboard (contest/lab.hpp): a joined student's check folded into their row for the
    // exercise, and every row.
    void record_lab_check(const std::string& student, const LabCheck& check);
    std::vector<LabCell> lab_cells() const;

    // Remote checks: RateLimited when the student checked less than `min_interval_s` ago or has
    // `max_queued` waiting.
    std::int64_t queue_check(const std::string& student, const std::string& exercise, const std::string& device,
                             const std::vector<std::pair<std::string, std::string>>& files, int min_interval_s,
                             int max_queued);
    // The next queued one on one of `devices`, with its files, now running: the oldest of the
    // student who used the device for the fewest seconds in the last 15 minutes (so a student's
    // long checks delay chiefly their own). Each device has a queue of its own.
    std::optional<RemoteCheck> claim_check(const std::vector<std::string>& devices = {""});
    // Up to `most` of them at once, in that order, of one exercise ("": any), one per student and
    // none of `not_student`'s.
    std::vector<RemoteCheck> claim_checks(const std::vector<std::string>& devices, const std::string& exercise, int most,
                                          const std::string& not_student = "");
    // Whether a check waits on one of `devices`; whether an entry waits for the judge.
    bool has_queued_check(const std::vector<std::string>& devices) const;
    bool has_queued() const;
    // A Slurm device's check: its job and the hash of the job's token, valid until its result.
    void set_check_job(std::int64_t id, const std::string& job_id, const std::string& token_hash);
    std::optional<RemoteCheck> check_by_token(const std::string& token_hash) const;  // a running one, with files
    // Done (or failed) with its result; its files are deleted.
    void finish_check(std::int64_t id, const std::string& state, const std::string& result);
    std::optional<RemoteCheck> remote_check(std::int64_t id) const;  // without its files
    // Every one ("") or those in a state, newest first, without files.
    std::vector<RemoteCheck> remote_checks(const std::string& state = "") const;
    void requeue_running_checks();  // at server start

private:
    void create_schema();  // every table, idempotent: retried while another process holds the lock
    void create_identity_schema();
    void create_ranking_schema();
    void create_zoo_schema();
    void create_window_schema();
    void create_lab_schema();
    void create_check_schema();
    std::string setting(const std::string& key) const;
    void set_setting(const std::string& key, const std::string& value);
    void check_window() const;  // ContestClosed outside it
    void insert_run(std::int64_t submission, const Run& run, bool final = false);
    std::vector<DeviceBoard> ranked_boards(bool public_view, bool final) const;
    void add_event(std::int64_t submission, const std::string& device, const std::string& state,
                   const std::string& detail);
    void settle(std::int64_t submission);
    std::filesystem::path file_;
    std::unique_ptr<SQLite::Database> db_;
};

}  // namespace workbook::contest
