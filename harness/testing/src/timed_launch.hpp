// One kernel timed in one runner (speed_testing.cpp, tuned_testing.cpp): the checker's side of the
// runner's "matmul_timed" operation. Internal to the graded tests' library.
#pragma once

#include "workbook/cpu_quota.hpp"
#include "workbook/errors.hpp"
#include "workbook/test_seed.hpp"
#include "workbook/runner.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace workbook::testing {

// The speed checks' N: on a GPU drawn from the seed among 1920, 2048 and 2304 (launches of
// milliseconds; a multiple of 128, so every rung's block leaves the remainder the race pass's
// whole-group mirror checks), or 2048 where `drawn` is false (the tuner); on a CPU 512.
// WORKBOOK_SPEED_N overrides both. Only sizes where every rung's lesson pays: on the H200 each
// solution gained at least 1.17x over the previous rung's at these three, while 2176 (rung 17:
// 1.08-1.12x, its 128 x 128 blocks leave a second round of groups mostly idle) and 1792 (rung 19:
// 1.14x by the median) fell short (bench/results/2026-11-28-h200-track-gains).
inline int speed_check_n(bool cpu, bool drawn = true) {
    static constexpr int drawable[] = {1920, 2048, 2304};
    int n = cpu ? 512 : !drawn ? 2048 : drawable[rng("matmul-speed size").next_u64() % 3];
    if (const char* e = std::getenv("WORKBOOK_SPEED_N"); e && std::atoi(e) > 0) n = std::atoi(e);
    return n;
}

constexpr float guard_value = 1234.5f;
constexpr std::size_t guard = 1024;

// One kernel in one runner: uploads fresh inputs, times one launch, brings C back checked.
class Timed {
public:
    Timed(runner::Client& client, std::string key) : client_(client), key_(std::move(key)) {}

    // Returns the launch's time: this process's clock on a CPU device, the device's event
    // elsewhere (believed only when inside the wall time seen here). `cpu_device` comes from the
    // references' runner, never from the student's, whose report could be forged.
    // On a CPU device whose processors a cgroup quota rations (Gradescope's half a processor, a
    // container's --cpus), a launch that outlasts what is left of the quota's period waits for
    // the next one, so its wall time says where the period stood, not how fast the kernel is.
    // There the launch counts as the processor time the kernel counted to its runner's processes
    // (read here, never reported by the runner) over the quota's processors: what the launch
    // costs on this rationed machine, whatever the period did. Or its wall time, where that is
    // longer and the quota did not stop the launch: a kernel that leaves processors idle gains
    // nothing by it (stopping requires using more than the quota, which the first term charges).
    double run(int n, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>* c_out,
               bool cpu_device) {
        const std::size_t elems = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
        runner::Message up = request("upload");
        up.numbers["n"] = n;
        up.arrays["a"] = a;
        up.arrays["b"] = b;
        std::vector<float> c(elems + guard, std::numeric_limits<float>::quiet_NaN());
        std::fill(c.begin() + static_cast<std::ptrdiff_t>(elems), c.end(), guard_value);
        up.arrays["c"] = std::move(c);
        if (!race_options.empty()) up.text["race_options"] = race_options;
        if (!shape.empty()) up.text["shape"] = shape;
        const auto uploaded = client_.call("matmul_timed", std::move(up));
        device_type = uploaded.str("device_type");
        launch = uploaded.str("launch");
        const double quota = cpu_device ? binding_quota_processors() : 0.0;
        const Throttling throttled_before = quota > 0 ? read_throttling(own_cpu_quota()) : Throttling{};
        const double cpu_before = quota > 0 ? client_.cpu_seconds() : -1.0;
        const Stopwatch clock;
        client_.call("matmul_timed", request("launch"));
        const double wall = clock.seconds();
        double measured = wall;
        if (quota > 0) {
            const double cpu_after = cpu_before >= 0 ? client_.cpu_seconds() : -1.0;
            const bool stopped = !(read_throttling(own_cpu_quota()) == throttled_before);
            if (cpu_after >= cpu_before && cpu_before >= 0) {
                const double rationed = (cpu_after - cpu_before) / quota;
                measured = stopped ? rationed : std::max(rationed, wall);
                ++quota_timed;
                quota_stopped += stopped;
            } else {
                ++quota_unread;
            }
        }
        const auto back = client_.call("matmul_timed", request("download"), (elems + guard) * sizeof(float) + runner::Client::reply_slack);
        std::vector<float> out = back.array("c", elems + guard);
        for (std::size_t i = elems; i < out.size(); ++i)
            if (std::memcmp(&out[i], &guard_value, sizeof(float)) != 0)
                throw Error(fmt::format("{} wrote past the end of C (element {} after it) at N = {}", who(), i - elems + 1, n));
        out.resize(elems);
        *c_out = std::move(out);
        const double event = back.num("event_s");
        if (cpu_device) return measured;
        if (!(event > 0 && event <= wall))
            throw Error(fmt::format("the device reported {} s for a launch of {} that took {} s here", event, who(), wall));
        return event;
    }

    std::string who() const { return key_ == "student" ? "your kernel" : "the reference " + key_; }

    std::string device_type, launch;  // as this kernel's runner reports them
    std::string race_options;         // build options the simulator needs (the traffic run)
    std::string shape;                // the build options' choice, where the rung has several (exercise 20)
    // Launches timed by processor time under a quota, of them those the quota stopped, and those
    // whose processor time could not be read (timed by the wall clock then).
    int quota_timed = 0, quota_stopped = 0, quota_unread = 0;

private:
    runner::Message request(const char* step) const {
        runner::Message m;
        m.text["kernel"] = key_;
        m.text["step"] = step;
        return m;
    }
    runner::Client& client_;
    std::string key_;
};

// The speed checks' line on how a CPU device's launches were timed, where a quota rations the
// processors ("" where none does): every kernel of a check timed alike.
inline std::string quota_note(const std::vector<const Timed*>& kernels) {
    const double quota = binding_quota_processors();
    if (quota <= 0) return "";
    int timed = 0, stopped = 0, unread = 0;
    for (const Timed* k : kernels) timed += k->quota_timed, stopped += k->quota_stopped, unread += k->quota_unread;
    if (timed + unread == 0) return "";
    return fmt::format(
        "\ntimed by processor time: a cgroup quota ({}) allows this machine {:.2f} processors, and a launch it stops "
        "waits for the next period; so each launch counts as the processor time of its runner over {:.2f}, or its "
        "wall time where longer and not stopped ({} of {} launches were stopped by the quota{})",
        own_cpu_quota().group, quota, quota, stopped, timed,
        unread ? fmt::format("; {} whose processor time could not be read: wall time", unread) : std::string());
}

}  // namespace workbook::testing
