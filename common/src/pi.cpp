// Pi launches, references and tolerances (see pi.hpp).
#include "workbook/pi.hpp"

#include "workbook/check.hpp"
#include "workbook/errors.hpp"
#include "workbook/launch.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

namespace workbook::pi {

std::uint64_t Launch::steps() const {
    return static_cast<std::uint64_t>(niters) *
           (offset + static_cast<std::uint64_t>(local) * static_cast<std::uint64_t>(groups));
}

std::uint64_t Launch::first_step() const { return offset * static_cast<std::uint64_t>(niters); }

float Launch::step_size() const { return static_cast<float>(1.0 / static_cast<double>(steps())); }

std::string Launch::describe() const {
    if (offset == 0)
        return fmt::format("{} groups x {} work-items x {} steps each = {} steps", groups, local, niters, steps());
    return fmt::format("{} groups x {} work-items x {} steps each, from global id {} (a global offset): steps {} to {} "
                       "of {}",
                       groups, local, niters, offset, first_step(), steps() - 1, steps());
}

Launch plan(const cl::Kernel& kernel, const cl::Device& device, std::uint64_t steps, std::size_t preferred) {
    if (steps == 0) throw Error("pi: the number of steps must be at least 1");
    Launch l;
    l.local = work_group_size_1d(kernel, device, preferred);
    l.groups = 4 * std::max<std::size_t>(1, device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
    const std::uint64_t items = static_cast<std::uint64_t>(l.local) * l.groups;
    const std::uint64_t niters = (steps + items - 1) / items;
    if (niters > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw Error(fmt::format("pi: {} steps would need {} steps per work-item, more than the kernel's int holds.\n"
                                "Fix: ask for fewer steps.",
                                steps, niters));
    l.niters = static_cast<int>(niters);
    return l;
}

namespace {

// Each chosen group's sum of 4/(1+x²) over its steps, the step index i mapped through `index` first.
template <typename Index>
std::vector<double> partial_sums_of(const Launch& launch, const Groups& groups, Index index) {
    const double step = launch.step_size();
    const std::uint64_t per_group = static_cast<std::uint64_t>(launch.niters) * launch.local;
    std::vector<double> sums;
    for (const std::size_t g : groups) {
        if (g >= launch.groups) throw Error(fmt::format("pi: no group {} in a launch of {}", g, launch.groups));
        double sum = 0;
        for (std::uint64_t i = launch.first_step() + g * per_group; i < launch.first_step() + (g + 1) * per_group; ++i) {
            const double x = (index(i) + 0.5) * step;
            sum += 4.0 / (1.0 + x * x);
        }
        sums.push_back(sum);
    }
    return sums;
}

}  // namespace

Groups every_group(const Launch& launch) {
    Groups all(launch.groups);
    std::iota(all.begin(), all.end(), std::size_t{0});
    return all;
}

std::vector<double> reference_partial_sums(const Launch& launch, const Groups& groups) {
    return partial_sums_of(launch, groups, [](std::uint64_t i) { return static_cast<double>(i); });
}

std::vector<double> mistaken_partial_sums(const Launch& launch, IndexMistake mistake, const Groups& groups) {
    switch (mistake) {
        case IndexMistake::wrapped_int32:
            return partial_sums_of(launch, groups, [](std::uint64_t i) {
                return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(i)));
            });
        case IndexMistake::wrapped_uint32:
            return partial_sums_of(launch, groups,
                                   [](std::uint64_t i) { return static_cast<double>(static_cast<std::uint32_t>(i)); });
        case IndexMistake::offset_ignored:
            break;
    }
    const std::uint64_t skipped = launch.first_step();
    return partial_sums_of(launch, groups, [skipped](std::uint64_t i) { return static_cast<double>(i - skipped); });
}

double partial_tolerance(const Launch& launch, double sum) {
    return (static_cast<double>(launch.niters) + static_cast<double>(launch.local) + 8.0) * float_unit_roundoff *
           std::abs(sum);
}

double discretisation_bound(const Launch& launch) {
    const double h = 1.0 / static_cast<double>(launch.steps());
    return h * h / 3.0;
}

Result run(const cl::Context& context, const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Device& device,
           std::uint64_t steps) {
    Result r;
    r.launch = plan(kernel, device, steps);
    cl::Buffer partial(context, CL_MEM_WRITE_ONLY, r.launch.groups * sizeof(float));
    std::vector<float> sums(r.launch.groups);
    Stopwatch wall;
    const cl::Event event = enqueue(queue, kernel, r.launch, partial);
    queue.enqueueReadBuffer(partial, CL_TRUE, 0, sums.size() * sizeof(float), sums.data());
    r.wall_seconds = wall.seconds();
    r.kernel_seconds = event_times(event).run_seconds();
    double total = 0;
    for (float s : sums) total += s;
    r.pi = total * static_cast<double>(r.launch.step_size());
    return r;
}

namespace {

// The partial sums add up to pi / step; the tolerance of each, scaled back by the step.
double accumulation_bound(const Launch& l) {
    return partial_tolerance(l, true_pi / static_cast<double>(l.groups)) * static_cast<double>(l.groups);
}

}  // namespace

double error_bound(const Result& r) {
    return discretisation_bound(r.launch) + accumulation_bound(r.launch) + 8.0 * float_unit_roundoff * true_pi;
}

std::string report(const Result& r) {
    return fmt::format(
        "pi = {:.10f}, error {:+.3e} against the true value\n"
        "error estimates: midpoint rule at most {:.1e}; float accumulation at most {:.1e} (each work-item adds {} "
        "terms and each group {} sums in float, every addition rounding by up to 2^-24 of the running sum; "
        "roundings of both signs mostly cancel, so the real error is usually far smaller); the float step {:.9g} "
        "for 1/{} adds about {:.0e}\n",
        r.pi, r.pi - true_pi, discretisation_bound(r.launch), accumulation_bound(r.launch), r.launch.niters,
        r.launch.local, r.launch.step_size(), r.launch.steps(), 8.0 * float_unit_roundoff * true_pi);
}

cl::Event enqueue(const cl::CommandQueue& queue, cl::Kernel& kernel, const Launch& launch,
                  const cl::Buffer& partial_sums) {
    kernel.setArg(0, launch.niters);
    kernel.setArg(1, launch.step_size());
    kernel.setArg(2, cl::Local(launch.local * sizeof(float)));
    kernel.setArg(3, partial_sums);
    cl::Event event;
    const cl::NDRange offset = launch.offset ? cl::NDRange(static_cast<std::size_t>(launch.offset)) : cl::NullRange;
    queue.enqueueNDRangeKernel(kernel, offset, cl::NDRange(launch.local * launch.groups), cl::NDRange(launch.local),
                               nullptr, &event);
    return event;
}

}  // namespace workbook::pi
