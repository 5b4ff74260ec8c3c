// The judge's checker (`workbook contest run-one`): checks one submission at the public sizes, at
// secret sizes drawn now and at the ranking size, then times it on fresh inputs for every launch,
// and writes the verdict as key=value lines for judge_next(). The kernel is built and launched by
// a runner process (contest-runner, contest/runner_ops.cpp); no kernel runs in this one.
#pragma once

#include <string>
#include <vector>

namespace workbook::contest {

struct RunOneOptions {
    std::string kernel_file, verdict_file;
    int n = 1024;
    std::vector<int> public_sizes;
    int secret_sizes = 2, sittings = 3, warmups = 1, repeats = 9;  // warmups: per sitting
    // The race pass: correctness at a few small sizes only, no timing, meant to run under
    // Oclgrind (see race_check.hpp), which is too slow for the ranking size.
    bool race_pass = false;
};

// The sizes of the race pass: one smaller than a typical 16-wide work-group, and one spanning
// several groups with partial edge tiles.
inline const std::vector<int> race_pass_sizes = {17, 70};
// "race check (Oclgrind, N = 17 and 70)": how rejections by the race pass begin.
std::string race_pass_name();

int run_one(const RunOneOptions& options);

// Text for a key=value line or a log line: newlines made spaces.
std::string one_line(std::string s);

// The kernel hash a verdict reports: FNV-1a of the source, 16 hex digits.
std::string kernel_fingerprint(const std::string& source);

}  // namespace workbook::contest
