// fork/exec with a pipe, a deadline and a process group, so a hung or forking child is killed
// whole (see process.hpp).
#include "workbook/process.hpp"

#include "workbook/errors.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace workbook {

std::string ProcessResult::status() const {
    if (timed_out) return fmt::format("timed out after {:.0f} s", seconds);
    if (cancelled) return fmt::format("stopped by its caller after {:.0f} s", seconds);
    if (signaled) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
    return fmt::format("exit {}", exit_code);
}

namespace {

// This thread's waited-for children, in processor seconds (see thread_work_cpu_seconds).
thread_local double children_cpu_seconds = 0.0;

double seconds_of(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

ProcessResult spawn(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                    const std::vector<std::string>& extra_env, const ProcessLimits* limits, std::size_t output_cap,
                    const std::atomic<bool>* cancel) {
    if (argv.empty()) throw Error("run_process: empty command");
    // Everything the child needs is made here, before fork: after it, the child of a threaded
    // parent may only call what is safe there (no allocation).
    int input = -1;
    if (limits) {
        // The input in an anonymous memory file: no folder to write it in (a sandbox may have
        // none), and no pipe to keep fed while the output is read.
        input = memfd_create("workbook-stdin", MFD_CLOEXEC);
        if (input < 0) throw Error(fmt::format("memfd_create failed: {}", std::strerror(errno)));
        const std::string& text = limits->stdin_text;
        for (std::size_t done = 0; done < text.size();) {
            const ssize_t n = write(input, text.data() + done, text.size() - done);
            if (n <= 0 && errno != EINTR) {
                const int why = errno;
                close(input);
                throw Error(fmt::format("cannot write a child's input: {}", std::strerror(why)));
            }
            if (n > 0) done += static_cast<std::size_t>(n);
        }
        lseek(input, 0, SEEK_SET);
    }
    std::vector<char*> envp;
    if (limits && limits->environment) {
        for (const auto& e : *limits->environment) envp.push_back(const_cast<char*>(e.c_str()));
        envp.push_back(nullptr);
    }
    int fds[2];
    if (pipe(fds) != 0) {
        if (input >= 0) close(input);
        throw Error(fmt::format("pipe failed: {}", std::strerror(errno)));
    }

    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    Stopwatch clock;
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        const int why = errno;
        for (int fd : {fds[0], fds[1], input})
            if (fd >= 0) close(fd);
        throw Error(fmt::format("fork failed: {}", std::strerror(why)));
    }
    if (pid == 0) {
        setpgid(0, 0);
        // Dies with us: a judge or grader killed with SIGKILL leaves no child running unbounded.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (limits) {
            dup2(input, STDIN_FILENO);
            if (limits->cpu_seconds > 0) {
                const rlimit cpu{static_cast<rlim_t>(limits->cpu_seconds), static_cast<rlim_t>(limits->cpu_seconds)};
                setrlimit(RLIMIT_CPU, &cpu);
            }
            if (limits->environment) {
                execvpe(args[0], args.data(), envp.data());
                // Never on to the inherited environment below.
                std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
                _exit(127);
            }
        }
        for (const auto& e : extra_env) putenv(const_cast<char*>(e.c_str()));
        execvp(args[0], args.data());
        std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);  // also here, so the group exists before any kill below
    close(fds[1]);
    if (input >= 0) close(input);

    ProcessResult result;
    char buffer[65536];
    bool open = true;
    while (open) {
        const double left_ms = static_cast<double>(timeout.count()) - clock.seconds() * 1e3;
        if (left_ms <= 0) {
            result.timed_out = true;
            kill(-pid, SIGKILL);
            break;
        }
        if (cancel && *cancel) {
            result.cancelled = true;
            kill(-pid, SIGKILL);
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int ready = poll(&p, 1, static_cast<int>(std::min(left_ms, cancel ? 100.0 : 1000.0)) + 1);
        if (ready < 0 && errno != EINTR) break;
        if (ready <= 0) continue;
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n <= 0) {
            open = false;
            continue;
        }
        const std::size_t room = output_cap - std::min(output_cap, result.output.size());
        result.output.append(buffer, std::min<std::size_t>(room, static_cast<std::size_t>(n)));
        result.dropped_bytes += static_cast<std::size_t>(n) - std::min<std::size_t>(room, static_cast<std::size_t>(n));
        if (limits && result.dropped_bytes > 0) {  // a bounded child: past its cap it is stopped, not drained
            kill(-pid, SIGKILL);
            break;
        }
    }
    close(fds[0]);
    int status = 0;
    rusage usage{};
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    kill(-pid, SIGKILL);  // whatever it forked and left behind goes too
    result.seconds = clock.seconds();
    result.cpu_seconds = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
    children_cpu_seconds += result.cpu_seconds;
    if (!result.timed_out && !result.cancelled) {
        if (WIFSIGNALED(status)) {
            result.signaled = true;
            result.signal = WTERMSIG(status);
        } else {
            result.exit_code = WEXITSTATUS(status);
        }
    }
    return result;
}

}  // namespace

double thread_work_cpu_seconds() {
    timespec own{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &own);
    return static_cast<double>(own.tv_sec) + static_cast<double>(own.tv_nsec) * 1e-9 + children_cpu_seconds;
}

void count_thread_work_cpu(double seconds) { children_cpu_seconds += seconds; }

ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::vector<std::string>& extra_env, std::size_t output_cap,
                          const std::atomic<bool>* cancel) {
    return spawn(argv, timeout, extra_env, nullptr, output_cap, cancel);
}

ProcessResult run_bounded(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const ProcessLimits& limits, std::size_t output_cap) {
    return spawn(argv, timeout, {}, &limits, output_cap, nullptr);
}

std::string find_on_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    for (std::size_t at = 0; at <= dirs.size();) {
        const std::size_t end = std::min(dirs.find(':', at), dirs.size());
        const std::string dir = dirs.substr(at, end - at);
        if (!dir.empty()) {
            const std::string candidate = dir + "/" + program;
            if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        }
        at = end + 1;
    }
    return {};
}

std::string hostname() {
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? name : "";
}

}  // namespace workbook
