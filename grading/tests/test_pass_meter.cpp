// Unit tests of PassMeter (sandbox.hpp), the clock of a submission's race passes (issue 59: load
// never changes a grade): waiting for a busy machine is never charged, sleeping and computing are,
// and work past its grant is stopped. Needs root (cgroups); elsewhere it says so and passes.
#include "workbook/grading/budget.hpp"
#include "workbook/grading/sandbox.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace std::chrono_literals;
using workbook::grading::Budget;
using workbook::grading::BudgetLimits;
using workbook::grading::BudgetSupport;
using workbook::grading::PassMeter;
using workbook::grading::Sandbox;

namespace {

// A box whose processes join a cgroup of their own (no namespaces: only the cgroups matter here).
struct Metered {
    BudgetSupport support{BudgetLimits{}};
    Budget budget{support, "meter-test-" + std::to_string(::getpid()), 1024};
    Sandbox box;
    Metered() {
        box.namespaces = false;
        box.uid = -1;
        box.cgroups = budget.procs();
    }
    bool usable() const { return ::geteuid() == 0 && support.cgroups() && !budget.procs().empty(); }
};

// `count` processes spinning outside any box until killed: a machine busier than it has cores.
struct Neighbours {
    std::vector<pid_t> pids;
    explicit Neighbours(unsigned count) {
        for (unsigned i = 0; i < count; ++i)
            if (const pid_t pid = ::fork(); pid == 0) {
                volatile unsigned long n = 0;
                for (;;) n = n + 1UL;
            } else if (pid > 0) {
                pids.push_back(pid);
            }
    }
    ~Neighbours() {
        for (const pid_t pid : pids) ::kill(pid, SIGKILL);
        for (const pid_t pid : pids) ::waitpid(pid, nullptr, 0);
    }
};

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("pass meter: waiting for a busy machine is not charged; computing is, up to the grant") {
    Metered m;
    if (!m.usable()) {
        MESSAGE("SKIPPED: needs root and cgroups");
        return;
    }
    // Twice as many spinning neighbours as cores: the metered loop gets a fraction of a processor.
    const Neighbours busy(2 * std::max(1u, std::thread::hardware_concurrency()));
    PassMeter meter(m.budget.procs(), 100);
    const auto start = std::chrono::steady_clock::now();
    const auto r = m.box.run({"timeout", "4", "sh", "-c", "while :; do :; done"}, 60s);
    const double wall = seconds_since(start), charged = meter.finish();
    INFO("wall " << wall << " s, charged " << charged << " s, waited " << meter.waited() << " s, cpu " << meter.cpu() << " s");
    CHECK_FALSE(meter.stopped());
    CHECK(wall >= 3.5);
    // About a third of a processor: what it waited is taken off, what it computed is kept.
    CHECK(charged <= 0.75 * wall);
    CHECK(charged >= 0.9 * meter.cpu());
    CHECK(meter.waited() >= 0.25 * wall);
}

TEST_CASE("pass meter: a process that sleeps is charged and stopped past its grant") {
    Metered m;
    if (!m.usable()) {
        MESSAGE("SKIPPED: needs root and cgroups");
        return;
    }
    PassMeter meter(m.budget.procs(), 1);
    const auto start = std::chrono::steady_clock::now();
    const auto r = m.box.run({"sleep", "30"}, 60s);
    const double wall = seconds_since(start), charged = meter.finish();
    INFO("wall " << wall << " s, charged " << charged << " s, " << r.status());
    CHECK(meter.stopped());
    CHECK_FALSE(r.passed());
    CHECK(charged >= 1.0);
    CHECK(wall < 20);
}

TEST_CASE("pass meter: a process that computes past its grant is stopped, busy machine or not") {
    Metered m;
    if (!m.usable()) {
        MESSAGE("SKIPPED: needs root and cgroups");
        return;
    }
    const Neighbours busy(2 * std::max(1u, std::thread::hardware_concurrency()));
    PassMeter meter(m.budget.procs(), 1);
    const auto r = m.box.run({"sh", "-c", "while :; do :; done"}, 120s);
    const double charged = meter.finish();
    INFO("charged " << charged << " s, cpu " << meter.cpu() << " s, " << r.status());
    CHECK(meter.stopped());
    CHECK_FALSE(r.timed_out);
    CHECK(meter.cpu() >= 0.9);
}
