// `workbook tune EX`: the exercise's tuner (testing.hpp's run_tuner) on the student's own kernel,
// its table shown live, then the fastest correct shape written into the kernel file as a
// `// tuned:` line for this device (tuning.hpp). With --reference (instructors) it tunes the
// solution instead and keeps the result in the reference file, which the speed check reads.
#include "tune.hpp"

#include "checker.hpp"

#include "workbook/errors.hpp"
#include "workbook/process.hpp"
#include "workbook/random.hpp"
#include "workbook/text.hpp"
#include "workbook/tuning.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace workbook::cli {

namespace {

// Runs argv with this process's terminal, so the tuner's progress shows as it comes.
int run_attached(const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    if (const int e = posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ); e != 0)
        throw Error(fmt::format("could not start {}: {}", argv[0], std::strerror(e)));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw Error(fmt::format("lost {}: {}", argv[0], std::strerror(errno)));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int tune_command(const Workspace& ws, const Exercise& ex, bool reference, int n) {
    if (ex.kernels.empty()) throw Error(fmt::format("exercise {} has no kernel to tune", ex.id));
    fmt::print("building {} (its graded test, which holds the tuner)\n", ex.dir());
    std::fflush(stdout);
    const auto build = run_process({"cmake", "--build", ws.build().string(), "--target", ws.test_target(ex)},
                                   std::chrono::seconds(600), {}, 256 * 1024);
    if (!build.passed()) {
        fmt::print("The build failed:\n");
        for (const auto& p : summarize_build_output(build.output)) fmt::print("{}\n", p);
        return exit_error;
    }
    fs::create_directories(ws.state_dir());
    const fs::path out = ws.state_dir() / ("tuned-" + random_hex(8));
    ::setenv("WORKBOOK_TUNE", out.c_str(), 1);
    if (reference) ::setenv("WORKBOOK_TUNE_REFERENCE", "1", 1);
    if (n > 0) ::setenv("WORKBOOK_SPEED_N", std::to_string(n).c_str(), 1);
    const int status = run_attached({ws.test_binary(ex).string()});
    const std::string line = read_file_or_empty(out);
    std::error_code gone;
    fs::remove(out, gone);
    if (status == 2 && line.empty())
        throw Error(fmt::format("exercise {} has no tuner: its kernel's shape is fixed by its launch (exercise 20's is "
                                "a choice of build options)",
                                ex.id));
    if (status != 0 || line.empty()) return exit_error;
    const auto lines = tuning::read_lines(line);
    if (lines.size() != 1) throw Error("the tuner's result cannot be read: " + line);
    if (reference) return exit_ok;  // the tuner stored it in the reference file
    const fs::path kernel = ws.exercise_dir(ex) / ex.kernels.front();
    const std::string source = read_file_or_empty(kernel);
    const std::string updated = tuning::with_line(source, lines.front());
    const fs::path partial = kernel.string() + ".partial";
    {
        std::ofstream f(partial, std::ios::binary);
        f << updated;
        if (!f) throw Error(fmt::format("could not write {}", partial.string()));
    }
    fs::rename(partial, kernel);
    fmt::print("Wrote into {}:\n  {}\n`workbook check {}` now times your kernel at this shape on this device (at the N nearest {}).\n",
               kernel.string(), tuning::format_line(lines.front()), ex.id, lines.front().n);
    return exit_ok;
}

}  // namespace workbook::cli
