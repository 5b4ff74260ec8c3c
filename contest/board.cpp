// The board as text, its Gradescope leaderboard entry, and a board merged from another contest
// (see board.hpp).
#include "contest/board.hpp"

#include "contest/judge.hpp"
#include "contest/ranking.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

namespace workbook::contest {

void write_gradescope(const Database& db, const std::string& file) {
    const auto subs = db.submissions();
    if (subs.empty()) throw Error("no submission to report");
    const auto& s = subs.front();
    double gflops = 0;
    for (const auto& b : db.board())
        for (const auto& r : b.rows)
            if (r.submission_id == s.id) gflops = r.gflops;
    const bool ok = s.status == "done";
    std::ofstream out(file);
    out << nlohmann::json{{"score", ok ? 1.0 : 0.0},
                          {"max_score", 1.0},
                          {"output", ok ? fmt::format("valid: {:.2f} GFLOPS", gflops) : "rejected: " + s.reason},
                          {"leaderboard", nlohmann::json::array({{{"name", "GFLOPS"}, {"value", gflops}, {"order", "desc"}}})}}
               .dump(2);
}

std::string boards_text(const std::vector<DeviceBoard>& boards, const std::function<std::string(const std::string&)>& bold) {
    std::string out;
    for (const auto& b : boards) {
        // Names come from runs, some judged elsewhere: never raw bytes to a terminal.
        out += fmt::format("{}{}\n", bold(sanitize(b.device, 256)),
                           b.hardware == b.device ? "" : "  (" + sanitize(b.hardware, 256) + ")");
        out += fmt::format("  {:>4}  {:<28} {:>21}  {:>10}  {:>10}  {}\n", "rank", "alias", "vs reference (spread)", "GFLOPS",
                           "x naive", "when");
        for (const auto& r : b.rows)
            out += fmt::format("  {:>4}  {:<28} {:>21}  {:>10.2f}  {:>10}  {}\n", (r.tied ? "=" : "") + std::to_string(r.rank),
                               sanitize(r.alias, 64).substr(0, 28),
                               r.ratio > 0 ? fmt::format("{:.3f} ({:.3f}-{:.3f})", r.ratio, r.ratio_low, r.ratio_high) : "-",
                               r.gflops, r.speedup > 0 ? fmt::format("{:.2f}x", r.speedup) : "-",
                               r.when + (r.runs > 1 ? fmt::format("  (median of {} runs of one kernel)", r.runs) : ""));
        out += "\n";
    }
    if (boards.size() >= 2) {
        out += fmt::format("{}\n", bold("Across devices (geometric mean of x naive)"));
        out += fmt::format("  {:>4}  {:<28} {:>10}  {}\n", "rank", "alias", "x naive", "per device");
        for (const auto& c : cross_device(boards)) {
            std::string per;
            for (const auto& [device, x] : c.speedups) per += fmt::format("{}{}: {:.2f}x", per.empty() ? "" : ", ", sanitize(device, 256), x);
            out += fmt::format("  {:>4}  {:<28} {:>10}  {}\n", c.rank, sanitize(c.alias, 64).substr(0, 28), fmt::format("{:.2f}x", c.geomean), per);
        }
        out += "\n";
    }
    return out;
}

std::string board_text(const Database& db, const std::function<std::string(const std::string&)>& bold,
                       bool public_view) {
    std::string out;
    const auto boards = db.board(public_view);
    if (const ContestWindow w = db.window(); !w.opens.empty() || !w.closes.empty() || !w.frozen.empty()) {
        const std::string now = db.now();
        if (!w.closed_by.empty()) out += fmt::format("The contest closed at {} UTC.\n", w.closes);
        else if (!w.opens.empty() && now < w.opens) out += fmt::format("The contest opens at {} UTC.\n", w.opens);
        else out += fmt::format("The contest is open{}.\n", w.closes.empty() ? "" : " until " + w.closes + " UTC");
        if (!w.frozen.empty() && w.closed_by.empty())
            out += public_view ? fmt::format("The public board is frozen at {} UTC: this is what it shows.\n", w.frozen)
                               : fmt::format("The public board is frozen at {} UTC; this view shows every run "
                                             "(--public: what the page shows).\n",
                                             w.frozen);
        out += "\n";
    }
    if (boards.empty()) out += "No results yet.\n";
    out += boards_text(boards, bold);
    const auto subs = db.submissions();
    int rejected = 0, withdrawn = 0;
    for (const auto& s : subs) {
        rejected += s.status == "rejected";
        withdrawn += s.status == "withdrawn";
    }
    if (!boards.empty())
        out += "Ranked by speed relative to the reference kernel, timed alternately with each entry on the same\n"
               "inputs; \"=\" marks entries whose spreads overlap (tied within the machine's noise). An alias's\n"
               "identical kernel judged again is one record: the median of its runs.\n";
    out += fmt::format("{} submission(s), {} rejected{}; `workbook contest status` lists them.\n", subs.size(), rejected,
                       withdrawn ? fmt::format(", {} withdrawn", withdrawn) : std::string());
    return out;
}

std::string final_board_text(const Database& db, const std::function<std::string(const std::string&)>& bold) {
    const auto boards = db.final_board();
    if (boards.empty())
        return "No final yet: once the contest has closed, `workbook contest final --top N` judges the top entries "
               "again.\n";
    return bold("The final") +
           ": the top entries judged again after the close, on fresh inputs, with more sittings and\n"
           "nothing else judging; ranked by those runs only.\n\n" +
           boards_text(boards, bold);
}

namespace {

// One CSV field: quoted where it must be, and a leading = + - @ (a formula to a spreadsheet;
// aliases and reasons are other people's text) kept as text by a leading apostrophe.
std::string csv_field(const std::string& v) {
    std::string t = v;
    if (!t.empty() && std::string("=+-@\t\r").find(t[0]) != std::string::npos) t = "'" + t;
    if (t.find_first_of(",\"\n\r") == std::string::npos) return t;
    std::string q = "\"";
    for (char c : t) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
    std::string line;
    for (const auto& f : fields) line += (line.empty() ? "" : ",") + csv_field(f);
    return line + "\n";
}

std::string number(double x) { return fmt::format("{:.6g}", x); }

}  // namespace

int export_contest(const Database& db, const std::filesystem::path& dir, bool with_sources) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir, ec) && (!fs::is_directory(dir, ec) || !fs::is_empty(dir, ec)))
        throw Error(fmt::format("{} exists and is not an empty folder: export into a new one (nothing is overwritten)",
                                dir.string()));
    fs::create_directories(dir / (with_sources ? "sources" : ""), ec);
    if (ec) throw Error(fmt::format("cannot make {}: {}", dir.string(), ec.message()));
    int written = 0;
    const auto write = [&](const fs::path& name, const std::string& text) {
        std::ofstream out(dir / name, std::ios::binary);
        out << text;
        if (!out.flush()) throw Error(fmt::format("cannot write {}", (dir / name).string()));
        ++written;
    };
    using nlohmann::json;
    // The boards as they stand for the instructor (every run, withdrawn entries off), and the
    // final's, when one has run.
    const auto write_boards = [&](const std::string& stem, const std::vector<DeviceBoard>& all) {
        json boards = json::array();
        std::string boards_csv = csv_line({"board", "hardware", "rank", "tied", "alias", "runs", "ratio", "ratio_low",
                                           "ratio_high", "gflops", "speedup", "run_at", "submission_id"});
        for (const auto& b : all) {
            json rows = json::array();
            for (const auto& r : b.rows) {
                rows.push_back({{"rank", r.rank}, {"tied", r.tied}, {"alias", r.alias}, {"runs", r.runs}, {"ratio", r.ratio},
                                {"ratio_low", r.ratio_low}, {"ratio_high", r.ratio_high}, {"gflops", r.gflops},
                                {"speedup", r.speedup}, {"run_at", r.when}, {"submission_id", r.submission_id}});
                boards_csv += csv_line({b.device, b.hardware, std::to_string(r.rank), r.tied ? "yes" : "no", r.alias,
                                        std::to_string(r.runs), number(r.ratio), number(r.ratio_low), number(r.ratio_high),
                                        number(r.gflops), number(r.speedup), r.when, std::to_string(r.submission_id)});
            }
            boards.push_back({{"board", b.device}, {"hardware", b.hardware}, {"rows", std::move(rows)}});
        }
        write(stem + ".json", json{{"boards", std::move(boards)}}.dump(2) + "\n");
        write(stem + ".csv", boards_csv);
    };
    write_boards("boards", db.board());
    if (const auto final = db.final_board(); !final.empty()) write_boards("final-boards", final);

    json runs = json::array();
    std::string runs_csv = csv_line({"run", "submission_id", "alias", "board", "device", "driver", "n", "median_s",
                                     "min_s", "max_s", "gflops", "ratio", "ratio_low", "ratio_high", "repeats", "sizes",
                                     "build_options", "kernel_hash", "yardstick", "yardstick_median_s", "finished_at",
                                     "final"});
    for (const auto& row : db.runs()) {
        const Run& r = row.run;
        runs.push_back({{"run", row.id}, {"submission_id", row.submission_id}, {"alias", row.alias}, {"board", row.board},
                        {"device", r.device}, {"driver", r.driver}, {"n", r.n}, {"median_s", r.median_s},
                        {"min_s", r.min_s}, {"max_s", r.max_s}, {"gflops", r.gflops}, {"ratio", r.ratio},
                        {"ratio_low", r.ratio_low}, {"ratio_high", r.ratio_high}, {"repeats", r.repeats},
                        {"sizes", r.sizes}, {"build_options", r.build_options}, {"kernel_hash", r.kernel_hash},
                        {"yardstick", r.yardstick}, {"yardstick_median_s", r.yardstick_median_s},
                        {"finished_at", r.finished_at}, {"final", row.final}});
        runs_csv += csv_line({std::to_string(row.id), std::to_string(row.submission_id), row.alias, row.board, r.device,
                              r.driver, std::to_string(r.n), number(r.median_s), number(r.min_s), number(r.max_s),
                              number(r.gflops), number(r.ratio), number(r.ratio_low), number(r.ratio_high),
                              std::to_string(r.repeats), r.sizes, r.build_options, r.kernel_hash, r.yardstick,
                              number(r.yardstick_median_s), r.finished_at, row.final ? "yes" : "no"});
    }
    write("runs.json", json{{"runs", std::move(runs)}}.dump(2) + "\n");
    write("runs.csv", runs_csv);

    json subs = json::array();
    std::string subs_csv = csv_line({"id", "alias", "file_name", "submitted_at", "status", "reason"});
    for (const auto& sub : db.submissions()) {
        json history = json::array();
        for (const auto& e : db.history(sub.id))
            history.push_back({{"at", e.at}, {"device", e.device}, {"state", e.state}, {"detail", e.detail}});
        subs.push_back({{"id", sub.id}, {"alias", sub.alias}, {"file_name", sub.file_name},
                        {"submitted_at", sub.submitted_at}, {"status", sub.status}, {"reason", sub.reason},
                        {"history", std::move(history)}});
        subs_csv += csv_line({std::to_string(sub.id), sub.alias, sub.file_name, sub.submitted_at, sub.status, sub.reason});
        if (with_sources)
            if (const auto full = db.submission(sub.id)) write(fs::path("sources") / fmt::format("{}.cl", sub.id), full->source);
    }
    write("submissions.json", json{{"submissions", std::move(subs)}}.dump(2) + "\n");
    write("submissions.csv", subs_csv);

    const ContestWindow w = db.window();
    write("window.json", json{{"opens", w.opens},
                              {"closes", w.closes},
                              {"closed_by", w.closed_by},
                              {"frozen", w.frozen},
                              {"frozen_after_run", w.frozen_after_run},
                              {"exported_at", db.now()}}
                             .dump(2) +
                             "\n");
    return written;
}

// Checked as a Slurm job's result is (implausible_run), against this contest's own settings.
int merge_board(Database& db, const std::string& file, const std::string& board, const std::string& from,
                const JudgeOptions& settings) {
    Database other(file);
    const auto judged = other.judged();
    auto key = [](const Run& r) { return r.board.empty() ? r.device + " / " + r.driver : r.board; };
    std::set<std::string> keys;
    for (const auto& j : judged)
        for (const auto& r : j.runs) keys.insert(key(r));
    if (from.empty() && keys.size() > 1)
        throw Error(fmt::format("{} has {} boards ({}): choose one with --from-board", file, keys.size(),
                                fmt::join(keys, ", ")));
    if (!from.empty() && !keys.count(from))
        throw Error(fmt::format("{} has no board \"{}\" (it has: {})", file, from, fmt::join(keys, ", ")));
    int merged = 0, already = 0, strangers = 0, refused = 0;
    for (const auto& j : judged) {
        const auto mine = db.find_submission(j.submission.alias, j.submission.source);
        if (!mine) {
            ++strangers;
            continue;
        }
        std::optional<Run> taken;
        for (const auto& r : j.runs)
            if (from.empty() || key(r) == from) taken = r;
        if (j.submission.status == "done" && !taken) continue;  // judged on another board only
        const Run* run = taken ? &*taken : nullptr;
        if (taken) {
            for (std::string* text : {&taken->device, &taken->driver, &taken->yardstick, &taken->build_options,
                                      &taken->sizes, &taken->kernel_hash, &taken->board})
                *text = sanitize(*text, 256);
            if (const auto problem = implausible_run(*taken, settings, j.submission); !problem.empty()) {
                fmt::print(stderr, "refused the run of submission {} ({}): {}\n", j.submission.id,
                           sanitize(j.submission.alias, 64), problem);
                ++refused;
                continue;
            }
        }
        const bool ok = db.merge_judging(mine->id, board, run, run ? std::string() : j.submission.reason,
                                         std::filesystem::path(file).filename().string());
        ok ? ++merged : ++already;
    }
    fmt::print("board \"{}\": {} judging(s) merged from {}{}{}{}\n", board, merged, file,
               already ? fmt::format(", {} already there", already) : "",
               strangers ? fmt::format(", {} entr{} not in this contest (alias or source differ) left out", strangers,
                                       strangers == 1 ? "y" : "ies")
                         : "",
               refused ? fmt::format(", {} refused", refused) : "");
    return refused ? exit_error : exit_ok;
}

std::string status_text(const Database& db, bool history) {
    std::string out;
    for (const auto& s : db.submissions()) {
        out += fmt::format("{:>4}  {:<24} {:<9} {}  {}\n", s.id, s.alias.substr(0, 24), s.status, s.submitted_at, s.reason);
        for (const auto& j : db.judgings_of(s.id))
            out += fmt::format("      {:<24} {:<9} {}{}{}\n", j.device.substr(0, 24), j.state,
                               j.job_id.empty() ? "" : "job " + j.job_id, j.job_id.empty() || j.reason.empty() ? "" : "  ",
                               j.reason);
        if (history)
            for (const auto& e : db.history(s.id))
                out += fmt::format("      {}  {:<24} {:<9} {}\n", e.at, e.device.substr(0, 24), e.state, e.detail);
    }
    return out;
}

}  // namespace workbook::contest
