// An Oclgrind plugin (loaded with `oclgrind --plugins`): how much of a kernel's global-memory
// loading is issued where multiply-adds can hide it. Rung 19's lesson (prefetch the next tile into
// registers) changes no count that `--inst-counts` reports, only when the loads are issued: in
// exercise 18 a work-item loads tile t + 1 between two barriers where it reads nothing from local
// memory, so a GPU waits for those loads with nothing else to do; in exercise 19 it issues them
// first thing in the stretch where it reads tile t from local memory and computes.
//
// Counted per work-item and per barrier interval (the code between two barriers): a global load
// is *hidden* when the same work-item issues, after it and before the next barrier, at least half
// as many local loads as it issues in an average interval that reads local memory at all. A
// stray local load after the loads does not hide them; a compute stretch does. Printed at each
// launch's end, in the style of Oclgrind's own counts (traffic.cpp reads it):
//
//   Global loads hidden for kernel launch 1:
//       1024 - global load bytes
//        896 - hidden global load bytes
//
// The counts are exact and the same on every machine: Oclgrind runs each work-group on one
// worker thread from its start to its end, so a group's state is that thread's alone.
#include <oclgrind/Context.h>
#include <oclgrind/Memory.h>
#include <oclgrind/Plugin.h>
#include <oclgrind/WorkItem.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using oclgrind::Memory;
using oclgrind::WorkGroup;
using oclgrind::WorkItem;

// One work-item's current interval: its local loads so far, and its global loads with how many
// local loads came before each.
struct Interval {
    std::uint64_t local_loads = 0;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> global;  // (bytes, local loads before)
};

// What a launch sums; a group's share is added at the group's end.
struct Totals {
    std::uint64_t global_bytes = 0;
    std::uint64_t compute_intervals = 0, compute_local_loads = 0;  // intervals with local loads
    // Each global load: (local loads after it in its interval, bytes), judged at the launch's end
    // against the average compute interval.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> loads;
    void add(const Totals& o) {
        global_bytes += o.global_bytes;
        compute_intervals += o.compute_intervals;
        compute_local_loads += o.compute_local_loads;
        loads.insert(loads.end(), o.loads.begin(), o.loads.end());
    }
};

// The group this thread runs now.
struct Group {
    std::unordered_map<const WorkItem*, Interval> items;
    Totals totals;
    void close_intervals() {
        for (auto& [item, in] : items) {
            if (in.local_loads > 0) {
                ++totals.compute_intervals;
                totals.compute_local_loads += in.local_loads;
            }
            for (const auto& [bytes, before] : in.global) totals.loads.emplace_back(in.local_loads - before, bytes);
            in = Interval{};
        }
    }
};
thread_local Group* current = nullptr;

class Overlap final : public oclgrind::Plugin {
public:
    explicit Overlap(const oclgrind::Context* context) : oclgrind::Plugin(context) {}

    bool isThreadSafe() const override { return true; }

    void kernelBegin(const oclgrind::KernelInvocation*) override {
        const std::lock_guard lock(mutex_);
        launch_ = Totals{};
    }

    void workGroupBegin(const WorkGroup*) override { current = new Group; }

    void memoryLoad(const Memory* memory, const WorkItem* item, std::size_t, std::size_t size) override {
        if (!current) return;
        Interval& in = current->items[item];
        switch (memory->getAddressSpace()) {
        case oclgrind::AddrSpaceGlobal:
        case oclgrind::AddrSpaceConstant:
            in.global.emplace_back(size, in.local_loads);
            current->totals.global_bytes += size;
            break;
        case oclgrind::AddrSpaceLocal: ++in.local_loads; break;
        default: break;  // private memory: registers, as far as the lesson goes
        }
    }

    // async_work_group_copy and friends: the group's own loads, never hidden here.
    void memoryLoad(const Memory* memory, const WorkGroup*, std::size_t, std::size_t size) override {
        if (current && memory->getAddressSpace() == oclgrind::AddrSpaceGlobal) {
            current->totals.global_bytes += size;
            current->totals.loads.emplace_back(0, size);
        }
    }

    void workGroupBarrier(const WorkGroup*, std::uint32_t) override {
        if (current) current->close_intervals();
    }

    void workGroupComplete(const WorkGroup*) override {
        if (!current) return;
        current->close_intervals();
        {
            const std::lock_guard lock(mutex_);
            launch_.add(current->totals);
        }
        delete current;
        current = nullptr;
    }

    void kernelEnd(const oclgrind::KernelInvocation*) override {
        const std::lock_guard lock(mutex_);
        // Half an average compute interval's local loads, and at least one.
        const std::uint64_t need = launch_.compute_intervals == 0
                                       ? 1
                                       : std::max<std::uint64_t>(1, launch_.compute_local_loads / launch_.compute_intervals / 2);
        std::uint64_t hidden = 0;
        for (const auto& [after, bytes] : launch_.loads)
            if (after >= need) hidden += bytes;
        ++launches_;
        std::printf("Global loads hidden for kernel launch %llu:\n%12llu - global load bytes\n%12llu - hidden global load bytes\n\n",
                    static_cast<unsigned long long>(launches_), static_cast<unsigned long long>(launch_.global_bytes),
                    static_cast<unsigned long long>(hidden));
        std::fflush(stdout);
    }

private:
    std::mutex mutex_;
    Totals launch_;
    std::uint64_t launches_ = 0;
};

Overlap* plugin = nullptr;

}  // namespace

extern "C" void initializePlugins(oclgrind::Context* context) {
    plugin = new Overlap(context);
    context->registerPlugin(plugin);
}

extern "C" void releasePlugins(oclgrind::Context* context) {
    context->unregisterPlugin(plugin);
    delete plugin;
    plugin = nullptr;
}
