// Launch sizes (see launch.hpp).
#include "workbook/launch.hpp"

#include <algorithm>

namespace workbook {

std::size_t round_up(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

std::size_t work_group_size_1d(const cl::Kernel& kernel, const cl::Device& device, std::size_t preferred) {
    const std::size_t limit = std::min(kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device),
                                       device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>().at(0));
    return std::max<std::size_t>(1, std::min(preferred, limit));
}

}  // namespace workbook
