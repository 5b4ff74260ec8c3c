// Unit tests: sandbox user blocks are never shared by two live leases, come back when released,
// and a block with a live process under one of its users is passed over.
#include "workbook/grading/uid_lease.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using workbook::grading::UidLease;
using workbook::grading::uids_in_use;

namespace {

std::string fresh_lock_dir(const char* name) {
    const auto dir = std::filesystem::temp_directory_path() / (std::string("uid-lease-test-") + name + "-" +
                                                               std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir.string();
}

}  // namespace

TEST_CASE("uid lease: live leases never share a block, a released one is free again") {
    const std::string dir = fresh_lock_dir("share");
    // A small pool (4 blocks of 10 users, far above any real user) so that it runs out.
    std::vector<std::unique_ptr<UidLease>> held;
    std::set<int> blocks, users;
    for (int k = 0; k < 4; ++k) {
        held.push_back(std::make_unique<UidLease>(dir, 3000000, 10, 4));
        blocks.insert(held.back()->block());
        for (std::size_t i = 0; i < 10; ++i) users.insert(held.back()->uid(i));
    }
    CHECK(blocks.size() == 4);
    CHECK(users.size() == 40);  // no user in two blocks
    CHECK(held[0]->uid(10) == held[0]->uid(0));
    // All four held: the fifth is refused with the folder named, not given a shared block.
    try {
        UidLease fifth(dir, 3000000, 10, 4);
        FAIL("a fifth lease was granted from a pool of four held blocks: block " << fifth.block());
    } catch (const std::exception& e) {
        CHECK(std::string(e.what()).find(dir) != std::string::npos);
    }
    const int freed = held[2]->block();
    held[2].reset();
    const UidLease again(dir, 3000000, 10, 4);
    CHECK(again.block() == freed);
    std::filesystem::remove_all(dir);
}

TEST_CASE("uid lease: a lease ends with the process that holds it, however it ends") {
    const std::string dir = fresh_lock_dir("death");
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // The parent's probes may hold the block for a moment: try until it is ours.
        for (int tries = 0; tries < 500; ++tries) {
            try {
                const UidLease mine(dir, 3000000, 10, 1);
                ::pause();  // held until killed
            } catch (...) {
                ::usleep(2000);
            }
        }
        ::_exit(1);
    }
    // Wait until the child holds the pool's only block.
    bool held = false;
    for (int tries = 0; tries < 200 && !held; ++tries) {
        try {
            UidLease probe(dir, 3000000, 10, 1);
        } catch (const std::exception&) {
            held = true;
            break;
        }
        ::usleep(10000);
    }
    CHECK(held);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    const UidLease after(dir, 3000000, 10, 1);  // the kernel dropped the dead holder's lock
    CHECK(after.block() == 0);
    std::filesystem::remove_all(dir);
}

TEST_CASE("uid lease: a block with a live process under one of its users is passed over") {
    if (::geteuid() != 0) {
        MESSAGE("skipped: only root can start a process as another user");
        return;
    }
    const std::string dir = fresh_lock_dir("leftover");
    const int leftover_uid = 3000000 + 10 * 0 + 7;  // in block 0 of a pool of two
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        if (::setgid(leftover_uid) != 0 || ::setuid(leftover_uid) != 0) ::_exit(1);
        ::pause();
        ::_exit(0);
    }
    for (int tries = 0; tries < 200 && !uids_in_use(leftover_uid, 1); ++tries) ::usleep(10000);
    CHECK(uids_in_use(3000000, 10));
    CHECK_FALSE(uids_in_use(3000010, 10));
    // Whichever block the probe starts from, block 0 is left out while that process lives.
    for (int k = 0; k < 3; ++k) {
        const UidLease lease(dir, 3000000, 10, 2);
        CHECK(lease.block() == 1);
    }
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    std::filesystem::remove_all(dir);
}
