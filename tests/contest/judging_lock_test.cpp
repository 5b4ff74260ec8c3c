// The device's one line (contest/judge.hpp: JudgingLock): whoever just had the device cannot take
// it again ahead of one that waits. A "checks' loop" here retakes the device exclusively the moment
// it lets go (as the server's did); a "judge" that starts waiting must get its turn before the loop
// has had the device twice more.
#include "contest/judge.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>

using namespace workbook::contest;
using namespace std::chrono_literals;

TEST_CASE("the judging lock: a waiting judge is not starved by a loop that retakes the device at once") {
    const auto db = std::filesystem::temp_directory_path() / ("judging-lock-" + std::to_string(::getpid()) + ".db");
    std::atomic<bool> stop{false}, judge_waiting{false}, judge_done{false};
    std::atomic<int> loop_turns{0}, loop_turns_while_judge_waited{0};
    std::thread checks([&] {
        while (!judge_done) {
            const JudgingLock turn(db, JudgingLock::Kind::exclusive, stop);
            REQUIRE(turn.held());
            ++loop_turns;
            if (judge_waiting) ++loop_turns_while_judge_waited;
            std::this_thread::sleep_for(100ms);  // grading a check
        }
    });
    while (loop_turns < 2) std::this_thread::sleep_for(5ms);
    judge_waiting = true;
    {
        const JudgingLock judge(db, JudgingLock::Kind::shared, stop);
        judge_waiting = false;
        CHECK(judge.held());
    }
    judge_done = true;
    checks.join();
    // The loop's turn in progress when the judge came (or the one it had just begun) is the most.
    CHECK(loop_turns_while_judge_waited <= 1);

    // A stop ends a wait: not held.
    const JudgingLock holder(db, JudgingLock::Kind::exclusive, stop);
    REQUIRE(holder.held());
    std::atomic<bool> stopping{false};
    std::thread stopper([&] {
        std::this_thread::sleep_for(100ms);
        stopping = true;
    });
    const JudgingLock never(db, JudgingLock::Kind::shared, stopping);
    stopper.join();
    CHECK_FALSE(never.held());
    for (const char* suffix : {".judging.lock", ".judging.turn"}) std::filesystem::remove(db.string() + suffix);
}
