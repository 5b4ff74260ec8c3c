// `workbook calibrate`: the grader measures its own power on the device it grades on. Every
// planted bug (tests/mutants) and every correct kernel in an unusual style (tests/variants) of the
// build goes through the grader's own path (graded_run.hpp: run_graded_test, run_race_pass) as a
// student's submission would, and the result is a table per exercise: planted bugs caught by the
// graded test, caught only by the race pass, missed; correct variants accepted and rejected.
#pragma once

#include "workbook/harness/course_tree.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace workbook::grading {

namespace fs = std::filesystem;

struct CalibrateOptions {
    fs::path manifest;               // empty: <build>/calibration.json
    fs::path json_out;               // empty: no JSON file
    std::vector<std::string> only;   // exercise ids, names or folders; empty: all
    bool no_race_check = false;      // without Oclgrind, knowingly: the race column reads "off"
    std::uint64_t seed = 0;          // 0: a random one (said in the output)
    int timeout_s = 0;               // per test run; 0: each exercise's time_limit_s
};

// Exit status: 0 when every planted bug was caught and every correct variant accepted, 1 when
// one was missed or rejected (each named), 2 on an error (no manifest, no Oclgrind, ...).
int run_calibrate(const harness::CourseTree& tree, const CalibrateOptions& options);

// A calibration result (the JSON that --json writes) read back and checked: throws Error naming
// the file and what is wrong with it. `workbook grade --calibration FILE` uses it.
nlohmann::json read_calibration(const fs::path& file);
// Its table and the names of what it missed or rejected, as `workbook calibrate` prints them.
std::string calibration_text(const nlohmann::json& result);

}  // namespace workbook::grading
