// CPU references that demos and graded tests share, with the tolerances their maths allows.
#pragma once

#include "workbook/check.hpp"

#include <span>
#include <vector>

namespace workbook::reference {

// out[i] = inputs[0][i] + inputs[1][i] + ..., summed in double and rounded once.
std::vector<float> elementwise_sum(const std::vector<std::span<const float>>& inputs);

// scale[i] = |inputs[0][i]| + |inputs[1][i]| + ...: the size that rounding errors of the sum
// are proportional to, whatever the order of the additions.
std::vector<float> elementwise_magnitude(const std::vector<std::span<const float>>& inputs);

// A float sum of n terms in any order is off by at most (n-1)·u·Σ|x| (one rounding per addition),
// and the reference by u·|sum| once more, so n·u·Σ|x| bounds the difference. The absolute part
// covers devices that flush results below FLT_MIN to zero.
Tolerance sum_tolerance(std::size_t terms);

}  // namespace workbook::reference
