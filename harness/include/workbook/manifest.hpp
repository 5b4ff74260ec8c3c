// The course manifest (course.toml at the top of the tree): the one ordered list of exercises
// and their metadata that CMake, the course check, and later the CLI and the grader read.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace workbook {

struct Exercise {
    std::string id;     // "02": the position in the course, as it appears in names
    std::string name;   // "vadd"
    std::string title;  // one line for lists
    std::vector<std::string> edit;     // files the student edits, relative to the exercise folder
    std::vector<std::string> kernels;  // .cl files the programs embed, relative to the exercise folder
    std::vector<std::string> hints;    // a ladder, from gentle to explicit
    int time_limit_s = 60;             // for the graded test
    double weight = 1.0;               // in a grade
    bool race_check = true;            // also run under the Oclgrind race check
    // Rungs whose solution kernels the speed check times this one against (previous, then this):
    // embedded into the exercise's runners; only for exercises where the student edits kernels only.
    std::vector<std::string> speed_references;
    std::vector<std::string> traffic_references;  // the traffic check's (exercises 08-10)
    std::string dir() const { return id + "_" + name; }  // "02_vadd", under exercises/ and solutions/
};

struct Course {
    std::string title;
    std::vector<std::string> readme_headings;  // every exercise README has these "## " headings, in order
    std::vector<Exercise> exercises;           // in course order
    // By id ("02"), name ("vadd") or folder ("02_vadd"); nullptr when none matches.
    const Exercise* find(const std::string& key) const;
};

// Parses and validates the manifest. Throws workbook::Error naming the file, the line where
// toml++ saw a syntax error, or the exercise and key that is missing or wrong.
Course load_course(const std::filesystem::path& manifest);

}  // namespace workbook
