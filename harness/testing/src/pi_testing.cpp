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

bool all_within(const pi::Launch& launch, const std::vector<float>& got, const std::vector<double>& sums) {
    for (std::size_t g = 0; g < launch.groups; ++g)
        if (!(std::fabs(got[g] - sums[g]) <= pi::partial_tolerance(launch, sums[g]))) return false;
    return true;
}

// Why a launch whose indices pass 2^32 went wrong when every earlier launch passed: the known
// mistake its partial sums match, or the likely one.
std::string far_launch_cause(const pi::Launch& launch, const std::vector<float>& got) {
    const std::string range = fmt::format("This launch's step indices run from {} to {}, past 2^32, and the launches "
                                          "with indices below 2^31 passed.",
                                          launch.first_step(), launch.steps() - 1);
    const std::string fix = "Fix: compute the first step in 64 bits, `const long first = (long)get_global_id(0) * "
                            "niters;`, and add i to it as a long.";
    auto matches = [&](pi::IndexMistake m) { return all_within(launch, got, pi::mistaken_partial_sums(launch, m)); };
    if (matches(pi::IndexMistake::wrapped_int32))
        return fmt::format(" Cause: the 32-bit step index overflows: these are exactly the partial sums of the step "
                           "indices wrapped to a 32-bit int. {} An int holding g·niters (`int first = "
                           "get_global_id(0) * niters;`) wraps once it passes 2^31 = 2147483648. {}",
                           range, fix);
    if (matches(pi::IndexMistake::wrapped_uint32))
        return fmt::format(" Cause: the 32-bit step index overflows: these are exactly the partial sums of the step "
                           "indices wrapped to a 32-bit unsigned int. {} A uint holding g·niters wraps once it passes "
                           "2^32 = 4294967296. {}",
                           range, fix);
    if (matches(pi::IndexMistake::offset_ignored))
        return fmt::format(" Cause: the kernel ignores the launch's global offset: these are the partial sums of "
                           "work-items numbered from 0, but this launch's first work-item has global id {} (so that "
                           "its step indices pass 2^32 without running the steps before them). get_global_id(0) "
                           "includes the offset; get_group_id(0) * get_local_size(0) + get_local_id(0) does not. Fix: "
                           "use get_global_id(0).",
                           launch.offset);
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

    for (const auto& launch : shapes) {
        if (launch.local > max_local) continue;
        Output partial(launch.groups);
        runner::Message request = which;
        request.numbers["local"] = static_cast<double>(launch.local);
        request.numbers["groups"] = static_cast<double>(launch.groups);
        request.numbers["niters"] = launch.niters;
        request.numbers["offset"] = static_cast<double>(launch.offset);
        request.arrays["partial"] = partial.initial();
        const auto reply = call("pi_kernel", std::move(request));
        const std::string guard = partial.take(reply.array("partial", partial.whole()));
        const auto got = partial.values();
        const auto expected = pi::reference_partial_sums(launch);

        const std::string what = fmt::format("{} with {}", kernel_name, launch.describe());
        CHECK_MESSAGE(guard.empty(), fmt::format("{}: {} ({})", what, guard, repeat_hint()));
        std::string wrong;
        for (std::size_t g = 0; g < launch.groups && wrong.empty(); ++g) {
            const double allowed = pi::partial_tolerance(launch, expected[g]);
            if (!(std::fabs(got[g] - expected[g]) <= allowed))
                wrong = fmt::format("partial_sums[{}] (group {} of {}): expected {:.9g}, got {:.9g} (allowed "
                                    "difference {:.3g}).{}",
                                    g, g, launch.groups, expected[g], got[g], allowed,
                                    poison_note(got[g], "partial_sums"));
        }
        if (!wrong.empty() && launch.offset != 0) wrong += far_launch_cause(launch, got);
        CHECK_MESSAGE(wrong.empty(), fmt::format("{}: {}", what, wrong));
        if (!guard.empty() || !wrong.empty()) return;  // one clear failure beats a screenful
    }
}

}  // namespace workbook::testing
