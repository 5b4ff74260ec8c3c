// Tuned choices of a kernel's build options (exercise 20 and `workbook tune`): a choice is a list
// of NAME=value options ("TSM=128 TSN=128 TSK=16 ..."), tuned per device and driver.
//
// Where choices are kept:
//  - the student's, in their kernel file itself, one line per device:
//      // tuned: <device> | <choice> | <GFLOPS> GFLOPS at N = <n>
//    so that it travels with the kernel to the grader, and the test reads it from the same text
//    the runner builds. It is the student's input: the test uses it only where it names this
//    device and is one of the exercise's candidates (which the race pass checks as well).
//  - the reference's (the instructor's solution, tuned on each grading device), in
//    $WORKBOOK_REFERENCE_TUNING, else ~/.cache/workbook/reference_tuning.toml: a file of the
//    instructor's that no student code reaches.
#pragma once

#include "workbook/cl.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace workbook::tuning {

struct Choice {
    std::vector<std::pair<std::string, int>> values;  // in order
    int get(const std::string& name) const;           // throws workbook::Error when absent
    std::string text() const;                         // "TSM=128 TSN=128 ..."
    std::string options() const;                      // "-DTSM=128 -DTSN=128 ..."
    bool operator==(const Choice& other) const { return values == other.values; }
};
// Reads "NAME=value NAME=value ..." (whole numbers); nullopt, with `why`, for anything else.
std::optional<Choice> parse(const std::string& text, std::string* why = nullptr);

// A device's key: its name and driver version ("NVIDIA H100 80GB HBM3 | 580.159.04").
std::string device_key(const cl::Device& device);

// One tuned line of a kernel file.
struct Line {
    std::string device;
    Choice choice;
    double gflops = 0;
    int n = 0;
};
std::string format_line(const Line& line);
// The tuned lines of a kernel source; a line that starts "// tuned:" but cannot be read is named
// in `unreadable` (with why), never half-used.
std::vector<Line> read_lines(const std::string& source, std::vector<std::string>* unreadable = nullptr);
// `source` with this device's line for line.n replaced by `line` (or added after the other tuned
// lines, or at the top); other devices' and other sizes' lines are kept.
std::string with_line(const std::string& source, const Line& line);

// The choice a kernel source holds for `device_key` among `candidates`, tuned at the N nearest
// `n` (on a log scale: a line per device and N, as the best shape depends on both), or nullopt
// with `why` saying why none is used (none tuned, tuned for other devices only, not a candidate).
std::optional<Choice> student_choice(const std::string& source, const std::string& device_key,
                                     const std::vector<Choice>& candidates, std::string* why, int n = 0);

// The instructor's file of reference choices, and its entry for an exercise on a device, tuned at
// the N nearest `n` (nullopt with `why` when there is none, or it is no longer a candidate).
std::string reference_file();
std::optional<Choice> reference_choice(const std::string& exercise, const std::string& device_key,
                                       const std::vector<Choice>& candidates, std::string* why, int n = 0);
void store_reference_choice(const std::string& exercise, const Line& line);

}  // namespace workbook::tuning
