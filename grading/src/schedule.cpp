// The pipeline: submissions prepared on --jobs threads, tested one at a time in order, race passes on a lane of their own (see grader.hpp).
#include "grader.hpp"

#include "workbook/grading/uid_lease.hpp"

#include <atomic>
#include <optional>

#include <sys/resource.h>
#include <unistd.h>

namespace workbook::grading {

void run_in_background(int nice) {
    if (nice > 0) ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice);
}

void remove_scratch(const fs::path& dir) {
    for (int attempt = 0; attempt < 10; ++attempt) {
        std::error_code ec;
        fs::remove_all(dir, ec);
        if (!ec) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

void Grader::grade(const std::vector<const Submission*>& todo) {
    // The users this run's submissions run as: no other live run on this machine (another
    // class, a Slurm task beside this one, a contest judge) holds any of them.
    const UidLease users;
    // Preparing and compiling in parallel; testing in submission order, one at a time.
    std::vector<std::optional<Prepared>> prepared(todo.size());
    std::mutex m;
    std::condition_variable ready, room;
    std::atomic<std::size_t> next{0};
    std::size_t tested = 0;  // under m
    bool stop = false;       // under m
    std::vector<std::thread> workers;
    const std::size_t ahead = static_cast<std::size_t>(std::max(1, o_.jobs));
    for (int j = 0; j < std::max(1, o_.jobs); ++j)
        workers.emplace_back([&] {
            run_in_background(o_.share_work ? background_nice : 0);
            for (std::size_t i; (i = next++) < todo.size();) {
                {
                    // A few submissions ahead of the tests, no more: each holds scratch space (memory, on a tmpfs).
                    std::unique_lock lock(m);
                    room.wait(lock, [&] { return stop || i <= tested + ahead; });
                    if (stop) return;
                }
                Prepared p;
                try {
                    // A user per submission, from a block this run alone holds (uid_lease.hpp).
                    p = prepare(*todo[i], users.uid(i), fmt::format("s{}", i));
                } catch (const std::exception& e) {
                    p = Prepared{};
                    p.scratch = fs::absolute(base() / "work" / fmt::format("s{}", i));
                    for (const Exercise* ex : exercises_) p.problem[ex->id] = cap(std::string("build failed: ") + e.what(), 4000);
                }
                std::lock_guard lock(m);
                prepared[i] = std::move(p);
                ready.notify_all();
            }
        });
    // Should anything below throw, stop the workers and join them before it propagates.
    struct Joiner {
        std::vector<std::thread>& threads;
        std::atomic<std::size_t>& next;
        std::size_t end;
        std::mutex& m;
        bool& stop;
        std::condition_variable& room;
        ~Joiner() {
            next = end;
            {
                std::lock_guard lock(m);
                stop = true;
            }
            room.notify_all();
            for (auto& t : threads)
                if (t.joinable()) t.join();
        }
    } joiner{workers, next, todo.size(), m, stop, room};
    const auto start = std::chrono::steady_clock::now();
    // A submission's row is written once its race passes are done: meanwhile the next one's
    // graded tests run.
    struct Pending {
        std::size_t i;
        SubmissionGrade g;
        std::vector<Tested> tests;
    };
    std::optional<Pending> pending;
    race_lane_ = std::make_unique<Lane>(o_.share_work ? background_nice : 0);
    // Should anything throw, the lane stops (its running pass done) before the submissions' folders go.
    struct LaneStop {
        std::unique_ptr<Lane>& lane;
        ~LaneStop() { lane.reset(); }
    } lane_stop{race_lane_};
    const auto keep = [&](Pending& done) {
        const std::size_t i = done.i;
        SubmissionGrade& g = done.g;
        for (auto& t : done.tests) {
            if (!t.after_race.valid()) {
                g.exercises.push_back(std::move(t.grade));
                continue;
            }
            try {
                g.exercises.push_back(t.after_race.get());
            } catch (const std::exception& e) {
                g.exercises.push_back({t.grade.id, "error", 0, t.grade.max, std::string("grader error: ") + e.what()});
            }
        }
        append_journal(g);
        {
            const PhaseTimes::Scope timed(phases_, "clean up");
            prepared[i]->budget.reset();  // its processes stopped, its tmpfs unmounted
            remove_scratch(prepared[i]->scratch);
            if (!prepared[i]->kernels.empty()) remove_scratch(prepared[i]->kernels);
            prepared[i].reset();
        }
        {
            std::lock_guard lock(m);
            tested = i + 1;
        }
        room.notify_all();
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double eta = elapsed / static_cast<double>(i + 1) * static_cast<double>(todo.size() - i - 1);
        say(fmt::format("[{}/{}] {:<24} {:6.2f} / {:<6.2f} ({:.0f} s elapsed, about {:.0f} s to go)", i + 1,
                        todo.size(), g.name, g.total(), g.max(), elapsed, eta));
    };
    for (std::size_t i = 0; i < todo.size(); ++i) {
        {
            std::unique_lock lock(m);
            ready.wait(lock, [&] { return prepared[i].has_value(); });
        }
        Pending now{i, SubmissionGrade{todo[i]->name, todo[i]->student, {}, prepared[i]->notes}, {}};
        if (!todo[i]->note.empty()) now.g.notes.insert(now.g.notes.begin(), todo[i]->note);
        for (const Exercise* ex : exercises_) {
            try {
                now.tests.push_back(test(*ex, *prepared[i]));
            } catch (const std::exception& e) {
                // The grader's own failure (e.g. no process left to start): graded as an
                // error, not lost, and the class goes on.
                now.tests.push_back({{ex->id, "error", 0, weight(*ex), std::string("grader error: ") + e.what()}, {}});
            }
            // The previous submission's row, as soon as its passes are done: a killed run then
            // grades again as little as possible.
            if (pending && std::all_of(pending->tests.begin(), pending->tests.end(), [](const Tested& t) {
                    return !t.after_race.valid() || t.after_race.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
                })) {
                keep(*pending);
                pending.reset();
            }
        }
        if (pending) keep(*pending);
        pending = std::move(now);
    }
    if (pending) keep(*pending);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    say(fmt::format("\nwhere the time went ({} submission(s), {:.1f} s from the first preparation to the last "
                    "test; phases on several threads add up to more):\n{}",
                    todo.size(), wall, phases_.table(static_cast<int>(todo.size()))));
    write_text(base() / "phases.json", phases_.json());
}

}  // namespace workbook::grading
