// Blocks of Unix user ids for sandboxes, each held by one process at a time. The sandbox runs
// every submission as a user of its own because RLIMIT_NPROC counts per user: two live runs that
// shared one would let one student's fork bomb zero another's build. So every grading run, Slurm
// task and contest judge on a machine leases its block here instead of deriving it from a process
// or job id (which repeat modulo any range).
#pragma once

#include <string>

namespace workbook::grading {

class UidLease {
public:
    // The pool every tool shares: `blocks` blocks of `block_size` users from `first_uid`.
    static constexpr int pool_first = 200000, pool_block_size = 1000, pool_blocks = 1000;

    // Takes the first free block, probing from one chosen by the process id: free means its lock
    // file (one per block under `lock_dir`) is not held, taken with an exclusive flock() that the
    // kernel drops when the holder exits however it exits, and no live process runs as any user
    // of it (what a killed run left behind). Throws, naming the folder, when none is free.
    explicit UidLease(const std::string& lock_dir = default_lock_dir(), int first_uid = pool_first,
                      int block_size = pool_block_size, int blocks = pool_blocks);
    ~UidLease();
    UidLease(const UidLease&) = delete;
    UidLease& operator=(const UidLease&) = delete;

    int block() const { return block_; }
    int first() const { return first_; }
    int size() const { return size_; }
    // The i-th user of the block (i taken modulo its size).
    int uid(std::size_t i) const { return first_ + static_cast<int>(i % static_cast<std::size_t>(size_)); }

    // WORKBOOK_UID_LOCKS when set; else /run/lock/workbook-uids (one per machine, cleared at
    // boot), or /tmp/workbook-uids where /run/lock is missing.
    static std::string default_lock_dir();

private:
    int fd_ = -1, block_ = -1, first_ = 0, size_ = 0;
};

// True when a live process on this machine runs as a user in [first, first + count) (real,
// effective or saved id), from /proc.
bool uids_in_use(int first, int count);

}  // namespace workbook::grading
