// CPU references (see reference.hpp).
#include "workbook/reference.hpp"

#include "workbook/errors.hpp"

#include <cfloat>
#include <cmath>

namespace workbook::reference {
namespace {

std::size_t common_size(const std::vector<std::span<const float>>& inputs) {
    if (inputs.empty()) throw Error("elementwise reference: no inputs");
    for (const auto& in : inputs)
        if (in.size() != inputs.front().size()) throw Error("elementwise reference: inputs differ in length");
    return inputs.front().size();
}

}  // namespace

std::vector<float> elementwise_sum(const std::vector<std::span<const float>>& inputs) {
    std::vector<float> out(common_size(inputs));
    for (std::size_t i = 0; i < out.size(); ++i) {
        double sum = 0.0;
        for (const auto& in : inputs) sum += in[i];
        out[i] = static_cast<float>(sum);
    }
    return out;
}

std::vector<float> elementwise_magnitude(const std::vector<std::span<const float>>& inputs) {
    std::vector<float> out(common_size(inputs));
    for (std::size_t i = 0; i < out.size(); ++i) {
        double sum = 0.0;
        for (const auto& in : inputs) sum += std::fabs(in[i]);
        out[i] = static_cast<float>(sum);
    }
    return out;
}

Tolerance sum_tolerance(std::size_t terms) {
    return Tolerance{static_cast<double>(FLT_MIN) * static_cast<double>(terms),
                     static_cast<double>(terms) * float_unit_roundoff};
}

}  // namespace workbook::reference
