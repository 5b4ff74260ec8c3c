// Unit tests: kernel sources, embedded and from WORKBOOK_KERNEL_DIR.
#include "workbook/errors.hpp"
#include "workbook/kernels.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

namespace {

const char unit_text[] = "__kernel void unit_probe(__global float* x) { x[0] = 1.0f; }\n";
const workbook::EmbeddedKernel unit_probe{"unit_probe.cl", "common/tests/unit_probe.cl", unit_text,
                                          sizeof unit_text - 1};

struct KernelDir {
    std::filesystem::path path = std::filesystem::temp_directory_path() / "workbook_kernel_dir_test";
    KernelDir() {
        std::filesystem::create_directories(path);
        setenv("WORKBOOK_KERNEL_DIR", path.c_str(), 1);
    }
    ~KernelDir() {
        unsetenv("WORKBOOK_KERNEL_DIR");
        std::filesystem::remove_all(path);
    }
};

}  // namespace

TEST_CASE("embedded sources are found by name, with their path") {
    const auto k = workbook::kernel_source("unit_probe.cl");
    CHECK(k.text == unit_text);
    CHECK(k.path == "common/tests/unit_probe.cl");
}

TEST_CASE("an unknown name is an error naming what is embedded") {
    try {
        workbook::kernel_source("missing.cl");
        FAIL("no error");
    } catch (const workbook::Error& e) {
        const std::string msg = e.what();
        CHECK(msg.find("missing.cl") != std::string::npos);
        CHECK(msg.find("unit_probe.cl") != std::string::npos);
    }
}

TEST_CASE("WORKBOOK_KERNEL_DIR overrides the embedded copy, and a missing file there is an error") {
    KernelDir dir;
    std::ofstream(dir.path / "unit_probe.cl") << "// from disk\n";
    const auto k = workbook::kernel_source("unit_probe.cl");
    CHECK(k.text == "// from disk\n");
    CHECK(k.path == (dir.path / "unit_probe.cl").string());
    CHECK_THROWS_WITH_AS(workbook::kernel_source("other.cl"), doctest::Contains("WORKBOOK_KERNEL_DIR"),
                         workbook::Error);
}

// What a student's runner can leave in its kernel folder while the checker reads it.
TEST_CASE("a kernel in WORKBOOK_KERNEL_DIR is read only when it is a plain file of sane size") {
    KernelDir dir;
    REQUIRE(::mkfifo((dir.path / "fifo.cl").c_str(), 0600) == 0);
    CHECK_THROWS_WITH_AS(workbook::kernel_source("fifo.cl"), doctest::Contains("not a plain file"), workbook::Error);
    std::ofstream(dir.path / "real.cl") << "// real\n";
    std::filesystem::create_symlink(dir.path / "real.cl", dir.path / "link.cl");
    CHECK_THROWS_WITH_AS(workbook::kernel_source("link.cl"), doctest::Contains("symbolic link"), workbook::Error);
    std::ofstream(dir.path / "huge.cl") << std::string((4 << 20) + 1, ' ');
    CHECK_THROWS_WITH_AS(workbook::kernel_source("huge.cl"), doctest::Contains("larger than"), workbook::Error);
    CHECK(workbook::kernel_source("real.cl").text == "// real\n");
}
