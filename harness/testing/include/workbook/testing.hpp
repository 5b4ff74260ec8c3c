// What graded tests share. A graded test is the *checker* (runner.hpp): it draws seeded inputs
// at the awkward sizes, poisons outputs and puts guard bands after them, sends them to the runner
// (the process that runs the student's code on the device), and compares what comes back with its
// own references. It never runs a kernel itself, nor links the student's code.
#pragma once

#include "workbook/check.hpp"
#include "workbook/matmul.hpp"
#include "workbook/random.hpp"
#include "workbook/runner.hpp"
#include "workbook/test_seed.hpp"
#include "workbook/traffic.hpp"
#include "workbook/tuning.hpp"

#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <string>
#include <vector>

namespace workbook::testing {

// The runner of this test: one request, one reply (runner.hpp). Errors it reports (a kernel
// that does not build, an OpenCL error by name, a crash, silence) throw and fail the test case.
runner::Message call(const std::string& op, runner::Message request);
// The same with the test's own kernel `witness` in place of the exercise's (witness.hpp), in a
// runner of its own: started for this call and ended after it. Host code that builds its program
// once and reuses it (ordinary practice) must build the witness in this process, and no later case
// may run it. Where the build has the OpenCL broker, that runner reaches OpenCL only through it,
// and the witness's key stays in the broker.
struct Witness;
runner::Message witness_call(const std::string& op, runner::Message request, const Witness& witness);

// The calls made while one lives run in a runner of their own; with a broker (`broker`, where
// the build has one and this is not the race pass), that runner reaches OpenCL only through it,
// and the broker records each launch: its inputs among the broker's watched arrays and its device
// times, which the runner cannot forge (witness.hpp: missing_launches, launch_seconds). end()
// closes the runner and returns that record ("" without a broker); so does leaving the scope, for
// a call that threw.
class OwnRunner {
public:
    explicit OwnRunner(std::optional<runner::Client::Broker> broker);
    ~OwnRunner();
    OwnRunner(const OwnRunner&) = delete;
    OwnRunner& operator=(const OwnRunner&) = delete;
    bool brokered() const { return brokered_; }
    const std::string& end();

private:
    bool brokered_ = false, ended_ = false;
};
// Whether calls can run through the broker here: the build has it, and this is not the race pass
// (whose runner runs under Oclgrind's own runtime).
bool broker_usable();


// What the evidence record carries besides the verdicts (harness/evidence.hpp): the speed check's
// table with its verdict sentence, and the path of a picture the test drew of the student's run.
void record_speed(const std::string& text);
void record_timeline(const std::string& path);


// True when WORKBOOK_SMALL=1: graded tests then use only small sizes, for running under a
// simulator such as Oclgrind, which is thousands of times slower than a device.
bool small_sizes_only();

// True when WORKBOOK_RACE_PASS=1, which the race pass sets (race_check.hpp): the runner runs
// under Oclgrind, so a test leaves out what the simulator cannot do (a command held by a user
// event never runs there) and says so.
bool race_pass();

// 1, small primes, sizes that are no multiple of any work-group size, one just past a power of
// two and one above 2^20 (with WORKBOOK_SMALL=1: 1, 7, 61 and 257).
std::vector<std::size_t> awkward_sizes();

// Elements of slack after every test buffer: junk after inputs (so reading past the end is
// harmless), the guard pattern after outputs (so writing past the end is seen).
inline constexpr std::size_t guard_elements = 1024;

// The slack after device buffers: guard_elements on a real device, none under the simulator
// (WORKBOOK_SMALL=1), whose own bounds check then sees an access one element past the end.
std::size_t device_slack();

// `values` followed by device_slack() elements of random junk: an input as the runner uploads it.
std::vector<float> padded(std::span<const float> values);

// An output of `count` NaN-poisoned elements followed by a guard band of `slack` elements: sent
// to the runner as initial(), and judged from the copy the runner sends back.
class Output {
public:
    explicit Output(std::size_t count, std::size_t slack = device_slack());
    std::vector<float> initial() const { return {host_.all().begin(), host_.all().end()}; }
    std::size_t whole() const { return host_.all().size(); }
    // Takes the runner's copy (the whole buffer); returns the guard report (empty when intact).
    std::string take(const std::vector<float>& back);
    std::vector<float> values() { return {host_.values().begin(), host_.values().end()}; }

private:
    GuardedHost host_;
};

// Grades `kernel_name` from the kernel file `file`, a kernel of the shape
//   kernel(in_0, ..., in_{n-1}, out, const unsigned int count)  with out[i] = in_0[i] + ... + in_{n-1}[i]
// at every awkward size, with overshooting launches, poisoned outputs and guard bands.
void check_vector_sum_kernel(const std::string& file, const std::string& kernel_name, std::size_t inputs);

// Grades host code that computes out[i] = in_0[i] + ... on the device: the runner's operation
// `op` (run_vector_sum_host) gets the input arrays, a poisoned output with a guard band after it,
// and the count; then once more with the test's own `kernel_name` in place of `kernel_file`
// (witness.hpp), whose marked results show that the host code ran it on the device.
void check_vector_sum_host(const std::string& op, std::size_t inputs, const std::string& kernel_file,
                           const std::string& kernel_name);

// One call of `op` in a runner of its own under Oclgrind's instruction counter (the student's
// runner, wrapped as the graded cases are, with the pointer-bits plugin), for a check of what a
// launch executed (exercise 14: its async copies and waits, however the source is written): the
// counts of the one launch it made with the runner's reply, or nullopt with `why_not` where
// Oclgrind cannot run here. A kernel's printf cannot add counts: a second report is refused (Error).
struct Counted {
    traffic::Counts counts;
    runner::Message reply;
};
std::optional<Counted> counted_call(const std::string& op, runner::Message request, std::string& why_not);

// The sizes a matmul rung is graded at, drawn from the seed in classes (g: the rung's
// group_extent, r: a remainder in 0..min(g-1, 40)): small: 1, one inside a work-group, one whole
// group and a partial one (g+1, or an odd size up to g+17 when g <= 32); large: whole groups near
// 65..160 plus r, near 200..320 plus r, and whole groups near 1024 (1024 + g, or 1024 - g·k with
// k in 1..3: never 1024 itself, a power of two that makes naive kernels alias in a CPU's caches);
// mirrors: for each large size, the same remainder modulo g (g more when it is 0 or 1).
struct MatmulSizes {
    std::vector<int> small, large, mirrors;
};
MatmulSizes matmul_size_classes(const matmul::Rung& rung);
// What the graded test runs, sorted, each capped at the rung's max_n: small and mirrors under the
// simulator (WORKBOOK_SMALL=1, the race pass), and the large sizes too on the device. So the race
// pass checks each size it checks on the device as well, and each large size's tests of N against
// the tile through its mirror; a kernel that tests N's magnitude (N > 200) is not seen there (the
// README's threat table says so).
std::vector<int> matmul_sizes(const matmul::Rung& rung);

// Grades a rung's mmul kernel with its own launch geometry (the runner's "matmul" operation):
// random non-symmetric A and B (junk after them), C poisoned with NaN and a guard band after it,
// tolerance relative to Σ|a·b|, the first mismatch reported with its row and column. True when
// every size passed; a failure is remembered for the process (matmul_values_failed), so that the
// traffic case that follows (08-10) is not spent on a kernel that scores nothing anyway.
// `shape`, where the rung's build options are a choice (exercise 20), goes to the runner with each
// request; the runner builds and launches that choice.
bool check_matmul_kernel(const matmul::Rung& rung, const std::string& shape = {});
bool matmul_values_failed();

// The speed check of a rung of the SGEMM track: the student's kernel timed against this rung's
// solution and the previous rung's, both embedded into the runner (run_matmul_timed), taking turns
// launch by launch on fresh inputs, each timed C checked, each kernel judged by its fastest round.
// The student must reach a bar between the two references' speeds, on a log scale (in gain over
// the previous rung g: on a GPU a third of the way, g^(1/3); on a CPU device, whose rounds are
// noisier, halfway, √g); when the solution itself gains less than `waive_below` over the previous rung
// on this device, the technique does not pay here, and the check says so and waives the
// requirement; even then a kernel slower than the slower of the two references by more than that
// noise band (below min(1, solution gain) / waive_below of the previous rung's speed) fails. Left
// out under the simulator.
struct SpeedSpec {
    std::string technique;  // "more work per work-item": what the rung teaches, for the messages
    std::string previous;   // the previous rung's folder ("10_mmul_block"), its reference's key
    std::string current;    // this rung's folder, the key of its solution
    int rounds = 15;        // timed rounds, after one to warm up
    int extra_round_factor = 4;  // a failing verdict is timed on, up to this many times `rounds`
    // On a GPU, only a verdict this close to its mark (or a gain this close to the waiver's) is
    // timed on: two and a half times the 2% the H100 showed between two processes. Further off,
    // more rounds cannot change it, and a clearly slow kernel hears so after `rounds`.
    double gpu_rescue_band = 0.05;
    // The least gain of the solution over the previous rung for which the requirement holds: the
    // margin between a copy of the previous rung and the bar must exceed the noise between two
    // processes running the same kernel (measured, fastest of 15 rounds: within 2% on the H100, so
    // 1.10 leaves 3.2% below the GPU's bar, 1.10^(1/3), and the SGEMM track's rungs 18 and 19,
    // which gain 1.15-1.25x there, are graded; up to
    // 41% apart on PoCL with two tests at once on two cores, which is why a failing verdict is
    // timed on).
    double waive_below = 1.10, waive_below_cpu = 1.5;
    // What the rung's lesson cuts in memory traffic (traffic.hpp): where the speed requirement is
    // waived, the rung is graded on it instead, counted under Oclgrind; none: the waiver stands.
    std::optional<traffic::Metric> traffic;
    // A second figure the rung is graded on beside `traffic`, by the same rule, where a lesson
    // changes two things and a kernel could do one without the other (rung 18: its local reads
    // as float4s, and its global loads in flight together).
    std::optional<traffic::Metric> also_traffic = std::nullopt;
    // A figure the previous rung's lesson cut, which this rung must keep where traffic grades
    // (traffic::keep): rung 19, whose prefetch could be written so as to undo rung 18's loads in
    // flight together (0.86x rung 18 on the H200, with rung 19's own figure at the solution's).
    std::optional<traffic::Metric> kept_traffic = std::nullopt;
};
struct SpeedTimes {
    std::vector<double> previous, solution, student;  // seconds, one per round, in step
};
struct SpeedVerdict {
    double solution_gain = 0, student_gain = 0, required_gain = 0;  // from each kernel's fastest round
    std::pair<double, double> solution_spread;  // the solution's gain round by round: least, greatest
    // What decides the waiver: solution_gain, or on a CPU device the lesser of it and the median
    // round's gain (speed_testing.cpp says why).
    double technique_gain = 0;
    double waive_below = 0;  // the threshold that applied
    double floor_gain = 0;   // min(1, solution_gain) / waive_below: the least gain that passes when waived
    bool waived = false, ok = false;
};
// The decision alone, from times measured: unit-tested with made-up times.
SpeedVerdict judge_speed(const SpeedSpec& spec, const SpeedTimes& times, bool cpu_device = false);
// Whether a verdict short of its mark gets more rounds: always on a CPU device (its timings
// wander by tens of percent under load), on a GPU only inside `gpu_rescue_band`.
bool worth_more_rounds(const SpeedSpec& spec, const SpeedVerdict& v, bool cpu_device);
void check_matmul_speed(const SpeedSpec& spec);

// The traffic report of a rung: the student's kernel, this rung's solution and the previous
// rung's, each launched once at N (drawn from the seed, traffic_sizes()) in a runner of its own
// under Oclgrind's instruction counter, each C checked. Nothing, with the reason in `why_not`,
// where Oclgrind cannot run (race_check.hpp's availability).
struct TrafficReport {
    int n = 0;
    traffic::Figures student, solution, previous;
};
std::optional<TrafficReport> measure_matmul_traffic(const SpeedSpec& spec, std::string& why_not);
// The sizes the report draws from: small enough to simulate, each one where every rung's cut holds.
std::vector<int> traffic_sizes();
// A rung graded on traffic alone, on every device (exercises 08-10: no speed check, and what their
// lessons cut is exact): spec.previous, spec.current and spec.traffic as in the speed check, which
// it shares its rule, table and messages with. A test case of its own, after the values case, so
// that `workbook check` says "values right" before the count and runs it after the race pass, as
// the speed cases. Skipped, with the reason, where Oclgrind cannot run, under the race pass (the
// test already runs inside Oclgrind there); after a values case failed in the same process it
// fails uncounted, so a wrong kernel still scores nothing on 08-10. A correct kernel without the
// lesson's cut scores the values case alone, as on the SGEMM track (values and speed cases).
void check_matmul_traffic(const SpeedSpec& spec);

// A rung whose block shape is a choice of build options, tuned per device (exercise 20,
// tuning.hpp). The shapes it is graded at, chosen on the graded device in the checker alike on the
// device and under the race pass (so the race pass checks each shape the device runs):
//  - the student's: the `// tuned:` line of their kernel for this device tuned nearest the speed
//    check's N, when it is a candidate; else the reference's;
//  - the reference's: the instructor's tuned entry for this device nearest that N
//    (tuning::reference_choice), else the untuned default;
//  - small ones drawn from the seed among the candidates of at most 64 rows (cheap to simulate):
//    one for each PREFETCH value that the student's shape does not already grade at 64 rows or
//    fewer, so that both loops are always graded, and each in a small block too.
// The untuned default stands in for a reference never tuned on this device.
struct TunedSpec {
    std::string exercise;  // "20_sgemm_tune": the reference's key in the runner and the reference file
    std::function<std::vector<tuning::Choice>(const cl::Device&)> candidates;
    std::function<tuning::Choice(const cl::Device&)> default_choice;
    std::function<matmul::Rung(const tuning::Choice&)> rung;
    // The bytes of one set of a choice's tiles: a shape that does not prefetch may declare no more
    // local memory (an empty function: not checked).
    std::function<std::size_t(const tuning::Choice&)> one_set_bytes;
    double of_reference = 0.85;  // the speed check's bar: this fraction of the reference's speed
    int rounds = 9;              // timed rounds of the speed check, after one to warm up
    int extra_round_factor = 6;  // a failing verdict is timed on, up to this many times `rounds`
};
struct TunedPlan {
    std::string device_key;
    int n = 0;  // the speed check's N: the tuned choices nearest it are used
    tuning::Choice student, reference, untuned;
    std::vector<tuning::Choice> others;  // the small shapes above
    std::string student_from, reference_from;  // where each came from, in words
    std::vector<tuning::Choice> graded() const;  // what the correctness case checks: `others`, then `student`
};
// Throws workbook::Error when no graded device answers.
TunedPlan plan_tuned(const TunedSpec& spec);
// Correct at every shape of the plan (check_matmul_kernel at each), and at a shape that does not
// prefetch, no more local memory than one set of tiles (one_set_bytes). True when all of it held:
// the speed check runs it first and is spent only on such a kernel (a starter whose given
// prefetching loop is fast must not score for speed with its own loop unwritten).
bool check_tuned_kernel(const TunedSpec& spec);
// The student's kernel at their shape against the reference at its own, taking turns on fresh
// inputs, each C checked, judged by the fastest round: at least `of_reference` of its speed;
// after check_tuned_kernel, and only when that passed. Left out under the simulator.
void check_tuned_speed(const TunedSpec& spec);
// The tuner (`workbook tune NN`), run by the test program instead of its test cases when
// WORKBOOK_TUNE names a file: every candidate of the student's kernel (or, with
// WORKBOOK_TUNE_REFERENCE=1, of the reference, whose winner it stores in the reference file),
// checked and timed at the speed check's size, a table with progress; the fastest correct one is
// written to that file as a `// tuned:` line (the CLI puts it into the kernel). A candidate that
// fails to build or to compute C is shown and never chosen. Returns the exit status.
int run_tuner(const TunedSpec& spec);
// Registers the tuner of this test program (one per program): test_main runs it when asked.
struct TunerRegistration {
    explicit TunerRegistration(std::function<int()> tune);
};
// The registered tuner, if any (test_main).
std::function<int()>& registered_tuner();

// Grades a kernel with the pi signature (pi.hpp) from `file`: every partial sum, for launches with
// work-groups of 1, 7, 33, 64 and the most the kernel accepts, 1 to 5 groups, and niters of 1, 3,
// 5, 17, 1000 plus `extra_niters` (for vector kernels, counts that are no multiple of the width),
// then launches at a global offset whose step indices pass 2^32 (a 32-bit index wraps there; the
// failure says so). A partial sum that is missing, misplaced or off by more than the float maths
// allows fails. Under the race pass the kernel is built with `race_build_options` (what the
// simulator needs, for the reason `race_why`), and the test prints both.
void check_pi_kernel(const std::string& file, const std::string& kernel_name, const std::vector<int>& extra_niters = {},
                     const std::string& race_build_options = "", const std::string& race_why = "");

// The message for a vector result: the comparison, what NaN means here, and the seed.
std::string explain_result(const std::string& what, std::size_t count, const Comparison& result);

}  // namespace workbook::testing
