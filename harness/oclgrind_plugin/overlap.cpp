// An Oclgrind plugin (loaded with `oclgrind --plugins`): *when* a kernel's global loads are
// issued, which no count of `--inst-counts` says. Two figures, per launch:
//
// Hidden loads (rung 19's rule). Rung 19's lesson (prefetch the next tile into registers) changes
// no count, only when the loads are issued: in exercise 18 a work-item loads tile t + 1 between two
// barriers where it reads nothing from local memory, so a GPU waits for those loads with nothing
// else to do; in exercise 19 it issues them first thing in the stretch where it reads tile t from
// local memory and computes. Counted per work-item and per barrier interval (the code between two
// barriers): a global load is *hidden* when the same work-item issues, after it and before the
// next barrier, at least half as many local loads as it issues in an average interval that reads
// local memory at all. A stray local load after the loads does not hide them; a compute stretch
// does.
//
// Waits for global loads (rung 18's rule). A GPU issues a load and goes on; it waits only at the
// first instruction that uses the loaded value, and every load issued before that wait arrives
// during it. So a work-item that issues a tile's six loads and then stores them to local memory
// waits once; one that stores each value as soon as it loads it (exercise 17's loop) waits six
// times, and with one work-group per compute unit (rung 18's registers) nothing else runs
// meanwhile. Counted per work-item by following each loaded value as data: through private
// memory (unoptimised code keeps every variable there), function arguments (aggregates passed by
// value too) and results, and the instructions that only move a value (casts, vector element
// moves, phi, select's choice); any
// other instruction that reads it (arithmetic, a store to local or global memory, an address, a
// branch) is its first use. A use of a value from a load issued since the work-item's last wait is
// a wait, and covers every load issued before it. Whatever the load is written as (a plain load,
// a float4 pointer, vload4, a memcpy) Oclgrind reports it as a load of global memory, which is
// what is followed here. A load whose value is never used counts as a wait of its own (nothing here
// loses a value; were one lost, the count errs on the side of waiting), and a work-group's copy
// (async_work_group_copy) as one wait for each of the group's work-items.
//
// Printed at each launch's end, in the style of Oclgrind's own counts (traffic.cpp reads it):
//
//   Global loads hidden for kernel launch 1:
//       1024 - global load bytes
//        896 - hidden global load bytes
//         64 - global load waits
//
// The counts are exact and the same on every machine: Oclgrind runs each work-group on one
// worker thread from its start to its end, so a group's state is that thread's alone.
#include <oclgrind/Context.h>
#include <oclgrind/Memory.h>
#include <oclgrind/Plugin.h>
#include <oclgrind/WorkGroup.h>
#include <oclgrind/WorkItem.h>

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

using oclgrind::Memory;
using oclgrind::WorkGroup;
using oclgrind::WorkItem;

// ---- Hidden loads ----

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
    std::uint64_t waits = 0;
    void add(const Totals& o) {
        global_bytes += o.global_bytes;
        compute_intervals += o.compute_intervals;
        compute_local_loads += o.compute_local_loads;
        loads.insert(loads.end(), o.loads.begin(), o.loads.end());
        waits += o.waits;
    }
};

// ---- Waits for global loads ----

// The builtin's name in an Itanium-mangled one ("_Z6vload4mPU3AS1Kf" -> "vload4"), or the name.
llvm::StringRef builtin_name(llvm::StringRef mangled) {
    if (!mangled.startswith("_Z")) return mangled;
    std::size_t i = 2, length = 0;
    for (; i < mangled.size() && mangled[i] >= '0' && mangled[i] <= '9'; ++i) length = length * 10 + (mangled[i] - '0');
    return mangled.substr(i, length);
}

const llvm::Function* called(const llvm::Instruction* instruction) {
    const auto* call = llvm::dyn_cast<llvm::CallInst>(instruction);
    return call ? call->getCalledFunction() : nullptr;
}

bool is_private(const llvm::Value* pointer) {
    return pointer->getType()->isPointerTy() && pointer->getType()->getPointerAddressSpace() == oclgrind::AddrSpacePrivate;
}

// What an instruction does with the memory it reads: loads, vloadN and memcpy move it (into their
// result, or the bytes they write); nothing else reads memory here but computes with it.
bool reads_as_move(const llvm::Instruction* instruction) {
    if (llvm::isa<llvm::LoadInst>(instruction) || llvm::isa<llvm::MemTransferInst>(instruction)) return true;
    const llvm::Function* f = called(instruction);
    return f && f->isDeclaration() && builtin_name(f->getName()).startswith("vload");
}

// Whether operand `i` of `instruction` is only moved (into its result, private memory, a called
// function's argument or the caller's result), not computed with. Its other operands (indices,
// addresses, conditions) are uses.
bool moves(const llvm::Instruction* instruction, unsigned i) {
    switch (instruction->getOpcode()) {
    case llvm::Instruction::BitCast:
    case llvm::Instruction::AddrSpaceCast:
    case llvm::Instruction::Freeze:
    case llvm::Instruction::PHI:
    case llvm::Instruction::Ret: return true;
    case llvm::Instruction::ExtractElement:
    case llvm::Instruction::ExtractValue: return i == 0;
    case llvm::Instruction::InsertElement:
    case llvm::Instruction::InsertValue:
    case llvm::Instruction::ShuffleVector: return i < 2;
    case llvm::Instruction::Select: return i > 0;
    case llvm::Instruction::Store:
        return i == 0 && is_private(llvm::cast<llvm::StoreInst>(instruction)->getPointerOperand());
    case llvm::Instruction::Call: {
        const auto* call = llvm::cast<llvm::CallInst>(instruction);
        const llvm::Function* f = call->getCalledFunction();
        if (!f) return false;
        if (!f->isDeclaration()) return i < call->arg_size();  // our own function: arguments passed
        // vstoreN into private memory moves its value; dbg and lifetime intrinsics name variables.
        const llvm::StringRef name = builtin_name(f->getName());
        if (name.startswith("llvm.dbg.") || name.startswith("llvm.lifetime.")) return true;
        return i == 0 && name.startswith("vstore") && call->arg_size() == 3 && is_private(call->getArgOperand(2));
    }
    default: return false;
    }
}

// One work-item's loads since its last wait: those issued, and what carries their values (SSA
// values, and byte ranges of its private memory). A wait covers every load issued before it, so
// after one nothing is carried any more.
struct Flight {
    const Memory* private_memory = nullptr;
    std::uint64_t pending = 0;  // loads issued since the last wait
    // The instruction under way (memoryLoad and memoryStore come before instructionExecuted): the
    // global loads it issued, whether it read private bytes that carry a value, and whether it
    // copied such a value into local or global memory (a use).
    std::uint64_t issuing = 0;
    bool read_carried = false, used_now = false;
    std::unordered_set<const llvm::Value*> values;
    std::uint64_t filter = 0;  // a bit for each value in `values` (bit()): most lookups end here
    std::map<std::size_t, std::size_t> bytes;  // [start, end), not overlapping
    std::uint64_t waits = 0;

    bool idle() const { return pending == 0 && issuing == 0; }
    void wait() {
        ++waits;
        pending = 0;
        values.clear();
        filter = 0;
        bytes.clear();
    }
    static std::uint64_t bit(const llvm::Value* v) { return std::uint64_t{1} << ((reinterpret_cast<std::uintptr_t>(v) >> 4) & 63); }
    void carry(const llvm::Value* v, bool carried) {
        if (carried) {
            values.insert(v);
            filter |= bit(v);
        } else if (filter & bit(v)) {
            values.erase(v);
        }
    }
    bool carries(const llvm::Value* v) const { return (filter & bit(v)) && values.count(v) > 0; }
    // The first range that overlaps [at, at + size), or end().
    std::map<std::size_t, std::size_t>::iterator overlapping(std::size_t at, std::size_t size) {
        auto it = bytes.upper_bound(at);
        if (it != bytes.begin() && std::prev(it)->second > at) --it;
        return it != bytes.end() && it->first < at + size ? it : bytes.end();
    }
    bool carries_bytes(std::size_t at, std::size_t size) { return !bytes.empty() && overlapping(at, size) != bytes.end(); }
    // [at, at + size) now holds a carried value, or not; the rest of a range it cuts keeps its own.
    void carry_bytes(std::size_t at, std::size_t size, bool carried) {
        if (!carried && bytes.empty()) return;
        const std::size_t end = at + size;
        for (auto it = overlapping(at, size); it != bytes.end() && it->first < end;) {
            const auto [start, stop] = *it;
            it = bytes.erase(it);
            if (start < at) bytes.emplace(start, at);
            if (stop > end) bytes.emplace(end, stop);
        }
        if (carried) bytes.emplace(at, end);
    }
};

// The group this thread runs now: both figures' state.
struct Group {
    std::unordered_map<const WorkItem*, Interval> items;
    Totals totals;
    std::unordered_map<const WorkItem*, Flight> flights;
    const WorkItem* last = nullptr;  // Oclgrind runs one work-item until its next barrier
    Flight* last_flight = nullptr;
    bool copying = false;  // a work-group copy's loads under way, since the last instruction

    Flight& flight(const WorkItem* item) {
        if (item != last) {
            last = item;
            last_flight = &flights[item];  // an unordered_map's elements stay where they are
            if (!last_flight->private_memory) last_flight->private_memory = item->getPrivateMemory();
        }
        return *last_flight;
    }
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

    void memoryLoad(const Memory* memory, const WorkItem* item, std::size_t at, std::size_t size) override {
        if (!current) return;
        switch (memory->getAddressSpace()) {
        case oclgrind::AddrSpaceGlobal:
        case oclgrind::AddrSpaceConstant: {
            Interval& in = current->items[item];
            in.global.emplace_back(size, in.local_loads);
            current->totals.global_bytes += size;
            ++current->flight(item).issuing;
            break;
        }
        case oclgrind::AddrSpaceLocal: ++current->items[item].local_loads; break;
        case oclgrind::AddrSpacePrivate: {
            Flight& f = current->flight(item);
            if (f.pending > 0 && f.carries_bytes(at, size)) f.read_carried = true;
            break;
        }
        default: break;
        }
    }

    // An atomic on global memory returns what it found there: a load.
    void memoryAtomicLoad(const Memory* memory, const WorkItem* item, oclgrind::AtomicOp, std::size_t,
                          std::size_t) override {
        if (current && memory->getAddressSpace() == oclgrind::AddrSpaceGlobal) ++current->flight(item).issuing;
    }

    // Into private memory, a value moves (its bytes carry it on); into local or global memory, a
    // memcpy uses what it copies. (A store instruction's value is judged by its operand.)
    void memoryStore(const Memory* memory, const WorkItem* item, std::size_t at, std::size_t size,
                     const std::uint8_t*) override {
        if (!current) return;
        Flight& f = current->flight(item);
        if (f.idle()) return;
        const llvm::Instruction* now = item->getCurrentInstruction();
        const bool copy = llvm::isa<llvm::MemTransferInst>(now);
        if (memory->getAddressSpace() != oclgrind::AddrSpacePrivate) {
            if (copy && (f.read_carried || f.issuing > 0)) f.used_now = true;
            return;
        }
        bool carried = false;
        if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(now)) carried = f.carries(store->getValueOperand());
        else if (copy) carried = f.read_carried || f.issuing > 0;
        else if (const auto* call = llvm::dyn_cast<llvm::CallInst>(now); call && call->arg_size() > 0)
            carried = f.carries(call->getArgOperand(0));  // vstoreN's value
        f.carry_bytes(at, size, carried);
    }

    void memoryDeallocated(const Memory* memory, std::size_t at) override {
        // A returning function's variables: their bytes carry nothing any more.
        if (!current || !current->last_flight || current->last_flight->private_memory != memory) return;
        auto& bytes = current->last_flight->bytes;
        const std::size_t buffer = memory->extractBuffer(at);
        for (auto it = bytes.lower_bound(at); it != bytes.end() && memory->extractBuffer(it->first) == buffer;)
            it = bytes.erase(it);
    }

    // async_work_group_copy and friends: the group's own loads, never hidden here; the group
    // waits for each copy (a run of them between two instructions) once, every work-item of it.
    void memoryLoad(const Memory* memory, const WorkGroup* group, std::size_t, std::size_t size) override {
        if (current && memory->getAddressSpace() == oclgrind::AddrSpaceGlobal) {
            current->totals.global_bytes += size;
            current->totals.loads.emplace_back(0, size);
            if (!current->copying) {
                const auto s = group->getGroupSize();
                current->totals.waits += s.x * s.y * s.z;
                current->copying = true;
            }
        }
    }

    void instructionExecuted(const WorkItem* item, const llvm::Instruction* instruction, const oclgrind::TypedValue&) override {
        Group* g = current;
        if (!g) return;
        g->copying = false;
        Flight& f = g->flight(item);
        if (f.idle()) return;  // nothing in flight: most instructions of a kernel
        follow(f, item, instruction);
        f.issuing = 0;
        f.read_carried = f.used_now = false;
    }

    void workGroupBarrier(const WorkGroup*, std::uint32_t) override {
        if (current) current->close_intervals();
    }

    void workGroupComplete(const WorkGroup*) override {
        if (!current) return;
        current->close_intervals();
        for (const auto& [item, f] : current->flights) current->totals.waits += f.waits + f.pending;  // never used: one each
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
        std::printf("Global loads hidden for kernel launch %llu:\n%12llu - global load bytes\n%12llu - hidden global load "
                    "bytes\n%12llu - global load waits\n\n",
                    static_cast<unsigned long long>(launches_), static_cast<unsigned long long>(launch_.global_bytes),
                    static_cast<unsigned long long>(hidden), static_cast<unsigned long long>(launch_.waits));
        std::fflush(stdout);
    }

private:
    // One instruction of a work-item with loads in flight: a use of a carried value is a wait
    // (before whatever the instruction loads itself: its address came first); then what its
    // result, or the function it calls or returns to, carries.
    static void follow(Flight& f, const WorkItem* item, const llvm::Instruction* instruction) {
        // One pass over the operands: most carry nothing, and only those that do are asked how
        // the instruction treats them.
        bool used = f.used_now || (f.read_carried && !reads_as_move(instruction));
        bool moved = false;  // an operand that carries a value is moved into the result
        if (!used && f.filter)
            for (unsigned i = 0; i < instruction->getNumOperands() && !used; ++i)
                if (f.carries(instruction->getOperand(i))) (moves(instruction, i) ? moved : used) = true;
        if (used) f.wait();
        const bool loaded = f.issuing > 0;
        f.pending += f.issuing;
        if (f.pending == 0) return;

        if (const llvm::Function* callee = called(instruction); callee && !callee->isDeclaration()) {
            const auto* call = llvm::cast<llvm::CallInst>(instruction);
            for (unsigned i = 0; i < call->arg_size() && i < callee->arg_size(); ++i) {
                const llvm::Argument* arg = callee->getArg(i);
                f.carry(arg, f.carries(call->getArgOperand(i)));
                // An aggregate passed by value: Oclgrind copies its bytes into a fresh variable
                // without a store that memoryStore would see, so its bytes carry what the
                // original's did.
                if (arg->hasByValAttr()) {
                    const std::size_t size = callee->getParent()->getDataLayout().getTypeAllocSize(arg->getParamByValType());
                    if (f.carries_bytes(item->getOperand(call->getArgOperand(i)).getPointer(), size))
                        f.carry_bytes(item->getOperand(arg).getPointer(), size, true);
                }
            }
            f.carry(instruction, false);  // its result comes with its ret
            return;
        }
        if (const auto* ret = llvm::dyn_cast<llvm::ReturnInst>(instruction)) {
            // Back in the caller, the current instruction is the call that this returns to.
            const llvm::Instruction* call = item->getCurrentInstruction();
            if (ret->getReturnValue() && call != instruction) f.carry(call, f.carries(ret->getReturnValue()));
            return;
        }
        if (instruction->getType()->isVoidTy()) return;
        bool carried = loaded || (f.read_carried && !used && reads_as_move(instruction));
        if (!carried && moved) {
            // A phi moves the value that came from the block before it; a select the one chosen.
            if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(instruction)) {
                const int from = phi->getBasicBlockIndex(item->getPreviousBlock());
                carried = from < 0 || f.carries(phi->getIncomingValue(static_cast<unsigned>(from)));
            } else if (const auto* select = llvm::dyn_cast<llvm::SelectInst>(instruction);
                       select && !select->getCondition()->getType()->isVectorTy()) {
                carried = f.carries(item->getOperand(select->getCondition()).getUInt() ? select->getTrueValue()
                                                                                        : select->getFalseValue());
            } else {
                carried = true;
            }
        }
        f.carry(instruction, carried);
    }

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
