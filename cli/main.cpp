// `workbook`: the students' command. With no verb it watches the current exercise (watch.cpp);
// the other verbs are for one-off use and scripts. Exit status: 0 ok, 1 a check failed, 2 error.
#include "checker.hpp"
#include "tune.hpp"
#include "handin.hpp"
#include "lab.hpp"
#include "reset.hpp"
#include "term.hpp"
#include "watch.hpp"
#include "workspace.hpp"

#include "workbook/grading/commands.hpp"
#include "server/commands.hpp"

#include "workbook/device.hpp"
#include "workbook/doctor.hpp"
#include "workbook/errors.hpp"
#include "workbook/text.hpp"
#include "workbook/run_main.hpp"

#include <CLI/CLI.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

namespace cli = workbook::cli;
namespace fs = std::filesystem;

namespace {

int check_command(cli::Workspace& ws, const cli::Style& style, const std::vector<std::string>& which, bool all,
                  bool verbose, bool remote, const std::string& on) {
    std::vector<const workbook::Exercise*> list;
    if (all)
        for (const auto& ex : ws.course().exercises) list.push_back(&ex);
    for (const auto& key : which) list.push_back(&ws.find(key));
    if (list.empty()) list.push_back(&ws.current());
    std::size_t passed = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const auto& ex = *list[i];
        if (list.size() > 1) fmt::print("[{}/{}] ", i + 1, list.size());
        const auto start = std::chrono::steady_clock::now();
        // Each step as it comes: a failure ends the check before the slower steps.
        const auto progress = [&style](const std::string& s) {
            fmt::print("{}\n", style.dim(fmt::format("  {}...", s)));
            std::fflush(stdout);
        };
        const auto r = remote ? cli::check_remotely(ws, ex, progress, on) : cli::check_exercise(ws, ex, progress);
        cli::record_check(ws, ex, r);
        passed += r.passed();
        fmt::print("{}", cli::format_result(ex, r, style, verbose));
        if (list.size() == 1)
            fmt::print("{}\n", style.dim(fmt::format(
                                   "checked in {:.1f} s", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count())));
    }
    if (list.size() > 1) fmt::print("\n{} of {} passed\n", passed, list.size());
    return passed == list.size() ? workbook::exit_ok : workbook::exit_wrong_result;
}

int progress_command(const cli::Workspace& ws, const cli::Style& style) {
    const auto& course = ws.course();
    fmt::print("{}\n{}\n\n", style.bold(course.title), cli::progress_bar(ws.done_count(), course.exercises.size()));
    for (const auto& ex : course.exercises) {
        const auto& p = ws.progress(ex);
        std::string detail;
        if (!p.passed_at.empty()) detail += "passed " + p.passed_at;
        if (p.hints_shown > 0) detail += fmt::format("{}{} of {} hints used", detail.empty() ? "" : ", ", p.hints_shown,
                                                     ex.hints.size());
        fmt::print("  {}  {:<8} {:<44} {}\n", ex.id, cli::status_name(p.status), ex.title, style.dim(detail));
    }
    fmt::print("\nCurrent: {} {} (run `workbook` to work on it)\n", ws.current().id, ws.current().title);
    fmt::print("{}\n", style.dim(cli::lab_status_line(ws)));
    return workbook::exit_ok;
}

int solution_command(cli::Workspace& ws, const workbook::Exercise& ex, bool instructor, bool copy) {
    if (ws.progress(ex).status != cli::Status::done && !instructor)
        throw workbook::Error(fmt::format("exercise {} has not passed yet, so its solution stays hidden. Keep going: "
                                          "`workbook hint {}` gives the next hint. (Instructors: --instructor.)",
                                          ex.id, ex.id));
    if (copy) {
        const fs::path backup = cli::back_up(ws, ex);
        for (const auto& f : ex.edit)
            fs::copy_file(ws.solution_dir(ex) / f, ws.exercise_dir(ex) / f, fs::copy_options::overwrite_existing);
        fmt::print("Copied the solution of {} over your files; yours are kept in {}\n", ex.dir(),
                   fs::relative(backup, ws.root()).string());
        return workbook::exit_ok;
    }
    for (const auto& f : ex.edit)
        fmt::print("==> solutions/{}/{} <==\n{}\n", ex.dir(), f, workbook::read_file_or_empty(ws.solution_dir(ex) / f));
    return workbook::exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("OpenCL Workbook: hands-on OpenCL exercises, from device info to fast matrix multiplication.\n"
                 "With no command it watches the current exercise and checks it whenever you save.");
    std::string root = WORKBOOK_SOURCE_DIR, build = WORKBOOK_BINARY_DIR;
    app.add_option("--root", root, "the workbook's source tree")->check(CLI::ExistingDirectory)->capture_default_str();
    app.add_option("--build-dir", build, "its build tree")->capture_default_str();
    bool verbose = false;
    app.add_flag("-v,--verbose", verbose, "show the whole build and test log under each result");

    cli::WatchOptions watch_options;
    auto* watch = app.add_subcommand("watch", "watch the current exercise: re-check on every save (the default)");
    watch->add_flag("--poll", watch_options.poll, "check files for changes every half second instead of inotify");
    watch->add_flag("--remote", watch_options.remote,
                    "check on your class's server (after `workbook join`): its device runs the graded test");
    watch->add_option("--on", watch_options.on, "with --remote: the server's device to check on (`workbook progress` "
                                                "lists them; default: its first)");
    auto* list = app.add_subcommand("list", "the exercises in course order with their status");
    auto* next = app.add_subcommand("next", "move on to the exercise after the current one (once it passes)");
    std::string go_to;
    auto* go = app.add_subcommand("go", "make EX the current exercise");
    go->add_option("EX", go_to, "number, name or folder, e.g. 03")->required();
    std::vector<std::string> check_which;
    bool check_all = false;
    auto* check = app.add_subcommand("check", "check exercises without watching; exit 0 when all pass, 1 otherwise");
    check->add_option("EX", check_which, "exercises to check (default: the current one)");
    check->add_flag("--all", check_all, "check every exercise");
    bool check_remote = false;
    check->add_flag("--remote", check_remote,
                    "check on your class's server (after `workbook join`): its device runs the graded test");
    std::string check_on;
    check->add_option("--on", check_on, "with --remote: the server's device to check on (`workbook progress` lists "
                                        "them; default: its first)");
    std::string hint_ex, reset_ex, solution_ex;
    auto* hint = app.add_subcommand("hint", "the next hint of an exercise's ladder, one more each time");
    hint->add_option("EX", hint_ex, "default: the current exercise");
    auto* reset = app.add_subcommand("reset", "restore an exercise's starter files, or every exercise's (--all); "
                                              "yours are backed up first");
    bool reset_all = false;
    auto* reset_which = reset->add_option("EX", reset_ex, "number, name or folder");
    reset->add_flag("--all", reset_all, "every exercise, backed up together into one folder first")
        ->excludes(reset_which);
    std::string handin_out;
    auto* handin = app.add_subcommand("handin", "pack the files you edit into one .tar.gz to hand in (what `workbook "
                                                "grade` reads), and say what is missing or left out");
    handin->add_option("-o,--output", handin_out, "the .tar.gz to write, or a folder for it (default: "
                                                  "handin-<date>-<time>.tar.gz in the workbook's folder)");
    bool instructor = false, copy = false;
    auto* solution = app.add_subcommand("solution", "show the solution of an exercise you have passed");
    solution->add_option("EX", solution_ex, "number, name or folder")->required();
    solution->add_flag("--copy", copy, "copy it over your files (they are backed up first)");
    solution->add_flag("--instructor", instructor, "show it even if the exercise has not passed");
    std::string tune_ex;
    bool tune_reference = false;
    auto* tune = app.add_subcommand("tune", "try every candidate shape of an exercise's kernel on this device (exercise "
                                            "20) and write the fastest correct one into the kernel file");
    tune->add_option("EX", tune_ex, "default: the current exercise");
    int tune_n = 0;
    tune->add_option("--n", tune_n, "the matrix order to tune at (default: the speed check's, 512 on a CPU, 2048 on a GPU); "
                                    "a line per N is kept, and the check uses the one nearest its own N")
        ->check(CLI::Range(16, 16384));
    tune->add_flag("--reference", tune_reference,
                   "instructors: tune the solution instead, for the speed check's reference on this device");
    auto* progress = app.add_subcommand("progress", "a summary of your progress (and whether checks go to a class)");
    std::string join_url, join_token;
    auto* join = app.add_subcommand("join", "report your checks to your class's server, for the instructor's lab "
                                            "dashboard (pass or fail, the failure's kind, time, hints; never code)");
    join->add_option("URL", join_url, "the server's address, e.g. http://10.0.0.5:8080")->required();
    join->add_option("--token", join_token, "your token from the instructor (default: WORKBOOK_CONTEST_TOKEN, or asked)");
    auto* leave = app.add_subcommand("leave", "stop reporting checks to the class (drops reports not yet sent)");
    auto* lab_send = app.add_subcommand("lab-send", "(internal) send the reports waiting in .workbook/lab-outbox/");
    lab_send->group("");
    auto* doctor = app.add_subcommand("doctor", "check the OpenCL installation: drivers, platforms, devices, Oclgrind");
    auto* devices = app.add_subcommand("devices", "list the OpenCL platforms and devices");
    // The instructor's verbs (grade, calibrate, gradescope-package) are the grader's front door.
    const auto run_instructor = workbook::grading::add_commands(app, root, build);
    CLI::App* contest = nullptr;
    const cli::Style out_style = cli::Style::for_fd(1);
    workbook::server::CommandHooks hooks;
    hooks.joined_token = [&root](const std::string& server) {
        const auto c = cli::read_class_file(fs::path(root) / ".workbook" / "class.toml");
        return c && c->server == server ? c->token : std::string();
    };
    hooks.bold = [out_style](const std::string& t) { return out_style.bold(t); };
    const auto run_contest = workbook::server::add_contest_command(app, contest, root, build, hooks);
    app.require_subcommand(0, 1);
    CLI11_PARSE(app, argc, argv);

    const cli::Style style = cli::Style::for_fd(1);
    try {
        if (*doctor) return workbook::run_doctor({style.color});
        if (*devices) {
            fmt::print("{}", workbook::format_device_list(workbook::list_devices()));
            fmt::print("Choose one with WORKBOOK_PLATFORM / WORKBOOK_DEVICE (index or part of the name), e.g. "
                       "WORKBOOK_DEVICE=1 workbook\n");
            return workbook::exit_ok;
        }
        if (*contest) return run_contest();
        if (const auto status = run_instructor()) return *status;
        cli::Workspace ws(root, build);
        if (*list) {
            fmt::print("{}\n\n{}", style.bold(ws.course().title), cli::format_list(ws, style));
            fmt::print("\n`workbook` watches the current exercise (>); `workbook go NN` jumps to another.\n");
            return workbook::exit_ok;
        }
        if (*next) {
            const auto& cur = ws.current();
            if (ws.progress(cur).status != cli::Status::done)
                throw workbook::Error(fmt::format("exercise {} has not passed yet: `workbook check` shows why, or "
                                                  "`workbook go NN` jumps anyway",
                                                  cur.id));
            const auto* n = ws.next_after(cur);
            if (!n) {
                fmt::print("{} was the last exercise: the course is complete.\n", cur.id);
                return workbook::exit_ok;
            }
            ws.set_current(*n);
            ws.save();
            fmt::print("Now on {} {}: edit exercises/{}/ and run `workbook`.\n", n->id, n->title, n->dir());
            return workbook::exit_ok;
        }
        if (*go) {
            const auto& ex = ws.find(go_to);
            ws.set_current(ex);
            ws.save();
            fmt::print("Now on {} {}: edit exercises/{}/ and run `workbook`.\n", ex.id, ex.title, ex.dir());
            return workbook::exit_ok;
        }
        if (*check) return check_command(ws, style, check_which, check_all, verbose, check_remote || !check_on.empty(), check_on);
        if (*hint) {
            const auto& ex = hint_ex.empty() ? ws.current() : ws.find(hint_ex);
            fmt::print("{} {}\n{}\n", ex.id, ex.title, cli::next_hint(ws, ex));
            return workbook::exit_ok;
        }
        if (*reset) {
            if (reset_all) return cli::reset_all_command(ws);
            if (reset_ex.empty())
                throw workbook::Error("reset which exercise? `workbook reset 02`, or `workbook reset --all`");
            return cli::reset_command(ws, ws.find(reset_ex));
        }
        if (*handin) return cli::handin_command(ws, handin_out);
        if (*solution) return solution_command(ws, ws.find(solution_ex), instructor, copy);
        if (*progress) return progress_command(ws, style);
        if (*join) return cli::join_command(ws, join_url, join_token);
        if (*leave) return cli::leave_command(ws);
        if (*lab_send) return cli::lab_send(ws);
        if (*tune) return cli::tune_command(ws, tune_ex.empty() ? ws.current() : ws.find(tune_ex), tune_reference, tune_n);
        watch_options.verbose = verbose;
        if (!watch_options.on.empty()) watch_options.remote = true;
        return cli::run_watch(ws, style, watch_options);
    } catch (...) {
        fmt::print(stderr, "{}\n", workbook::describe_exception(std::current_exception()));
        return workbook::exit_error;
    }
}
