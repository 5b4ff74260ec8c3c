// Unit tests of the remote checks' queue in the database (contest/db.hpp): the limits, the fair
// order and the places it reports.
#include "contest/db.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <ctime>
#include <unistd.h>

using namespace workbook::contest;

TEST_CASE("remote checks: limits, the fair order, the places") {
    const auto file = std::filesystem::temp_directory_path() / ("remote-unit-" + std::to_string(::getpid()) + ".db");
    {
        Database db(file);
        const std::vector<std::pair<std::string, std::string>> files{{"mmul.cl", "__kernel void mmul() {}"}};
        const auto a1 = db.queue_check("ana", "15", "", files, 0, 2);
        const auto a2 = db.queue_check("ana", "16", "", files, 0, 2);
        CHECK_THROWS_AS(db.queue_check("ana", "17", "", files, 0, 2), RateLimited);  // two waiting at most
        const auto b1 = db.queue_check("ben", "15", "", files, 60, 2);
        CHECK_THROWS_AS(db.queue_check("ben", "16", "", files, 60, 2), RateLimited);  // one per 60 s
        CHECK(db.remote_check(a1)->queue_position == 1);
        CHECK(db.remote_check(a2)->queue_position == 2);
        CHECK(db.remote_check(b1)->queue_position == 3);

        const auto first = db.claim_check();
        REQUIRE(first);
        CHECK(first->id == a1);
        CHECK(first->files == files);
        CHECK(db.remote_check(a1)->queue_position == 0);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        db.finish_check(a1, "done", "{\"passed\":true}");
        CHECK(db.remote_check(a1)->state == "done");
        CHECK(db.remote_check(a1)->result == "{\"passed\":true}");
        // ana has had the device for a second, ben not at all: ben's goes first though ana's second
        // is older.
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
        CHECK(db.remote_checks("done").size() == 1);
        CHECK(db.remote_checks("failed").size() == 1);
        CHECK(db.remote_checks("running").size() == 1);

        // A zoo: each device has a queue of its own; a Slurm device's job token finds its check
        // only while it runs.
        const auto g1 = db.queue_check("cy", "15", "A100", files, 0, 2);
        const auto h1 = db.queue_check("dee", "15", "", files, 0, 2);
        CHECK(db.remote_check(g1)->queue_position == 1);
        CHECK(db.remote_check(h1)->queue_position == 1);
        CHECK(db.remote_check(g1)->device == "A100");
        const auto here = db.claim_check();
        REQUIRE(here);
        CHECK(here->id == h1);
        CHECK_FALSE(db.claim_check({""}));
        CHECK_FALSE(db.claim_check({}));
        const auto there = db.claim_check({"H100", "A100"});
        REQUIRE(there);
        CHECK(there->id == g1);
        CHECK(there->device == "A100");
        CHECK_FALSE(db.check_by_token("hash-1"));
        db.set_check_job(g1, "4242", "hash-1");
        const auto by_token = db.check_by_token("hash-1");
        REQUIRE(by_token);
        CHECK(by_token->id == g1);
        CHECK(by_token->job_id == "4242");
        CHECK(by_token->files == files);
        CHECK_FALSE(db.check_by_token(""));
        db.finish_check(g1, "done", "{}");
        CHECK_FALSE(db.check_by_token("hash-1"));  // spent with the result
        // A restart puts a running check back in its queue, its old job's token spent.
        const auto g2 = db.queue_check("cy", "16", "A100", files, 0, 2);
        REQUIRE(db.claim_check({"A100"}));
        db.set_check_job(g2, "4243", "hash-2");
        db.requeue_running_checks();
        CHECK(db.remote_check(g2)->state == "queued");
        CHECK_FALSE(db.check_by_token("hash-2"));

        // A batch: the other waiting checks of the same exercise and device, in the fair order.
        const auto z1 = db.queue_check("eve", "15", "Z", files, 0, 2);
        const auto z2 = db.queue_check("fay", "16", "Z", files, 0, 2);
        const auto z3 = db.queue_check("gus", "15", "Z", files, 0, 2);
        const auto z4 = db.queue_check("hal", "15", "A100", files, 0, 2);
        const auto first_z = db.claim_check({"Z"});
        REQUIRE(first_z);
        CHECK(first_z->id == z1);
        const auto more = db.claim_checks({"Z"}, "15", 3);
        REQUIRE(more.size() == 1);  // not fay's 16, not hal's on another device
        CHECK(more[0].id == z3);
        CHECK(more[0].files == files);
        CHECK(db.remote_check(z3)->state == "running");
        CHECK(db.remote_check(z2)->queue_position == 1);
        CHECK(db.remote_check(z4)->state == "queued");
        CHECK(db.claim_checks({"Z"}, "15", 0).empty());

        // Fair by the device's seconds, not by the number of checks: ivy's three quick checks
        // (none lasting a second) go before the second check of jon, whose first ran for a second
        // (a check that hangs to its limit, in small).
        const auto j1 = db.queue_check("jon", "15", "Y", files, 0, 3);
        REQUIRE(db.claim_check({"Y"}));
        const auto j2 = db.queue_check("jon", "15", "Y", files, 0, 3);
        const auto i1 = db.queue_check("ivy", "15", "Y", files, 0, 3);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        db.finish_check(j1, "done", "{}");
        const auto i_first = db.claim_check({"Y"});
        REQUIRE(i_first);
        CHECK(i_first->id == i1);
        db.finish_check(i1, "done", "{}");
        const auto i2 = db.queue_check("ivy", "15", "Y", files, 0, 3);
        const auto i3 = db.queue_check("ivy", "15", "Y", files, 0, 3);
        CHECK(db.remote_check(i2)->queue_position == 1);
        CHECK(db.remote_check(j2)->queue_position == 3);
        // A batch takes one check per student: ivy's second waits for the next turn.
        const auto batch_first = db.claim_check({"Y"});
        REQUIRE(batch_first);
        CHECK(batch_first->id == i2);
        const auto batch_more = db.claim_checks({"Y"}, "15", 3, batch_first->student);
        REQUIRE(batch_more.size() == 1);
        CHECK(batch_more[0].id == j2);
        CHECK(db.remote_check(i3)->state == "queued");
        CHECK(db.has_queued_check({"Y"}));
        CHECK_FALSE(db.has_queued_check({"W"}));
    }
    std::filesystem::remove(file);
    std::filesystem::remove(file.string() + "-wal");
    std::filesystem::remove(file.string() + "-shm");
}

namespace {

double thread_cpu_seconds() {
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

// One lab day of history: 40 students x 200 checks, each with its result kept. A student's poll of
// a queued check (its place in the fair order) and a worker's claim must not grow with it: a poll
// cost 0.40 s with the history and no indexes, inside the server's database mutex, so that twelve
// pollers made the board wait seconds. Counted in this thread's processor time, which a busy
// machine does not inflate as it does the wall clock.
TEST_CASE("remote checks: a day of history does not make a poll or a claim cost more") {
    const auto file = std::filesystem::temp_directory_path() / ("remote-history-" + std::to_string(::getpid()) + ".db");
    {
        Database db(file);  // the schema, with its indexes
        {
            SQLite::Database raw(file.string(), SQLite::OPEN_READWRITE);
            raw.exec("PRAGMA busy_timeout=10000");
            SQLite::Transaction t(raw);
            SQLite::Statement add(raw, "INSERT INTO remote_checks (student_id, exercise, state, result, submitted_at, "
                                       "started_at, finished_at, device) VALUES (?, '17', 'done', ?, "
                                       "strftime('%Y-%m-%dT%H:%M:%S','now',?), strftime('%Y-%m-%dT%H:%M:%S','now',?), "
                                       "strftime('%Y-%m-%dT%H:%M:%S','now',?), '')");
            const std::string result(2000, 'r');  // a result's output, about as long as a failed check's
            for (int k = 0; k < 8000; ++k) {
                const int minutes_ago = 8 * 60 - k * 8 * 60 / 8000;  // spread over a lab day, the last ones recent
                add.bind(1, "s" + std::to_string(k % 40));
                add.bind(2, result);
                add.bind(3, fmt::format("-{} minutes", minutes_ago));
                add.bind(4, fmt::format("-{} minutes", minutes_ago));
                add.bind(5, fmt::format("-{} minutes", minutes_ago));
                add.exec();
                add.reset();
            }
            t.commit();
        }
        const std::vector<std::pair<std::string, std::string>> files{{"mmul.cl", "__kernel void mmul() {}"}};
        std::vector<std::int64_t> queued;
        for (int k = 0; k < 12; ++k) queued.push_back(db.queue_check("s" + std::to_string(k), "17", "", files, 0, 2));
        const double before = thread_cpu_seconds();
        int places = 0;
        for (int round = 0; round < 10; ++round)
            for (const auto id : queued) places += db.remote_check(id)->queue_position > 0;
        const double per_poll = (thread_cpu_seconds() - before) / 120;
        MESSAGE(fmt::format("one poll of a queued check with 8,000 rows of history: {:.2f} ms of processor time",
                            per_poll * 1e3));
        CHECK(places == 120);
        CHECK(per_poll < 0.02);  // 0.40 s before the queue's indexes
        const double claim_start = thread_cpu_seconds();
        const auto claimed = db.claim_check();
        REQUIRE(claimed);
        CHECK(thread_cpu_seconds() - claim_start < 0.05);
    }
    std::filesystem::remove(file);
    std::filesystem::remove(file.string() + "-wal");
    std::filesystem::remove(file.string() + "-shm");
}
