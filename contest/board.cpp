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

std::string board_text(const Database& db, const std::function<std::string(const std::string&)>& bold) {
    std::string out;
    const auto boards = db.board();
    if (boards.empty()) out += "No results yet.\n";
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
                               r.gflops, r.speedup > 0 ? fmt::format("{:.2f}x", r.speedup) : "-", r.when);
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
    const auto subs = db.submissions();
    int rejected = 0;
    for (const auto& s : subs) rejected += s.status == "rejected";
    if (!boards.empty())
        out += "Ranked by speed relative to the reference kernel, timed alternately with each entry on the same\n"
               "inputs; \"=\" marks entries whose spreads overlap (tied within the machine's noise).\n";
    out += fmt::format("{} submission(s), {} rejected; `workbook contest status` lists them.\n", subs.size(), rejected);
    return out;
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

}  // namespace workbook::contest
