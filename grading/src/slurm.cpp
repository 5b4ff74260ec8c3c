// The one Slurm client (see slurm.hpp).
#include "workbook/grading/slurm.hpp"

#include "workbook/errors.hpp"
#include "workbook/process.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace workbook::grading::slurm {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A command's output for a one-line message.
std::string flat(const std::string& s) {
    std::string out = sanitize(s, 500);
    for (char& c : out)
        if (c == '\n') c = ' ';
    return out;
}

}  // namespace

std::string need_tool(const std::string& tool) {
    if (std::string found = find_on_path(tool); !found.empty()) return found;
    throw Error(fmt::format("Slurm's {} is not on PATH: install Slurm's client commands (Debian: apt-get install "
                            "slurm-client) or run this on the cluster's login node",
                            tool));
}

Submitted submit(const Job& job) {
    std::vector<std::string> argv = {need_tool("sbatch"), "--parsable"};
    if (job.hold) argv.push_back("--hold");
    if (!job.name.empty()) argv.push_back("--job-name=" + job.name);
    if (!job.array.empty()) argv.push_back("--array=" + job.array);
    if (!job.output.empty()) argv.push_back("--output=" + job.output.string());
    if (!job.chdir.empty()) argv.push_back("--chdir=" + job.chdir.string());
    if (job.cpus_per_task > 0) argv.push_back(fmt::format("--cpus-per-task={}", job.cpus_per_task));
    if (!job.partition.empty()) argv.push_back("--partition=" + job.partition);
    if (!job.gres.empty()) argv.push_back("--gres=" + job.gres);
    if (!job.constraint.empty()) argv.push_back("--constraint=" + job.constraint);
    argv.insert(argv.end(), job.extra.begin(), job.extra.end());
    argv.insert(argv.end(), job.command.begin(), job.command.end());
    const auto r = run_process(argv, 120s, {}, 64 * 1024);
    // --parsable prints "jobid" or "jobid;cluster" on its last line (warnings may come first).
    std::string id;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) id = line.substr(0, line.find(';'));
    if (!r.passed() || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        return {{}, fmt::format("{}:\n{}\nThe command: {}", r.status(), sanitize(r.output, 4000),
                                fmt::format("{}", fmt::join(argv, " ")))};
    return {id, {}};
}

Queue queue(bool finished_too, int attempts) {
    std::vector<std::string> argv = {need_tool("squeue"), "--noheader", "--array", "--me", "--format=%i|%F|%K|%T|%r"};
    if (finished_too) argv.push_back("--states=all");
    ProcessResult r;
    for (int attempt = 0; attempt < std::max(1, attempts); ++attempt) {
        if (attempt > 0) std::this_thread::sleep_for(5s);
        r = run_process(argv, 60s, {}, 4 << 20);
        if (r.passed()) break;
    }
    Queue q;
    if (!r.passed()) {
        q.error = fmt::format("squeue failed ({}): {}", r.status(), sanitize(r.output, 2000));
        return q;
    }
    q.ok = true;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string x; std::getline(fields, x, '|');) f.push_back(x);
        if (f.size() < 4) continue;
        q.jobs.push_back({f[0], f[1], f[2], f[3], f.size() > 4 ? f[4] : std::string()});
    }
    return q;
}

bool alive(const std::string& state) {
    static const std::set<std::string> states = {"PENDING",  "CONFIGURING", "RUNNING",    "COMPLETING",
                                                 "SUSPENDED", "REQUEUED",   "REQUEUE_HOLD", "REQUEUE_FED",
                                                 "RESIZING",  "SIGNALING",  "STAGE_OUT",    "STOPPED"};
    return states.count(state) > 0;
}

std::string release(const std::string& id) {
    const auto r = run_process({need_tool("scontrol"), "release", id}, 60s, {}, 64 * 1024);
    return r.passed() ? std::string() : fmt::format("scontrol release {} failed: {}", id, flat(r.output));
}

std::size_t max_array_size() {
    const auto config = run_process({need_tool("scontrol"), "show", "config"}, 60s, {}, 1 << 20);
    if (const auto at = config.output.find("MaxArraySize"); config.passed() && at != std::string::npos)
        if (const auto eq = config.output.find('=', at); eq != std::string::npos)
            if (const auto n = std::strtoul(config.output.c_str() + eq + 1, nullptr, 10); n > 0) return n;
    return 1001;
}

void cancel(const std::string& id) {
    try {
        run_process({need_tool("scancel"), id}, 60s);
    } catch (const Error&) {
        // No scancel: nothing more to do than report the job, which the callers do.
    }
}

}  // namespace workbook::grading::slurm
