// Grading pi kernels, the checker's side (see testing.hpp).
#include "workbook/pi.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace workbook::testing {

void check_pi_kernel(const std::string& file, const std::string& kernel_name, const std::vector<int>& extra_niters) {
    runner::Message which;
    which.text["file"] = file;
    which.text["kernel"] = kernel_name;
    const auto max_local = static_cast<std::size_t>(call("kernel_max_local", which).num("max_local"));
    if (max_local < 1 || max_local > 1u << 20)
        throw runner::ProtocolError(fmt::format("the runner reported an impossible work-group size {}", max_local));

    // Work-groups of one work-item, odd sizes, and the device's largest; several groups so a
    // misplaced partial sum shows; few steps per work-item so the tolerance stays tight.
    std::vector<pi::Launch> shapes{{1, 1, 1}, {1, 5, 3}, {7, 3, 1}, {7, 3, 5}, {33, 2, 17}, {max_local, 3, 3}};
    if (small_sizes_only()) shapes = {{1, 1, 1}, {7, 3, 5}, {33, 2, 3}};
    else if (max_local >= 64) shapes.push_back({64, 4, 1000});
    for (int n : extra_niters) shapes.push_back({std::min<std::size_t>(7, max_local), 3, n});

    for (const auto& launch : shapes) {
        if (launch.local > max_local) continue;
        Output partial(launch.groups);
        runner::Message request = which;
        request.numbers["local"] = static_cast<double>(launch.local);
        request.numbers["groups"] = static_cast<double>(launch.groups);
        request.numbers["niters"] = launch.niters;
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
        CHECK_MESSAGE(wrong.empty(), fmt::format("{}: {}", what, wrong));
        if (!guard.empty() || !wrong.empty()) return;  // one clear failure beats a screenful
    }
}

}  // namespace workbook::testing
