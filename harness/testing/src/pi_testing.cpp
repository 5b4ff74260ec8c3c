// Grading pi kernels, the checker's side (see testing.hpp).
#include "workbook/pi.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace workbook::testing {

namespace {

// Step indices from 7·2^30, as in the classic program's run of 2^33 steps: past 2^32, so both an
// int and a uint wrap, and to different values (an int to negative indices), which tells them
// apart. The global offset makes it cheap: only the last few work-items of that run are launched.
constexpr std::uint64_t far_step = std::uint64_t{7} << 30;

pi::Launch far_launch(std::size_t local, std::size_t groups, int niters) {
    pi::Launch l{local, groups, niters};
    l.offset = (far_step + static_cast<std::uint64_t>(niters) - 1) / static_cast<std::uint64_t>(niters);
    return l;
}

// A launch without offset whose steps really pass 2^32, for a kernel that numbers its work-items
// from get_group_id(0) * get_local_size(0) + get_local_id(0): correct for every launch the
// exercise describes, but blind to the global offset that makes far_launch cheap. About 2^32
// steps, 2^16 a work-item; the last two groups lie wholly past 2^32.
pi::Launch long_launch(std::size_t local) {
    constexpr int niters = 1 << 16;
    const std::uint64_t per_group = static_cast<std::uint64_t>(niters) * local;
    return pi::Launch{local, static_cast<std::size_t>((std::uint64_t{1} << 32) / per_group + 2), niters};
}

// The groups of long_launch the host sums (all of them would take the host seconds): the first,
// those around 2^31 (where an int wraps) and 2^32 (where a uint does), and the last.
pi::Groups long_launch_groups(const pi::Launch& l) {
    const std::uint64_t per_group = static_cast<std::uint64_t>(l.niters) * l.local;
    pi::Groups g{0, l.groups - 1};
    for (const std::uint64_t edge : {std::uint64_t{1} << 31, std::uint64_t{1} << 32})
        for (const std::uint64_t step : {edge - 1, edge}) g.push_back(static_cast<std::size_t>(step / per_group));
    std::sort(g.begin(), g.end());
    g.erase(std::unique(g.begin(), g.end()), g.end());
    return g;
}

bool all_within(const pi::Launch& launch, const pi::Groups& groups, const std::vector<float>& got,
                const std::vector<double>& sums) {
    for (std::size_t i = 0; i < groups.size(); ++i)
        if (!(std::fabs(got[groups[i]] - sums[i]) <= pi::partial_tolerance(launch, sums[i]))) return false;
    return true;
}

bool matches(const pi::Launch& launch, const pi::Groups& groups, const std::vector<float>& got, pi::IndexMistake m) {
    return all_within(launch, groups, got, pi::mistaken_partial_sums(launch, m, groups));
}

// Why a launch whose indices pass 2^32 went wrong when every earlier launch passed: the known
// mistake its partial sums match, or the likely one.
std::string far_launch_cause(const pi::Launch& launch, const pi::Groups& groups, const std::vector<float>& got) {
    const std::string range = fmt::format("This launch's step indices run from {} to {}, past 2^32, and the launches "
                                          "with indices below 2^31 passed.",
                                          launch.first_step(), launch.steps() - 1);
    const std::string fix = "Fix: compute the first step in 64 bits, `const long first = (long)get_global_id(0) * "
                            "niters;`, and add i to it as a long.";
    if (matches(launch, groups, got, pi::IndexMistake::wrapped_int32))
        return fmt::format(" Cause: the 32-bit step index overflows: these are exactly the partial sums of the step "
                           "indices wrapped to a 32-bit int. {} An int holding g·niters (`int first = "
                           "get_global_id(0) * niters;`) wraps once it passes 2^31 = 2147483648. {}",
                           range, fix);
    if (matches(launch, groups, got, pi::IndexMistake::wrapped_uint32))
        return fmt::format(" Cause: the 32-bit step index overflows: these are exactly the partial sums of the step "
                           "indices wrapped to a 32-bit unsigned int. {} A uint holding g·niters wraps once it passes "
                           "2^32 = 4294967296. {}",
                           range, fix);
    return fmt::format(" Likely cause: a step index held in 32 bits (an int or a uint) that overflows. {} {}", range,
                       fix);
}

}  // namespace

void check_pi_kernel(const std::string& file, const std::string& kernel_name, const std::vector<int>& extra_niters,
                     const std::string& race_build_options, const std::string& race_why) {
    runner::Message which;
    which.text["file"] = file;
    which.text["kernel"] = kernel_name;
    if (race_pass() && !race_build_options.empty()) {
        which.text["options"] = race_build_options;
        fmt::print("race pass: {} is built with {} under Oclgrind ({})\n", file, race_build_options, race_why);
    }
    const auto max_local = static_cast<std::size_t>(call("kernel_max_local", which).num("max_local"));
    if (max_local < 1 || max_local > 1u << 20)
        throw runner::ProtocolError(fmt::format("the runner reported an impossible work-group size {}", max_local));

    // Work-groups of one work-item, odd sizes, and the device's largest; several groups so a
    // misplaced partial sum shows; few steps per work-item so the tolerance stays tight.
    std::vector<pi::Launch> shapes{{1, 1, 1}, {1, 5, 3}, {7, 3, 1}, {7, 3, 5}, {33, 2, 17}, {max_local, 3, 3}};
    if (small_sizes_only()) shapes = {{1, 1, 1}, {7, 3, 5}, {33, 2, 3}};
    else if (max_local >= 64) shapes.push_back({64, 4, 1000});
    for (int n : extra_niters) shapes.push_back({std::min<std::size_t>(7, max_local), 3, n});
    // Last, so that a failure here means the indices past 2^31, not the reduction: a few
    // work-items whose step indices pass 2^32 (13 steps each: a remainder for vector widths 4, 8).
    shapes.push_back(far_launch(std::min<std::size_t>(7, max_local), 3, 13));
    if (!small_sizes_only()) shapes.push_back(far_launch(std::min<std::size_t>(64, max_local), 2, 1000));

    // One launch, its chosen groups compared: what is wrong (empty when they are right), or that
    // the sums are those of work-items numbered from 0, the global offset left out.
    struct Outcome {
        std::string wrong;
        bool from_zero = false;
    };
    auto run_launch = [&](const pi::Launch& launch, const pi::Groups& groups) -> Outcome {
        Output partial(launch.groups);
        runner::Message request = which;
        request.numbers["local"] = static_cast<double>(launch.local);
        request.numbers["groups"] = static_cast<double>(launch.groups);
        request.numbers["niters"] = launch.niters;
        request.numbers["offset"] = static_cast<double>(launch.offset);
        request.arrays["partial"] = partial.initial();
        const auto reply = call("pi_kernel", std::move(request));
        const std::string what = fmt::format("{} with {}", kernel_name, launch.describe());
        if (const std::string guard = partial.take(reply.array("partial", partial.whole())); !guard.empty())
            return {fmt::format("{}: {} ({})", what, guard, repeat_hint())};
        const auto got = partial.values();
        const auto expected = pi::reference_partial_sums(launch, groups);
        for (std::size_t i = 0; i < groups.size(); ++i) {
            const std::size_t g = groups[i];
            const double allowed = pi::partial_tolerance(launch, expected[i]);
            if (std::fabs(got[g] - expected[i]) <= allowed) continue;
            // Numbered from 0, the offset left out: right for every launch without one, and the
            // indices past 2^32 are tested by long_launch instead (below).
            if (launch.offset != 0 && matches(launch, groups, got, pi::IndexMistake::offset_ignored)) return {{}, true};
            std::string wrong = fmt::format("{}: partial_sums[{}] (group {} of {}): expected {:.9g}, got {:.9g} (allowed "
                                            "difference {:.3g}).{}",
                                            what, g, g, launch.groups, expected[i], got[g], allowed,
                                            poison_note(got[g], "partial_sums"));
            if (launch.steps() > std::uint64_t{1} << 31) wrong += far_launch_cause(launch, groups, got);
            return {wrong};
        }
        return {};
    };

    bool from_zero = false;
    for (const auto& launch : shapes) {
        if (launch.local > max_local) continue;
        const Outcome o = run_launch(launch, pi::every_group(launch));
        from_zero = from_zero || o.from_zero;
        CHECK_MESSAGE(o.wrong.empty(), o.wrong);
        if (!o.wrong.empty()) return;  // one clear failure beats a screenful
    }
    if (!from_zero) return;
    if (small_sizes_only()) {
        fmt::print("{}: the kernel numbers its work-items from 0, not from the launch's global offset; the graded "
                   "pass tests its indices past 2^32 with a launch of 2^32 steps (too long for the simulator)\n",
                   kernel_name);
        return;
    }
    const pi::Launch whole = long_launch(std::min<std::size_t>(64, max_local));
    fmt::print("{}: the kernel numbers its work-items from 0 (get_group_id · get_local_size + get_local_id), not from "
               "the launch's global offset, which is right. Its indices past 2^32 are tested with a launch that runs "
               "every step: {}\n",
               kernel_name, whole.describe());
    const Outcome o = run_launch(whole, long_launch_groups(whole));
    CHECK_MESSAGE(o.wrong.empty(), o.wrong);
}

}  // namespace workbook::testing
