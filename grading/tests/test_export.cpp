// The LMS exports' reading and matching (export.hpp): CSV as spreadsheets write it, and the
// refusals that keep a grade from landing on the wrong student. The formats' bytes are checked
// end to end by grade.handin_lms against files written by hand.
#include "workbook/grading/export.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <doctest/doctest.h>

#include <unistd.h>
#include <fstream>

namespace grading = workbook::grading;
namespace fs = std::filesystem;

namespace {

struct Scratch {
    fs::path dir = fs::temp_directory_path() / ("export-test-" + std::to_string(::getpid()));
    Scratch() { fs::create_directories(dir); }
    ~Scratch() { fs::remove_all(dir); }
    fs::path write(const std::string& name, const std::string& text) const {
        std::ofstream(dir / name, std::ios::binary) << text;
        return dir / name;
    }
};

const std::vector<grading::ExportColumn> columns = {{"01_device_info", 1}, {"02_vadd", 2}};

}  // namespace

TEST_CASE("CSV as spreadsheets write it: a byte-order mark, CRLF, quotes, commas and line breaks inside quotes") {
    const auto rows = grading::parse_csv("\xEF\xBB\xBFStudent,ID\r\n\"Doe, \"\"J\"\"\",1\r\n\r\n\"two\nlines\",2");
    REQUIRE(rows.size() == 3);
    CHECK(rows[0] == std::vector<std::string>{"Student", "ID"});
    CHECK(rows[1] == std::vector<std::string>{"Doe, \"J\"", "1"});
    CHECK(rows[2] == std::vector<std::string>{"two\nlines", "2"});
}

TEST_CASE("a Canvas submission named as Canvas's download names it matches the student's ID") {
    const Scratch s;
    grading::ExportOptions o{{"canvas"},
                             s.write("r.csv", "Student,ID,SIS User ID,SIS Login ID,Section\nA,111,,a,S\nB,222,,b,S\n"),
                             false,
                             ""};
    grading::write_exports(columns, {{"bob_late_222_9_handin", "x", {1, 2}}, {"smith_1_2_f", "y", {0, 0}}}, o, s.dir);
    const std::string text = workbook::read_file(s.dir / "canvas-import.csv");
    CHECK(text.find("B,222,,b,S,1,2\n") != std::string::npos);
    CHECK(text.find("A,111,,a,S,,\n") != std::string::npos);  // blank: no submission
    CHECK(workbook::read_file(s.dir / "lms-unmatched.csv").find("smith_1_2_f,y,0,0,0\n") != std::string::npos);
}

TEST_CASE(
    "a grade never lands on a student by guesswork: two submissions for one student, or one for two, are refused") {
    const Scratch s;
    grading::ExportOptions o{{"csv"}, s.write("r.csv", "id\nann\nbo\n"), true, ""};
    CHECK_THROWS_AS(grading::write_exports(columns, {{"ann", "ann", {1, 2}}, {"ann2", "ann", {1, 1}}}, o, s.dir),
                    workbook::Error);
    CHECK_FALSE(fs::exists(s.dir / "lms-import.csv"));  // nothing written
    o.roster = s.write("m.csv", "Email address,Username\nann@x,ann\nbo@x,ann\n");
    o.formats = {"moodle"};
    CHECK_THROWS_AS(grading::write_exports(columns, {{"ann", "ann", {1, 2}}}, o, s.dir), workbook::Error);
    grading::write_exports(columns, {{"bo", "BO@X", {1, 2}}}, o, s.dir);  // ids compared ignoring case
    CHECK(workbook::read_file(s.dir / "moodle-import.csv") ==
          "Email address,01_device_info,02_vadd\nann@x,0,0\nbo@x,1,2\n");
}

TEST_CASE("a roster the format cannot use is refused with what it lacks") {
    const Scratch s;
    CHECK_THROWS_WITH_AS(grading::read_lms_roster(s.write("a.csv", "Name,Email\nA,a@x\n"), "canvas"),
                         doctest::Contains("no \"Student\" and \"ID\" columns"), workbook::Error);
    CHECK_THROWS_WITH_AS(grading::read_lms_roster(s.write("b.csv", "Name,Group\nA,1\n"), "moodle"),
                         doctest::Contains("Email address"), workbook::Error);
    CHECK_THROWS_AS(grading::read_lms_roster(s.write("c.csv", "id\nann\n"), "blackboard"), workbook::Error);
}
