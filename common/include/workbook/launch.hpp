// Launch sizes that respect the device: rounding a global size up, and the largest 1D work-group
// a kernel accepts. Every exercise, grader and tool that picks a work-group size uses these.
#pragma once

#include "workbook/cl.hpp"

#include <cstddef>
#include <limits>

namespace workbook {

// n rounded up to a multiple of m.
std::size_t round_up(std::size_t n, std::size_t m);

// The largest 1D work-group size no larger than `preferred` that the kernel accepts on the
// device (CL_KERNEL_WORK_GROUP_SIZE, CL_DEVICE_MAX_WORK_ITEM_SIZES[0]); at least 1.
std::size_t work_group_size_1d(const cl::Kernel& kernel, const cl::Device& device,
                               std::size_t preferred = std::numeric_limits<std::size_t>::max());

}  // namespace workbook
