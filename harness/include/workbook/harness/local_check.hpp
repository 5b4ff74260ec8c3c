// Checking one exercise on the student's machine (`workbook check`, watch mode): rebuild only its
// graded test from the student's files, run it with the exercise's time limit, and, when it
// passes, run it once more under the Oclgrind race check; on the SGEMM track the speed check last.
// The result says where it stopped, concisely (file:line first), with the full log kept.
#pragma once

#include "workbook/harness/course_tree.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace workbook::harness {

enum class Stage { build, kernel_build, test, race, passed };

struct CheckResult {
    Stage stage = Stage::build;
    bool passed() const { return stage == Stage::passed; }
    std::vector<std::string> problems;  // the concise lines: compiler errors or failed checks
    std::string log;                    // everything, capped
    std::string race_note;              // e.g. "race check: clean (1.4 s)" or why it was skipped
    std::string speed;                  // a rung graded on speed: its table and verdict, shown pass or fail
    std::string timeline;               // "timeline picture: PATH" where the test drew one (exercise 13)
    std::string failure;                // the first failure's kind (workbook/failure_kind.hpp); "" when passed
    double build_s = 0, test_s = 0, race_s = 0;
};

// `state_dir`: the workbook's own folder (.workbook/), for the evidence file and timelines.
// `step` is told what is happening ("building", "testing", ...), for a progress line.
CheckResult check_exercise(const CourseTree& tree, const std::filesystem::path& state_dir, const Exercise& ex,
                           const std::function<void(const std::string&)>& step = {});

// The compiler's and linker's error lines from a build log, each with the line after it.
std::vector<std::string> summarize_build_output(const std::string& output);

// One line: "PASS 02 Vector addition" or "FAIL 02 ...: the kernel does not build" etc.
std::string stage_message(Stage stage);

}  // namespace workbook::harness
