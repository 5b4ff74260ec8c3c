// Grading pi kernels (see testing.hpp).
#include "workbook/launch.hpp"
#include "workbook/pi.hpp"
#include "workbook/program.hpp"
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace workbook::testing {

void check_pi_kernel(const std::string& file, const std::string& kernel_name, const std::vector<int>& extra_niters) {
    auto& dev = device();
    const cl::Program program = build_program(dev.context, kernel_source(file));
    cl::Kernel kernel(program, kernel_name.c_str());
    const std::size_t max_local = work_group_size_1d(kernel, dev.choice.device);

    // Work-groups of one work-item, odd sizes, and the device's largest; several groups so a
    // misplaced partial sum shows; few steps per work-item so the tolerance stays tight.
    std::vector<pi::Launch> shapes{{1, 1, 1}, {1, 5, 3}, {7, 3, 1}, {7, 3, 5}, {33, 2, 17}, {max_local, 3, 3}};
    if (small_sizes_only()) shapes = {{1, 1, 1}, {7, 3, 5}, {33, 2, 3}};
    else if (max_local >= 64) shapes.push_back({64, 4, 1000});
    for (int n : extra_niters) shapes.push_back({std::min<std::size_t>(7, max_local), 3, n});

    for (const auto& launch : shapes) {
        if (launch.local > max_local) continue;
        const DeviceOutput partial(launch.groups);
        pi::enqueue(dev.queue, kernel, launch, partial.buffer());
        std::string guard;
        const auto got = partial.read(guard);
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
