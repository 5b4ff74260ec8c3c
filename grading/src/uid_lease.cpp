// Leases of sandbox user blocks (uid_lease.hpp): a flock per block, checked against /proc.
#include "workbook/grading/uid_lease.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace workbook::grading {

namespace fs = std::filesystem;

std::string UidLease::default_lock_dir() {
    if (const char* d = std::getenv("WORKBOOK_UID_LOCKS"); d && *d) return d;
    return fs::is_directory("/run/lock") ? "/run/lock/workbook-uids" : "/tmp/workbook-uids";
}

bool uids_in_use(int first, int count) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string pid = entry.path().filename().string();
        if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream status(entry.path() / "status");
        for (std::string line; std::getline(status, line);) {
            if (line.rfind("Uid:", 0) != 0) continue;
            std::istringstream ids(line.substr(4));
            for (long id; ids >> id;)
                if (id >= first && id < first + count) return true;
            break;
        }
    }
    return false;
}

UidLease::UidLease(const std::string& lock_dir, int first_uid, int block_size, int blocks) {
    std::error_code ec;
    fs::create_directories(lock_dir, ec);
    // Shared by every user that grades on this machine; each lock file is opened, never trusted.
    ::chmod(lock_dir.c_str(), 01777);
    const int start = static_cast<int>(::getpid() % blocks);
    for (int k = 0; k < blocks; ++k) {
        const int b = (start + k) % blocks;
        const std::string path = fmt::format("{}/block-{}", lock_dir, b);
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0) continue;
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd);  // another live run holds it
            continue;
        }
        if (uids_in_use(first_uid + b * block_size, block_size)) {
            ::close(fd);  // a run that died left processes behind: not this one
            continue;
        }
        fd_ = fd;
        block_ = b;
        first_ = first_uid + b * block_size;
        size_ = block_size;
        return;
    }
    throw Error(fmt::format("no free block of sandbox users: all {} under {} are held by live runs or have processes "
                            "left running (end those, or point WORKBOOK_UID_LOCKS at another folder)",
                            blocks, lock_dir));
}

UidLease::~UidLease() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace workbook::grading
