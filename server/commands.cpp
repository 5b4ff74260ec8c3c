// The contest verbs (see contest_cmd.hpp).
#include "server/commands.hpp"


#include "contest/alias.hpp"
#include "contest/board.hpp"
#include "contest/db.hpp"
#include "client/client.hpp"
#include "contest/final.hpp"
#include "contest/judge.hpp"
#include "contest/reference.hpp"
#include "contest/run_one.hpp"
#include "contest/window.hpp"
#include "server/serve.hpp"
#include "server/slurm_jobs.hpp"

#include "workbook/device.hpp"
#include "workbook/errors.hpp"
#include "workbook/manifest.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <thread>

namespace workbook::server {

namespace {

struct ContestArgs {
    std::string db = "contest.db";
    std::string file, alias;
    int interval = 60;
    bool loop = false, reference = false, per_device = false, history = false;
    std::int64_t retry_id = 0;
    std::string retry_device, devices, merge_file, merge_board, merge_from;
    server::JudgeJobOptions job;
    server::JudgeJobOptions check_job;
    int reference_n = 1024;  // the size the judge ranks at: the reference's parameters are chosen for it
    contest::JudgeOptions judge;
    contest::RunOneOptions run_one;
    std::string host = "127.0.0.1", token;
    int port = 8080;
    std::string roster, tokens_file;
    std::vector<std::string> reissue;
    int max_queued = 3, max_per_address = 10;
    double request_deadline_s = 10;
    int time_limit_s = 120, race_time_limit_s = 300;
    std::string gradescope;
    std::string opens, closes, reason, export_dir;
    std::int64_t withdraw_id = 0;
    bool public_board = false, with_sources = false, final_board = false;
    contest::FinalOptions final;
    std::string server;  // the participant's client: a contest server's address
    int check_n = 256;
    bool lab = false;    // serve the lab dashboard
    std::vector<std::string> remote_checks;  // exercises offered for remote checks
    int remote_interval_s = 10;
    int remote_timeout_s = 0;
    int remote_batch = 1;
    double stuck_after_min = 15;
    std::string lab_token_file;
};

std::string naive_baseline(const std::string& root) {
    return "// contest: global = roundup(N, 16), roundup(N, 16)\n// contest: local = 16, 16\n" +
           read_file(root + "/solutions/05_mmul_naive/mmul.cl");
}

}  // namespace

// `contest check`: what the judge checks, on this machine, before an upload. Nothing is stored.
// No sandbox: the kernel is the participant's own, on their own machine.
int check_kernel(const std::string& file, int n, contest::JudgeOptions options) {
    contest::Submission entry;
    entry.alias = "check";
    entry.file_name = std::filesystem::path(file).filename().string();
    entry.source = read_file(file);
    contest::parse_declaration(entry.source);
    options.ranking_n = n;
    options.sandbox = false;
    const std::string race = contest::race_check_skipped(options);
    if (options.race_check && !race.empty()) {
        fmt::print(stderr, "race pass: not run here ({}); the judge runs it: apt-get install oclgrind to run it too\n", race);
        options.race_check = false;
    }
    fmt::print("checking {} as the judge does (sizes 1, 17, 100, 257, two secret ones and {}{})...\n", file, n,
               options.race_check ? ", then the race pass under Oclgrind" : "");
    std::fflush(stdout);
    const contest::Outcome r = contest::judge_source(entry, options);
    if (r.status != "done") {
        fmt::print("{}: {}\n", r.status == "rejected" ? "the judge would reject it" : "the check could not run", r.reason);
        return exit_wrong_result;
    }
    fmt::print("ok: correct at every size{}; {:.2f} GFLOPS here at N = {} ({}). Upload it with `workbook contest "
               "submit {} --server URL`\n",
               options.race_check ? ", the race pass clean" : "", r.run.gflops, n, r.run.device, file);
    return exit_ok;
}

std::function<int()> add_contest_command(CLI::App& app, CLI::App*& contest, const std::string& root,
                                         const std::string& build, CommandHooks hooks) {
    auto a = std::make_shared<ContestArgs>();
    contest = app.add_subcommand("contest", "the matmul contest: submit kernels, judge them, show the board");
    contest->add_option("--db", a->db, "the contest database")->capture_default_str();
    contest->require_subcommand(1);
    auto* submit = contest->add_subcommand("submit", "queue a kernel file for the judge");
    submit->add_option("FILE", a->file, "the .cl file with mmul and its // contest: declaration")->required()
        ->check(CLI::ExistingFile);
    submit->add_option("--alias", a->alias,
                       "the name on the board (with --server and your own token: optional, the roster's or your first)");
    submit->add_option("--interval", a->interval, "seconds between two submissions of one alias")->capture_default_str();
    // The participant's side: a contest server instead of the database (client/client.hpp).
    const auto server_option = [&](CLI::App* cmd, const char* what) {
        cmd->add_option("--server", a->server, what);
        cmd->add_option("--token", a->token,
                        "your upload token (default: $WORKBOOK_CONTEST_TOKEN, or the one `workbook join` stored for "
                        "this server)")
            ->envname("WORKBOOK_CONTEST_TOKEN");
    };
    server_option(submit, "upload to this contest server (http://host:port) instead of queueing in --db");
    auto* judge = contest->add_subcommand("judge", "judge queued submissions on the device WORKBOOK_* chooses");
    judge->add_flag("--loop", a->loop, "keep waiting for new submissions");
    judge->add_option("--n", a->judge.ranking_n, "the ranking size N")->capture_default_str();
    judge->add_option("--repeats", a->judge.repeats, "timed launches, spread over the sittings")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    judge->add_option("--sittings", a->judge.sittings,
                      "runner processes the timed launches are spread over (a process's own luck then shows in "
                      "the entry's spread)")
        ->capture_default_str()
        ->check(CLI::Range(1, 8));
    judge->add_option("--gradescope", a->gradescope,
                      "write Gradescope's results.json (score and GFLOPS leaderboard) for the last judged submission");
    judge->add_option("--time-limit", a->time_limit_s, "seconds for the whole check of one submission")
        ->capture_default_str();
    judge->add_option("--race-time-limit", a->race_time_limit_s,
                      "seconds for the race pass under Oclgrind, which simulates every work-item")
        ->capture_default_str();
    auto* baseline = contest->add_subcommand("baseline", "queue the instructor's naive kernel (the x-naive column)");
    baseline->add_flag("--reference", a->reference,
                       "queue the instructor's tuned kernel instead, with the parameters for the device WORKBOOK_* "
                       "chooses here (tuned by `mmul_bench --tune`, else from the device's properties)");
    baseline->add_option("--n", a->reference_n,
                         "with --reference: the ranking size the judge will use (`judge --n`); the tuned kernel's "
                         "parameters are chosen for it")
        ->capture_default_str();
    baseline->add_flag("--per-device", a->per_device,
                       "with --reference: queue it so that each device of a zoo (serve --devices) judges the tuned "
                       "kernel chosen on that device")
        ->needs("--reference");
    auto* board = contest->add_subcommand("board", "the leaderboard per device, and across devices when there are two");
    board->add_flag("--public", a->public_board,
                    "as the page shows it (while frozen: the runs up to the freeze); default: every run");
    board->add_flag("--final", a->final_board, "the final's board (`contest final`): its runs only");
    board->add_option("--server", a->server, "the live board of this contest server (http://host:port)");
    auto* check = contest->add_subcommand(
        "check", "the judge's checks on your kernel here, before you upload it: its declaration, every size, the race pass");
    check->add_option("FILE", a->file, "the .cl file with mmul and its // contest: declaration")->required()
        ->check(CLI::ExistingFile);
    check->add_option("--n", a->check_n, "the size it is timed at here (the judge ranks at the contest's own)")
        ->capture_default_str()
        ->check(CLI::Range(16, 4096));
    check->add_flag("!--no-race-check", a->judge.race_check, "skip the race pass (Oclgrind)");
    auto* final = contest->add_subcommand(
        "final", "after the close: judge the top entries of a board again on fresh inputs, with more sittings and "
                 "nothing else judging, for the final board");
    final->add_option("--top", a->final.top, "student entries to judge again (the baseline and reference rows come too)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    final->add_option("--board", a->final.board, "the board, when the contest has several (`contest board` names them)");
    final->add_option("--more", a->final.more, "the contest's sittings (up to 8), repeats and time limit times this")
        ->capture_default_str()
        ->check(CLI::Range(1, 10));
    // The contest's settings, as `contest judge` had them.
    final->add_option("--n", a->judge.ranking_n, "the contest's ranking size N (as `contest judge --n`)")->capture_default_str();
    final->add_option("--repeats", a->judge.repeats, "the contest's timed launches (as `contest judge --repeats`)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    final->add_option("--sittings", a->judge.sittings, "the contest's sittings (as `contest judge --sittings`)")
        ->capture_default_str()
        ->check(CLI::Range(1, 8));
    final->add_option("--time-limit", a->time_limit_s, "the contest's seconds for one check (as `contest judge`)")
        ->capture_default_str();
    final->add_option("--race-time-limit", a->race_time_limit_s, "seconds for the race pass")->capture_default_str();
    final->add_flag("!--no-race-check", a->judge.race_check, "judge again without the race pass (Oclgrind)");
    auto* open = contest->add_subcommand("open", "take entries from now (a contest that had closed opens again)");
    auto* close = contest->add_subcommand("close", "take no more entries from now (the board stays; judging goes on)");
    auto* freeze = contest->add_subcommand(
        "freeze", "the public board stops changing: entries are still taken and judged, shown once the contest closes");
    auto* withdraw = contest->add_subcommand("withdraw", "hide an entry from every board, keeping it and the reason");
    withdraw->add_option("ID", a->withdraw_id, "the submission (`workbook contest status` lists them)")->required();
    withdraw->add_option("--reason", a->reason, "why, kept in its history and the export")->required();
    auto* export_cmd = contest->add_subcommand(
        "export", "write the boards, every run, every submission and its history as CSV and JSON into a folder");
    export_cmd->add_option("DIR", a->export_dir, "a new or empty folder")->required();
    export_cmd->add_flag("--with-sources", a->with_sources, "also each entry's kernel, as sources/<id>.cl");
    auto* status = contest->add_subcommand("status", "every submission with its status and reason (per device in a zoo)");
    server_option(status, "your entries on this contest server (http://host:port): states, reasons, queue places");
    status->add_option("--alias", a->alias, "with the workshop's shared token: whose entries");
    status->add_flag("--history", a->history, "also every state each judging went through, with its time");
    auto* checks = contest->add_subcommand("checks", "the remote checks (`contest serve --remote-checks`): each with its "
                                                     "student, exercise, state, verdict and device");
    auto* retry = contest->add_subcommand("retry", "queue a zoo's failed judgings again (a Slurm job that failed, was "
                                                   "cancelled or never reported)");
    retry->add_option("ID", a->retry_id, "the submission (default: every one with a failed judging)");
    retry->add_option("--device", a->retry_device, "only the judgings of this zoo device");
    auto* merge = contest->add_subcommand(
        "merge", "bring in a board judged elsewhere (another contest database, from a machine the server cannot reach)");
    merge->add_option("FILE", a->merge_file,
                      "the other contest's database: the same entries (alias and source) judged by `contest judge`")
        ->required()
        ->check(CLI::ExistingFile);
    merge->add_option("--board", a->merge_board, "the name the board gets here")->required();
    merge->add_option("--from-board", a->merge_from, "the other database's board to take, when it has several");
    // This contest's settings, which every merged run must have been judged at (as `contest judge`).
    merge->add_option("--n", a->judge.ranking_n, "this contest's ranking size N: a run at another N is refused")
        ->capture_default_str();
    merge->add_option("--repeats", a->judge.repeats, "this contest's timed launches: a run with others is refused")
        ->capture_default_str();
    auto* reference_source = contest->add_subcommand(
        "reference-source", "(internal) print the tuned reference kernel chosen for the device WORKBOOK_* chooses");
    reference_source->group("");
    reference_source->add_option("--n", a->reference_n);
    auto* run_one = contest->add_subcommand("run-one", "(internal) check and time one kernel; the judge runs it");
    run_one->group("");  // hidden from --help
    run_one->add_option("FILE", a->run_one.kernel_file)->required();
    run_one->add_option("--verdict", a->run_one.verdict_file)->required();
    run_one->add_option("--n", a->run_one.n);
    run_one->add_option("--size", a->run_one.public_sizes);
    run_one->add_option("--secret-sizes", a->run_one.secret_sizes);
    run_one->add_option("--warmups", a->run_one.warmups);
    run_one->add_option("--repeats", a->run_one.repeats);
    run_one->add_option("--sittings", a->run_one.sittings)->check(CLI::Range(1, 8));
    run_one->add_option("--secret-size", a->run_one.secret_list)->check(CLI::Range(1, 16384));
    run_one->add_flag("--race-pass", a->run_one.race_pass);
    run_one->add_option("--race-size", a->run_one.race_sizes)->check(CLI::Range(1, 512));
    judge->add_flag("!--no-race-check", a->judge.race_check,
                    "judge without the Oclgrind race pass (refused otherwise when Oclgrind is missing; see README)");
    judge->add_flag("!--no-sandbox", a->judge.sandbox,
                    "run the entries' runner without bubblewrap (NOT safe against hostile entries; said at start)");
    auto* serve = contest->add_subcommand("serve", "the leaderboard web page, its JSON API and the upload endpoint");
    serve->add_option("--devices", a->devices,
                      "a zoo file: judge each submission on every device it lists, here or through Slurm, one board "
                      "each (README: \"A contest on several devices\")")
        ->check(CLI::ExistingFile);
    auto* judge_job = contest->add_subcommand("judge-job", "(internal) a zoo's Slurm job: judge one submission here");
    judge_job->group("");
    judge_job->add_option("--server", a->job.server)->required();
    judge_job->add_option("--token-file", a->job.token_file)->required();
    judge_job->add_option("--platform", a->job.platform);
    judge_job->add_option("--device", a->job.device);
    judge_job->add_option("--device-type", a->job.device_type);
    auto* check_job = contest->add_subcommand("check-job", "(internal) a zoo's Slurm job: grade one remote check here");
    check_job->group("");
    check_job->add_option("--server", a->check_job.server)->required();
    check_job->add_option("--token-file", a->check_job.token_file)->required();
    check_job->add_option("--platform", a->check_job.platform);
    check_job->add_option("--device", a->check_job.device);
    check_job->add_option("--device-type", a->check_job.device_type);
    serve->add_option("--host", a->host, "address to listen on")->capture_default_str();
    serve->add_option("--port", a->port, "port")->capture_default_str();
    auto* roster = serve->add_option("--roster", a->roster,
                                     "CSV of students (\"id\" or \"id,display name\" per line): each gets an upload "
                                     "token of their own, bound to one alias")
                       ->check(CLI::ExistingFile);
    serve->add_option("--tokens", a->tokens_file,
                      "where the tokens issued now are appended (mode 0600; default: <roster name>-tokens.csv "
                      "beside the roster)")
        ->needs(roster);
    serve->add_option("--reissue", a->reissue, "student ids whose token is replaced (a lost one)")->needs(roster);
    auto* token = serve->add_option("--token", a->token,
                                    "informal mode: ONE upload token shared by everyone, any alias (use --roster for "
                                    "a contest)");
    roster->excludes(token);
    serve->add_option("--opens", a->opens,
                      "take entries from this time on (UTC: 2026-11-27T09:00, 09:00 for today, or +30m from now)");
    serve->add_option("--closes", a->closes, "take no entries from this time on (same forms; `contest close` by hand)");
    serve->add_option("--n", a->judge.ranking_n, "the judge's ranking size N")->capture_default_str();
    serve->add_flag("!--no-race-check", a->judge.race_check,
                    "rank without the Oclgrind race pass (refused otherwise when Oclgrind is missing; the board says "
                    "\"race pass off\")");
    serve->add_flag("!--no-sandbox", a->judge.sandbox,
                    "run the entries' runner without bubblewrap (NOT safe against hostile entries; said at start)");
    serve->add_option("--interval", a->interval, "seconds between two uploads of one student (one alias with --token)")
        ->capture_default_str();
    serve->add_option("--max-queued", a->max_queued, "entries one student (alias) may have waiting at once")
        ->capture_default_str();
    serve->add_option("--request-deadline", a->request_deadline_s,
                      "seconds a client has to send a whole request (headers and body)")
        ->capture_default_str();
    serve->add_option("--max-per-address", a->max_per_address,
                      "open connections per client address (0: no cap, for a server behind a reverse proxy)")
        ->capture_default_str();
    auto* lab = serve->add_flag("--lab", a->lab,
                                "the lab dashboard: joined students' checks (`workbook join`) on a students x "
                                "exercises grid at /lab (instructor's token), counts without names at /room");
    lab->needs(roster);
    serve->add_option("--stuck-after", a->stuck_after_min,
                      "minutes on an exercise without a pass after which the grid marks a student stuck")
        ->needs(lab)
        ->check(CLI::Range(0.01, 1440.0))
        ->capture_default_str();
    serve->add_option("--remote-checks", a->remote_checks,
                      "exercises a joined student may check here (`workbook check NN --remote`), graded by `workbook "
                      "grade` on this server's device (with --devices: on each device of the zoo the student names, here or through "
                      "Slurm), e.g. --remote-checks 15 16 17, or all")
        ->needs(roster);
    serve->add_option("--remote-timeout", a->remote_timeout_s,
                      "seconds per test run of a remote check (default: each exercise's limit): a check that hangs "
                      "holds the device this long")
        ->check(CLI::Range(1, 3600));
    serve->add_option("--remote-batch", a->remote_batch,
                      "a device's waiting remote checks of one exercise graded together, up to this many: the "
                      "exercise's reference runs once for them, but their results come together (1: one at a time; see the "
                      "README)")
        ->check(CLI::Range(1, 16))
        ->capture_default_str();
    serve->add_option("--remote-interval", a->remote_interval_s, "seconds between two remote checks of one student")
        ->check(CLI::Range(0, 3600))
        ->capture_default_str();
    serve->add_option("--lab-token-file", a->lab_token_file,
                      "the instructor's token for /lab (created at the first start, mode 0600; default: "
                      "<db>.instructor-token)")
        ->needs(lab);

    // Plain text where the hooks give no bold (a test's own app).
    const std::function<std::string(const std::string&)> bold =
        hooks.bold ? hooks.bold : [](const std::string& t) { return t; };
    const std::string* course_root = &root;  // both set once the command line is parsed
    const std::string* course_build = &build;
    return [=]() -> int {
        if (*run_one) return contest::run_one(a->run_one);
        if (*reference_source) {
            const DeviceChoice choice = select_device(DeviceQuery::from_environment());
            fmt::print("{}", contest::reference_submission(contest::reference_params(choice.device, a->reference_n)));
            return exit_ok;
        }
        if (*judge_job) return server::judge_job(a->job);
        if (*check_job) return server::check_job(a->check_job);
        if (!a->server.empty()) {
            // The class this workbook joined, when it is this server.
            const std::string token = !a->token.empty() ? a->token : hooks.joined_token ? hooks.joined_token(a->server) : "";
            const client::ClientOptions client{a->server, token, a->alias};
            if (*submit) {
                contest::parse_declaration(read_file(a->file));  // a clear error now rather than a rejection later
                return client::client_submit(client, a->file);
            }
            if (*status) return client::client_status(client);
            return client::client_board(client, bold);
        }
        if (*check) return check_kernel(a->file, a->check_n, a->judge);
        contest::Database db(a->db);
        if (*submit) {
            if (a->alias.empty()) throw Error("contest submit: give --alias (the name on the board)");
            const std::string source = read_file(a->file);
            contest::parse_declaration(source);  // a clear error now rather than a rejection later
            const auto alias = contest::normalise_alias(a->alias);  // the server's rules
            const auto id = db.queue(contest::QueueRequest{"alias:" + alias.key, alias.display, alias.key,
                                                           std::filesystem::path(a->file).filename().string(), source,
                                                           a->interval, 0});
            fmt::print("queued submission {} for {}; `workbook contest judge` runs it\n", id, alias.display);
            return exit_ok;
        }
        if (*baseline && a->per_device) {
            const auto id = db.queue(contest::reference_alias, "mmul_reference.cl", contest::reference_marker, 0);
            fmt::print("queued the tuned reference kernel as submission {}: each device judges the one chosen for it\n",
                       id);
            return exit_ok;
        }
        if (*baseline && a->reference) {
            const DeviceChoice choice = select_device(DeviceQuery::from_environment());
            std::string from;
            const auto params = contest::reference_params(choice.device, a->reference_n, &from);
            const auto id = db.queue(contest::reference_alias, "mmul_reference.cl", contest::reference_submission(params), 0);
            fmt::print("queued the tuned reference kernel ({}, {}) for {} as submission {}\n", params.label(), from,
                       choice.device_name, id);
            return exit_ok;
        }
        if (*baseline) {
            const auto id = db.queue(contest::baseline_alias, "mmul.cl", naive_baseline(WORKBOOK_SOURCE_DIR), 0);
            fmt::print("queued the naive baseline as submission {}\n", id);
            return exit_ok;
        }
        if (*judge) {
            a->judge.time_limit = std::chrono::seconds(a->time_limit_s);
            a->judge.race_time_limit = std::chrono::seconds(a->race_time_limit_s);
            contest::check_isolation(a->judge);
            contest::check_race_pass(a->judge);
            db.requeue_running();
            int judged = 0;
            for (;;) {
                if (const auto j = contest::judge_next(db, a->judge)) {
                    ++judged;
                    fmt::print("judged {} ({}): {}{}\n", j->id, j->alias, j->status,
                               j->status == "done" ? fmt::format(", {:.2f} GFLOPS", j->gflops) : ": " + j->reason);
                    std::fflush(stdout);
                    continue;
                }
                if (!a->loop) break;
                std::this_thread::sleep_for(std::chrono::seconds(1));
            }
            fmt::print("{} submission(s) judged\n", judged);
            if (!a->gradescope.empty()) contest::write_gradescope(db, a->gradescope);
            return exit_ok;
        }
        if (*board) {
            fmt::print("{}", a->final_board ? contest::final_board_text(db, bold)
                                            : contest::board_text(db, bold, a->public_board));
            return exit_ok;
        }
        if (*final) {
            a->final.judge = a->judge;
            a->final.judge.time_limit = std::chrono::seconds(a->time_limit_s);
            a->final.judge.race_time_limit = std::chrono::seconds(a->race_time_limit_s);
            contest::run_final(db, a->db, a->final, [](const contest::FinalEntry& e, int done, int all) {
                fmt::print("[{}/{}] {} ({}): {}{}\n", done, all, e.submission, sanitize(e.alias, 64),
                           e.status == "done" ? "done" : "rejected",
                           e.status == "done" ? fmt::format(", {:.2f} GFLOPS", e.gflops) : ": " + e.reason);
                std::fflush(stdout);
            });
            fmt::print("\n{}", contest::final_board_text(db, bold));
            return exit_ok;
        }
        if (*open) {
            const std::string from = db.open_now();
            const std::string until = db.window().closes;
            fmt::print("the contest takes entries from {} UTC{}\n", from, until.empty() ? "" : " until " + until + " UTC");
            return exit_ok;
        }
        if (*close) {
            fmt::print("the contest closed at {} UTC: no more entries (the queue is still judged; `workbook contest open` "
                       "takes entries again)\n",
                       db.close_now());
            return exit_ok;
        }
        if (*freeze) {
            fmt::print("the public board is frozen at {} UTC: entries are still judged and shown once the contest "
                       "closes (`workbook contest board` shows every run now)\n",
                       db.freeze_now());
            return exit_ok;
        }
        if (*withdraw) {
            db.withdraw(a->withdraw_id, a->reason);
            fmt::print("withdrew submission {}: off every board, kept with its reason\n", a->withdraw_id);
            return exit_ok;
        }
        if (*export_cmd) {
            const auto written = contest::export_contest(db, a->export_dir, a->with_sources);
            fmt::print("wrote {} file(s) into {}\n", written, a->export_dir);
            return exit_ok;
        }
        if (*checks) {
            fmt::print("{}", server::remote_checks_table(db));
            return exit_ok;
        }
        if (*status) {
            fmt::print("{}", contest::status_text(db, a->history));
            return exit_ok;
        }
        if (*merge) return contest::merge_board(db, a->merge_file, a->merge_board, a->merge_from, a->judge);
        if (*retry) {
            const auto again = db.retry(a->retry_id, a->retry_device);
            for (const auto& j : again)
                fmt::print("queued submission {} on {} again (it had failed: {})\n", j.submission_id, j.device, j.reason);
            if (again.empty()) {
                fmt::print(stderr, "no failed judging{}{}: `workbook contest status` shows each one's state\n",
                           a->retry_id ? fmt::format(" of submission {}", a->retry_id) : std::string(),
                           a->retry_device.empty() ? std::string() : " on " + a->retry_device);
                return exit_error;
            }
            fmt::print("the server's zoo (contest serve --devices) judges them\n");
            return exit_ok;
        }
        if (*serve) {
            server::ServeOptions so;
            so.db = a->db;
            so.host = a->host;
            so.port = a->port;
            so.token = a->token;
            so.roster = a->roster;
            so.tokens_file = a->tokens_file;
            so.reissue = a->reissue;
            so.min_interval_s = a->interval;
            so.max_queued = a->max_queued;
            so.request_deadline_s = a->request_deadline_s;
            so.max_per_address = a->max_per_address;
            so.judge_options = a->judge;
            so.devices = a->devices;
            so.lab = a->lab;
            so.lab_stuck_minutes = a->stuck_after_min;
            so.lab_token_file = a->lab_token_file;
            const auto course = load_course(std::filesystem::path(*course_root) / "course.toml");
            if (a->lab)
                for (const auto& ex : course.exercises) so.lab_exercises.emplace_back(ex.id, ex.title);
            for (const auto& want : a->remote_checks) {
                const auto* ex = want == "all" ? nullptr : course.find(want);
                if (want != "all" && !ex)
                    throw Error(fmt::format("--remote-checks {}: no such exercise (ids: 01 to {})", want,
                                            course.exercises.back().id));
                for (const auto& e : course.exercises)
                    if (!ex || &e == ex) {
                        so.remote.exercises[e.id] = e.edit;
                        so.remote.dirs[e.id] = e.dir();
                        so.remote.time_limits[e.id] = e.time_limit_s;
                    }
            }
            if (!so.remote.exercises.empty()) {
                so.remote.min_interval_s = a->remote_interval_s;
                so.remote.timeout_s = a->remote_timeout_s;
                so.remote.batch = a->remote_batch;
                so.remote.workbook = std::filesystem::read_symlink("/proc/self/exe").string();
                so.remote.root = *course_root;
                so.remote.build = *course_build;
            }
            {
                const std::string now = db.now();
                if (!a->opens.empty()) so.opens = contest::parse_contest_time(a->opens, now);
                if (!a->closes.empty()) so.closes = contest::parse_contest_time(a->closes, now);
            }
            contest::check_isolation(a->judge);
            contest::check_race_pass(a->judge);
            return server::serve(so);
        }
        return exit_error;
    };
}

}  // namespace workbook::server
