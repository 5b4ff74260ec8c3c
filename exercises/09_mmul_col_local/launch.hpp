// Exercise 09: how the local-column kernel is launched. The one place that decides it: the demo,
// the graded test and the bench all call rung(). Do not edit.
#pragma once

#include "workbook/matmul.hpp"

#include <string>

namespace workbook::ex09 {

// The private row of A keeps exercise 08's limit.
inline constexpr int max_n = 1024;

// A 1D range, one work-item per row, work-groups of 64 (or what the device allows). The one
// __local argument, Bwrk, holds one column of B: N floats per work-group.
inline matmul::Rung rung() {
    matmul::Rung r;
    r.build_options = "-DMAX_N=" + std::to_string(max_n);
    r.max_n = max_n;
    r.launch = [](const cl::Device& device, const cl::Kernel& kernel, int n) {
        matmul::require_local_memory(device, static_cast<std::size_t>(n));
        return matmul::rows_launch(kernel, device, n, {static_cast<std::size_t>(n)});
    };
    return r;
}

}  // namespace workbook::ex09
