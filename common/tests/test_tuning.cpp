// Unit tests: tuned choices (tuning.hpp), their lines in a kernel file and the reference file, and
// the tuner's ranking rule (tuning_rank.hpp) on made-up timings.
#include "workbook/tuning.hpp"
#include "workbook/tuning_rank.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace tuning = workbook::tuning;

namespace {
tuning::Choice shape(int tsm, int prefetch) { return {{{"TSM", tsm}, {"TSK", 16}, {"PREFETCH", prefetch}}}; }
const std::string here = "Some CPU | 3.1+debian", there = "NVIDIA H100 80GB HBM3 | 580.159.04";
}  // namespace

TEST_CASE("a choice reads back from its text, and nothing else is one") {
    const auto c = shape(64, 1);
    CHECK(c.text() == "TSM=64 TSK=16 PREFETCH=1");
    CHECK(c.options() == "-DTSM=64 -DTSK=16 -DPREFETCH=1");
    CHECK(tuning::parse(c.text()) == c);
    std::string why;
    CHECK_FALSE(tuning::parse("TSM=64 TSK=sixteen", &why));
    CHECK(why.find("TSK=sixteen") != std::string::npos);
    CHECK_FALSE(tuning::parse("TSM=64 -DX=1"));       // no options smuggled in
    CHECK_FALSE(tuning::parse("tsm=64"));             // names are upper case
    CHECK_FALSE(tuning::parse("TSM=1234567"));        // no number of that size is a shape
    CHECK_FALSE(tuning::parse("   ", &why));
    CHECK(why == "it names no option");
}

TEST_CASE("a kernel's tuned lines: this device's replaced, the others kept, a new one at the top") {
    const std::string kernel = "// Exercise 20\n__kernel void mmul() {}\n";
    const tuning::Line mine{here, shape(64, 0), 29.04, 512}, theirs{there, shape(128, 1), 45000, 2048};
    std::string once = tuning::with_line(kernel, mine);
    CHECK(once == "// tuned: Some CPU | 3.1+debian | TSM=64 TSK=16 PREFETCH=0 | 29.0 GFLOPS at N = 512\n" + kernel);
    std::string both = tuning::with_line(once, theirs);
    auto lines = tuning::read_lines(both);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].device == here);
    CHECK(lines[1].device == there);
    CHECK(lines[1].n == 2048);
    // Tuned again here: the line is replaced in place, the GPU's kept.
    const tuning::Line again{here, shape(32, 1), 30, 512};
    lines = tuning::read_lines(tuning::with_line(both, again));
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].choice == shape(32, 1));
    CHECK(lines[1].choice == shape(128, 1));
    CHECK(tuning::with_line(both, again).find("__kernel void mmul() {}\n") != std::string::npos);
    // Tuned here at another N: a line of its own, and the check's N chooses between them.
    const std::string sized = tuning::with_line(tuning::with_line(both, again), {here, shape(64, 1), 31, 2048});
    REQUIRE(tuning::read_lines(sized).size() == 3);
    const std::vector<tuning::Choice> all{shape(32, 1), shape(64, 1), shape(64, 0), shape(128, 1)};
    CHECK(tuning::student_choice(sized, here, all, nullptr, 512) == shape(32, 1));
    CHECK(tuning::student_choice(sized, here, all, nullptr, 1792) == shape(64, 1));
    CHECK(tuning::student_choice(sized, here, all, nullptr, 1000) == shape(32, 1));  // 1000 is nearer 512 than 2048 on a log scale
    CHECK(tuning::student_choice(sized, here, all, nullptr, 1100) == shape(64, 1));
}

TEST_CASE("the student's choice: only this device's line, only a candidate, and why not otherwise") {
    const std::vector<tuning::Choice> candidates{shape(64, 1), shape(64, 0)};
    std::string why;
    const std::string kernel = tuning::with_line("__kernel void mmul() {}\n", {there, shape(64, 0), 1, 512});
    CHECK_FALSE(tuning::student_choice(kernel, here, candidates, &why));
    CHECK(why.find("tuned for NVIDIA H100 80GB HBM3 | 580.159.04 only, not for this device") != std::string::npos);
    CHECK(why.find("ignored") != std::string::npos);
    // The same device under another driver is another device.
    CHECK_FALSE(tuning::student_choice(kernel, "NVIDIA H100 80GB HBM3 | 590.1", candidates, &why));
    CHECK(tuning::student_choice(kernel, there, candidates, &why) == shape(64, 0));
    // A shape that is not a candidate here is refused, not used.
    const std::string odd = tuning::with_line("", {here, shape(16, 1), 1, 512});
    CHECK_FALSE(tuning::student_choice(odd, here, candidates, &why));
    CHECK(why.find("not one of this exercise's candidates") != std::string::npos);
    // A line that cannot be read is named.
    CHECK_FALSE(tuning::student_choice("// tuned: Some CPU | 3.1+debian | TSM=64\n", here, candidates, &why));
    CHECK(why.find("cannot be read") != std::string::npos);
    CHECK_FALSE(tuning::student_choice("__kernel void mmul() {}\n", here, candidates, &why));
    CHECK(why == "your kernel holds no tuned choice");
}

TEST_CASE("the reference file: stored per exercise and device, read back, other devices apart") {
    const auto file = std::filesystem::temp_directory_path() / "workbook-test-reference-tuning.toml";
    std::filesystem::remove(file);
    ::setenv("WORKBOOK_REFERENCE_TUNING", file.c_str(), 1);
    const std::vector<tuning::Choice> candidates{shape(64, 1), shape(64, 0), shape(128, 1)};
    std::string why;
    CHECK_FALSE(tuning::reference_choice("20_sgemm_tune", here, candidates, &why));
    CHECK(why.find("not tuned on this device") != std::string::npos);
    tuning::store_reference_choice("20_sgemm_tune", {here, shape(64, 0), 29, 512});
    tuning::store_reference_choice("20_sgemm_tune", {there, shape(128, 1), 45000, 2048});
    CHECK(tuning::reference_choice("20_sgemm_tune", here, candidates, &why) == shape(64, 0));
    CHECK(tuning::reference_choice("20_sgemm_tune", there, candidates, &why) == shape(128, 1));
    CHECK_FALSE(tuning::reference_choice("21_other", here, candidates, &why));
    // Tuned again at another N: kept beside the first, the nearest chosen.
    tuning::store_reference_choice("20_sgemm_tune", {here, shape(64, 1), 30, 2048});
    CHECK(tuning::reference_choice("20_sgemm_tune", here, candidates, &why, 600) == shape(64, 0));
    CHECK(tuning::reference_choice("20_sgemm_tune", here, candidates, &why, 2304) == shape(64, 1));
    // An entry that is no longer a candidate (the list changed) is passed over.
    CHECK_FALSE(tuning::reference_choice("20_sgemm_tune", there, {shape(64, 1)}, &why));
    CHECK(why.find("not one of the candidates") != std::string::npos);
    ::unsetenv("WORKBOOK_REFERENCE_TUNING");
    std::filesystem::remove(file);
}

// The ranking rule on made-up rounds (read the numbers as milliseconds).
TEST_CASE("ranking: a clear winner is declared only beyond the measured spread") {
    // 0 fastest and steady; 1 is 20% slower, 2 far slower: 0 is chosen and called clear.
    const auto r = tuning::rank({{10.0, 10.1, 10.2, 10.1, 10.05}, {12.0, 12.1, 12.2, 12.0, 12.1}, {30, 31, 30, 32, 30}});
    CHECK(r.clear);
    CHECK(r.chosen == 0);
    CHECK(r.tied == std::vector<std::size_t>{0});
    REQUIRE(r.order.size() == 3);
    CHECK(r.order[0].index == 0);
    CHECK(r.order[1].index == 1);
    CHECK(r.order[2].index == 2);
    CHECK(r.order[0].fastest == doctest::Approx(10.0));
    CHECK(r.order[0].next == doctest::Approx(10.05));
    CHECK(r.order[0].median == doctest::Approx(10.1));
    CHECK(r.order[0].spread == doctest::Approx(0.005));
    CHECK(r.noise == doctest::Approx(tuning::noise_floor));  // both spreads under the floor
    CHECK(tuning::clearly_slower(r.order[1], r.order[0]));
    CHECK_FALSE(tuning::clearly_slower(r.order[0], r.order[1]));
}

TEST_CASE("ranking: candidates within the spread are tied, and the fastest round is chosen") {
    // 0 has the fastest round (10.0) but its next is 10.4 (a 4% spread); 1's fastest (10.3) is
    // within that: tied, and 0 chosen by the rule. 2 is 15% slower: clearly, not tied.
    const auto r = tuning::rank({{10.0, 10.5, 10.6, 10.4, 10.5}, {10.3, 10.35, 10.3, 10.4}, {11.5, 11.6, 11.5}});
    CHECK_FALSE(r.clear);
    CHECK(r.tied == std::vector<std::size_t>{0, 1});
    CHECK(r.chosen == 0);
    CHECK(r.find(0)->spread == doctest::Approx(0.04));
    CHECK(tuning::clearly_slower(*r.find(2), *r.find(0)));
    // The spread of either side counts: the slower one's own 5% spread ties it too.
    const auto other_side = tuning::rank({{10.0, 10.0, 10.0}, {10.4, 10.92, 11.0}});
    CHECK_FALSE(other_side.clear);
    CHECK(other_side.tied == std::vector<std::size_t>{0, 1});
    // Steady rounds still do not make a 1% difference real: the floor.
    const auto steady = tuning::rank({{10.1, 10.1, 10.1}, {10.0, 10.0, 10.0}});
    CHECK_FALSE(steady.clear);
    CHECK(steady.tied == std::vector<std::size_t>{1, 0});
    CHECK(steady.chosen == 1);
    // Equal in every way: the earlier given.
    CHECK(tuning::rank({{5.0, 5.0}, {5.0, 5.0}}).chosen == 0);
}

TEST_CASE("ranking: busy rounds decide nothing") {
    // Round 3 was busy for candidate 0 (30 instead of 10): its fastest and spread stand, so it
    // still wins clearly. One timing per candidate, taken in that round, would have ranked it last.
    const auto r = tuning::rank({{10.0, 10.1, 30.0, 10.05, 10.1}, {12.0, 12.1, 11.9, 12.2, 12.0}});
    CHECK(r.clear);
    CHECK(r.chosen == 0);
    // Three busy rounds of five: two quiet ones still reproduce the fastest, and 0 wins clearly
    // against a steady candidate 5% slower.
    const auto busy = tuning::rank({{10.0, 15.0, 16.0, 14.0, 10.1}, {10.5, 10.6, 10.5, 10.7, 10.6}});
    CHECK(busy.clear);
    CHECK(busy.chosen == 0);
    CHECK(busy.find(0)->median == doctest::Approx(14.0));  // the median is the load's, not ranked on
    // One quiet round only: the fastest is not reproduced (next 14.0, a 40% spread), so nothing
    // is called slower than it within that: a tie, said so.
    const auto lone = tuning::rank({{10.0, 15.0, 16.0, 14.0, 15.5}, {10.5, 10.6, 10.5, 10.7, 10.6}});
    CHECK_FALSE(lone.clear);
    CHECK(lone.tied == std::vector<std::size_t>{0, 1});
    CHECK(lone.chosen == 0);
}

TEST_CASE("ranking: a candidate that failed is never ranked nor chosen") {
    // Candidate 0 failed (no rounds): of the others, 2 is clearly the faster.
    const auto r = tuning::rank({{}, {12.0, 12.0}, {11.0, 11.1}});
    CHECK(r.find(0) == nullptr);
    REQUIRE(r.order.size() == 2);
    CHECK(r.chosen == 2);
    CHECK(r.clear);
    const auto none = tuning::rank({{}, {}});
    CHECK(none.order.empty());
    CHECK(none.tied.empty());
}
