// The judge's checker (`workbook contest run-one`): checks one submission at the public sizes, at
// secret sizes drawn now and at the ranking size, then times it on fresh inputs for every launch,
// and writes the verdict as key=value lines for judge_next(). The kernel is built and launched by
// a runner process (contest-runner, contest/runner_ops.cpp); no kernel runs in this one.
#pragma once

#include <random>
#include <string>
#include <vector>

namespace workbook::contest {

struct RunOneOptions {
    std::string kernel_file, verdict_file;
    int n = 1024;
    std::vector<int> public_sizes;
    int secret_sizes = 2, sittings = 3, warmups = 1, repeats = 9;  // warmups: per sitting
    // Secret sizes the judge drew (--secret-size), checked in place of drawing secret_sizes here.
    std::vector<int> secret_list;
    // The race pass: correctness at a few small sizes only, no timing, meant to run under
    // Oclgrind (see race_check.hpp), which is too slow for the ranking size; at race_sizes
    // (--race-size, the judge's race_pass_sizes()), or 17 and 70 when none are given.
    bool race_pass = false;
    std::vector<int> race_sizes;
};

// The race pass's sizes for one judging, drawn with `gen`: one spanning several groups of 16 to
// 64 with partial edge tiles (66..79), for each of the judging's secret and ranking sizes one with
// the same remainder modulo 32 (32 more when it is 0 or 1), so that every test of N against a tile
// or vector width up to 32 goes the way it goes at the graded size, and one inside a 16-wide
// work-group unless a stand-in already is.
std::vector<int> race_pass_sizes(const std::vector<int>& graded, std::mt19937_64& gen);
// "race check (Oclgrind, N = 9, 33 and 71)": how rejections by the race pass begin.
std::string race_pass_name(const std::vector<int>& sizes);

int run_one(const RunOneOptions& options);

// Text for a key=value line or a log line: newlines made spaces.
std::string one_line(std::string s);

// The kernel hash a verdict reports, and the board pools an alias's runs by: FNV-1a of
// kernel_text(source), 16 hex digits. So a kernel judged again with a comment or its indentation
// changed is the same record, and its runs pool.
std::string kernel_fingerprint(const std::string& source);
// The source as the fingerprint sees it: comments out (but `// contest:` lines), blank runs one
// space, lines trimmed, empty lines dropped.
std::string kernel_text(const std::string& source);

}  // namespace workbook::contest
