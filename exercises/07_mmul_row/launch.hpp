// Exercise 07: how the row-per-work-item kernel is launched. The one place that decides it: the
// demo, the graded test and the bench all call rung(). Do not edit.
#pragma once

#include "workbook/matmul.hpp"

namespace workbook::ex07 {

// A 1D range: one work-item per row of C, in work-groups of 64 (or the most the kernel and
// device allow). The global size is N rounded up to that work-group size: the kernel must skip
// rows past N.
inline matmul::Rung rung() {
    matmul::Rung r;
    r.group_extent = matmul::rows_per_group;
    r.launch = [](const cl::Device& device, const cl::Kernel& kernel, int n) {
        return matmul::rows_launch(kernel, device, n);
    };
    return r;
}

}  // namespace workbook::ex07
