// The contest's domain: a submission, a judged run, a board and its rows, a judging on one device
// of a zoo, and the instructor's reserved aliases. The database (db.hpp) stores them, the ranking
// (ranking.hpp) orders them, the judge (judge.hpp) makes them; none of those needs another here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
    std::string when;          // of the run (of a pool: its newest)
    std::int64_t submission_id = 0;  // of a pool: its first submission
    int runs = 1;              // runs pooled into this record (one alias's identical kernel text, judged again)
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

}  // namespace workbook::contest
