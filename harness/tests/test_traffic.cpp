// The traffic report's reading of Oclgrind's counts and its rule (traffic.hpp).
#include "workbook/traffic.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace workbook::traffic;

// The shape Oclgrind 21.10 prints (two launches, a kernel printf's line between them, a locale's
// thousands separators in the second).
constexpr const char* report = R"(some output before
Instructions executed for kernel 'mmul':
          920805 - add
          294912 - load local (1179648 bytes)
          262144 - call llvm.fmuladd.f32()
           16384 - store local (65536 bytes)
            9604 - load global (38416 bytes)
            2401 - store global (9604 bytes)
            2048 - call _Z7barrierj()
             512 - ret

a kernel's printf
Instructions executed for kernel 'other':
           1,024 - load global (16,384 bytes)
              64 - call _Z18work_group_barrierj()
[doctest] test cases: 2
)";

TEST_CASE("traffic: every launch's loads, stores and barriers are summed from Oclgrind's counts") {
    const auto all = parse_inst_counts(report);
    REQUIRE(all.size() == 2);
    CHECK(all[0].kernel == "mmul");
    CHECK(all[0].global_loads == 9604);
    CHECK(all[0].global_load_bytes == 38416);
    CHECK(all[0].global_stores == 2401);
    CHECK(all[0].global_store_bytes == 9604);
    CHECK(all[0].local_loads == 294912);
    CHECK(all[0].local_load_bytes == 1179648);
    CHECK(all[0].local_stores == 16384);
    CHECK(all[0].local_store_bytes == 65536);
    CHECK(all[0].barriers == 2048);
    CHECK(all[1].kernel == "other");
    CHECK(all[1].global_loads == 1024);
    CHECK(all[1].global_load_bytes == 16384);
    CHECK(all[1].barriers == 64);
    CHECK(all[1].local_loads == 0);
}

TEST_CASE("traffic: no block, no counts; a block's lines end at the first line that is no count") {
    CHECK(parse_inst_counts("nothing here\n").empty());
    const auto one = parse_inst_counts("Instructions executed for kernel 'k':\n  10 - load global (40 bytes)\n"
                                       "junk\n  99 - load global (400 bytes)\n");
    REQUIRE(one.size() == 1);
    CHECK(one[0].global_load_bytes == 40);  // the line after "junk" belongs to no block
}

TEST_CASE("traffic: figures per multiply-add, and the rule at the geometric middle") {
    Counts c;
    c.global_load_bytes = 8 * 1000;  // N = 10: 1000 multiply-adds
    c.local_load_bytes = 2 * 1000;
    c.global_loads = 1500;
    c.local_loads = 500;
    const Figures f = per_multiply_add(c, 10);
    CHECK(f.global_bytes == doctest::Approx(8.0));
    CHECK(f.local_bytes == doctest::Approx(2.0));
    CHECK(f.loads == doctest::Approx(2.0));

    Figures previous, solution, student;
    previous.local_bytes = 8;
    solution.local_bytes = 2;  // cuts it 4x: the middle is 4
    student.local_bytes = 4;
    auto v = judge(Metric::local_bytes, previous, solution, student);
    CHECK(v.meaningful);
    CHECK(v.required == doctest::Approx(4.0));
    CHECK(v.ok);
    student.local_bytes = 4.01;
    CHECK_FALSE(judge(Metric::local_bytes, previous, solution, student).ok);
    // No local memory at all: no local loads, but more global traffic than the previous rung.
    Figures global_only;
    global_only.global_bytes = 8;
    previous.global_bytes = 0.5;
    solution.global_bytes = 0.25;
    v = judge(Metric::local_bytes, previous, solution, global_only);
    CHECK(v.student <= v.required);
    CHECK_FALSE(v.global_ok);
    CHECK_FALSE(v.ok);
    student.local_bytes = 4;
    student.global_bytes = 0.5;  // as much global traffic as the previous rung: allowed
    CHECK(judge(Metric::local_bytes, previous, solution, student).ok);
    // A copy of the previous rung fails; a solution that cuts too little makes no rule.
    CHECK_FALSE(judge(Metric::local_bytes, previous, solution, previous).ok);
    solution.local_bytes = 7.5;
    v = judge(Metric::local_bytes, previous, solution, solution);
    CHECK_FALSE(v.meaningful);
    CHECK_FALSE(v.ok);
}

// What our Oclgrind plugin prints (harness/oclgrind_plugin/overlap.cpp), beside Oclgrind's counts.
TEST_CASE("traffic: the plugin's hidden loads are read per launch, and exposed bytes are what is not hidden") {
    const std::string text = std::string(report) +
                             "Global loads hidden for kernel launch 1:\n      131072 - global load bytes\n"
                             "      114688 - hidden global load bytes\n\nprintf noise\n"
                             "Global loads hidden for kernel launch 2:\n       1,024 - global load bytes\n";
    const auto all = parse_overlap(text);
    REQUIRE(all.size() == 2);
    CHECK(all[0].global_load_bytes == 131072);
    CHECK(all[0].hidden_global_load_bytes == 114688);
    CHECK(all[1].global_load_bytes == 1024);
    CHECK(all[1].hidden_global_load_bytes == 0);
    CHECK(parse_overlap(report).empty());        // Oclgrind's own blocks are not the plugin's
    CHECK(parse_inst_counts(text).size() == 2);  // and the plugin's are not Oclgrind's

    Counts c;
    c.global_load_bytes = 131072;
    const Figures without = per_multiply_add(c, 128);
    CHECK_FALSE(without.exposed_bytes.has_value());
    const Figures with = per_multiply_add(c, 128, all[0]);
    REQUIRE(with.exposed_bytes.has_value());
    CHECK(*with.exposed_bytes == doctest::Approx(16384.0 / (128.0 * 128.0 * 128.0)));
    // More hidden than loaded (a forged line) hides at most everything.
    const Figures forged = per_multiply_add(c, 128, Overlap{100, 5000, std::nullopt});
    CHECK(*forged.exposed_bytes == 0.0);

    // Rung 19's rule: exercise 18 hides nothing, its solution seven tiles of eight.
    Figures previous, solution, student;
    previous.global_bytes = solution.global_bytes = student.global_bytes = 0.0625;
    previous.exposed_bytes = 0.0625;
    solution.exposed_bytes = 0.0625 / 8;
    student.exposed_bytes = 0.0625;
    auto v = judge(Metric::exposed_bytes, previous, solution, student);
    CHECK(v.meaningful);
    CHECK(v.cut == doctest::Approx(8.0));
    CHECK_FALSE(v.ok);
    student.exposed_bytes = 0.0625 / 4;  // half the tiles prefetched: within the middle (1 / sqrt(8))
    CHECK(judge(Metric::exposed_bytes, previous, solution, student).ok);
    const std::string t = table(128, student, solution, "19_sgemm_prefetch", previous, "18_sgemm_transpose",
                                {Metric::exposed_bytes});
    CHECK(t.find("exposed B*") != std::string::npos);
    CHECK(t.find("0.0078") != std::string::npos);
}

// The plugin's third line: how often work-items waited for global loads (rung 18's rule).
TEST_CASE("traffic: the plugin's waits for global loads are read per launch, and judged as any figure") {
    const std::string text = "Global loads hidden for kernel launch 1:\n      131072 - global load bytes\n"
                             "           0 - hidden global load bytes\n        2048 - global load waits\n\n"
                             "Global loads hidden for kernel launch 2:\n      131072 - global load bytes\n"
                             "           0 - hidden global load bytes\n       8,192 - global load waits\n\n"
                             "Global loads hidden for kernel launch 3:\n      131072 - global load bytes\n";
    const auto all = parse_overlap(text);
    REQUIRE(all.size() == 3);
    REQUIRE(all[0].global_load_waits.has_value());
    CHECK(*all[0].global_load_waits == 2048);
    CHECK(*all[1].global_load_waits == 8192);
    CHECK_FALSE(all[2].global_load_waits.has_value());  // a block without the line: not counted

    Counts c;
    c.global_load_bytes = 131072;
    const double macs = 128.0 * 128.0 * 128.0;
    const Figures solution = per_multiply_add(c, 128, all[0]), previous = per_multiply_add(c, 128, all[1]);
    REQUIRE(solution.load_waits.has_value());
    CHECK(*solution.load_waits == doctest::Approx(2048 / macs));
    CHECK(*previous.load_waits == doctest::Approx(8192 / macs));
    CHECK_FALSE(per_multiply_add(c, 128, all[2]).load_waits.has_value());
    CHECK(needs_plugin(Metric::load_waits));
    CHECK(needs_plugin(Metric::exposed_bytes));
    CHECK_FALSE(needs_plugin(Metric::loads));

    // Rung 18's rule at N = 128: exercise 17's solution waits once per float4 (4 a tile), this
    // rung's once per tile; a kernel that stores each float4 as soon as it loads it waits as 17's.
    Figures student = previous;
    auto v = judge(Metric::load_waits, previous, solution, student);
    CHECK(v.meaningful);
    CHECK(v.cut == doctest::Approx(4.0));
    CHECK(v.required == doctest::Approx(4096 / macs));
    CHECK_FALSE(v.ok);
    student.load_waits = 4096 / macs;  // half the tiles' loads together: exactly the middle
    CHECK(judge(Metric::load_waits, previous, solution, student).ok);
    // Both plugin columns, each marked where graded, the waits with the digits they need.
    Figures p = previous, s = solution, st = student;
    p.exposed_bytes = s.exposed_bytes = st.exposed_bytes = 0.0625;
    const std::string t = table(128, st, s, "18_sgemm_transpose", p, "17_sgemm_2d_block", {Metric::loads, Metric::load_waits});
    CHECK(t.find("loads*") != std::string::npos);
    CHECK(t.find("waits*") != std::string::npos);
    CHECK(t.find("exposed B ") != std::string::npos);  // shown, not graded
    CHECK(t.find("0.000977") != std::string::npos);
    CHECK(t.find("0.003906") != std::string::npos);
    CHECK(decimals(Metric::load_waits) == 6);
    CHECK(decimals(Metric::loads) == 4);
    // Without the plugin's figure, as if every load instruction waited alone.
    Figures uncounted;
    uncounted.loads = 0.16;
    CHECK(uncounted.of(Metric::load_waits) == doctest::Approx(0.16));
}

// Rung 19 keeps rung 18's lesson: its waits for global loads at most twice rung 18's solution's,
// whatever its own figure (exposed bytes) says.
TEST_CASE("traffic: a figure kept from the previous rung may reach twice its solution's") {
    const double macs = 128.0 * 128.0 * 128.0;
    Figures previous, solution, student;
    previous.global_bytes = solution.global_bytes = student.global_bytes = 0.0625;
    previous.load_waits = solution.load_waits = 2048 / macs;  // 18's and 19's solutions: once a tile
    student.load_waits = 7424 / macs;  // each float4 of the next tile stored as loaded
    auto v = keep(Metric::load_waits, previous, solution, student);
    CHECK(v.kept);
    CHECK(v.meaningful);  // though 19's solution cuts nothing of it
    CHECK(v.required == doctest::Approx(4096 / macs));
    CHECK_FALSE(v.ok);
    CHECK_FALSE(judge(Metric::load_waits, previous, solution, student).meaningful);
    student.load_waits = 4096 / macs;  // exactly twice: kept
    CHECK(keep(Metric::load_waits, previous, solution, student).ok);
    student.load_waits = 2048 / macs;
    student.global_bytes = 0.2;  // kept, but more global traffic than the previous rung: the floor holds
    CHECK_FALSE(keep(Metric::load_waits, previous, solution, student).ok);
}

// Oclgrind 21.10's counts of vload/vstore, as it printed them for a kernel of each (16 work-items).
TEST_CASE("traffic: vloadN and vstoreN count as the loads and stores they are, in their address space") {
    const auto all = parse_inst_counts(R"(Instructions executed for kernel 'k':
              16 - call _Z10vload_halfmPU3AS1KDh()
              16 - call _Z11vstore_halffmPU3AS1Dh()
              16 - call _Z6vload2mPU3AS1Kf()
              16 - call _Z6vload4mPU3AS1Kf()
              16 - call _Z6vload4mPU3AS3Kf()
              16 - call _Z7vstore4Dv4_fmPU3AS1f()
              16 - call _Z7vstore4Dv4_fmPU3AS3f()
              16 - call _Z6vload4mPKf()
              16 - load global (64 bytes)
              16 - store global (64 bytes)
)");
    REQUIRE(all.size() == 1);
    const auto& c = all[0];
    // vload_half (2 bytes), vload2 (8), vload4 (16) and the plain load (4), per work-item.
    CHECK(c.global_loads == 64);
    CHECK(c.global_load_bytes == 16 * (2 + 8 + 16 + 4));
    CHECK(c.global_stores == 48);
    CHECK(c.global_store_bytes == 16 * (2 + 16 + 4));
    CHECK(c.local_loads == 16);
    CHECK(c.local_load_bytes == 256);
    CHECK(c.local_stores == 16);
    CHECK(c.local_store_bytes == 256);
    // The private vload4 (no address space) is no memory traffic; every call is known by name.
    CHECK(c.called("vload4") == 48);
    CHECK(c.called("vstore_half") == 16);
}
