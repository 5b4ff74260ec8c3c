// The one Slurm client: the grader's array jobs (slurm_grade.cpp) and the contest zoo's judgings
// (server/slurm_jobs.cpp) submit, follow, release and cancel through it; nothing else runs
// sbatch, squeue, scontrol or scancel. It runs Slurm's client commands (found on PATH) with
// argument vectors, never through a shell.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace workbook::grading::slurm {

// One sbatch call.
struct Job {
    std::vector<std::string> command;  // the batch script and its arguments
    std::string name;                  // --job-name
    std::filesystem::path output;      // --output (may hold %j, %A, %a)
    std::filesystem::path chdir;       // --chdir
    std::string array;                 // --array, e.g. "0-9%4" or "2,5-7"; empty: one job
    std::string partition, gres, constraint;
    int cpus_per_task = 0;             // 0: Slurm's default
    bool hold = false;                 // submitted held: `release` starts it
    std::vector<std::string> extra;    // further sbatch options, passed as given
};

// The job id, or empty with `error`: sbatch's exit status, what it said, and the command.
struct Submitted {
    std::string id, error;
};
Submitted submit(const Job& job);

// What squeue says of one job (or one task of an array).
struct Entry {
    std::string id;          // %i: "123", or "123_4" for an array's task
    std::string array_id;    // %F: the array job's id (the job's own id when it is no array)
    std::string task;        // %K: the array task's index, or "N/A"
    std::string state;       // %T: PENDING, RUNNING, COMPLETED, ...
    std::string reason;      // %r: why it waits, or "None"
};
struct Queue {
    bool ok = false;
    std::string error;       // when not ok: squeue's status and output
    std::vector<Entry> jobs;
};
// This user's jobs, one line per array task; `finished_too`: ended jobs as well, while Slurm keeps
// them (MinJobAge). `attempts`: tries a few seconds apart (a busy or restarting controller).
Queue queue(bool finished_too, int attempts = 1);

// The states in which a job may still run or report (pending, running, completing, suspended,
// being requeued, ...); every other state has ended.
bool alive(const std::string& state);

// scontrol release ID: "" when done, else what went wrong.
std::string release(const std::string& id);
// scancel ID, best effort.
void cancel(const std::string& id);

// Array indices must stay below this cluster's MaxArraySize (1001 unless it says otherwise).
std::size_t max_array_size();

// The full path of Slurm's `tool` on PATH; an Error saying how to get it when it is missing.
std::string need_tool(const std::string& tool);

}  // namespace workbook::grading::slurm
