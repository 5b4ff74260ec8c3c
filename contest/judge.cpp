// The contest judge (see judge.hpp). judge_next() runs `workbook contest run-one` on the
// submission in a child process with a time limit (a kernel that never ends is killed there),
// which checks and times it and writes a JSON verdict the parent records.
#include "contest/judge.hpp"

#include "contest/run_one.hpp"
#include "contest/run_record.hpp"

#include "workbook/check.hpp"
#include "workbook/errors.hpp"
#include "workbook/grading/sandbox.hpp"
#include "workbook/grading/uid_lease.hpp"
#include "workbook/matmul.hpp"
#include "workbook/process.hpp"
#include "workbook/race_check.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <csignal>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace workbook::contest {

std::string race_check_skipped(const JudgeOptions& o) {
    if (!o.race_check) return "switched off by --no-race-check";
    const auto a = race::availability();
    return a.on ? std::string() : a.why_off;
}

void check_race_pass(const JudgeOptions& o) {
    if (!o.race_check) {
        fmt::print(stderr, "WARNING: --no-race-check: entries are ranked without the race pass; on a GPU a missing "
                           "barrier often gives right answers (`workbook calibrate` shows what that costs here). "
                           "The board says \"race pass off\".\n");
        return;
    }
    race::require_available("the judge's", "to judge without it (the board then says so).");
}

namespace {

// Oclgrind's first report as one line for the board: its headline and where, with the
// temporary file's name replaced by the one students know.
std::string race_reason(const race::Report& r, const std::string& kernel_path, const std::string& name) {
    std::string text = r.headline;
    std::istringstream details(r.details);
    for (std::string line; std::getline(details, line);) {
        const auto start = line.find_first_not_of(" \t");
        if (start != std::string::npos) text += " | " + line.substr(start);
    }
    // Oclgrind may print the path relative to the temporary folder's parent.
    const std::string tail = kernel_path.substr(kernel_path.rfind('/', kernel_path.rfind('/') - 1) + 1);
    for (const auto& name : {kernel_path, tail})
        for (std::size_t at; (at = text.find(name)) != std::string::npos;) text.replace(at, name.size(), "submission.cl");
    return name + ": " + text;
}

// run-one's verdict file: key=value lines.

// The race pass on a kernel the device accepted: empty when Oclgrind found nothing.
std::string race_pass(const std::string& workbook, const std::filesystem::path& kernel,
                      const std::filesystem::path& dir, const std::vector<std::string>& wrapper, const JudgeOptions& o,
                      const std::vector<int>& sizes) {
    const auto verdict = dir / "race-verdict.txt";
    const std::string name = race_pass_name(sizes);
    // Oclgrind runs the runner (in its sandbox); the checker stays on the device-free host side.
    std::vector<std::string> checker = {workbook, "contest", "run-one", kernel.string(), "--verdict", verdict.string(),
                                        "--race-pass"};
    for (const int n : sizes) checker.insert(checker.end(), {"--race-size", std::to_string(n)});
    const auto rc = race::check_runner(checker,
                                       o.race_time_limit, wrapper, {},
                                       // Local memory as large as any GPU's: the device already ran the kernel.
                                       // Unoptimised, because Oclgrind cannot run LLVM's `freeze` instruction
                                       // that optimisation introduces.
                                       {"--local-mem-size", "262144", "--build-options", "-cl-opt-disable"}, dir);
    if (!rc.reports.empty()) return race_reason(rc.reports.front(), kernel.string(), name);
    if (rc.run.timed_out) return fmt::format("{}: did not finish in {} s", name, o.race_time_limit.count());
    if (rc.run.dropped_bytes > 0) return name + ": " + rc.failure_without_report();
    if (rc.run.passed()) return {};
    const std::string reason = read_verdict(verdict).reason;
    return name + ": " + (reason.empty() ? rc.run.status() : reason);
}

constexpr const char* work_prefix = "workbook-judge-";

// The judge's work folder for one submission: named by mkdtemp (nothing can be planted there
// beforehand), mode 0700, holding the judging process's pid (for reclaim_judge_leftovers()), and
// removed when judging ends.
// The runner's folder is a second one (a user of its own cannot pass through a 0700 folder of
// the judge's), named in the first as runner.dir.
std::filesystem::path make_private_folder() {
    std::string t = (std::filesystem::temp_directory_path() / (std::string(work_prefix) + "XXXXXX")).string();
    if (!::mkdtemp(t.data())) throw Error(fmt::format("cannot make the judge's work folder: {}", std::strerror(errno)));
    return t;
}

class WorkFolder {
public:
    WorkFolder() : path_(make_private_folder()), runner_(make_private_folder()) {
        std::ofstream(path_ / "judge.pid") << ::getpid() << "\n";
        std::ofstream(path_ / "runner.dir") << runner_.string();
    }
    ~WorkFolder() {
        std::error_code ec;
        std::filesystem::remove_all(runner_, ec);
        std::filesystem::remove_all(path_, ec);
    }
    WorkFolder(const WorkFolder&) = delete;
    WorkFolder& operator=(const WorkFolder&) = delete;
    const std::filesystem::path& path() const { return path_; }      // the entry and the verdicts: the judge's
    const std::filesystem::path& runner() const { return runner_; }  // the sandboxed runner's only writable folder

private:
    std::filesystem::path path_, runner_;
};

// The runner's sandbox (grading/sandbox.hpp): the runner program and the work folder, nothing
// else of this machine's files (not the database, not other entries); as a user of its own when
// the judge is root. Empty words when --no-sandbox.
std::vector<std::string> runner_wrapper(const std::filesystem::path& scratch, const JudgeOptions& o, int cpu_s = 0) {
    if (!o.sandbox) return {};
    grading::Sandbox box;
    if (cpu_s > 0) box.limits.cpu_s = cpu_s;
    box.scratch = scratch.string();
    box.readable = {(std::filesystem::read_symlink("/proc/self/exe").parent_path() / "contest-runner").string()};
    // The race pass's own Oclgrind plugins (race_check.cpp), which Oclgrind loads in the runner.
    for (const auto& plugin : {race::local_init_plugin, race::fingerprint_plugin})
        if (std::string why_not, path = plugin(why_not); !path.empty()) box.readable.push_back(path);
    if (::geteuid() == 0) {
        // A user no other live run on this machine has (uid_lease.hpp), held while this judge lives.
        static const grading::UidLease users;
        box.uid = users.uid(0);
        if (::chown(scratch.c_str(), static_cast<uid_t>(box.uid), static_cast<gid_t>(box.uid)) != 0)
            throw Error(fmt::format("cannot give the judge's work folder to user {}: {}", box.uid, std::strerror(errno)));
    } else {
        box.uid = -1;  // no user switch without root: the namespaces still isolate it
    }
    return box.wrapper();
}

std::string joined(const std::vector<std::string>& words) {
    std::string j;
    for (const auto& w : words) j += (j.empty() ? "" : "\x1f") + w;
    return j;
}

}  // namespace

void check_isolation(const JudgeOptions& o) {
    if (!o.sandbox) {
        fmt::print(stderr, "WARNING: --no-sandbox: each entry's runner runs without bubblewrap; a kernel that is native "
                           "code (PoCL) can read whatever this user can read.\n");
        return;
    }
    if (const auto problem = grading::sandbox_problem(); !problem.empty())
        throw Error(fmt::format("the judge's sandbox cannot run: {}.\nFix that, or pass --no-sandbox to judge without it "
                                "(NOT safe against hostile entries).",
                                problem));
}

std::vector<std::string> reclaim_judge_leftovers() {
    std::vector<std::string> done;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), ec)) {
        const std::string name = e.path().filename().string();
        struct stat st {};
        // Only real folders of ours: a planted link or another user's folder is left alone.
        if (name.rfind(work_prefix, 0) != 0 || ::lstat(e.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != ::geteuid())
            continue;
        long pid = 0;
        try {
            pid = std::stol(read_plain_file(e.path() / "judge.pid", 64));
        } catch (...) {
        }
        if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0) continue;  // a live judge's, or not one
        std::vector<std::filesystem::path> folders = {e.path()};
        try {
            const std::filesystem::path runner = read_plain_file(e.path() / "runner.dir", 4096);
            struct stat rs {};
            if (runner.parent_path() == e.path().parent_path() && runner.filename().string().rfind(work_prefix, 0) == 0 &&
                ::lstat(runner.c_str(), &rs) == 0 && S_ISDIR(rs.st_mode))
                folders.push_back(runner);
        } catch (...) {
        }
        // Whatever still runs on that folder's entry (a checker or runner the kill left) goes first.
        for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
            const std::string cmdline = read_file_or_empty(proc.path() / "cmdline");
            const long other = std::atol(proc.path().filename().c_str());
            for (const auto& f : folders)
                if (other > 0 && other != ::getpid() && cmdline.find(f.string()) != std::string::npos)
                    ::kill(static_cast<pid_t>(other), SIGKILL);
        }
        for (const auto& f : folders) {
            std::filesystem::remove_all(f, ec);
            done.push_back("removed " + f.string() + ", left by a judge that was stopped");
        }
    }
    return done;
}

namespace {

// The run a verdict describes; throws on a field that is missing or not a number.

// The instructor's tuned kernel for the device `device_env` chooses, from a child process (this
// one opens no device): `workbook contest reference-source`.
std::string reference_for_device(const JudgeOptions& o, const std::vector<std::string>& device_env) {
    const auto r = run_process({std::filesystem::read_symlink("/proc/self/exe").string(), "contest", "reference-source",
                                "--n", std::to_string(o.ranking_n)},
                               std::chrono::seconds(120), device_env, 256 * 1024);
    if (!r.passed())
        throw Error(fmt::format("could not choose the reference kernel on this device ({}): {}", r.status(),
                                one_line(r.output)));
    return r.output;
}

}  // namespace

std::string implausible_run(const Run& run, const JudgeOptions& o, const Submission& entry) {
    const auto positive = [](double x) { return std::isfinite(x) && x > 0; };
    if (run.device.empty() || run.driver.empty() || run.device.size() > 256 || run.driver.size() > 256)
        return "the device or driver name is missing or too long";
    if (run.n != o.ranking_n) return fmt::format("ranked at N = {}, not at the contest's N = {}", run.n, o.ranking_n);
    if (run.repeats != o.repeats) return fmt::format("{} timed launches, not the contest's {}", run.repeats, o.repeats);
    if (!positive(run.min_s) || !positive(run.median_s) || !positive(run.max_s) || run.min_s > run.median_s ||
        run.median_s > run.max_s)
        return "its times are not positive and ordered (min <= median <= max)";
    const double expected = matmul::gflops(run.n, run.median_s);
    if (!positive(run.gflops) || std::abs(run.gflops - expected) > 1e-3 * expected)
        return fmt::format("{} GFLOPS does not follow from its median time ({} GFLOPS)", run.gflops, expected);
    if (!positive(run.ratio) || !positive(run.ratio_low) || !positive(run.ratio_high) || run.ratio_low > run.ratio ||
        run.ratio > run.ratio_high || !positive(run.yardstick_median_s))
        return "its ratio to the yardstick is not positive and within its spread";
    const std::string last = fmt::format(",{}", o.ranking_n);
    if (run.sizes.size() < last.size() || run.sizes.compare(run.sizes.size() - last.size(), last.size(), last) != 0)
        return "its checked sizes do not end with the ranking size";
    // A per-device reference is resolved on the device: its hash is of the kernel chosen there.
    if (!per_device_reference(entry) && run.kernel_hash != kernel_fingerprint(entry.source))
        return "it is the run of another kernel (its hash differs)";
    return {};
}

std::string public_reason(const std::string& status, const std::string& reason) {
    if (reason.empty()) return {};
    // The judge's or the job's own words (a cancelled job, a device it could not use): no code of the entry.
    if (status == "failed") return reason;
    const auto starts = [&](const char* prefix) { return reason.rfind(prefix, 0) == 0; };
    if (starts("does not compile")) return "does not compile";
    if (starts("mmul takes")) return "wrong kernel declaration";
    if (starts("wrong at N")) return "wrong values";
    if (starts("too slow or hung")) return "too slow or hung";
    if (starts("race check (Oclgrind")) {
        const std::string what = reason.substr(reason.find(": ") == std::string::npos ? 0 : reason.find(": ") + 2);
        if (what.find("data race") != std::string::npos) return "data race";
        if (what.find("divergence") != std::string::npos) return "barrier not reached by every work-item";
        if (what.find("did not finish") != std::string::npos) return "race check did not finish";
        return "failed the race check";
    }
    return "rejected (its owner can see why)";
}

Outcome judge_source(const Submission& entry, const JudgeOptions& o, const std::vector<std::string>& device_env) {
    Outcome out{"rejected", {}, {}};
    // Every reason is sanitised once, here: it quotes compiler and Oclgrind text, which quotes
    // the entry (invalid UTF-8, escape sequences in a comment).
    auto ended = [&](const std::string& status, const std::string& reason) {
        out.status = status;
        out.reason = sanitize(reason, 2000);
        return out;
    };
    std::string source = entry.source;
    if (per_device_reference(entry)) {
        try {
            source = reference_for_device(o, device_env);
        } catch (const std::exception& e) {
            return ended("failed", e.what());
        }
    }
    const WorkFolder work;
    const auto& dir = work.path();
    const auto kernel = dir / "kernel.cl", verdict = dir / "verdict.txt";
    std::ofstream(kernel) << source;
    // The copy the race pass's reports quote (the runner's sandbox names it submission.cl).
    std::ofstream(dir / "submission.cl") << source;
    std::vector<std::string> argv = {std::filesystem::read_symlink("/proc/self/exe").string(), "contest", "run-one",
                                     kernel.string(), "--verdict", verdict.string(),
                                     "--n", std::to_string(o.ranking_n), "--warmups", std::to_string(o.warmups),
                                     "--repeats", std::to_string(o.repeats),
                                     "--sittings", std::to_string(o.sittings)};
    for (int s : o.public_sizes) argv.insert(argv.end(), {"--size", std::to_string(s)});
    // The secret sizes, drawn here (never shown before the run) so that the race pass can check
    // a stand-in for each of them and for the ranking size (run_one.hpp: race_pass_sizes).
    std::random_device rd;
    std::mt19937_64 gen((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
    std::vector<int> secret_and_ranking = {o.ranking_n};
    for (int i = 0; i < o.secret_sizes; ++i) {
        secret_and_ranking.push_back(std::uniform_int_distribution<int>(33, 400)(gen));
        argv.insert(argv.end(), {"--secret-size", std::to_string(secret_and_ranking.back())});
    }
    const std::vector<int> race_sizes = race_pass_sizes(secret_and_ranking, gen);
    const std::vector<std::string> wrapper = runner_wrapper(work.runner(), o);
    std::vector<std::string> env = device_env;
    env.push_back("WORKBOOK_RUNNER_WRAPPER=" + joined(wrapper));
    const auto r = run_process(argv, o.time_limit, env, 64 * 1024);
    const CheckerVerdict v = read_verdict(verdict);
    // The race pass only for kernels the device accepted: a wrong one has its clearer reason.
    if (!r.timed_out && r.passed() && v.result == "ok" && o.race_check) {
        // Checked at start too; Oclgrind gone since then ranks nothing unchecked.
        if (const auto why = race_check_skipped(o); !why.empty())
            return ended("failed", "the judge could not run the race pass (" + why + "): tell the instructor");
        // The simulator's own CPU time: as much as its wall-time limit on every core (its
        // threads count), not the device run's.
        const int race_cpu_s = static_cast<int>(o.race_time_limit.count()) *
                               static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        if (auto failure = race_pass(argv[0], kernel, dir, runner_wrapper(work.runner(), o, race_cpu_s), o, race_sizes);
            !failure.empty())
            return ended("rejected", failure);
    }
    if (r.timed_out) return ended("rejected", fmt::format("too slow or hung: killed after {} s", o.time_limit.count()));
    if (v.result != "ok" || !r.passed())
        return ended("rejected", !v.reason.empty() ? v.reason : fmt::format("the check did not finish ({})", r.status()));
    if (v.damaged || !v.run)
        return ended("failed", "the judge's checker wrote a verdict that does not parse: tell the instructor");
    out.run = *v.run;
    out.run.device = sanitize(out.run.device, 256);
    out.run.driver = sanitize(out.run.driver, 256);
    if (const auto problem = implausible_run(out.run, o, entry); !problem.empty())
        return ended("failed", "the judge's own run does not add up (" + problem + "): tell the instructor");
    out.status = "done";
    return out;
}

namespace {

int open_lock_file(const std::filesystem::path& db, const char* suffix) {
    const std::string file = db.string() + suffix;
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) throw Error(fmt::format("cannot open the judging lock {}: {}", file, std::strerror(errno)));
    return fd;
}

int lock_kind(JudgingLock::Kind kind) { return kind == JudgingLock::Kind::exclusive ? LOCK_EX : LOCK_SH; }

// flock that goes on through signals; false (errno set) on a real error or, when nonblocking, busy.
bool take(int fd, int how) {
    while (::flock(fd, how) != 0)
        if (errno != EINTR) return false;
    return true;
}

// The line's two files: the turnstile and the device's lock.
std::pair<int, int> open_line(const std::filesystem::path& db) {
    const int turn = open_lock_file(db, ".judging.turn");
    try {
        return {turn, open_lock_file(db, ".judging.lock")};
    } catch (...) {
        ::close(turn);
        throw;
    }
}

}  // namespace

JudgingLock::JudgingLock(const std::filesystem::path& db, Kind kind, const std::function<void()>& waiting) {
    const auto [turn, device] = open_line(db);
    const bool free_now = take(turn, LOCK_EX | LOCK_NB) && take(device, lock_kind(kind) | LOCK_NB);
    if (!free_now) {
        if (waiting) waiting();
        if (!take(turn, LOCK_EX) || !take(device, lock_kind(kind))) {
            const int error = errno;
            ::close(turn);
            ::close(device);
            throw Error(fmt::format("cannot lock {}.judging.lock: {}", db.string(), std::strerror(error)));
        }
    }
    ::close(turn);  // the next in line may queue now
    fd_ = device;
}

JudgingLock::JudgingLock(const std::filesystem::path& db, Kind kind, const std::atomic<bool>& stop) {
    const auto [turn, device] = open_line(db);
    bool in_line = false;
    while (!stop) {
        in_line = in_line || take(turn, LOCK_EX | LOCK_NB);
        if (in_line && take(device, lock_kind(kind) | LOCK_NB)) {
            ::close(turn);
            fd_ = device;
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::close(turn);
    ::close(device);
}

JudgingLock::~JudgingLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

std::optional<Judged> judge_next(Database& db, const JudgeOptions& o, const std::atomic<bool>* stop) {
    static std::once_flag reclaimed;
    std::call_once(reclaimed, [] {
        for (const auto& line : reclaim_judge_leftovers()) fmt::print(stderr, "judge: {}\n", line);
    });
    // Taken before the claim: while the final runs, an entry stays queued, not "running".
    // A server's loop asks often: it queues for the device only when there is an entry to judge.
    if (stop && !db.has_queued()) return std::nullopt;
    const auto turn = stop ? std::make_unique<JudgingLock>(db.file(), JudgingLock::Kind::shared, *stop)
                           : std::make_unique<JudgingLock>(db.file(), JudgingLock::Kind::shared);
    if (!turn->held()) return std::nullopt;
    const auto sub = db.claim();
    if (!sub) return std::nullopt;
    const Outcome r = judge_source(*sub, o);
    Judged out{sub->id, sub->alias, r.status == "done" ? "done" : "rejected", r.reason, 0};
    if (r.status == "done") {
        db.record(sub->id, r.run);
        out.gflops = r.run.gflops;
        out.ratio = r.run.ratio;
    } else {
        db.reject(sub->id, r.reason);
    }
    return out;
}

}  // namespace workbook::contest
