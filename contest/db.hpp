// The contest's SQLite database (WAL): submissions queued by `contest submit` or the upload
// endpoint, claimed one at a time by the judge, and the runs it records per device. Finished
// results are committed one transaction each, so a killed judge loses only the run in progress
// (its submission goes back to the queue when the judge starts again).
#pragma once

#include <cstdint>
#include <filesystem>
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
};

struct BoardRow {
    int rank = 0;
    std::string alias;
    double gflops = 0;
    double speedup = 0;        // over the instructor's naive baseline on that device (0: none)
    std::string when;          // of the run
    std::int64_t submission_id = 0;
};

struct DeviceBoard {
    std::string device;
    double baseline_gflops = 0;
    std::vector<BoardRow> rows;  // best valid run per alias, GFLOPS descending
};

// The alias of the instructor's naive kernel, run on each device as the baseline.
inline constexpr const char* baseline_alias = "(baseline: naive kernel)";
// The alias of the instructor's tuned kernel (contest/reference.hpp): what OpenCL can reach.
inline constexpr const char* reference_alias = "(reference: instructor's tuned kernel)";
// Aliases only the instructor's commands may use: no rate limit, refused from uploads.
inline bool reserved_alias(const std::string& alias) { return alias == baseline_alias || alias == reference_alias; }

class Database {
public:
    explicit Database(const std::filesystem::path& file);
    ~Database();

    // Queues a submission. Throws workbook::Error when the alias submitted less than
    // `min_interval_s` ago (the rate limit) or the alias is not 1-40 printable characters.
    std::int64_t queue(const std::string& alias, const std::string& file_name, const std::string& source,
                       int min_interval_s = 60);
    // The oldest queued submission, now marked running; nothing when the queue is empty.
    std::optional<Submission> claim();
    void record(std::int64_t submission, const Run& run);           // status done
    void reject(std::int64_t submission, const std::string& reason);  // status rejected
    void requeue_running();  // at judge start: runs cut short by a kill go back to the queue
    std::optional<Submission> submission(std::int64_t id) const;
    std::vector<Submission> submissions() const;  // newest first, `source` left empty
    std::vector<DeviceBoard> board() const;

private:
    std::unique_ptr<SQLite::Database> db_;
};

}  // namespace workbook::contest
