// Unit tests: the course manifest.
#include "workbook/errors.hpp"
#include "workbook/manifest.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace {

std::string load_error(const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / "workbook_manifest_test.toml";
    std::ofstream(path) << text;
    try {
        workbook::load_course(path);
    } catch (const workbook::Error& e) {
        return e.what();
    }
    return "";
}

const char* header = "[course]\ntitle = \"t\"\nreadme_headings = [\"Purpose\"]\n";

}  // namespace

TEST_CASE("the course manifest lists the exercises in order") {
    const auto course = workbook::load_course(std::string(WORKBOOK_SOURCE_DIR) + "/course.toml");
    REQUIRE(course.exercises.size() >= 4);
    CHECK(course.exercises[0].dir() == "01_device_info");
    CHECK(course.exercises[1].dir() == "02_vadd");
    REQUIRE(course.find("vadd") != nullptr);
    CHECK(course.find("02")->kernels == std::vector<std::string>{"vadd.cl"});
    CHECK(course.find("02_vadd")->hints.size() >= 2);
    CHECK(course.find("nope") == nullptr);
    CHECK(course.find("02")->race_check);
    CHECK(course.find("13")->race_check);  // user events set first under the race pass
    CHECK(course.readme_headings.size() == 6);
}

TEST_CASE("race_check = false leaves an exercise out of the race check") {
    const auto path = std::filesystem::temp_directory_path() / "workbook_manifest_race.toml";
    std::ofstream(path) << header
                        << "[[exercise]]\nid = \"01\"\nname = \"a\"\ntitle = \"t\"\nedit = [\"a.cl\"]\n"
                           "kernels = [\"a.cl\"]\nhints = [\"h\"]\nrace_check = false\n"
                           "[[exercise]]\nid = \"02\"\nname = \"b\"\ntitle = \"t\"\nedit = [\"b.cl\"]\n"
                           "kernels = [\"b.cl\"]\nhints = [\"h\"]\n";
    const auto course = workbook::load_course(path);
    REQUIRE(course.exercises.size() == 2);
    CHECK_FALSE(course.exercises[0].race_check);
    CHECK(course.exercises[1].race_check);
}

TEST_CASE("manifest errors name the file and the problem") {
    CHECK(load_error("[course\n").find("workbook_manifest_test.toml:1:") != std::string::npos);
    CHECK(load_error(std::string(header)).find("no [[exercise]]") != std::string::npos);
    CHECK(load_error(std::string(header) + "[[exercise]]\nid = \"1\"\nname = \"x\"\n").find("two digits") !=
          std::string::npos);
    CHECK(load_error(std::string(header) + "[[exercise]]\nid = \"01\"\nname = \"x\"\ntitle = \"t\"\nedit = []\n"
                                           "hints = [\"h\"]\n")
              .find("lists no file") != std::string::npos);
    CHECK(load_error(std::string(header) +
                     "[[exercise]]\nid = \"02\"\nname = \"x\"\ntitle = \"t\"\nedit = [\"a\"]\nhints = [\"h\"]\n"
                     "[[exercise]]\nid = \"01\"\nname = \"y\"\ntitle = \"t\"\nedit = [\"a\"]\nhints = [\"h\"]\n")
              .find("increasing id order") != std::string::npos);
}
