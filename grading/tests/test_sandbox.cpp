// Unit tests: nothing one process of a submission's sandbox writes into its kernel cache, HOME or
// /tmp is read by the next one (issue 60: one exercise's runner planted a compiled kernel that
// another exercise's runner then ran), and the compiled kernels each starts from stay as seeded.
#include "workbook/grading/sandbox.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;
using workbook::grading::Sandbox;

namespace {

std::string read(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A submission's folders as the grader lays them out: a scratch folder its user may write, and
// compiled kernels (one program's folder, as PoCL names them) that it may only read.
struct Folders {
    fs::path root, scratch, cache, entry;
    Folders() {
        root = fs::temp_directory_path() / ("sandbox-test-" + std::to_string(::getpid()));
        fs::remove_all(root);
        scratch = root / "scratch";
        cache = root / "compiled";
        entry = cache / "BF" / "BGFCMECLEK" / "program.bc";
        fs::create_directories(scratch);
        fs::create_directories(entry.parent_path());
        std::ofstream(entry) << "seeded";
        fs::permissions(root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
        fs::permissions(scratch, fs::perms::all);
    }
    ~Folders() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
};

Sandbox box_for(const Folders& f) {
    Sandbox box;
    box.scratch = f.scratch.string();
    box.kernel_cache = f.cache.string();
    if (::geteuid() != 0) box.uid = -1;  // no user to switch to; the namespaces still hold
    return box;
}

}  // namespace

TEST_CASE("sandbox: the kernel cache is the process's own, seeded read-only, none of it shared") {
    using namespace std::chrono_literals;
    if (const auto why = workbook::grading::sandbox_problem(); !why.empty()) {
        MESSAGE("SKIPPED (no sandbox here): " << why);
        return;
    }
    const Folders f;
    const Sandbox box = box_for(f);
    // The words alone: the cache is mounted read-only and never lies in the writable scratch folder.
    const auto words = box.wrapper();
    const auto ro = std::find(words.begin(), words.end(), f.cache.string());
    if (ro == words.end()) FAIL_CHECK("the compiled kernels are not mounted");
    else CHECK(*(ro - 1) == "--ro-bind");
    for (std::size_t i = 0; i + 2 < words.size(); ++i)
        if (words[i] == "--setenv" && words[i + 1] == "POCL_CACHE_DIR")
            CHECK(words[i + 2].rfind(f.scratch.string(), 0) != 0);

    // The first process, as a hostile runner: plants a program, rewrites the seeded one in its
    // copy and where it is mounted, and leaves files in HOME and /tmp.
    const std::string seeded = "BF/BGFCMECLEK/program.bc";
    const auto first = box.run({"sh", "-c",
                                "mkdir -p \"$POCL_CACHE_DIR/BF/BGFCMECLEK\"; echo planted > \"$POCL_CACHE_DIR/" + seeded + "\"; "
                                "mkdir -p \"$POCL_CACHE_DIR/AA/PLANT\" && echo planted > \"$POCL_CACHE_DIR/AA/PLANT/program.bc\"; "
                                "echo planted > '" + f.entry.string() + "' 2>/dev/null || echo mounted-read-only; "
                                "echo planted > \"$HOME/planted\"; echo planted > /tmp/planted; "
                                "cat \"$POCL_CACHE_DIR/" + seeded + "\"; true"},
                               20s);
    INFO("first: " << first.output);
    REQUIRE(first.passed());
    CHECK(first.output.find("mounted-read-only") != std::string::npos);
    CHECK(first.output.find("planted") != std::string::npos);  // its own copy was writable

    // The next process sees the cache as seeded and nothing the first one left.
    const auto second = box.run({"sh", "-c",
                                 "cat \"$POCL_CACHE_DIR/" + seeded + "\"; echo; "
                                 "ls -A \"$POCL_CACHE_DIR\" \"$HOME\" /tmp; true"},
                                20s);
    INFO("second: " << second.output);
    REQUIRE(second.passed());
    CHECK(second.output.rfind("seeded\n", 0) == 0);
    CHECK(second.output.find("AA") == std::string::npos);
    CHECK(second.output.find("planted") == std::string::npos);
    CHECK(read(f.entry) == "seeded");
    // Nothing of either went into the scratch folder the submission's processes share.
    CHECK(fs::is_empty(f.scratch));
}
