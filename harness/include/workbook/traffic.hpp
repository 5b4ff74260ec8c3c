// The memory-traffic report: what a matmul kernel loads and stores, counted exactly by Oclgrind's
// instruction counter (`oclgrind --inst-counts`) on one launch, and when it loads (our plugin:
// loads hidden by computing, waits for loads), divided by the launch's multiply-adds (N^3). Counts
// are the same on every machine, so a rung whose speed cannot be told apart on this device (a CPU)
// is graded on the traffic its lesson cuts instead (testing.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace workbook::traffic {

// One kernel launch as Oclgrind counted it.
struct Counts {
    std::string kernel;
    std::uint64_t global_loads = 0, global_load_bytes = 0, global_stores = 0, global_store_bytes = 0;
    std::uint64_t local_loads = 0, local_load_bytes = 0, local_stores = 0, local_store_bytes = 0;
    std::uint64_t barriers = 0;
    // OpenCL C built-ins the launch called, by name ("async_work_group_copy"), summed over every
    // work-item: what ran, where the source's words say only what was written.
    std::map<std::string, std::uint64_t> calls;
    std::uint64_t called(const std::string& builtin) const {
        const auto it = calls.find(builtin);
        return it == calls.end() ? 0 : it->second;
    }
};

// Every launch's counts in `text` (Oclgrind's report, one block per launch, in order). Lines
// that belong to no block are skipped; a block's line that is not a count ends the block.
std::vector<Counts> parse_inst_counts(std::string_view text);

// One launch as our Oclgrind plugin counted it (harness/oclgrind_plugin/overlap.cpp): the bytes
// loaded from global memory, and those of them issued where the work-item then computes from
// local memory before the next barrier, where a GPU has work to do while they travel; and the
// times its work-items waited for global loads (at the first use of a value loaded since their
// last wait), where the block has that line.
struct Overlap {
    std::uint64_t global_load_bytes = 0, hidden_global_load_bytes = 0;
    std::optional<std::uint64_t> global_load_waits;
};
// Every launch's block in `text`, in order, read as parse_inst_counts reads its own.
std::vector<Overlap> parse_overlap(std::string_view text);

// What a lesson can cut, per multiply-add.
enum class Metric {
    global_bytes,  // bytes loaded from global memory
    local_bytes,   // bytes loaded from local memory
    loads,         // load instructions, global and local (a float4 is one)
    exposed_bytes, // global bytes loaded where no compute from local memory follows to hide them
    load_waits,    // times a work-item waits for its global loads: loads issued together wait once
};
std::string_view name(Metric m);   // "global bytes loaded per multiply-add", ...
std::string_view short_name(Metric m);
int decimals(Metric m);  // as the table and the messages print it: 4, or 6 for the small load_waits
// Whether the figure comes from our Oclgrind plugin (Overlap), which the count must then load.
bool needs_plugin(Metric m);

// One launch's figures per multiply-add, for an N x N x N product.
struct Figures {
    double global_bytes = 0, local_bytes = 0, loads = 0, global_store_bytes = 0;
    std::optional<double> exposed_bytes, load_waits;  // where the plugin counted the launch
    double of(Metric m) const;
};
Figures per_multiply_add(const Counts& c, int n, const std::optional<Overlap>& overlap = std::nullopt);

// The rule: the student's figure must be at most the geometric middle of the previous rung's and
// this rung's solution (as the speed check's middle), so a copy of the previous rung fails by as
// far as the solution passes. Exact counts need no noise band; the rule holds only where the
// solution cuts the figure by at least `least_cut` (else the check says the rule cannot tell).
// Whatever the figure, the student's kernel may load no more from global memory than the previous
// rung's: a kernel without local memory has no local loads at all, and must not pass for it.
struct Verdict {
    double previous = 0, solution = 0, student = 0, required = 0;
    double cut = 0;     // previous / solution
    bool meaningful = false, global_ok = false, ok = false;
    double previous_global = 0, student_global = 0;  // bytes per multiply-add
    bool kept = false;  // a rule of keep(), not judge()
};
Verdict judge(Metric m, const Figures& previous, const Figures& solution, const Figures& student, double least_cut = 1.2);
// The rule for a figure that the previous rung's lesson cut and this rung must keep (rung 19
// keeps rung 18's waits for global loads): the student's at most twice the previous rung's
// solution's, as much as the previous rung's own rule allows where its lesson cuts the figure 4x
// (rung 18's). Always meaningful; the global bytes floor as in judge().
Verdict keep(Metric m, const Figures& previous, const Figures& solution, const Figures& student);

// The table every front end shows: the three kernels' figures side by side, a * on each figure
// in `graded`.
std::string table(int n, const Figures& student, const Figures& solution, const std::string& solution_name,
                  const Figures& previous, const std::string& previous_name, const std::vector<Metric>& graded);

}  // namespace workbook::traffic
