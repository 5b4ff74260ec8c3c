// An Oclgrind plugin (loaded by the race pass): a read of local memory that no work-item of the
// group has written is an error. A group's local memory starts with whatever the device left
// there, so such a read gives wrong values on a GPU and "works" on a CPU; it is also a way for a
// kernel to tell the simulator from the device (their leftovers differ).
//
// It stands in for Oclgrind's own --uninitialized, which tracks a shadow of every value a kernel
// computes: three quarters of the race pass's processor time on the SGEMM rungs, and it cannot
// run the `freeze` instruction that LLVM's optimiser emits, so those rungs had to be simulated
// unoptimised (slower again, and another build than the device's). This one only looks at local
// loads and stores, byte by byte, per group. Global buffers are never uninitialised here: the
// checker fills or poisons every buffer it hands over.
//
// Each report goes through Oclgrind's own error log, which prints it as its own (a headline, then
// the kernel, work-item and source line), so race::parse() reads it like any other report.
#include <oclgrind/Context.h>
#include <oclgrind/Memory.h>
#include <oclgrind/Plugin.h>
#include <oclgrind/WorkGroup.h>
#include <oclgrind/WorkItem.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <unordered_map>
#include <vector>

namespace {

using oclgrind::Memory;
using oclgrind::WorkGroup;
using oclgrind::WorkItem;

// The bytes of each local buffer that the group running on this thread has written.
struct Written {
    std::unordered_map<std::size_t, std::vector<bool>> buffers;  // by buffer number
    void mark(const Memory* m, std::size_t address, std::size_t size) {
        auto& bits = of(m, address);
        const std::size_t at = m->extractOffset(address);
        for (std::size_t i = at; i < at + size && i < bits.size(); ++i) bits[i] = true;
    }
    // The first byte of [address, address + size) not written, or -1 when all were.
    long first_unwritten(const Memory* m, std::size_t address, std::size_t size) {
        auto& bits = of(m, address);
        const std::size_t at = m->extractOffset(address);
        for (std::size_t i = at; i < at + size; ++i)
            if (i >= bits.size() || !bits[i]) return static_cast<long>(i);
        return -1;
    }

private:
    std::vector<bool>& of(const Memory* m, std::size_t address) {
        auto& bits = buffers[m->extractBuffer(address)];
        if (bits.empty())
            if (const Memory::Buffer* b = m->getBuffer(address)) bits.assign(b->size, false);
        return bits;
    }
};
thread_local Written* current = nullptr;

class LocalInit final : public oclgrind::Plugin {
public:
    explicit LocalInit(const oclgrind::Context* context) : oclgrind::Plugin(context), context_(context) {}

    bool isThreadSafe() const override { return true; }

    void kernelBegin(const oclgrind::KernelInvocation*) override { reported_ = 0; }

    void workGroupBegin(const WorkGroup*) override { current = new Written; }
    void workGroupComplete(const WorkGroup*) override {
        delete current;
        current = nullptr;
    }

    void memoryStore(const Memory* memory, const WorkItem*, std::size_t address, std::size_t size,
                     const std::uint8_t*) override {
        if (current && memory->getAddressSpace() == oclgrind::AddrSpaceLocal) current->mark(memory, address, size);
    }
    // async_work_group_copy into local memory: the group's own store.
    void memoryStore(const Memory* memory, const WorkGroup*, std::size_t address, std::size_t size,
                     const std::uint8_t*) override {
        if (current && memory->getAddressSpace() == oclgrind::AddrSpaceLocal) current->mark(memory, address, size);
    }
    // Atomics on local memory read and write: their read must find the value written too.
    void memoryAtomicLoad(const Memory* memory, const WorkItem* item, oclgrind::AtomicOp, std::size_t address,
                          std::size_t size) override {
        memoryLoad(memory, item, address, size);
    }
    void memoryAtomicStore(const Memory* memory, const WorkItem* item, oclgrind::AtomicOp, std::size_t address,
                           std::size_t size) override {
        memoryStore(memory, item, address, size, nullptr);
    }

    void memoryLoad(const Memory* memory, const WorkItem*, std::size_t address, std::size_t size) override {
        if (!current || memory->getAddressSpace() != oclgrind::AddrSpaceLocal) return;
        const long at = current->first_unwritten(memory, address, size);
        if (at < 0) return;
        // Once per launch is enough to fail it; a few more show the pattern.
        if (++reported_ > 3) return;
        char text[256];
        std::snprintf(text, sizeof text,
                      "Uninitialized local memory read: %zu bytes at local offset %ld that no work-item of the group wrote",
                      size, at);
        // Oclgrind's error log adds the kernel, the work-item, its instruction and its source line
        // (the current work-item's), and counts an error.
        context_->logError(text);
    }

private:
    const oclgrind::Context* context_;
    std::atomic<unsigned> reported_{0};
};

LocalInit* plugin = nullptr;

}  // namespace

extern "C" void initializePlugins(oclgrind::Context* context) {
    plugin = new LocalInit(context);
    context->registerPlugin(plugin);
}

extern "C" void releasePlugins(oclgrind::Context* context) {
    context->unregisterPlugin(plugin);
    delete plugin;
    plugin = nullptr;
}
