// The Slurm driver of `workbook grade` (see slurm_grade.hpp). Everything a task grades goes
// through the local grader (run_grade_step): the same checker, sandbox, budgets and race pass.
// What is Slurm's alone is here: the job's files, sbatch, following the tasks with squeue, and
// deciding which chunks to submit once more. The secret seed is never on a command line, in a job
// script or in an environment: the tasks read it from the output folder's secret.toml (0600).
#include "workbook/grading/slurm_grade.hpp"

#include "workbook/grading/slurm.hpp"
#include "workbook/grading/step.hpp"

#include "workbook/errors.hpp"
#include "workbook/process.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace workbook::grading {

namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

// A task that ends without grading all of its chunk (failed, cancelled, preempted, its node lost)
// is submitted this many times in all; then its submissions are reported as not graded. The
// submission it was testing when it was stopped (the chunk's first one not graded: tests run in
// order, one at a time) goes into a task of its own for its next attempt, so that a submission
// that brings its task down costs its chunk-mates nothing.
constexpr int attempts_per_chunk = 2;
constexpr auto poll_every = 3s;

fs::path job_file(const fs::path& out) {
    return out / "slurm" / "job.json";
}
fs::path task_dir(const fs::path& out, std::size_t k) {
    return out / "slurm" / fmt::format("task-{}", k);
}

void say(const GradeOptions& o, const std::string& s) {
    if (!o.quiet) fmt::print("{}\n", s);
    std::fflush(stdout);
}

void write_atomically(const fs::path& p, const std::string& text, fs::perms perms) {
    const fs::path tmp = p.string() + ".tmp";
    std::ofstream(tmp, std::ios::binary) << text;
    fs::permissions(tmp, perms);
    fs::rename(tmp, p);
}

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The grading options every task and the gather use: those the instructor gave with --slurm,
// kept in job.json (no secret among them: the seed stays in secret.toml).
json options_to_json(const GradeOptions& o) {
    auto abs = [](const fs::path& p) { return p.empty() ? std::string() : fs::absolute(p).string(); };
    return {{"submissions", abs(o.submissions)},
            {"jobs", o.jobs},
            {"timeout_s", o.timeout_s},
            {"only", o.only},
            {"config", abs(o.config)},
            {"roster", abs(o.roster)},
            {"no_sandbox", o.no_sandbox},
            {"no_race_check", o.no_race_check},
            {"calibration", abs(o.calibration)},
            {"memory_mib", o.budget.memory_mib},
            {"max_processes", o.budget.processes},
            {"disk_mib", o.budget.disk_mib},
            {"max_files", o.budget.files},
            {"partition", o.slurm.partition},
            {"gres", o.slurm.gres},
            {"array_limit", o.slurm.array_limit},
            {"per_task", o.slurm.per_task}};
}

GradeOptions options_from_json(const json& j, const GradeOptions& given) {
    GradeOptions o;
    o.out = fs::absolute(given.out);
    o.quiet = given.quiet;
    o.exports = given.exports;  // an export is the gather's: asked for with --wait, not kept in job.json
    o.submissions = j.at("submissions").get<std::string>();
    o.jobs = j.at("jobs");
    o.timeout_s = j.at("timeout_s");
    o.only = j.at("only").get<std::vector<std::string>>();
    o.config = j.at("config").get<std::string>();
    o.roster = j.at("roster").get<std::string>();
    o.no_sandbox = j.at("no_sandbox");
    o.no_race_check = j.at("no_race_check");
    o.calibration = j.at("calibration").get<std::string>();
    o.budget.memory_mib = j.at("memory_mib");
    o.budget.processes = j.at("max_processes");
    o.budget.disk_mib = j.at("disk_mib");
    o.budget.files = j.at("max_files");
    o.slurm.partition = j.at("partition");
    o.slurm.gres = j.at("gres");
    o.slurm.array_limit = j.at("array_limit");
    o.slurm.per_task = j.at("per_task");
    return o;
}

// out/slurm/job.json: the options, the chunks (task k grades chunks[k]), the array jobs submitted
// and how many times each chunk was submitted.
struct Job {
    fs::path out;
    json j;

    static Job load(const fs::path& out) {
        const fs::path file = job_file(out);
        if (!fs::exists(file))
            throw Error(
                fmt::format("{} holds no Slurm grading run ({} is missing): submit one with `workbook grade "
                            "SUBMISSIONS --out {} --slurm`",
                            out.string(), file.string(), out.string()));
        try {
            return {out, json::parse(read_file_or_empty(file))};
        } catch (const json::exception& e) {
            throw Error(
                fmt::format("{} is damaged ({}): grade the class again into a new --out", file.string(), e.what()));
        }
    }
    void save() const {
        write_atomically(job_file(out), j.dump(2) + "\n", fs::perms::owner_read | fs::perms::owner_write);
    }
    std::size_t tasks() const { return j.at("chunks").size(); }
    std::vector<std::string> chunk(std::size_t k) const { return j.at("chunks").at(k).get<std::vector<std::string>>(); }
    std::vector<std::string> job_ids() const { return j.at("jobs").get<std::vector<std::string>>(); }
};

// Submits the array tasks `indices` of the job (each grades its chunk) and records it.
std::string submit(Job& job, const std::vector<std::size_t>& indices) {
    const json& o = job.j.at("options");
    slurm::Job sb;
    for (std::size_t i = 0; i < indices.size();) {  // runs of indices as ranges: 0-999, or 2,5-7
        std::size_t j = i;
        while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
        sb.array += (sb.array.empty() ? "" : ",") + std::to_string(indices[i]) + (j > i ? fmt::format("-{}", indices[j]) : "");
        i = j + 1;
    }
    if (o.at("array_limit").get<int>() > 0) sb.array += fmt::format("%{}", o.at("array_limit").get<int>());
    const fs::path logs = job.out / "slurm" / "logs";
    fs::create_directories(logs);  // Slurm writes the tasks' output there, but makes no folder
    sb.name = "workbook-grade";
    sb.output = logs / "task-%a.%A.out";
    sb.chdir = job.out;
    sb.cpus_per_task = o.at("jobs").get<int>();
    sb.partition = o.at("partition");
    sb.gres = o.at("gres");
    sb.command = {(job.out / "slurm" / "task.sh").string()};
    const auto submitted = slurm::submit(sb);
    if (submitted.id.empty()) throw Error("sbatch did not take the grading job (" + submitted.error + ")");
    job.j["jobs"].push_back(submitted.id);
    for (const auto k : indices) job.j["attempts"][k] = job.j["attempts"][k].get<int>() + 1;
    job.save();
    return submitted.id;
}

// Our array tasks that Slurm still holds (pending, running, being requeued): index -> state.
std::map<std::size_t, std::string> queued(const Job& job) {
    const auto ids = job.job_ids();
    const std::set<std::string> ours(ids.begin(), ids.end());
    const auto q = slurm::queue(false, 5);
    if (!q.ok)
        throw Error(fmt::format("squeue cannot say how the grading tasks stand: {}\nCollect later with "
                                "`workbook grade --out {} --wait`",
                                q.error, job.out.string()));
    std::map<std::size_t, std::string> out;
    for (const auto& e : q.jobs) {
        if (!ours.count(e.array_id) || e.task.empty() || !std::isdigit(static_cast<unsigned char>(e.task[0])) ||
            !slurm::alive(e.state))
            continue;
        out[std::stoul(e.task)] = e.state + (e.reason.empty() || e.reason == "None" ? "" : " (" + e.reason + ")");
    }
    return out;
}

// The submissions of chunk k that no journal holds yet (the task's own, or the class's).
std::vector<std::string> missing_of(const Job& job, std::size_t k, const std::set<std::string>& in_class_journal) {
    const auto done = journal_names(task_dir(job.out, k));
    const std::set<std::string> graded(done.begin(), done.end());
    std::vector<std::string> missing;
    for (const auto& name : job.chunk(k))
        if (!graded.count(name) && !in_class_journal.count(name)) missing.push_back(name);
    return missing;
}

// Task k's last log, if it wrote one (it started).
fs::path last_log(const Job& job, std::size_t k) {
    const auto ids = job.job_ids();
    for (auto id = ids.rbegin(); id != ids.rend(); ++id) {
        const fs::path log = job.out / "slurm" / "logs" / fmt::format("task-{}.{}.out", k, *id);
        if (fs::exists(log)) return log;
    }
    return {};
}

// Why task k could not grade, in its own words, when it said so (stopped.txt: an error of the
// task, such as a refusal to start, never a student's output); "" when it was stopped from outside.
fs::path stopped_file(const fs::path& out, std::size_t k) {
    return task_dir(out, k) / "stopped.txt";
}

// What a student whose submission no attempt graded is told: about their own task only (a task's
// log names its other submissions, so it stays the instructor's).
std::string not_graded_reason(const Job& job, std::size_t k) {
    const int attempts = job.j["attempts"][k].get<int>();
    std::string why = read_file_or_empty(stopped_file(job.out, k));
    if (!why.empty()) {
        if (why.size() > 1500) why = why.substr(0, 1500) + "...";
        return fmt::format("its Slurm task (array index {}) ended {} time(s) without grading it: the task could not "
                           "grade: {}",
                           k, attempts, why);
    }
    return fmt::format("its Slurm task (array index {}) ended {} time(s) without grading it, stopped from outside "
                       "while it was being graded or before (cancelled, preempted, out of time or memory, or its node "
                       "lost); the instructor has the task's log",
                       k, attempts);
}

// One array task: the local grader's `part` step on chunk SLURM_ARRAY_TASK_ID.
int run_task(const harness::CourseTree& tree, const GradeOptions& given) {
    const char* index = std::getenv("SLURM_ARRAY_TASK_ID");
    if (!index || !*index)
        throw Error(
            "--slurm-task runs inside a task of the array job that `workbook grade --slurm` submits "
            "(SLURM_ARRAY_TASK_ID is not set)");
    const Job job = Job::load(fs::absolute(given.out));
    const std::size_t k = std::stoul(index);
    if (k >= job.tasks())
        throw Error(fmt::format("task {} is not in {} ({} tasks)", k, job_file(job.out).string(), job.tasks()));
    GradeOptions o = options_from_json(job.j.at("options"), given);
    o.step = GradeOptions::Step::part;
    o.part = fmt::format("task-{}", k);
    o.part_names = job.chunk(k);
    const char* job_id = std::getenv("SLURM_ARRAY_JOB_ID");
    // Its users: the grading run leases a block no other live run on this node holds (uid_lease.hpp).
    say(o, fmt::format("Slurm task {} of job {} on {}: {} submission(s)", k, job_id ? job_id : "?", hostname(),
                       o.part_names.size()));
    const auto start = std::chrono::steady_clock::now();
    fs::create_directories(task_dir(job.out, k));
    fs::remove(stopped_file(job.out, k));
    int status = 0;
    try {
        status = run_grade_step(tree, o);
    } catch (const Error& e) {
        write_atomically(stopped_file(job.out, k), e.what(), fs::perms::owner_read | fs::perms::owner_write);
        throw;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // How long a task takes, for planning a class's time on N nodes (the collecting step sums it up).
    write_atomically(
        task_dir(job.out, k) / "timing.json",
        json{{"seconds", seconds}, {"submissions", o.part_names.size()}, {"node", hostname()}}.dump() + "\n",
        fs::perms::owner_read | fs::perms::owner_write);
    say(o, fmt::format("task {}: {} submission(s) in {:.1f} s", k, o.part_names.size(), seconds));
    return status;
}

// Follows the array until no task of ours is queued, submits once more each chunk whose task
// ended without grading all of it, then merges everything into the gradebook.
int collect(const harness::CourseTree& tree, const GradeOptions& given) {
    Job job = Job::load(fs::absolute(given.out));
    GradeOptions o = options_from_json(job.j.at("options"), given);
    if (!given.submissions.empty() && fs::weakly_canonical(given.submissions) != fs::weakly_canonical(o.submissions))
        throw Error(
            fmt::format("{} was submitted to Slurm for the submissions in {}, not {}: collect it with "
                        "`workbook grade --out {} --wait`",
                        o.out.string(), o.submissions.string(), given.submissions.string(), o.out.string()));
    const auto class_names = journal_names(o.out);
    const std::set<std::string> in_class_journal(class_names.begin(), class_names.end());
    std::string last_progress;
    auto last_running = std::chrono::steady_clock::now();  // when a task of ours last ran, or we began
    const auto limit = std::chrono::duration<double, std::ratio<60>>(given.slurm.wait_limit_min);
    for (;;) {
        const auto q = queued(job);
        if (!q.empty()) {
            int running = 0;
            std::string states;
            for (const auto& [k, state] : q) {
                running += state.rfind("RUNNING", 0) == 0;
                if (state.rfind("RUNNING", 0) != 0 && states.size() < 300) states += fmt::format(" {}:{}", k, state);
            }
            const std::string progress = fmt::format("slurm: {} of {} task(s) left the queue, {} running, {} waiting{}",
                                                     job.tasks() - q.size(), job.tasks(), running, q.size() - running,
                                                     states.empty() ? "" : " (" + states.substr(1) + ")");
            if (progress != last_progress) say(o, progress);
            last_progress = progress;
            const auto now = std::chrono::steady_clock::now();
            if (running > 0) last_running = now;
            if (now - last_running > limit)
                throw Error(fmt::format(
                    "slurm: for {:g} minute(s) no grading task of ours has run: {} task(s) still pending ({}).\n"
                    "Slurm says why after each task's state. The tasks stay queued and nothing graded is lost.\n"
                    "Fix: see `scontrol show job {}` and `sinfo` (a partition that is down, resources no node has, "
                    "a held job: `scontrol release {}`), then collect with `workbook grade --out {} --wait`; "
                    "or cancel with `scancel {}`. --wait-limit MINUTES sets how long to wait.",
                    given.slurm.wait_limit_min, q.size(), states.empty() ? "none listed" : states.substr(1),
                    job.job_ids().back(), job.job_ids().back(), job.out.string(), fmt::join(job.job_ids(), " ")));
            std::this_thread::sleep_for(poll_every);
            continue;
        }
        std::vector<std::size_t> again;
        const std::size_t tasks = job.tasks();
        for (std::size_t k = 0; k < tasks; ++k) {
            const auto missing = missing_of(job, k, in_class_journal);
            if (missing.empty() || job.j["attempts"][k].get<int>() >= attempts_per_chunk) continue;
            again.push_back(k);
            // Stopped from outside after it started, with others to grade beside the one under test:
            // that one goes on alone, with the attempts it has had.
            if (missing.size() > 1 && !fs::exists(stopped_file(job.out, k)) && !last_log(job, k).empty()) {
                const std::string suspect = missing.front();
                auto chunk = job.chunk(k);
                std::erase(chunk, suspect);
                job.j["chunks"][k] = chunk;
                job.j["chunks"].push_back(std::vector<std::string>{suspect});
                job.j["attempts"].push_back(job.j["attempts"][k].get<int>());
                again.push_back(job.tasks() - 1);
                say(o, fmt::format("slurm: task {} was stopped while it tested a submission: that one goes on in a "
                                   "task of its own (array index {}), the other {} of its chunk without it",
                                   k, job.tasks() - 1, missing.size() - 1));
            }
        }
        if (again.empty()) break;
        std::sort(again.begin(), again.end());
        job.save();
        const std::string id = submit(job, again);
        say(o, fmt::format("slurm: {} task(s) ended before grading all of their submissions (failed, cancelled or "
                           "preempted): submitted once more as job {} (array indices {})",
                           again.size(), id, fmt::format("{}", fmt::join(again, ","))));
    }
    // What no attempt graded is reported per submission, with the task's last words.
    o.step = GradeOptions::Step::gather;
    for (const auto& name : submission_names(o.submissions, o.roster))
        o.not_graded[name] = "it is not in the Slurm job (added to SUBMISSIONS after `--slurm` listed the class): "
                             "grade it into another --out";
    std::vector<double> seconds;
    for (std::size_t k = 0; k < job.tasks(); ++k) {
        const auto missing = missing_of(job, k, in_class_journal);
        for (const auto& name : missing) o.not_graded[name] = not_graded_reason(job, k);
        if (!missing.empty()) {
            const fs::path log = last_log(job, k);
            say(o, fmt::format("slurm: task {} left {} submission(s) not graded after {} attempt(s); its last log: {}",
                               k, missing.size(), job.j["attempts"][k].get<int>(),
                               log.empty() ? std::string("none (it never started)") : log.string()));
        }
        try {
            const json t = json::parse(read_file_or_empty(task_dir(job.out, k) / "timing.json"));
            if (t.at("submissions").get<int>() > 0) seconds.push_back(t.at("seconds").get<double>());
        } catch (...) {
        }
    }
    if (!seconds.empty()) {
        std::sort(seconds.begin(), seconds.end());
        say(o, fmt::format("slurm: a task of up to {} submission(s) took {:.0f} s (the median of {} task(s); {:.0f} to "
                           "{:.0f} s): a class of N submissions takes about N / {} x that / the tasks that run at once",
                           job.j.at("options").at("per_task").get<int>(), seconds[seconds.size() / 2], seconds.size(),
                           seconds.front(), seconds.back(), job.j.at("options").at("per_task").get<int>()));
    }
    return run_grade_step(tree, o);
}

int run_submit(const harness::CourseTree& tree, const GradeOptions& given) {
    slurm::need_tool("sbatch");
    slurm::need_tool("squeue");
    slurm::need_tool("scontrol");
    GradeOptions o = given;
    o.out = fs::absolute(given.out);
    if (fs::exists(job_file(o.out)))
        throw Error(
            fmt::format("{} already holds a Slurm grading run: follow it with `workbook grade --out {} --wait`, "
                        "or grade into another --out",
                        o.out.string(), o.out.string()));
    ::umask(077);  // the job's files are the instructor's alone, as the local grader's are
    // Listing refuses two submissions of one name; a previous run's journal is not graded again.
    const auto names = submission_names(o.submissions, o.roster);
    const auto done = journal_names(o.out);
    const std::set<std::string> graded(done.begin(), done.end());
    std::vector<std::string> todo;
    for (const auto& n : names)
        if (!graded.count(n)) todo.push_back(n);
    // The class's secret seed, kept in out/secret.toml before any task starts: they all read it
    // there, and nothing else carries it (not the job script, the command lines or the environment).
    o.step = GradeOptions::Step::prepare;
    run_grade_step(tree, o);
    fs::create_directories(o.out / "slurm");

    Job job{o.out,
            {{"options", options_to_json(o)},
             {"chunks", json::array()},
             {"attempts", json::array()},
             {"jobs", json::array()}}};
    const std::size_t per = static_cast<std::size_t>(std::max(1, o.slurm.per_task));
    for (std::size_t at = 0; at < todo.size(); at += per) {
        job.j["chunks"].push_back(std::vector<std::string>(
            todo.begin() + static_cast<long>(at), todo.begin() + static_cast<long>(std::min(todo.size(), at + per))));
        job.j["attempts"].push_back(0);
    }
    say(o, fmt::format("{} submission(s), {} already graded (journal): {} Slurm task(s) of up to {} submission(s)",
                       names.size(), names.size() - todo.size(), job.tasks(), per));
    if (job.tasks() == 0) {
        job.save();
        return collect(tree, given);
    }
    const std::size_t max_array = slurm::max_array_size();
    if (job.tasks() > max_array)
        throw Error(
            fmt::format("{} tasks are more than this cluster's array jobs take (MaxArraySize = {}): give "
                        "--per-task {} (or more)",
                        job.tasks(), max_array, (todo.size() + max_array - 1) / max_array));
    job.save();  // before sbatch: a task may start at once, and reads it

    // Each task runs this same workbook, from the same build, on the shared file system.
    char self[4096] = {};
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    const std::string workbook = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : "workbook";
    write_atomically(o.out / "slurm" / "task.sh",
                     fmt::format("#!/bin/bash\n"
                                 "# One task of `workbook grade --slurm` (written by it): grades chunk "
                                 "$SLURM_ARRAY_TASK_ID of job.json\n# into task-$SLURM_ARRAY_TASK_ID/ beside it.\n"
                                 "exec {} --root {} --build-dir {} grade --out {} --slurm-task\n",
                                 shell_quote(workbook), shell_quote(fs::absolute(tree.root()).string()),
                                 shell_quote(fs::absolute(tree.build()).string()), shell_quote(o.out.string())),
                     fs::perms::owner_all);
    std::vector<std::size_t> all(job.tasks());
    for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
    std::string id;
    try {
        id = submit(job, all);
    } catch (...) {
        fs::remove(job_file(o.out));  // nothing was submitted: the same command may be given again
        throw;
    }
    say(o, fmt::format("submitted Slurm job {} ({} task(s){}); its logs: {}", id, job.tasks(),
                       o.slurm.array_limit > 0 ? fmt::format(", at most {} at once", o.slurm.array_limit) : "",
                       (o.out / "slurm" / "logs").string()));
    if (!o.slurm.wait) {
        say(o, fmt::format("follow it and write the gradebook: workbook grade --out {} --wait", o.out.string()));
        return exit_ok;
    }
    return collect(tree, given);
}

}  // namespace

bool slurm_involved(const GradeOptions& o) {
    return o.slurm.submit || o.slurm.wait || o.slurm.task || o.submissions.empty() ||
           (!o.out.empty() && fs::exists(job_file(o.out)));
}

int run_grade_slurm(const harness::CourseTree& tree, const GradeOptions& o) {
    if (o.slurm.task) return run_task(tree, o);
    if (o.slurm.submit) return run_submit(tree, o);
    if (o.submissions.empty() && !fs::exists(job_file(o.out)))
        throw Error(
            fmt::format("give SUBMISSIONS, the folder of submissions to grade ({} holds no Slurm grading run to "
                        "collect)",
                        o.out.string()));
    return collect(tree, o);
}

}  // namespace workbook::grading
