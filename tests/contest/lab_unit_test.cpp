// Unit tests of the lab dashboard's record (contest/lab.hpp): what a posted check may say, the
// clamp on its time, the states, and checks folded into one row per student and exercise.
#include "contest/db.hpp"
#include "contest/lab.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

using namespace workbook::contest;

namespace {

const std::vector<std::string> course{"01", "02", "03"};
const std::string now = "2026-11-27T10:00:00";

std::string body(const std::string& exercise, bool passed, const std::string& failure, const std::string& at,
                 const std::string& extra = "") {
    return "{\"exercise\":\"" + exercise + "\",\"passed\":" + (passed ? "true" : "false") + ",\"failure\":\"" + failure +
           "\",\"seconds_on_exercise\":90,\"hints_used\":1,\"checked_at\":\"" + at + "\"" + extra + "}";
}

}  // namespace

TEST_CASE("lab: a posted check says the fixed fields and nothing else") {
    const LabCheck c = parse_lab_check(body("02", false, "race", "2026-11-27T09:59:00"), course, now);
    CHECK(c.exercise == "02");
    CHECK_FALSE(c.passed);
    CHECK(c.failure == "race");
    CHECK(c.seconds_on_exercise == 90);
    CHECK(c.hints_used == 1);
    CHECK(c.checked_at == "2026-11-27T09:59:00");
    CHECK(parse_lab_check(body("03", true, "", now), course, now).passed);
    for (const std::string& bad :
         {body("04", false, "race", now),                       // not an exercise of the course
          body("02", false, "it segfaulted on line 3", now),    // free text instead of a kind
          body("02", false, "", now),                           // a failure without its kind
          body("02", true, "race", now),                        // a pass with a kind
          body("02", false, "race", "yesterday"),               // not a time
          body("02", false, "race", now, ",\"code\":\"__kernel void k() {}\""),  // more than the fields
          std::string("{\"exercise\":\"02\"}"), std::string("[1,2]"), std::string("{"), std::string()})
        CHECK_THROWS_AS(parse_lab_check(bad, course, now), workbook::Error);
    CHECK_THROWS_AS(parse_lab_check(
                        "{\"exercise\":\"02\",\"passed\":true,\"failure\":\"\",\"seconds_on_exercise\":-1,"
                        "\"hints_used\":0,\"checked_at\":\"2026-11-27T09:00:00\"}",
                        course, now),
                    workbook::Error);
}

TEST_CASE("lab: a check's time is kept within the last 12 hours") {
    CHECK(parse_lab_check(body("01", true, "", "2030-01-01T00:00:00"), course, now).checked_at == now);
    CHECK(parse_lab_check(body("01", true, "", "2026-11-20T00:00:00"), course, now).checked_at == "2026-11-26T22:00:00");
    CHECK(parse_lab_check(body("01", true, "", "2026-11-27T03:00:00"), course, now).checked_at == "2026-11-27T03:00:00");
}

TEST_CASE("lab: states") {
    LabCell c;
    CHECK(lab_state(c, now, 600) == LabState::not_started);
    c.checks = 3;
    c.first_at = "2026-11-27T09:50:01";
    CHECK(lab_state(c, now, 600) == LabState::working);  // 9 min 59 s
    c.first_at = "2026-11-27T09:50:00";
    CHECK(lab_state(c, now, 600) == LabState::stuck);
    c.passed_at = "2026-11-27T09:59:00";
    CHECK(lab_state(c, now, 600) == LabState::passed);
}

TEST_CASE("lab: checks fold into one row per student and exercise") {
    const auto file = std::filesystem::temp_directory_path() / ("lab-unit-" + std::to_string(::getpid()) + ".db");
    {
        Database db(file);
        const auto check = [&](const std::string& ex, bool passed, const std::string& kind, const std::string& at) {
            db.record_lab_check("ana", parse_lab_check(body(ex, passed, kind, at), course, now));
        };
        check("02", false, "build_error", "2026-11-27T09:10:00");
        check("02", false, "wrong_values", "2026-11-27T09:20:00");
        check("02", true, "", "2026-11-27T09:30:00");
        check("02", false, "race", "2026-11-27T09:40:00");  // broken again after the pass
        check("02", true, "", "2026-11-27T09:05:00");       // delivered late: an earlier pass
        check("02", false, "timeout", "2026-11-27T09:00:00");  // delivered late: not the latest
        for (int i = 0; i < 50; ++i) check("03", false, "wrong_values", "2026-11-27T09:55:00");
        const auto cells = db.lab_cells();
        REQUIRE(cells.size() == 2);
        const LabCell& c = cells[0];
        CHECK(c.exercise == "02");
        CHECK(c.checks == 6);
        CHECK(c.fails == 4);
        CHECK(c.first_at == "2026-11-27T09:00:00");
        CHECK(c.last_at == "2026-11-27T09:40:00");
        CHECK(c.passed_at == "2026-11-27T09:05:00");
        CHECK(c.last_failure == "race");
        CHECK(c.failures.at("build_error") == 1);
        CHECK(c.failures.at("timeout") == 1);
        CHECK(lab_state(c, now, 600) == LabState::passed);
        CHECK(cells[1].checks == 50);
        CHECK(cells[1].failures.size() == 1);
        CHECK(lab_state(cells[1], now, 600) == LabState::working);
    }
    std::filesystem::remove(file);
    std::filesystem::remove(file.string() + "-wal");
    std::filesystem::remove(file.string() + "-shm");
}
