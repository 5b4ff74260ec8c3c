// The submission layout rule: which copy of a file is graded (issue: a whole workbook folder was
// graded from its solutions/ copy).
#include "workbook/grading/locate.hpp"

#include <doctest/doctest.h>

using workbook::grading::Layout;
using workbook::grading::Located;
using workbook::grading::SubmissionFiles;

namespace {
const std::vector<std::string> course = {"01_device_info", "02_vadd", "05_mmul_naive", "07_mmul_row"};

// A whole copy of the workbook: exercises/, solutions/, the CLI's snapshot and a build folder.
std::vector<std::string> whole_copy(const std::string& root) {
    std::vector<std::string> f;
    for (const char* p : {"exercises/02_vadd/vadd.cl", "exercises/02_vadd/vadd_host.cpp", "exercises/02_vadd/test.cpp",
                          "solutions/02_vadd/vadd.cl", "solutions/02_vadd/vadd_host.cpp",
                          ".workbook/pristine/02_vadd/vadd.cl", ".workbook/pristine/02_vadd/vadd_host.cpp",
                          "build/exercises/02_vadd/vadd.cl", "exercises/05_mmul_naive/mmul.cl",
                          "solutions/05_mmul_naive/mmul.cl", ".git/objects/ab/cdef", "README.md"})
        f.push_back(root + p);
    return f;
}
}  // namespace

TEST_CASE("a whole workbook folder is graded from exercises/, never solutions/, .workbook/ or build/") {
    for (const std::string root : {"", "newbie/", "zip/of/the/folder/"}) {
        const SubmissionFiles s(whole_copy(root), course);
        CHECK(s.layout() == Layout::exercises_tree);
        const Located l = s.locate("02_vadd", "vadd.cl", true);
        REQUIRE(l.outcome == Located::Outcome::found);
        CHECK(l.path == root + "exercises/02_vadd/vadd.cl");
        CHECK(l.explain() == "vadd.cl graded from " + root + "exercises/02_vadd/vadd.cl");
        CHECK(s.locate("05_mmul_naive", "mmul.cl", false).path == root + "exercises/05_mmul_naive/mmul.cl");
        // An exercises/ tree without exercise 07: missing, even though solutions/ might hold it.
        const Located m = s.locate("07_mmul_row", "mmul.cl", false);
        CHECK(m.outcome == Located::Outcome::missing);
        CHECK(m.explain() == "not submitted: no exercises/07_mmul_row/mmul.cl in the submission");
    }
}

TEST_CASE("a folder holding only solutions/ or only the CLI's snapshot has nothing to grade") {
    const SubmissionFiles only_solutions({"solutions/02_vadd/vadd.cl", "solutions/02_vadd/vadd_host.cpp"}, course);
    CHECK(only_solutions.locate("02_vadd", "vadd.cl", true).outcome == Located::Outcome::missing);
    const SubmissionFiles only_snapshot({".workbook/pristine/02_vadd/vadd.cl"}, course);
    CHECK(only_snapshot.locate("02_vadd", "vadd.cl", true).outcome == Located::Outcome::missing);
}

TEST_CASE("two copies at the chosen layout are ambiguous, never an arbitrary pick") {
    const SubmissionFiles s({"a/exercises/02_vadd/vadd.cl", "b/exercises/02_vadd/vadd.cl"}, course);
    const Located l = s.locate("02_vadd", "vadd.cl", true);
    CHECK(l.outcome == Located::Outcome::ambiguous);
    CHECK(l.explain().find("two copies of vadd.cl: a/exercises/02_vadd/vadd.cl and b/exercises/02_vadd/vadd.cl") !=
          std::string::npos);
    const SubmissionFiles flat({"vadd.cl", "old/vadd.cl"}, course);
    CHECK(flat.locate("02_vadd", "vadd.cl", true).outcome == Located::Outcome::ambiguous);
}

TEST_CASE("exercise folders without exercises/, and flat uploads") {
    const SubmissionFiles dirs({"02_vadd/vadd.cl", "02_vadd/vadd_host.cpp", "05_mmul_naive/mmul.cl", "notes/vadd.cl"},
                               course);
    CHECK(dirs.layout() == Layout::exercise_dirs);
    CHECK(dirs.locate("02_vadd", "vadd.cl", true).path == "02_vadd/vadd.cl");
    CHECK(dirs.locate("07_mmul_row", "mmul.cl", false).outcome == Located::Outcome::missing);

    const SubmissionFiles flat({"vadd.cl", "vadd_host.cpp", "mmul.cl", "__MACOSX/._vadd.cl", "._vadd.cl"}, course);
    CHECK(flat.layout() == Layout::flat);
    CHECK(flat.locate("02_vadd", "vadd.cl", true).path == "vadd.cl");
    // mmul.cl belongs to several exercises: a loose copy cannot be attributed to one.
    const Located m = flat.locate("05_mmul_naive", "mmul.cl", false);
    CHECK(m.outcome == Located::Outcome::missing);
    CHECK(m.explain().find("several exercises edit a file of that name") != std::string::npos);
}

TEST_CASE("eligible: what the instructor's tree would never hold as a student's file") {
    CHECK(SubmissionFiles::eligible("exercises/02_vadd/vadd.cl"));
    CHECK(SubmissionFiles::eligible("me/my-work/exercises/02_vadd/vadd.cl"));
    CHECK_FALSE(SubmissionFiles::eligible("solutions/02_vadd/vadd.cl"));
    CHECK_FALSE(SubmissionFiles::eligible("x/solutions/exercises/02_vadd/vadd.cl"));
    CHECK_FALSE(SubmissionFiles::eligible(".workbook/pristine/02_vadd/vadd.cl"));
    CHECK_FALSE(SubmissionFiles::eligible("build-make/exercises/02_vadd/vadd.cl"));
    CHECK_FALSE(SubmissionFiles::eligible("__MACOSX/exercises/02_vadd/._vadd.cl"));
}
