// The course as the tools that build, check and grade it see it: course.toml, the source tree
// (exercises/, solutions/), the build tree, and the name of every graded-test binary and CMake
// target, spelled here once. It reads; it never writes. The student's progress (.workbook/) is the
// CLI's (cli/workspace.hpp), and the grader never sees it.
#pragma once

#include "workbook/manifest.hpp"

#include <filesystem>
#include <string>

namespace workbook::harness {

namespace fs = std::filesystem;

// Which copy of an exercise a binary is built from: the student's files (starter), the
// instructor's (solution), or a planted bug or correct variant of the suite ("mutant-NAME").
inline constexpr const char* starter = "starter";
inline constexpr const char* solution = "solution";

class CourseTree {
public:
    // Reads course.toml under `root` (an Error naming the file when it is missing or damaged).
    CourseTree(fs::path root, fs::path build);

    const Course& course() const { return course_; }
    const fs::path& root() const { return root_; }
    const fs::path& build() const { return build_; }

    // By number, name or folder; an Error listing the ids when nothing matches.
    const Exercise& find(const std::string& key) const;

    fs::path exercise_dir(const Exercise& ex) const { return root_ / "exercises" / ex.dir(); }
    fs::path solution_dir(const Exercise& ex) const { return root_ / "solutions" / ex.dir(); }

    // The graded test (the trusted checker) and its runner (the half that runs the flavour's code).
    fs::path test_binary(const Exercise& ex, const std::string& flavour = starter) const {
        return bin("test-" + ex.dir() + "-" + flavour);
    }
    fs::path runner_binary(const Exercise& ex, const std::string& flavour = starter) const {
        return bin("runner-" + ex.dir() + "-" + flavour);
    }
    std::string test_target(const Exercise& ex, const std::string& flavour = starter) const {
        return "ex" + ex.dir() + "_" + flavour + "_test";
    }
    std::string runner_target(const Exercise& ex, const std::string& flavour = starter) const {
        return "ex" + ex.dir() + "_" + flavour + "_runner";
    }
    // Where CMake keeps what it needs to link that runner again (the grader's build recipe).
    fs::path runner_link_file(const Exercise& ex, const std::string& flavour = starter) const {
        return build_ / "exercises" / ex.dir() / "CMakeFiles" / (runner_target(ex, flavour) + ".dir") / "link.txt";
    }
    fs::path bin(const std::string& program) const { return build_ / "bin" / program; }
    fs::path compile_commands() const { return build_ / "compile_commands.json"; }

private:
    fs::path root_, build_;
    Course course_;
};

}  // namespace workbook::harness
