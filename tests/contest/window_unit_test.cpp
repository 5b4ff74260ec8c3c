// Unit tests of the contest's times (contest/window.hpp) and of its window in a database: the
// forms a time may take, the calendar's limits, and entries refused outside the window.
#include "contest/db.hpp"
#include "contest/window.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <string>

using namespace workbook::contest;

TEST_CASE("contest times: the forms given on the command line") {
    const std::string now = "2026-11-27T23:50:10";
    CHECK(parse_contest_time("2026-11-28T09:00", now) == "2026-11-28T09:00:00");
    CHECK(parse_contest_time("2026-11-28 09:00:30", now) == "2026-11-28T09:00:30");
    CHECK(parse_contest_time("09:15", now) == "2026-11-27T09:15:00");  // today, even when earlier
    CHECK(parse_contest_time("+15m", now) == "2026-11-28T00:05:10");   // across midnight
    CHECK(parse_contest_time("+2h", now) == "2026-11-28T01:50:10");
    CHECK(parse_contest_time("+1d", now) == "2026-11-28T23:50:10");
    CHECK(parse_contest_time("+50s", now) == "2026-11-27T23:51:00");
    for (const char* bad : {"25:00", "2026-02-30T10:00", "tomorrow", "+5", "-5m", "9:00", "2026-11-28T09:00Z", ""})
        CHECK_THROWS_AS(parse_contest_time(bad, now), workbook::Error);
}

TEST_CASE("contest times: spans and words") {
    CHECK(seconds_between("2026-11-27T23:59:00", "2026-11-28T00:01:30") == 150);
    CHECK(seconds_between("2026-11-28T00:01:30", "2026-11-27T23:59:00") == -150);
    CHECK(in_words(40) == "in 40 s");
    CHECK(in_words(61) == "in 2 min");
    CHECK(in_words(3 * 3600 + 5 * 60) == "in 3 h 5 min");
    CHECK(in_words(-5) == "in 0 s");
}

TEST_CASE("contest window: entries outside it are refused, the instructor's rows are not") {
    const auto file = std::filesystem::temp_directory_path() / ("window-unit-" + std::to_string(::getpid()) + ".db");
    std::filesystem::remove(file);
    {
        Database db(file);
        const std::string now = db.now();
        CHECK_THROWS_WITH_AS(db.set_window(parse_contest_time("+2h", now), parse_contest_time("+1h", now)),
                             doctest::Contains("before it opens"), workbook::Error);
        db.set_window(parse_contest_time("+1h", now), "");
        CHECK_THROWS_WITH_AS(db.queue("ann", "k.cl", "// k\n", 0), doctest::Contains("opens at"), ContestClosed);
        CHECK(db.queue(baseline_alias, "k.cl", "// k\n", 0) > 0);  // reserved: always
        db.open_now();
        CHECK(db.queue("ann", "k.cl", "// k\n", 0) > 0);
        db.close_now();
        CHECK(db.window().closed_by == "hand");
        CHECK_THROWS_WITH_AS(db.queue("ben", "k.cl", "// k\n", 0), doctest::Contains("closed at"), ContestClosed);
        CHECK_THROWS_WITH_AS(db.withdraw(99, "x"), doctest::Contains("no submission 99"), workbook::Error);
    }
    std::filesystem::remove(file);
}
