// An Oclgrind plugin (loaded with `oclgrind --plugins`): reports a kernel that looks at what a
// pointer is rather than where it points. Oclgrind's addresses carry the buffer's number in their
// top bits and a device's do not, so `((ulong)A >> 47) != 0` holds only under the simulator, and a
// kernel could keep a barrier, or a rung's traffic, only where the race pass or the traffic count
// sees it. Reported as Oclgrind reports its own errors (race_check.cpp's parse() reads them):
//   - a pointer turned into a number: ptrtoint, or a pointer stored to memory and read back as data;
//   - a pointer made from a number: inttoptr, or data read back from memory as a pointer (how a
//     kernel would compare a pointer with an address it guessed);
//   - an ordered comparison (<, >=, ...) of pointers into different buffers, whose order is the
//     simulator's allocation order here and the device allocator's there;
//   - a barrier reached after a branch on the order in which work-items ran. The simulator runs a
//     group's work-items one after another, each to its next barrier, where a GPU interleaves
//     them; so an atomic's returned value (`atomic_inc(&n) == get_local_id(0)`), or what an
//     exchange leaves in memory, tells the two apart, and a kernel could keep its barriers only
//     where they are in order. The value is followed as data (through arithmetic, selects and
//     memory); the report comes at a barrier in a work-item that branched on it. (PoCL runs a
//     group's work-items in order too, so there the kernel keeps its barriers: the gain is on
//     GPUs only.) A correct kernel that branches on an atomic's result and then reaches a barrier
//     (a float added by compare-and-swap into local memory, a last-group reduction) is reported
//     as well: no lesson of the course needs one, and the message says so.
// Each (finding, kernel, source line) once per process, and once on stdout too, where the traffic
// run reads it (speed_testing.cpp: its runner's stdout is the only output it keeps).
#include <oclgrind/Context.h>
#include <oclgrind/Kernel.h>
#include <oclgrind/KernelInvocation.h>
#include <oclgrind/Memory.h>
#include <oclgrind/Plugin.h>
#include <oclgrind/WorkGroup.h>
#include <oclgrind/WorkItem.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using oclgrind::Memory;
using oclgrind::WorkGroup;
using oclgrind::WorkItem;

enum class Finding { reads_bits, makes_pointer, compares_buffers, branches_on_order };

const char* headline(Finding f) {
    // Each ends with the words Report::explanation() (race_check.cpp) knows them by.
    switch (f) {
    case Finding::reads_bits:
        return "Kernel reads the bits of a pointer (converts it to a number, compares it with one, or reads it back "
               "from memory as data): a pointer's value differs between the simulator and the device, so graded "
               "kernels may not depend on it";
    case Finding::makes_pointer:
        return "Kernel makes a pointer from a number (converts one to a pointer, or reads data back from memory as a "
               "pointer): a pointer's value differs between the simulator and the device, so graded kernels may not "
               "depend on it";
    case Finding::compares_buffers:
        return "Kernel compares the order of pointers into different buffers: the order of buffers differs between the "
               "simulator and the device, so graded kernels may not depend on it";
    case Finding::branches_on_order:
        return "Kernel reaches a barrier after branching on the order in which work-items ran (a value an atomic "
               "operation returned, or an exchange left in memory): the simulator runs work-items in order and a GPU "
               "does not, so graded kernels may not depend on it (no lesson here needs an atomic's result before a "
               "barrier)";
    }
    return "";
}

// The stdout line's prefix; speed_testing.cpp looks for it.
constexpr const char* stdout_prefix = "workbook fingerprint: ";

// What a constant expression operand hides (a pointer to a __local or __constant array is a
// constant, so `(ulong)tile` folds into one). Shallow: constant expressions nest a few deep.
bool constant_finding(const llvm::Constant* c, Finding& out) {
    const auto* e = llvm::dyn_cast<llvm::ConstantExpr>(c);
    if (!e) return false;
    switch (e->getOpcode()) {
    case llvm::Instruction::PtrToInt: out = Finding::reads_bits; return true;
    case llvm::Instruction::IntToPtr: out = Finding::makes_pointer; return true;
    case llvm::Instruction::ICmp:
        // Folded only where the two are different arrays: an ordered one compares buffers.
        if (e->getOperand(0)->getType()->isPtrOrPtrVectorTy() && !llvm::ICmpInst::isEquality(
                static_cast<llvm::CmpInst::Predicate>(e->getPredicate()))) {
            out = Finding::compares_buffers;
            return true;
        }
        break;
    default: break;
    }
    for (const llvm::Use& op : e->operands())
        if (const auto* inner = llvm::dyn_cast<llvm::Constant>(op.get()); inner && constant_finding(inner, out)) return true;
    return false;
}

// Whether a value of this type carries pointer bits: a pointer, or an aggregate with one inside
// (`mixed`: its other bytes are data). A handle (event_t, an image: a pointer to an opaque type)
// counts as mixed too: wait_group_events(1, &e) reads one from memory, and nothing else can.
bool has_pointer(const llvm::Type* t, bool& mixed) {
    if (t->isVectorTy()) t = t->getScalarType();
    if (t->isPointerTy()) {
        if (!t->isOpaquePointerTy())
            if (const auto* to = llvm::dyn_cast<llvm::StructType>(t->getNonOpaquePointerElementType()); to && to->isOpaque())
                mixed = true;
        return true;
    }
    if (const auto* s = llvm::dyn_cast<llvm::StructType>(t)) {
        for (const llvm::Type* e : s->elements())
            if (has_pointer(e, mixed)) return mixed = true;
    } else if (const auto* a = llvm::dyn_cast<llvm::ArrayType>(t)) {
        if (has_pointer(a->getElementType(), mixed)) return mixed = true;
    }
    return false;
}

// Which bytes of one memory hold a pointer that a store put there: [start, end) ranges that do
// not overlap. `mixed`: a struct with a pointer inside, whose bytes no rule reports on.
struct Slot {
    std::size_t end;
    bool mixed;
};
using Slots = std::map<std::size_t, Slot>;

Slots::iterator first_overlapping(Slots& s, std::size_t at, std::size_t size) {
    auto it = s.upper_bound(at);
    if (it != s.begin() && std::prev(it)->second.end > at) --it;
    return it != s.end() && it->first < at + size ? it : s.end();
}

void forget(Slots& s, std::size_t at, std::size_t size) {
    for (auto it = first_overlapping(s, at, size); it != s.end() && it->first < at + size;) it = s.erase(it);
}

// Whether [at, at + size) holds a pointer's bytes, that is, overlaps a slot that is not mixed.
bool holds_pointer_bytes(Slots& s, std::size_t at, std::size_t size) {
    for (auto it = first_overlapping(s, at, size); it != s.end() && it->first < at + size; ++it)
        if (!it->second.mixed) return true;
    return false;
}

// Whether slots cover [at, at + size) with no gap: a pointer read back is one a store put there.
bool covered(Slots& s, std::size_t at, std::size_t size) {
    auto it = first_overlapping(s, at, size);
    for (std::size_t next = at; next < at + size; next = it->second.end, ++it)
        if (it == s.end() || it->first > next) return false;
    return true;
}

// The slots of what one work-group owns (its work-items' private memories, its local memory),
// which Oclgrind runs on one worker thread from its start to its end; and a memcpy under way:
// the slots it read, relative to its source, for its store to copy.
struct GroupState {
    std::unordered_map<const Memory*, Slots> slots;
    const Memory* last = nullptr;  // the memory asked last, as most accesses repeat it
    Slots* last_slots = nullptr;
    const llvm::Instruction* copying = nullptr;
    std::vector<std::pair<std::size_t, Slot>> copied;
};
thread_local GroupState group;

// What carries the order in which work-items ran, per work-group (all of whose work-items run on
// one worker thread): each work-item's values computed from an atomic's result, and whether it
// has branched on one (the branch, for the report); the bytes of private and local memory that
// hold such a value. Global memory's are shared, under a lock.
struct ItemOrder {
    std::unordered_set<const llvm::Value*> values;
    const llvm::Instruction* branch = nullptr;
};
struct GroupOrder {
    std::unordered_map<const WorkItem*, ItemOrder> items;
    std::unordered_map<const Memory*, Slots> memory;
    bool loaded = false;  // the instruction under way read such bytes (memoryLoad comes first)
};
thread_local GroupOrder order;

bool is_call_to(const llvm::Instruction* instruction, const char* word) {
    const auto* call = llvm::dyn_cast<llvm::CallInst>(instruction);
    const llvm::Function* f = call ? call->getCalledFunction() : nullptr;
    return f && f->getName().contains(word);
}

// An atomic builtin (atomic_inc, atom_add, atomic_cmpxchg, ... as Oclgrind names them) or one of
// LLVM's atomic instructions: what it returns depends on who came first.
bool returns_order(const llvm::Instruction* instruction) {
    if (llvm::isa<llvm::AtomicRMWInst>(instruction) || llvm::isa<llvm::AtomicCmpXchgInst>(instruction)) return true;
    if (instruction->getType()->isVoidTy()) return false;
    return is_call_to(instruction, "atomic_") || is_call_to(instruction, "atom_");
}

class Fingerprint final : public oclgrind::Plugin {
public:
    explicit Fingerprint(const oclgrind::Context* context) : oclgrind::Plugin(context) {}

    bool isThreadSafe() const override { return true; }

    void kernelBegin(const oclgrind::KernelInvocation* invocation) override {
        const std::lock_guard lock(mutex_);
        kernel_ = invocation->getKernel()->getName();
    }

    void workGroupBegin(const WorkGroup*) override {
        group = GroupState{};
        order = GroupOrder{};
    }
    void workGroupComplete(const WorkGroup*) override {
        group = GroupState{};
        order = GroupOrder{};
    }
    // Every work-item of the group is at the barrier: any that branched on the order came here.
    void workGroupBarrier(const WorkGroup*, std::uint32_t) override {
        for (const auto& [item, mine] : order.items)
            if (mine.branch) report(Finding::branches_on_order, mine.branch);
    }

    void instructionExecuted(const WorkItem* item, const llvm::Instruction* instruction, const oclgrind::TypedValue&) override {
        follow_order(item, instruction);
        switch (instruction->getOpcode()) {
        case llvm::Instruction::PtrToInt: report(Finding::reads_bits, instruction); return;
        case llvm::Instruction::IntToPtr: report(Finding::makes_pointer, instruction); return;
        default: break;
        }
        for (const llvm::Use& op : instruction->operands()) {
            Finding f;
            if (const auto* c = llvm::dyn_cast<llvm::ConstantExpr>(op.get()); c && constant_finding(c, f)) {
                // A pointer compared with an address written as a number is what the optimiser
                // makes of `((ulong)A >> 47) != 0`: the pointer's bits are read.
                if (f == Finding::makes_pointer && llvm::isa<llvm::ICmpInst>(instruction)) f = Finding::reads_bits;
                report(f, instruction);
                return;
            }
        }
        if (const auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(instruction)) compare(item, cmp);
    }

    void memoryStore(const Memory* memory, const WorkItem* item, std::size_t at, std::size_t size, const std::uint8_t*) override {
        const llvm::Instruction* now = item->getCurrentInstruction();
        if (order_seen_) {
            // A value from the order, any value at an address computed from it (`seen[atomic_inc(&n)]
            // = lid`: which slot holds what is the order), or bytes a copy read from such memory.
            bool carries = order.loaded;
            for (const llvm::Use& v : now->operands()) carries = carries || carries_order(item, v.get());
            mark_order(memory, at, size, carries);
        }
        bool pointer = false, mixed = false;
        if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(now)) pointer = has_pointer(store->getValueOperand()->getType(), mixed);
        const bool copy = now == group.copying;
        auto [s, lock] = open(memory, pointer || copy);
        if (!s) return;
        forget(*s, at, size);
        if (pointer) add(*s, at, {at + size, mixed});
        if (copy) {
            for (const auto& [offset, slot] : group.copied)
                if (offset < size) add(*s, at + offset, {at + std::min(slot.end, size), slot.mixed});
            group.copying = nullptr;
        }
        if (shared(memory)) global_count_ = global_.size();
    }

    void memoryLoad(const Memory* memory, const WorkItem* item, std::size_t at, std::size_t size) override {
        const llvm::Instruction* now = item->getCurrentInstruction();
        if (order_seen_ && holds_order(memory, at, size)) order.loaded = true;
        bool pointer = false, mixed = false;
        if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(now)) pointer = has_pointer(load->getType(), mixed);
        std::optional<Finding> found;
        {
            auto [s, lock] = open(memory, false);
            if (llvm::isa<llvm::MemTransferInst>(now)) {
                // A memcpy moves bytes, pointers with the rest: its store (next) copies the slots.
                group.copying = now;
                group.copied.clear();
                if (s)
                    for (auto it = first_overlapping(*s, at, size); it != s->end() && it->first < at + size; ++it)
                        if (it->first >= at) group.copied.push_back({it->first - at, {it->second.end - at, it->second.mixed}});
                return;
            }
            if (pointer && !mixed && !(s && covered(*s, at, size))) found = Finding::makes_pointer;
            else if (!pointer && s && holds_pointer_bytes(*s, at, size)) found = Finding::reads_bits;
        }
        if (found) report(*found, now);
    }

    // An atomic on a pointer's bytes reads them; its store overwrites them with data.
    void memoryAtomicLoad(const Memory* memory, const WorkItem* item, oclgrind::AtomicOp, std::size_t at,
                          std::size_t size) override {
        bool found = false;
        {
            auto [s, lock] = open(memory, false);
            found = s && holds_pointer_bytes(*s, at, size);
        }
        if (found) report(Finding::reads_bits, item->getCurrentInstruction());
    }
    void memoryAtomicStore(const Memory* memory, const WorkItem* item, oclgrind::AtomicOp op, std::size_t at,
                           std::size_t size) override {
        forget_data(memory, at, size);
        // What an exchange leaves is the last one's value; an addition's total is the same in any
        // order, unless what was added carries the order itself.
        const bool exchange = op == oclgrind::AtomicXchg || op == oclgrind::AtomicCmpXchg;
        order_seen_ = order_seen_ || exchange;
        if (!order_seen_) return;
        bool from_order = exchange;
        if (const llvm::Instruction* now = item->getCurrentInstruction(); !from_order)
            for (const llvm::Use& v : now->operands()) from_order = from_order || carries_order(item, v.get());
        if (from_order || holds_order(memory, at, size)) mark_order(memory, at, size, true);
    }
    // async_work_group_copy writes data; so does the host.
    void memoryStore(const Memory* memory, const WorkGroup*, std::size_t at, std::size_t size, const std::uint8_t*) override {
        forget_data(memory, at, size);
        if (order_seen_) mark_order(memory, at, size, false);
    }
    void hostMemoryStore(const Memory* memory, std::size_t at, std::size_t size, const std::uint8_t*) override {
        forget_data(memory, at, size);
        if (order_seen_) mark_order(memory, at, size, false);
    }
    void memoryDeallocated(const Memory* memory, std::size_t at) override {
        if (!shared(memory)) return;
        const std::lock_guard lock(global_mutex_);
        const std::size_t buffer = memory->extractBuffer(at);
        for (auto it = global_.begin(); it != global_.end();)
            it = memory->extractBuffer(it->first) == buffer ? global_.erase(it) : std::next(it);
        global_count_ = global_.size();
        for (auto it = global_order_.begin(); it != global_order_.end();)
            it = memory->extractBuffer(it->first) == buffer ? global_order_.erase(it) : std::next(it);
    }

private:
    // The order's trail through one instruction (see GroupOrder): an atomic's result carries it,
    // and so does whatever is computed from such a value or loaded from bytes that hold one. A
    // branch on it is remembered, and a barrier after such a branch reported at the branch.
    void follow_order(const WorkItem* item, const llvm::Instruction* instruction) {
        const bool loaded = std::exchange(order.loaded, false);
        if (returns_order(instruction)) order_seen_ = true;
        if (!order_seen_) return;
        ItemOrder& mine = order.items[item];
        if (is_call_to(instruction, "barrier")) {
            if (mine.branch) report(Finding::branches_on_order, mine.branch);
            return;
        }
        const llvm::Value* condition = nullptr;
        if (const auto* br = llvm::dyn_cast<llvm::BranchInst>(instruction); br && br->isConditional()) condition = br->getCondition();
        else if (const auto* sw = llvm::dyn_cast<llvm::SwitchInst>(instruction)) condition = sw->getCondition();
        if (condition) {
            if (!mine.branch && mine.values.count(condition)) mine.branch = instruction;
            return;
        }
        bool carries = loaded || returns_order(instruction);
        for (const llvm::Use& op : instruction->operands()) carries = carries || mine.values.count(op.get()) > 0;
        if (carries) mine.values.insert(instruction);
        else mine.values.erase(instruction);  // computed again (a loop) from values without it
    }
    bool carries_order(const WorkItem* item, const llvm::Value* v) {
        const auto it = order.items.find(item);
        return it != order.items.end() && it->second.values.count(v) > 0;
    }
    bool holds_order(const Memory* memory, std::size_t at, std::size_t size) {
        if (shared(memory)) {
            const std::lock_guard lock(global_mutex_);
            return first_overlapping(global_order_, at, size) != global_order_.end();
        }
        auto& s = order.memory[memory];
        return first_overlapping(s, at, size) != s.end();
    }
    void mark_order(const Memory* memory, std::size_t at, std::size_t size, bool carries) {
        std::unique_lock<std::mutex> lock;
        Slots* s = &order.memory[memory];
        if (shared(memory)) {
            lock = std::unique_lock(global_mutex_);
            s = &global_order_;
        }
        if (carries) add(*s, at, {at + size, false});
        else forget(*s, at, size);
    }

    // Global and constant memory is every work-group's: its slots are shared, under a lock taken
    // only while any exist or one is added (a kernel that never stores a pointer there never
    // waits for it). `slots` is null where there is nothing to look at.
    struct Open {
        Slots* slots;
        std::unique_lock<std::mutex> lock;
    };
    static bool shared(const Memory* memory) {
        return memory->getAddressSpace() == oclgrind::AddrSpaceGlobal || memory->getAddressSpace() == oclgrind::AddrSpaceConstant;
    }
    Open open(const Memory* memory, bool adding) {
        if (shared(memory)) {
            if (!adding && global_count_ == 0) return {nullptr, {}};
            return {&global_, std::unique_lock(global_mutex_)};
        }
        if (group.last != memory) {
            group.last = memory;
            group.last_slots = &group.slots[memory];
        }
        return {group.last_slots, {}};
    }
    void forget_data(const Memory* memory, std::size_t at, std::size_t size) {
        auto [s, lock] = open(memory, false);
        if (!s) return;
        forget(*s, at, size);
        if (shared(memory)) global_count_ = global_.size();
    }
    static void add(Slots& s, std::size_t at, Slot slot) {
        if (slot.end <= at) return;
        forget(s, at, slot.end - at);
        s.emplace(at, slot);
    }

    // An ordered comparison of two pointers into different buffers (a null pointer is no buffer).
    void compare(const WorkItem* item, const llvm::ICmpInst* cmp) {
        if (cmp->isEquality() || !cmp->getOperand(0)->getType()->isPointerTy()) return;
        const unsigned space = cmp->getOperand(0)->getType()->getPointerAddressSpace();
        const Memory* memory = space == oclgrind::AddrSpacePrivate ? item->getPrivateMemory()
                               : space == oclgrind::AddrSpaceLocal ? item->getWorkGroup()->getLocalMemory()
                                                                   : m_context->getGlobalMemory();
        const std::size_t a = item->getOperand(cmp->getOperand(0)).getPointer();
        const std::size_t b = item->getOperand(cmp->getOperand(1)).getPointer();
        if (a && b && memory->extractBuffer(a) != memory->extractBuffer(b)) report(Finding::compares_buffers, cmp);
    }

    // The instruction, or where the optimiser took its source line away (a loop-invariant test
    // hoisted out of its loop), the nearest instruction using its value that kept one.
    static const llvm::Instruction* located(const llvm::Instruction* instruction, int depth = 3) {
        if (instruction->getDebugLoc() || depth == 0) return instruction;
        for (const llvm::User* user : instruction->users())
            if (const auto* use = llvm::dyn_cast<llvm::Instruction>(user))
                if (const llvm::Instruction* found = located(use, depth - 1); found->getDebugLoc()) return found;
        return instruction;
    }

    void report(Finding f, const llvm::Instruction* instruction) {
        instruction = located(instruction);
        unsigned line = 0;
        std::string file;
        if (const llvm::DILocation* loc = instruction->getDebugLoc().get()) {
            line = loc->getLine();
            file = loc->getFilename().str();
        }
        std::string kernel;
        {
            const std::lock_guard lock(mutex_);
            kernel = kernel_;
            if (!seen_.emplace(f, kernel, file, line).second) return;
        }
        // As Oclgrind's own checks report: an error, with the kernel, the work-item, the
        // instruction and its source line, counted against --max-errors.
        oclgrind::Context::Message msg(oclgrind::ERROR, m_context);
        msg << headline(f) << std::endl
            << msg.INDENT << "Kernel: " << msg.CURRENT_KERNEL << std::endl
            << "Entity: " << msg.CURRENT_ENTITY << std::endl
            << instruction << std::endl;
        msg.send();
        std::printf("%s%s (kernel %s, line %u of %s)\n", stdout_prefix, headline(f), kernel.c_str(), line,
                    file.empty() ? "?" : file.c_str());
        std::fflush(stdout);
    }

    std::mutex mutex_;
    std::string kernel_;
    std::set<std::tuple<Finding, std::string, std::string, unsigned>> seen_;
    std::mutex global_mutex_;
    Slots global_;
    std::atomic<std::size_t> global_count_{0};
    Slots global_order_;                  // global bytes that hold the order (under global_mutex_)
    std::atomic<bool> order_seen_{false};  // an atomic has run: the order is followed from then on
};

Fingerprint* plugin = nullptr;

}  // namespace

extern "C" void initializePlugins(oclgrind::Context* context) {
    plugin = new Fingerprint(context);
    context->registerPlugin(plugin);
}

extern "C" void releasePlugins(oclgrind::Context* context) {
    context->unregisterPlugin(plugin);
    delete plugin;
    plugin = nullptr;
}
