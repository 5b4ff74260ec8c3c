// The contest judge: verifies and times one submitted mmul kernel on the device.
//
// A submission is a .cl file holding `__kernel void mmul(const int N, __global const float* A,
// __global const float* B, __global float* C, ...)` (the ladder's signature; any further
// arguments are __local float buffers) and its launch, declared in comment lines
// (declaration.hpp).
#pragma once

#include "contest/db.hpp"
#include "contest/declaration.hpp"

#include "workbook/matmul.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace workbook::contest {

struct JudgeOptions {
    int ranking_n = default_ranking_n;     // GFLOPS are measured at this size
    std::vector<int> public_sizes = {1, 17, 100, 257};
    int secret_sizes = 2;                  // drawn per run from [33, 400]
    // Timed launches: `repeats` in all, round-robin over `sittings` runner processes of the entry,
    // each of which first runs `warmups` untimed (see run_one.cpp).
    int sittings = 3, warmups = 1, repeats = 9;
    std::chrono::seconds time_limit{120};  // for the whole check of one submission
    // After a valid run, the race pass under Oclgrind (see race_check.hpp): a kernel that races,
    // reads local memory nobody wrote or reaches outside a buffer is rejected even when the
    // device hid it. Skipped, with the reason printed, when Oclgrind is off or missing.
    bool race_check = true;
    // Oclgrind simulates every work-item: a kernel that is fast on the device can take minutes.
    std::chrono::seconds race_time_limit{300};
    // The runner (the only process that builds and launches an entry) in bubblewrap: it sees the
    // runner program and its work folder only. False: --no-sandbox, said at start.
    bool sandbox = true;
};

// Why the race pass will not run for these options, or empty when it will.
std::string race_check_skipped(const JudgeOptions& options);

// Refuses to judge when the race pass is on but Oclgrind cannot run (the error says the fix);
// with --no-race-check it warns once. Call before judging starts.
void check_race_pass(const JudgeOptions& options);

// What judging one submission gave: "done" (its GFLOPS) or "rejected" (the reason).
struct Judged {
    std::int64_t id = 0;
    std::string alias, status, reason;
    double gflops = 0;
    double ratio = 0;  // speed relative to the yardstick (contest/ranking.hpp)
};

// Refuses (workbook::Error, with the fix) when the runner's sandbox cannot run here and
// --no-sandbox was not given; with --no-sandbox, warns on stderr.
void check_isolation(const JudgeOptions& options);

// Work folders of judges that were killed (and what still runs on them): removed, one line each.
// judge_next() calls it once per process, before its first entry.
std::vector<std::string> reclaim_judge_leftovers();

// What judging one source on one device gave.
struct Outcome {
    std::string status;  // "done"; "rejected" by the checks (the entry's fault); "failed": the judging's own
    std::string reason;  // sanitised: it quotes compiler and Oclgrind text, which quotes the entry
    Run run;             // when done
};

// What a per-device reference submission holds instead of a kernel (`contest baseline --reference
// --per-device`): each device's judging runs the tuned kernel chosen for that device.
inline constexpr const char* reference_marker = "// contest: the reference kernel, chosen on the judging device\n";

// Whether `entry` is that: the marker under the reference's alias, which no upload can take
// (alias.hpp). A student who uploads the marker's text gets it judged as the kernel it is.
inline bool per_device_reference(const Submission& entry) {
    return entry.alias == reference_alias && entry.source == reference_marker;
}

// Checks and times the entry's source (a child process with a time limit, its runner sandboxed, then the race
// pass) on the device the WORKBOOK_* variables choose, `device_env` ("NAME=value") added to them.
Outcome judge_source(const Submission& entry, const JudgeOptions& options,
                     const std::vector<std::string>& device_env = {});

// Why a run said to be of `entry`, judged with these options, cannot be believed (a size, a count,
// a hash or a time that does not add up); empty when it can. Every run is checked by it before it
// is recorded, the local judge's as a Slurm job's.
std::string implausible_run(const Run& run, const JudgeOptions& options, const Submission& entry);

// What the public may read of an entry's outcome: a category ("does not compile", "data race",
// "wrong values", "too slow or hung", ...), never a rejection's reason itself, which quotes
// compiler messages and the race report's source lines (the entry's code). A failure of the
// judge (status "failed": a cancelled job, a device it could not use) is said in the judge's own
// words. Empty for an entry without one.
// The reason stays for its owner (/api/mine) and the instructor.
std::string public_reason(const std::string& status, const std::string& reason);

// One judging of a contest at a time on its device, timing alone: every judge of the contest
// (`contest judge`, the server's) holds this shared while it judges an entry; a remote check's
// grading and the final hold it exclusively. A file lock beside the database (`DB.judging.lock`),
// so it holds across processes and goes with a killed one.
//
// One queue for all of them: a turnstile (`DB.judging.turn`, a second file lock) is held by the one
// next in line while it waits for the device, so whoever just had the device cannot take it again
// ahead of a waiter (the checks' loop did, within milliseconds, and a judging waited minutes).
// With two kinds of work waiting they alternate: a waiting judging waits for at most one grading.
class JudgingLock {
public:
    enum class Kind { shared, exclusive };
    // Waits its turn; `waiting` is called once first when another process holds the device.
    JudgingLock(const std::filesystem::path& db, Kind kind, const std::function<void()>& waiting = {});
    // Waits its turn without blocking the caller's thread (a server's loop, which must stay free to
    // stop): not held() when `stop` came first.
    JudgingLock(const std::filesystem::path& db, Kind kind, const std::atomic<bool>& stop);
    ~JudgingLock();
    JudgingLock(const JudgingLock&) = delete;
    JudgingLock& operator=(const JudgingLock&) = delete;
    bool held() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

// Judges the oldest queued submission (in a child process with a time limit, on the device the
// WORKBOOK_* variables choose) and records the run or the rejection. Empty when the queue is empty,
// or (given `stop`: a server's loop) when `stop` came while it waited its turn for the device.
std::optional<Judged> judge_next(Database& db, const JudgeOptions& options, const std::atomic<bool>* stop = nullptr);

}  // namespace workbook::contest
