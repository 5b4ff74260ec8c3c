// Unit tests of ranking within noise (contest/ranking.hpp) and of the board built on it: spreads
// that overlap are tied, measured against the group's leader; runs from before the yardstick are
// never tied; the board orders by ratio to the yardstick, not by GFLOPS.
#include "contest/db.hpp"
#include "contest/ranking.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

using namespace workbook::contest;

namespace {

std::vector<Ranked> rank_of(const std::vector<Spread>& speeds) {
    std::vector<Ranked> rows;
    for (const auto& s : speeds) rows.push_back({s});
    assign_ranks(rows);
    return rows;
}

}  // namespace

TEST_CASE("spread: the median and nearly the whole range") {
    const Spread nine = spread({1.10, 0.90, 1.00, 1.02, 0.98, 1.01, 0.99, 0.97, 1.03});
    CHECK(nine.median == doctest::Approx(1.00));
    CHECK(nine.low == doctest::Approx(0.90));   // a tenth of nine rounds to none dropped
    CHECK(nine.high == doctest::Approx(1.10));
    const Spread twenty = spread({1.5, 0.5, 1.4, 0.6, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                                  1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 1.1});
    CHECK(twenty.low == doctest::Approx(0.9));  // two of twenty dropped at each end
    CHECK(twenty.high == doctest::Approx(1.1));
    const Spread four = spread({4, 1, 3, 2});
    CHECK(four.median == doctest::Approx(2.5));
    CHECK(four.low == 1);
    CHECK(four.high == 4);
    CHECK(spread({}).median == 0);
}

TEST_CASE("assign_ranks: apart when spreads are apart, tied when they overlap") {
    const auto apart = rank_of({{2.0, 1.9, 2.1}, {1.0, 0.95, 1.05}, {0.5, 0.45, 0.55}});
    CHECK(apart[0].rank == 1);
    CHECK(apart[1].rank == 2);
    CHECK(apart[2].rank == 3);
    CHECK_FALSE(apart[1].tied);

    const auto tie = rank_of({{2.0, 1.9, 2.1}, {1.0, 0.95, 1.05}, {0.97, 0.90, 1.00}, {0.5, 0.45, 0.55}});
    CHECK(tie[1].rank == 2);
    CHECK(tie[2].rank == 2);
    CHECK(tie[1].tied);
    CHECK(tie[2].tied);
    CHECK(tie[3].rank == 4);  // competition ranking: after two tied second places comes fourth
    CHECK_FALSE(tie[3].tied);
    CHECK_FALSE(tie[0].tied);
}

TEST_CASE("assign_ranks: a chain of small overlaps does not tie the ends") {
    // b overlaps a, c overlaps b but not a: c starts a new group with its own rank.
    const auto chain = rank_of({{1.00, 0.98, 1.02}, {0.97, 0.95, 0.99}, {0.94, 0.92, 0.96}});
    CHECK(chain[1].rank == 1);
    CHECK(chain[1].tied);
    CHECK(chain[2].rank == 3);
    CHECK_FALSE(chain[2].tied);
}

TEST_CASE("assign_ranks: runs without a ratio are never tied") {
    const auto old = rank_of({{0, 0, 0}, {0, 0, 0}});
    CHECK(old[0].rank == 1);
    CHECK(old[1].rank == 2);
    CHECK_FALSE(old[1].tied);
}

TEST_CASE("the board ranks by ratio to the yardstick, with ties, whatever the GFLOPS") {
    char folder[] = "/tmp/workbook-ranking-test-XXXXXX";
    REQUIRE(mkdtemp(folder));
    const std::filesystem::path dir = folder;
    {
        Database db(dir / "c.db");
        auto record = [&](const std::string& alias, double gflops, Spread s) {
            const auto id = db.queue(alias, "k.cl", "// test\n", 0);
            Run run;
            run.device = "Dev";
            run.driver = "1";
            run.n = 256;
            run.gflops = gflops;
            run.median_s = run.min_s = run.max_s = 1;
            run.repeats = 7;
            run.ratio = s.median;
            run.ratio_low = s.low;
            run.ratio_high = s.high;
            db.record(id, run);
        };
        // fast_drift measured more GFLOPS while the machine was quiet, but is slower than steady
        // against the yardstick timed beside it.
        record(baseline_alias, 5, {0.01, 0.0099, 0.0101});
        record("steady", 50, {0.50, 0.49, 0.51});
        record("fast_drift", 60, {0.40, 0.39, 0.41});
        record("twin", 48, {0.495, 0.485, 0.50});
        const auto boards = db.board();
        REQUIRE(boards.size() == 1);
        const auto& rows = boards[0].rows;
        REQUIRE(rows.size() == 4);
        CHECK(rows[0].alias == "steady");
        CHECK(rows[1].alias == "twin");
        CHECK(rows[1].rank == 1);
        CHECK(rows[1].tied);
        CHECK(rows[2].alias == "fast_drift");
        CHECK(rows[2].rank == 3);
        CHECK(rows[3].alias == baseline_alias);
        CHECK(rows[0].speedup == doctest::Approx(50.0));  // 0.50 / 0.01 by the ratios, not 50 / 5 GFLOPS
        CHECK(rows[2].speedup == doctest::Approx(40.0));
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("board: one alias's identical kernel judged again is one record, its median run") {
    const auto dir = std::filesystem::temp_directory_path() / ("pool-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    {
        Database db(dir / "c.db");
        auto record = [&](const std::string& alias, const std::string& text, double ratio) {
            const auto id = db.queue(alias, "k.cl", text, 0);
            Run run;
            run.device = "Dev";
            run.driver = "1";
            run.n = 256;
            run.gflops = ratio * 100;
            run.median_s = run.min_s = run.max_s = 1;
            run.repeats = 7;
            run.ratio = ratio;
            run.ratio_low = ratio * 0.99;
            run.ratio_high = ratio * 1.01;
            run.kernel_hash = "fingerprint of " + text;  // as run_one records it: the same for the same text
            db.record(id, run);
        };
        // One kernel ten times, with the machine's noise: 0.50 to 0.59. Keeping the best would
        // show 0.59; the pooled record is the median, 0.545.
        for (int k = 0; k < 10; ++k) record("lucky", "kernel A", 0.50 + 0.01 * ((k * 7) % 10));
        // Another alias's one run of the same text is its own record.
        record("other", "kernel A", 0.52);
        auto boards = db.board();
        REQUIRE(boards.size() == 1);
        REQUIRE(boards[0].rows.size() == 2);
        CHECK(boards[0].rows[0].alias == "lucky");
        CHECK(boards[0].rows[0].runs == 10);
        CHECK(boards[0].rows[0].ratio == doctest::Approx(0.545));
        CHECK(boards[0].rows[1].runs == 1);
        // An odd count takes the middle run itself.
        record("lucky", "kernel A", 0.10);
        CHECK(db.board()[0].rows[0].ratio == doctest::Approx(0.54));
        CHECK(db.board()[0].rows[0].runs == 11);
        // A different text of the same alias is another record, and the alias's latest: it is the
        // one shown, better or worse.
        record("lucky", "kernel B", 0.56);
        boards = db.board();
        CHECK(boards[0].rows[0].alias == "lucky");
        CHECK(boards[0].rows[0].runs == 1);
        CHECK(boards[0].rows[0].ratio == doctest::Approx(0.56));
        CHECK(boards[0].rows.size() == 2);
        record("lucky", "kernel C", 0.30);
        CHECK(db.board()[0].rows[0].alias == "other");
        CHECK(db.board()[0].rows[1].ratio == doctest::Approx(0.30));
        // Going back to kernel A: its new run joins its twelve, the median of them all.
        record("lucky", "kernel A", 0.70);
        CHECK(db.board()[0].rows[0].alias == "lucky");
        CHECK(db.board()[0].rows[0].runs == 12);
        CHECK(db.board()[0].rows[0].ratio == doctest::Approx(0.545));

        // Five variants of one kernel (a #define changed in each), each judged once, their ratios
        // five draws of the same noise: the alias stands where one submission stands (its latest),
        // not at the best of the five, which would put it ahead of "steady" here.
        for (int k = 0; k < 3; ++k) record("steady", "kernel S", 0.50);
        const double draws[] = {0.49, 0.55, 0.47, 0.50, 0.48};
        for (int k = 0; k < 5; ++k) record("variants", "#define UNROLL " + std::to_string(k + 1) + "\nkernel V", draws[k]);
        boards = db.board();
        const auto row_of = [&](const std::string& alias) {
            for (const auto& r : boards[0].rows)
                if (r.alias == alias) return r;
            FAIL("no row for " << alias);
            return BoardRow{};
        };
        CHECK(row_of("variants").ratio == doctest::Approx(0.48));
        CHECK(row_of("variants").runs == 1);
        CHECK(row_of("steady").ratio > row_of("variants").ratio);

        // The instructor's rows keep their best kernel: the reference tuned for this device, then
        // the one tuned for a GPU (slower here), stands at the first.
        record(reference_alias, "tuned for the CPU", 1.00);
        record(reference_alias, "tuned for a GPU", 0.20);
        boards = db.board();
        CHECK(row_of(reference_alias).ratio == doctest::Approx(1.00));
    }
    std::filesystem::remove_all(dir);
}
