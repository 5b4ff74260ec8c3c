// The contest's final (see final.hpp).
#include "contest/final.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>


namespace workbook::contest {

std::vector<FinalEntry> run_final(Database& db, const std::filesystem::path& db_file, const FinalOptions& o,
                                  const std::function<void(const FinalEntry&, int, int)>& progress) {
    if (o.top < 1) throw Error("--top must be 1 or more");
    JudgeOptions judge = o.judge;
    judge.sittings = std::min(8, judge.sittings * o.more);
    judge.repeats = judge.repeats * o.more;
    judge.time_limit *= o.more;
    check_isolation(judge);
    check_race_pass(judge);
    // No other judging of this contest beside the final's: each timing has the device alone. And
    // the board is read only once this is held, so no judging can change it after it was read.
    const JudgingLock alone(db_file, JudgingLock::Kind::exclusive, [] {
        fmt::print(stderr, "final: waiting for the judging in progress to end (the final times each entry alone)\n");
    });
    if (const ContestWindow w = db.window(); w.closed_by.empty())
        throw Error(w.closes.empty()
                        ? "the contest is still open: the final judges the top entries once entries have stopped. "
                          "Close it first (`workbook contest close`)"
                        : fmt::format("the contest is open until {} UTC: the final judges the top entries once entries "
                                      "have stopped. Wait for the close, or close it now (`workbook contest close`)",
                                      w.closes));
    const auto boards = db.board();
    const DeviceBoard* board = nullptr;
    std::string names;
    for (const auto& b : boards) {
        names += (names.empty() ? "" : ", ") + fmt::format("\"{}\"", sanitize(b.device, 256));
        if (b.device == o.board) board = &b;
    }
    if (boards.empty()) throw Error("no board yet: nothing was judged, so there is nothing to judge again");
    if (o.board.empty() && boards.size() == 1) board = &boards.front();
    if (!board)
        throw Error(o.board.empty() ? fmt::format("the contest has {} boards ({}): choose one with --board", boards.size(), names)
                                    : fmt::format("there is no board \"{}\" (the boards: {})", o.board, names));
    // A settled board: an entry uploaded before the close and not judged yet could belong in the
    // top N, and a final without it would crown another. Refused, naming them.
    std::string unsettled;
    int waiting = 0;
    for (const auto& s : db.submissions())
        if (!reserved_alias(s.alias) && (s.status == "queued" || s.status == "running" || s.status == "judging")) {
            if (++waiting <= 10) unsettled += fmt::format("{}#{} {} ({})", unsettled.empty() ? "" : ", ", s.id, sanitize(s.alias, 64), s.status);
        }
    if (waiting > 0)
        throw Error(fmt::format("{} {} uploaded before the close {} not judged yet: {}{}. The final decides on a settled "
                                "board: let the judge finish (`workbook contest judge`, or the server's), then run the "
                                "final again",
                                waiting, waiting == 1 ? "entry" : "entries", waiting == 1 ? "is" : "are", unsettled,
                                waiting > 10 ? ", ..." : ""));

    // The top student entries, in the board's order, then the course's own rows (x naive needs the baseline's).
    std::vector<BoardRow> chosen;
    for (const auto& r : board->rows)
        if (!reserved_alias(r.alias) && static_cast<int>(chosen.size()) < o.top) chosen.push_back(r);
    if (chosen.empty()) throw Error(fmt::format("the board \"{}\" has no student entry", sanitize(board->device, 256)));
    for (const auto& r : board->rows)
        if (reserved_alias(r.alias)) chosen.push_back(r);

    std::vector<FinalEntry> out;
    for (const auto& row : chosen) {
        const auto entry = db.submission(row.submission_id);
        if (!entry) continue;
        // Fresh secret sizes and inputs: judge_source draws them for every judging.
        const Outcome r = judge_source(*entry, judge);
        FinalEntry e{entry->id, entry->alias, r.status, r.reason, 0};
        if (r.status == "done") {
            const std::string hardware = r.run.device + " / " + r.run.driver;
            if (hardware != board->hardware)
                throw Error(fmt::format("this machine judges on \"{}\", but the board is \"{}\": run the final where "
                                        "that board's device is (nothing was recorded for this entry)",
                                        sanitize(hardware, 256), sanitize(board->hardware, 256)));
            Run run = r.run;
            if (board->device != board->hardware) run.board = board->device;  // a zoo's board keeps its name
            db.record_final(entry->id, run);
            e.gflops = run.gflops;
        } else {
            db.reject_final(entry->id, board->device, r.reason);
        }
        out.push_back(e);
        if (progress) progress(e, static_cast<int>(out.size()), static_cast<int>(chosen.size()));
    }
    return out;
}

}  // namespace workbook::contest
