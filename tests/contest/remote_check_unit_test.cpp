// Unit tests of the remote checks' queue in the database (contest/db.hpp): the limits, the fair
// order and the places it reports.
#include "contest/db.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

using namespace workbook::contest;

TEST_CASE("remote checks: limits, the fair order, the places") {
    const auto file = std::filesystem::temp_directory_path() / ("remote-unit-" + std::to_string(::getpid()) + ".db");
    {
        Database db(file);
        const std::vector<std::pair<std::string, std::string>> files{{"mmul.cl", "__kernel void mmul() {}"}};
        const auto a1 = db.queue_check("ana", "15", files, 0, 2);
        const auto a2 = db.queue_check("ana", "16", files, 0, 2);
        CHECK_THROWS_AS(db.queue_check("ana", "17", files, 0, 2), RateLimited);  // two waiting at most
        const auto b1 = db.queue_check("ben", "15", files, 60, 2);
        CHECK_THROWS_AS(db.queue_check("ben", "16", files, 60, 2), RateLimited);  // one per 60 s
        CHECK(db.remote_check(a1)->queue_position == 1);
        CHECK(db.remote_check(a2)->queue_position == 2);
        CHECK(db.remote_check(b1)->queue_position == 3);

        const auto first = db.claim_check();
        REQUIRE(first);
        CHECK(first->id == a1);
        CHECK(first->files == files);
        CHECK(db.remote_check(a1)->queue_position == 0);
        db.finish_check(a1, "done", "{\"passed\":true}");
        CHECK(db.remote_check(a1)->state == "done");
        CHECK(db.remote_check(a1)->result == "{\"passed\":true}");
        // ana has had a check, ben none: ben's goes first though ana's second is older.
        CHECK(db.remote_check(b1)->queue_position == 1);
        CHECK(db.remote_check(a2)->queue_position == 2);
        const auto second = db.claim_check();
        REQUIRE(second);
        CHECK(second->id == b1);
        db.finish_check(b1, "failed", "{}");
        const auto third = db.claim_check();
        REQUIRE(third);
        CHECK(third->id == a2);
        CHECK_FALSE(db.claim_check());
        CHECK(db.remote_checks().size() == 3);
    }
    std::filesystem::remove(file);
    std::filesystem::remove(file.string() + "-wal");
    std::filesystem::remove(file.string() + "-shm");
}
