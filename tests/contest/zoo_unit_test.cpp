// Unit tests of the zoo (contest/zoo.hpp) that need no device, no server and no Slurm: the zoo
// file's checks, the judgings' states in the database (fan-out, a job token spent by its result,
// retries of failed judgings only, the submission's own status), the plausibility check that local
// and Slurm results both pass through, and the cross-device ranking.
#include "contest/db.hpp"
#include "contest/judge.hpp"
#include "contest/ranking.hpp"
#include "contest/run_one.hpp"
#include "contest/zoo.hpp"

#include "workbook/errors.hpp"
#include "workbook/matmul.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace workbook::contest;

namespace {

struct Scratch {
    std::filesystem::path dir;
    Scratch() {
        char folder[] = "/tmp/workbook-zoo-test-XXXXXX";
        REQUIRE(mkdtemp(folder));
        dir = folder;
    }
    ~Scratch() { std::filesystem::remove_all(dir); }
    std::filesystem::path file(const std::string& name, const std::string& text) const {
        std::ofstream(dir / name) << text;
        return dir / name;
    }
};

std::string error_of(const std::filesystem::path& zoo) {
    try {
        read_zoo(zoo);
    } catch (const workbook::Error& e) {
        return e.what();
    }
    return "";
}

// A run as run-one would write it for `source` with the judge's default options.
Run plausible(const std::string& source) {
    const JudgeOptions o;
    Run r;
    r.device = "Dev";
    r.driver = "1.0";
    r.n = o.ranking_n;
    r.min_s = 0.009;
    r.median_s = 0.01;
    r.max_s = 0.012;
    r.gflops = workbook::matmul::gflops(r.n, r.median_s);
    r.repeats = o.repeats;
    r.sizes = "1,17,100,257,50,60," + std::to_string(o.ranking_n);
    r.kernel_hash = kernel_fingerprint(source);
    r.ratio = 0.5;
    r.ratio_low = 0.4;
    r.ratio_high = 0.6;
    r.yardstick_median_s = 0.005;
    return r;
}

}  // namespace

TEST_CASE("zoo file: devices read in order, with their reach and device choice") {
    Scratch s;
    const auto zoo = read_zoo(s.file("z.toml", R"(
[slurm]
server = "http://head:8080"
[[device]]
name = "CPU here"
reach = "local"
platform = "Portable"
[[device]]
name = "A100"
reach = "slurm"
partition = "gpu"
gres = "gpu:1"
device_type = "gpu"
result_timeout_s = 60
sbatch_options = ["--exclusive", "--account=course"]
)"));
    REQUIRE(zoo.devices.size() == 2);
    CHECK(zoo.devices[0].name == "CPU here");
    CHECK_FALSE(zoo.devices[0].slurm);
    CHECK(zoo.devices[0].environment() == std::vector<std::string>{"WORKBOOK_PLATFORM=Portable"});
    CHECK(zoo.devices[1].slurm);
    CHECK(zoo.devices[1].gres == "gpu:1");
    CHECK(zoo.devices[1].result_timeout_s == 60);
    CHECK(zoo.devices[1].sbatch_options == std::vector<std::string>{"--exclusive", "--account=course"});
    CHECK(zoo.devices[1].environment() == std::vector<std::string>{"WORKBOOK_DEVICE_TYPE=gpu"});
    CHECK(zoo.server == "http://head:8080");
    CHECK(zoo.has_slurm());
}

TEST_CASE("zoo file: mistakes are named with their fix") {
    Scratch s;
    CHECK(error_of(s.file("a.toml", "")).find("no devices") != std::string::npos);
    CHECK(error_of(s.file("b.toml", "[[device]]\nname = \"x\"\nreach = \"ssh\"\n")).find("reach must be") !=
          std::string::npos);
    CHECK(error_of(s.file("c.toml", "[[device]]\nname = \"x\"\nreach = \"slurm\"\npartiton = \"gpu\"\n"))
              .find("unknown key \"partiton\"") != std::string::npos);
    CHECK(error_of(s.file("d.toml", "[[device]]\nname = \"x\"\nreach = \"local\"\n[[device]]\nname = \"x\"\n"
                                    "reach = \"local\"\n"))
              .find("another device has this name") != std::string::npos);
    CHECK(error_of(s.file("e.toml", "[[device]]\nname = \"x\"\nreach = \"local\"\ngres = \"gpu:1\"\n"))
              .find("are for reach = \"slurm\"") != std::string::npos);
    CHECK(error_of(s.file("f.toml", "[[device]]\nname = \"\"\nreach = \"local\"\n")).find("1 to 40") !=
          std::string::npos);
    CHECK(error_of(s.file("g.toml", "[slurm]\nserver = \"head:8080\"\n[[device]]\nname = \"x\"\nreach = \"local\"\n"))
              .find("must be a URL") != std::string::npos);
    CHECK(error_of(s.file("h.toml", "[[device]]\nname = \"x\"\nreach = \"slurm\"\nresult_timeout_s = 1\n"))
              .find("result_timeout_s") != std::string::npos);
    CHECK(error_of(s.file("i.toml", "[[device]\n")).find("i.toml:1") != std::string::npos);
    CHECK(error_of(s.file("j.toml", "[[device]]\nname = \"x\"\nreach = \"slurm\"\nsbatch_options = [\"exclusive\"]\n"))
              .find("starting with \"--\"") != std::string::npos);
}

TEST_CASE("judgings: fan-out, a job token spent by its result, retries of failed ones only") {
    Scratch s;
    Database db(s.dir / "c.db");
    const auto a = db.queue("ada", "a.cl", "// a\n", 0);
    const auto b = db.queue("bob", "b.cl", "// b\n", 0);
    CHECK(db.fan_out({"here", "there"}) == 2);
    CHECK(db.fan_out({"here", "there"}) == 0);  // once only
    CHECK(db.submission(a)->status == "judging");
    CHECK(db.judgings("queued").size() == 4);

    // here: claimed and run locally, oldest first.
    const auto claimed = db.claim_judging("here");
    REQUIRE(claimed);
    CHECK(claimed->id == a);
    CHECK(db.judging(a, "here")->state == "running");
    const Run run = plausible("// a\n");
    CHECK(db.finish_judging(a, "here", "done", "", &run));
    CHECK_FALSE(db.finish_judging(a, "here", "failed", "late"));  // ended already: unchanged
    CHECK(db.judging(a, "here")->state == "done");

    // there: a Slurm job with a token, which works until its result arrives.
    db.set_job_token(a, "there", "hash-a");
    CHECK(db.move_judging(a, "there", {"queued"}, "submitted", "Slurm job 7", "7"));
    CHECK_FALSE(db.move_judging(a, "there", {"queued"}, "submitted", "again"));
    REQUIRE(db.judging_by_token("hash-a"));
    CHECK(db.judging_by_token("hash-a")->job_id == "7");
    CHECK_FALSE(db.judging_by_token(""));
    CHECK(db.finish_judging(a, "there", "failed", "Slurm job 7 ended (CANCELLED) without a result"));
    CHECK_FALSE(db.judging_by_token("hash-a"));  // spent
    CHECK(db.submission(a)->status == "done");   // ranked here
    CHECK(db.submission(a)->reason.find("failed on there") != std::string::npos);

    // b: rejected here, failed there -> rejected.
    CHECK(db.claim_judging("here")->id == b);
    CHECK(db.finish_judging(b, "here", "rejected", "wrong at N = 33"));
    CHECK(db.finish_judging(b, "there", "failed", "sbatch refused"));
    CHECK(db.submission(b)->status == "rejected");

    // Retry: failed judgings only, back to the queue with one more attempt.
    const auto again = db.retry(a, "");
    REQUIRE(again.size() == 1);
    CHECK(again[0].device == "there");
    CHECK(db.judging(a, "there")->state == "queued");
    CHECK(db.judging(a, "there")->attempts == 1);
    CHECK(db.judging(a, "there")->job_id.empty());
    CHECK(db.submission(a)->status == "judging");
    CHECK(db.judging(a, "here")->state == "done");  // untouched
    CHECK(db.retry(0, "here").empty());
    CHECK(db.retry(0, "").size() == 1);  // b's

    std::vector<std::string> states;
    for (const auto& e : db.history(a))
        if (e.device == "there") states.push_back(e.state);
    CHECK(states == std::vector<std::string>{"queued", "submitted", "failed", "queued"});

    // A zoo run is on its device's board, named by the zoo, with the hardware beside it.
    const auto boards = db.board();
    REQUIRE(boards.size() == 1);
    CHECK(boards[0].device == "here");
    CHECK(boards[0].hardware == "Dev / 1.0");
}

TEST_CASE("implausible_run: a run that does not add up is refused, whoever sent it") {
    const JudgeOptions o;
    const std::string source = "// contest: global = N, N\n__kernel void mmul() {}\n";
    const Submission entry{1, "ada", "k.cl", source, "", "", ""};
    CHECK(implausible_run(plausible(source), o, entry).empty());
    auto broken = [&](auto change) {
        Run r = plausible(source);
        change(r);
        return implausible_run(r, o, entry);
    };
    CHECK(broken([](Run& r) { r.n = 64; }).find("N = 64") != std::string::npos);
    CHECK(broken([](Run& r) { r.repeats = 1; }).find("timed launches") != std::string::npos);
    CHECK(broken([](Run& r) { r.gflops *= 10; }).find("does not follow") != std::string::npos);
    CHECK(broken([](Run& r) { r.median_s = NAN; }).find("times") != std::string::npos);
    CHECK(broken([](Run& r) { r.min_s = 1; }).find("ordered") != std::string::npos);
    CHECK(broken([](Run& r) { r.ratio = 0.9; }).find("spread") != std::string::npos);
    CHECK(broken([](Run& r) { r.ratio_low = -1; }).find("spread") != std::string::npos);
    CHECK(broken([](Run& r) { r.kernel_hash = kernel_fingerprint("another kernel"); }).find("another kernel") !=
          std::string::npos);
    CHECK(broken([](Run& r) { r.sizes = "1,17"; }).find("ranking size") != std::string::npos);
    CHECK(broken([](Run& r) { r.device.clear(); }).find("device") != std::string::npos);
    // A per-device reference is resolved on the device: any kernel's hash is its own.
    const Run reference = plausible("the kernel chosen there");
    CHECK(implausible_run(reference, o, Submission{2, reference_alias, "r.cl", reference_marker, "", "", ""}).empty());
    // The marker's text under a student's alias is no reference: the hash must be of that text.
    const Submission posing{3, "mallory", "m.cl", reference_marker, "", "", ""};
    CHECK_FALSE(per_device_reference(posing));
    CHECK(implausible_run(reference, o, posing).find("another kernel") != std::string::npos);
}

TEST_CASE("cross_device: the geometric mean of x naive over the boards an alias is on") {
    auto row = [](const std::string& alias, double speedup) {
        BoardRow r;
        r.alias = alias;
        r.speedup = speedup;
        return r;
    };
    const std::vector<DeviceBoard> boards = {
        {"cpu", "", 1, {row("fast_on_gpu", 2), row("even", 4), row("cpu_only", 3), row("no_baseline", 0)}},
        {"gpu", "", 1, {row("fast_on_gpu", 32), row("even", 4)}},
    };
    const auto c = cross_device(boards);
    REQUIRE(c.size() == 3);  // no_baseline has no x naive anywhere
    CHECK(c[0].alias == "fast_on_gpu");
    CHECK(c[0].geomean == doctest::Approx(8.0));  // sqrt(2 * 32), where the mean of GFLOPS-like values is 17
    CHECK(c[0].speedups.size() == 2);
    CHECK(c[1].alias == "even");
    CHECK(c[1].geomean == doctest::Approx(4.0));
    CHECK(c[2].alias == "cpu_only");
    CHECK(c[2].geomean == doctest::Approx(3.0));
    CHECK(c[2].speedups.size() == 1);
    CHECK(c[2].rank == 3);
}
