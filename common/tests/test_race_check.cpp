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
TEST_CASE("race::synchronises sees barriers, local memory and async copies, not comments") {
    using workbook::race::synchronises;
    CHECK(synchronises("void f() { barrier(CLK_LOCAL_MEM_FENCE); }"));
    CHECK(synchronises("__kernel void k(__local float* s) {}"));
    CHECK(synchronises("__kernel void k(local float* s) {}"));
    CHECK(synchronises("e = async_work_group_copy(t, in, n, 0);"));
    CHECK_FALSE(synchronises("__kernel void vadd(__global float* c) { c[0] = 1.0f; }"));
    CHECK_FALSE(synchronises("// no barrier(CLK_LOCAL_MEM_FENCE) here\n/* nor __local */ __kernel void k() {}"));
    CHECK_FALSE(synchronises("int localise = 1; float barriers = 2;"));  // whole words only
}

TEST_CASE("race::explain_failure puts each distinct report once, and says nothing without one") {
    using namespace workbook::race;
    Result r;
    CHECK(explain_failure(r).empty());
    const Report divergence{"Work-group divergence detected (barrier)", "\tKernel:     mmul\n\tAt line 27 of mmul.cl:\n"};
    // Two addresses of one uninitialised write at one line: one problem.
    const Report uninit1{"Uninitialized value written to global memory address 0x1000000000000",
                         "\tKernel: mmul\n\tAt line 30 of mmul.cl:\n"};
    Report uninit2 = uninit1;
    uninit2.headline = "Uninitialized value written to global memory address 0x1000000000004";
    r.reports = {uninit1, uninit2, divergence, divergence, divergence};
    const std::string text = explain_failure(r, 1);
    CHECK(text.rfind("The race pass", 0) == 0);
    CHECK(text.find("Oclgrind: Work-group divergence detected (barrier)") != std::string::npos);
    CHECK(text.find("every work-item must reach every barrier") != std::string::npos);
    CHECK(text.find("Uninitialized") == std::string::npos);  // the cause first; the symptom past max_reports
    CHECK(text.find("(and 1 more)") != std::string::npos);   // the repeats collapsed to one
    r.available = false;
    CHECK(explain_failure(r).empty());
}

TEST_CASE("race::parse reads a kernel named relative to the kernel folder it is given (the grader's scratch copy)") {
    const fs::path root = fs::temp_directory_path() / "workbook_race_roots";
    fs::create_directories(root / "11_pi_roots_test");
    std::ofstream(root / "11_pi_roots_test" / "pi.cl") << "line one\nline two\n    line three\n";
    const std::string name = "11_pi_roots_test/pi.cl";
    CHECK(workbook::race::parse(race_report(name))[0].details.find("(source not available)") != std::string::npos);
    const auto reports = workbook::race::parse(race_report(name), root / "11_pi_roots_test");
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].details.find("\t  line three\n") != std::string::npos);
    fs::remove_all(root);
}

TEST_CASE("race::concessions repeats what the test said it changed for the simulator, once each") {
    workbook::race::Result r;
    r.run.output = "Device: Oclgrind\nrace pass: pi_vec.cl is built with -cl-opt-disable here\n"
                   "test.cpp:48: MESSAGE: race pass: the user events are set first\n"
                   "race pass: pi_vec.cl is built with -cl-opt-disable here\n";
    const auto c = workbook::race::concessions(r);
    REQUIRE(c.size() == 2);
    CHECK(c[0] == "pi_vec.cl is built with -cl-opt-disable here");
    CHECK(c[1] == "the user events are set first");
}

TEST_CASE("race::parse and synchronises read 400 KB lines (no stack overflow)") {
    const std::string blanks(400000, ' ');
    CHECK(workbook::race::parse(blanks + "\n" + blanks + "Kernel: k\n" + blanks + "At line 1 (column 1) of " + blanks + ":\n").size() <= 1);
    CHECK(workbook::race::synchronises(blanks + "barrier(CLK_LOCAL_MEM_FENCE);"));
    CHECK(!workbook::race::synchronises(blanks + "// barrier\nx = 1;"));
}
