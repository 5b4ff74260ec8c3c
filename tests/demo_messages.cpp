// End-to-end tests of the demo programs as a student meets them: exit statuses, and the
// messages for a device that doesn't exist, a machine without OpenCL, a kernel that doesn't
// compile and a bad seed. Runs the real binaries in child processes.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "workbook/process.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const fs::path bin = WORKBOOK_BIN_DIR;

workbook::ProcessResult run(const std::string& program, const std::vector<std::string>& env,
                            std::vector<std::string> args = {}) {
    args.insert(args.begin(), (bin / program).string());
    return workbook::run_process(args, 120s, env);
}

bool has(const workbook::ProcessResult& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// Every check below shows the program's whole output when it fails.
#define SHOW(r) INFO("output of the program:\n", (r).output)

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / name) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("the solution demo passes and prints the device and the seed; the starter demo fails") {
    const auto ok = run("02_vadd-solution", {"WORKBOOK_SEED=17"}, {"--count", "1000"});
    SHOW(ok);
    CHECK(ok.exit_code == 0);
    CHECK(has(ok, "Device: "));
    CHECK(has(ok, "WORKBOOK_SEED=17"));
    CHECK(has(ok, "PASS c = a + b for 1000 elements"));
    const auto starter = run("02_vadd", {}, {"--count", "1000"});
    SHOW(starter);
    CHECK(starter.exit_code == 1);
    CHECK(has(starter, "FAIL"));
}

TEST_CASE("a device that doesn't exist: exit 2 and the list of devices") {
    const auto r = run("02_vadd-solution", {"WORKBOOK_DEVICE=nonexistent"});
    SHOW(r);
    CHECK(r.exit_code == 2);
    CHECK(has(r, "WORKBOOK_DEVICE=\"nonexistent\""));
    CHECK(has(r, "Available devices:"));
    CHECK(has(r, "[0] "));
    const auto flag = run("02_vadd-solution", {}, {"--device-type", "toaster"});
    SHOW(flag);
    CHECK(flag.exit_code == 2);
    CHECK(has(flag, "--device-type=\"toaster\" is not a device type"));
}

TEST_CASE("no OpenCL platform at all: exit 2 and how to install one") {
    TempDir empty("workbook_no_icd");
    const std::string no_vendors = "OCL_ICD_VENDORS=" + empty.path.string();
    if (run("01_device_info-solution", {no_vendors}, {"--list"}).exit_code == 0) {
        // Loaders other than ocl-icd (NVIDIA's, say) may ignore OCL_ICD_VENDORS.
        MESSAGE("this machine's ICD loader ignores OCL_ICD_VENDORS: the no-platform case cannot be provoked here");
        return;
    }
    const auto r = run("01_device_info-solution", {no_vendors});
    SHOW(r);
    CHECK(r.exit_code == 2);
    CHECK(has(r, "no OpenCL platform found"));
    CHECK(has(r, "apt-get install pocl-opencl-icd"));
}

TEST_CASE("a syntax error in a kernel names the .cl file and line") {
    TempDir dir("workbook_broken_kernel");
    std::ofstream(dir.path / "vadd.cl") << "__kernel void vadd(__global const float* a, __global const float* b,\n"
                                           "                   __global float* c, const unsigned int count)\n"
                                           "{\n"
                                           "    c[get_global_id(0)] = a[get_global_id(0)] + undeclared;\n"
                                           "}\n";
    const auto r = run("02_vadd-solution", {"WORKBOOK_KERNEL_DIR=" + dir.path.string()});
    SHOW(r);
    CHECK(r.exit_code == 2);
    CHECK(has(r, (dir.path / "vadd.cl").string() + ":4:"));
    CHECK(has(r, "undeclared"));
    CHECK(has(r, "CL_BUILD_PROGRAM_FAILURE"));
}

TEST_CASE("bad input gets a message, not a crash") {
    const auto seed = run("02_vadd-solution", {"WORKBOOK_SEED=abc"});
    SHOW(seed);
    CHECK(seed.exit_code == 2);
    CHECK(has(seed, "WORKBOOK_SEED=\"abc\" is not a whole number"));
    const auto count = run("02_vadd-solution", {}, {"--count", "0"});
    SHOW(count);
    CHECK(count.exit_code != 0);
    CHECK_FALSE(count.signaled);
    CHECK(has(count, "--count"));
}

TEST_CASE("--help and --list") {
    const auto help = run("03_vadd_chain", {}, {"--help"});
    SHOW(help);
    CHECK(help.exit_code == 0);
    CHECK(has(help, "--device"));
    CHECK(has(help, "--count"));
    const auto list = run("04_vadd_abc", {}, {"--list"});
    SHOW(list);
    CHECK(list.exit_code == 0);
    CHECK(has(list, "[0] "));
}
