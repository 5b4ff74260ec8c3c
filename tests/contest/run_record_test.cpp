// One encoding of a judged run: what the checker writes is what the judge and a Slurm job's
// result are read back into, and a damaged verdict is told apart from a rejection.
#include "contest/run_record.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace workbook::contest;

namespace {

Run sample_run() {
    Run r;
    r.device = "Test GPU";
    r.driver = "1.2";
    r.n = 1024;
    r.median_s = 0.0123456789;
    r.min_s = 0.012;
    r.max_s = 0.013;
    r.gflops = 174.0;
    r.repeats = 9;
    r.sizes = "1,17,100,1024";
    r.build_options = "-DTS=16";
    r.kernel_hash = "00ff00ff00ff00ff";
    r.ratio = 0.8;
    r.ratio_low = 0.7;
    r.ratio_high = 0.9;
    r.yardstick = "reference 64x64";
    r.yardstick_median_s = 0.01;
    return r;
}

std::filesystem::path temp_file(const char* name) {
    return std::filesystem::temp_directory_path() / (std::string(name) + std::to_string(::getpid()));
}

}  // namespace

TEST_CASE("a run reads back field for field, and a missing field is refused") {
    const Run r = sample_run();
    const Run back = run_from_json(run_to_json(r));
    CHECK(back.device == r.device);
    CHECK(back.n == r.n);
    CHECK(back.median_s == r.median_s);
    CHECK(back.ratio_low == r.ratio_low);
    CHECK(back.kernel_hash == r.kernel_hash);
    CHECK(back.yardstick_median_s == r.yardstick_median_s);
    auto j = run_to_json(r);
    j.erase("ratio_high");
    CHECK_THROWS(run_from_json(j));
    j = run_to_json(r);
    j["n"] = "1024";  // mistyped
    CHECK_THROWS(run_from_json(j));
}

TEST_CASE("the checker's verdict file: ok with its run, rejected with its reason, damaged, missing") {
    const auto file = temp_file("run-record-test-");
    write_verdict(file, {"ok", "", sample_run()});
    auto v = read_verdict(file);
    CHECK(v.result == "ok");
    REQUIRE(v.run.has_value());
    CHECK(v.run->gflops == 174.0);
    CHECK_FALSE(v.damaged);

    write_verdict(file, {"rejected", "wrong at N = 17", std::nullopt});
    v = read_verdict(file);
    CHECK(v.result == "rejected");
    CHECK(v.reason == "wrong at N = 17");
    CHECK_FALSE(v.run.has_value());

    std::ofstream(file) << R"({"result": "ok", "reason": "", "run": {"device": "x"}})";
    v = read_verdict(file);
    CHECK(v.result == "ok");
    CHECK(v.damaged);

    std::ofstream(file) << "result=ok\n";  // not the encoding: nothing is read from it
    CHECK(read_verdict(file).result.empty());
    std::filesystem::remove(file);
    CHECK(read_verdict(file).result.empty());
}
