// The reading of Oclgrind's reports: headline, kernel, work-items, and the student's own source
// line (read from the file, not Oclgrind's excerpt, which is one line off after our #line).
#include "workbook/race_check.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

// A report in the shape Oclgrind 21.10 prints one (two entities, each with an LLVM instruction).
std::string race_report(const std::string& path) {
    return "Read-write data race at local memory address 0x1000000000008\n"
           "\tKernel: reduce\n"
           "\t\n"
           "\tFirst entity:  Global(3,0,0) Local(3,0,0) Group(0,0,0)\n"
           "\t  %1 = load float, float addrspace(3)* %arrayidx, align 4\n"
           "\tAt line 3 (column 5) of " + path + ":\n"
           "\t  wrong excerpt\n"
           "\t\n"
           "\tSecond entity: Global(2,0,0) Local(2,0,0) Group(0,0,0)\n"
           "\t  store float %x, float addrspace(3)* %arrayidx9, align 4\n"
           "\tAt line 0 (column 0) of " + path + ":\n"
           "\t  (source not available)\n"
           "\n";
}

}  // namespace

TEST_CASE("race::parse keeps the kernel, the work-items and the student's line, and drops LLVM IR") {
    const fs::path dir = fs::temp_directory_path() / "workbook_race_parse";
    fs::create_directories(dir);
    const fs::path source = dir / "reduce.cl";
    std::ofstream(source) << "__kernel void reduce(__local float* s) {\n"
                             "    s[get_local_id(0)] = 1.0f;\n"
                             "    s[get_local_id(0) + 1] += 2.0f;\n"
                             "}\n";
    const std::string output = "some test output\n" + race_report(source.string()) +
                               "Uninitialized value written to global memory address 0x10\n"
                               "\tKernel: reduce\n"
                               "\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
                               "\t  store float %sum\n"
                               "\tAt line 2 (column 1) of " + source.string() + ":\n"
                               "\t  wrong excerpt\n"
                               "\n[doctest] Status: SUCCESS!\n";
    const auto reports = workbook::race::parse(output);
    REQUIRE(reports.size() == 2);
    CHECK(reports[0].headline == "Read-write data race at local memory address 0x1000000000008");
    const std::string& d = reports[0].details;
    CHECK(d.find("Kernel: reduce") != std::string::npos);
    CHECK(d.find("First entity:  Global(3,0,0)") != std::string::npos);
    CHECK(d.find("Second entity: Global(2,0,0)") != std::string::npos);
    CHECK(d.find("s[get_local_id(0) + 1] += 2.0f;") != std::string::npos);
    CHECK(d.find("(source not available)") != std::string::npos);
    CHECK(d.find("addrspace") == std::string::npos);
    CHECK(d.find("wrong excerpt") == std::string::npos);
    CHECK(reports[0].explanation().find("barrier") != std::string::npos);
    CHECK(reports[1].details.find("s[get_local_id(0)] = 1.0f;") != std::string::npos);
    CHECK(reports[1].explanation().find("read before anything was stored") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("race::parse finds nothing in a clean run") {
    CHECK(workbook::race::parse("Device: Oclgrind\n[doctest] Status: SUCCESS!\n").empty());
}

// The grader and the judge name the folder of the student's kernels: a #line the kernel sets
// (its "At line ... of FILE") must not make them quote any other file.
TEST_CASE("race::parse with a sources folder quotes only .cl files inside it, links resolved") {
    const fs::path root = fs::temp_directory_path() / "workbook_race_sources";
    fs::remove_all(root);
    fs::create_directories(root / "kernels");
    fs::create_directories(root / "secret");
    std::ofstream(root / "kernels" / "mine.cl") << "line one of mine\n";
    std::ofstream(root / "secret" / "solution.cl") << "line one of the solution\n";
    std::ofstream(root / "kernels" / "notes.txt") << "line one of notes\n";
    fs::create_directory_symlink(root / "secret", root / "kernels" / "d");
    auto quoted = [&](const std::string& file) {
        const auto r = workbook::race::parse(race_report(file), root / "kernels");
        REQUIRE(r.size() == 1);
        return r[0].details;
    };
    CHECK(quoted("mine.cl").find("line one of mine") == std::string::npos);  // race_report names line 3
    const std::string own = workbook::race::parse("Read-write data race at x\n\tKernel: k\n\tAt line 1 (column 1) of mine.cl:\n"
                                                  "\t  excerpt\n\n",
                                                  root / "kernels")[0].details;
    CHECK(own.find("line one of mine") != std::string::npos);
    for (const std::string& attack : std::vector<std::string>{"../secret/solution.cl", (root / "secret" / "solution.cl").string(), "d/solution.cl",
                                     "notes.txt"}) {
        const std::string out = workbook::race::parse("Read-write data race at x\n\tKernel: k\n\tAt line 1 (column 1) of " +
                                                          attack + ":\n\t  excerpt\n\n",
                                                      root / "kernels")[0].details;
        CHECK_MESSAGE(out.find("line one of") == std::string::npos, attack);
        CHECK(out.find("(source not available)") != std::string::npos);
    }
    fs::remove_all(root);
}
