// Exercise 14: how the smoothing kernel is launched, and the CPU reference it is checked against.
// The one place the demo and the graded test read. Do not edit.
#pragma once

#include "workbook/check.hpp"
#include "workbook/cl.hpp"
#include "workbook/launch.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace workbook::ex14 {

struct Launch {
    std::size_t global = 0, local = 0;
    std::size_t tile_floats() const { return local + 2; }  // the group's block and one neighbour each side
};

// Work-groups of 64 (or what the device allows); the global size is count rounded up to a whole
// number of groups, so the last group may have work-items past the end.
inline Launch launch(const cl::Kernel& kernel, const cl::Device& device, std::size_t count) {
    const std::size_t local = workbook::work_group_size_1d(kernel, device, 64);
    return Launch{workbook::round_up(count, local), local};
}

// Sets the arguments (in, out, count, the __local tile) and enqueues.
inline cl::Event enqueue(const cl::CommandQueue& queue, cl::Kernel& kernel, const cl::Buffer& in,
                         const cl::Buffer& out, std::size_t count, const Launch& l) {
    kernel.setArg(0, in);
    kernel.setArg(1, out);
    kernel.setArg(2, static_cast<cl_int>(count));
    kernel.setArg(3, cl::Local(l.tile_floats() * sizeof(float)));
    cl::Event event;
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(l.global), cl::NDRange(l.local), nullptr, &event);
    return event;
}

// out[i] = (in[i-1] + in[i] + in[i+1]) / 3, where a neighbour past either end is in[i] itself.
inline std::vector<float> reference(std::span<const float> in) {
    const std::size_t n = in.size();
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double left = in[i == 0 ? 0 : i - 1], right = in[i + 1 == n ? i : i + 1];
        out[i] = static_cast<float>((left + in[i] + right) / 3.0);
    }
    return out;
}

// Two additions and a division, each rounding once: 3·2^-24 of (|left| + |centre| + |right|) / 3,
// with room for the reference's own rounding.
inline std::vector<float> scale(std::span<const float> in) {
    const std::size_t n = in.size();
    std::vector<float> s(n);
    for (std::size_t i = 0; i < n; ++i)
        s[i] = (std::fabs(in[i == 0 ? 0 : i - 1]) + std::fabs(in[i]) + std::fabs(in[i + 1 == n ? i : i + 1])) / 3.0f;
    return s;
}
inline constexpr Tolerance tolerance{1e-37, 4 * float_unit_roundoff};

}  // namespace workbook::ex14
