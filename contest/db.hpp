// The contest's SQLite database (WAL): submissions queued by `contest submit` or the upload
// endpoint, claimed one at a time by the judge, and the runs it records per device. Finished
// results are committed one transaction each, so a killed judge loses only the run in progress
// (its submission goes back to the queue when the judge starts again).
#pragma once

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

struct Submission {
    std::int64_t id = 0;
    std::string alias, file_name, source, submitted_at, status, reason;
};

struct Run {
    std::string device, driver;
    int n = 0;                 // the ranking size
    double median_s = 0, min_s = 0, max_s = 0, gflops = 0;
    int repeats = 0;
    std::string sizes;         // every size checked, secret ones included
    std::string build_options, kernel_hash;
    // Speed relative to the yardstick timed alternately with it (contest/ranking.hpp): the median
    // ratio and its spread, the yardstick's parameters and median time.
    double ratio = 0, ratio_low = 0, ratio_high = 0;
    std::string yardstick;
    double yardstick_median_s = 0;
    std::string board;         // the zoo device it was judged for (contest/zoo.hpp); "": named by device / driver
    std::string finished_at;   // UTC, as the database writes it; "" when recorded: now (a merged run keeps its own)
};

struct BoardRow {
    int rank = 0;              // entries tied within noise share one (contest/ranking.hpp)
    bool tied = false;
    std::string alias;
    double gflops = 0;         // as measured in its run
    double ratio = 0, ratio_low = 0, ratio_high = 0;  // relative to the yardstick: what ranks
    double speedup = 0;        // over the instructor's naive baseline on that device (0: none)
    std::string when;          // of the run
    std::int64_t submission_id = 0;
};

struct DeviceBoard {
    std::string device;        // the zoo device's name, or "device / driver" outside a zoo
    std::string hardware;      // "device / driver" of a run on it (a zoo board's subtitle)
    double baseline_gflops = 0;
    std::vector<BoardRow> rows;  // best valid run per alias, by ratio to the yardstick
};

// One submission's judging on one device of a zoo (contest/zoo.hpp). States: queued, submitted
// (to Slurm, with its job id), running, then done, rejected (by the checks) or failed (the judging
// itself: a job that failed, was cancelled or never reported; the instructor can retry it).
struct Judging {
    std::int64_t submission_id = 0;
    std::string device, state, reason, job_id, updated_at;
    int attempts = 0;  // judgings started before this one (retries)
};

// A state a judging entered, when, and what moved it there (the job id, the reason).
struct JudgingEvent {
    std::int64_t submission_id = 0;
    std::string device, state, detail, at;
};

inline bool final_state(const std::string& state) { return state == "done" || state == "rejected" || state == "failed"; }

// The alias of the instructor's naive kernel, run on each device as the baseline.
inline constexpr const char* baseline_alias = "(baseline: naive kernel)";
// The alias of the instructor's tuned kernel (contest/reference.hpp): what OpenCL can reach.
inline constexpr const char* reference_alias = "(reference: instructor's tuned kernel)";
// Aliases only the instructor's commands may use: no rate limit, refused from uploads.
inline bool reserved_alias(const std::string& alias) { return alias == baseline_alias || alias == reference_alias; }

// One submission to queue, with the identity its limits count against.
struct QueueRequest {
    std::string owner;      // "student:<id>" with a roster, "alias:<alias key>" otherwise
    std::string alias;      // as shown (contest/alias.hpp); an earlier spelling of the same key wins
    std::string alias_key;  // the identity of the alias: case-folded NFKC
    std::string file_name, source;
    int min_interval_s = 60;  // between two uploads of one owner
    int max_queued = 0;       // entries an owner may have waiting at once (0: no cap)
};

// An upload refused by a limit (HTTP 429), told apart from a bad request.
class RateLimited : public Error {
public:
    using Error::Error;
};

// A student of the roster: one upload token (only its hash is stored), one alias.
struct Student {
    std::string id, name;
    std::string alias, alias_key;  // empty until bound: the roster's name, or the first alias used
};

class Database {
public:
    explicit Database(const std::filesystem::path& file);
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
    std::vector<DeviceBoard> board() const;

    // The zoo. Each queued submission gets a judging per device and the status "judging" until
    // every one has ended; then "done" when any device ranked it, else "rejected" or "failed".
    int fan_out(const std::vector<std::string>& devices);  // returns the submissions fanned out
    std::optional<Submission> claim_judging(const std::string& device);  // oldest queued one, now running
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

    // The roster (contest/roster.hpp): students, their token hashes and bound aliases.
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

private:
    void create_schema();  // every table, idempotent: retried while another process holds the lock
    void create_identity_schema();
    void create_ranking_schema();
    void create_zoo_schema();
    void insert_run(std::int64_t submission, const Run& run);
    void add_event(std::int64_t submission, const std::string& device, const std::string& state,
                   const std::string& detail);
    void settle(std::int64_t submission);
    std::unique_ptr<SQLite::Database> db_;
};

}  // namespace workbook::contest
