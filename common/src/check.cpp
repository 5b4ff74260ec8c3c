// Comparison, poisoning and guard bands (see check.hpp).
#include "workbook/check.hpp"

#include "workbook/errors.hpp"
#include "workbook/timing.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>

namespace workbook {

std::string Comparison::describe() const {
    if (ok()) return fmt::format("all {} elements match", checked);
    const auto& m = *first;
    return fmt::format("{} of {} elements differ; first at index {}: expected {:.9g}, got {:.9g} "
                       "(difference allowed there: {:.3g})",
                       mismatches, checked, m.index, m.expected, m.got, m.allowed);
}

int report_result(const std::string& what, std::size_t count, double seconds, const Comparison& result) {
    const std::string timing = seconds > 0 ? fmt::format(" ({} host wall time)", format_duration(seconds)) : "";
    std::cout << fmt::format("{} {} for {} elements: {}{}\n", result.ok() ? "PASS" : "FAIL", what, count,
                             result.describe(), timing);
    return result.ok() ? exit_ok : exit_wrong_result;
}

Comparison compare(std::span<const float> expected, std::span<const float> got, Tolerance tol,
                   std::span<const float> scale) {
    if (expected.size() != got.size())
        throw Error(fmt::format("compare: {} expected values but {} results", expected.size(), got.size()));
    if (!scale.empty() && scale.size() != expected.size())
        throw Error(fmt::format("compare: {} scale values for {} elements", scale.size(), expected.size()));
    Comparison result;
    result.checked = expected.size();
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double e = expected[i], g = got[i];
        const double s = scale.empty() ? std::fabs(e) : static_cast<double>(scale[i]);
        const double allowed = tol.abs + tol.rel * s;
        // Written so that a NaN on either side fails.
        if (!(std::fabs(g - e) <= allowed)) {
            if (result.mismatches++ == 0) result.first = Mismatch{i, e, g, allowed};
        }
    }
    return result;
}

std::string poison_note(double got, const std::string& output) {
    if (!std::isnan(got)) return {};
    return fmt::format(" NaN means nothing wrote it: {} is filled with NaN before every run.", output);
}

float poison_value() { return std::numeric_limits<float>::quiet_NaN(); }

void poison(std::span<float> values) {
    for (auto& v : values) v = poison_value();
}

void fill_guard(std::span<float> guard) {
    for (auto& v : guard) std::memcpy(&v, &guard_bits, sizeof v);
}

std::optional<std::size_t> first_guard_violation(std::span<const float> guard) {
    for (std::size_t i = 0; i < guard.size(); ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, &guard[i], sizeof bits);
        if (bits != guard_bits) return i;
    }
    return std::nullopt;
}

GuardedHost::GuardedHost(std::size_t count, std::size_t guard) : count_(count), storage_(count + guard) {
    poison(values());
    fill_guard(std::span<float>(storage_).subspan(count_));
}

std::string GuardedHost::guard_report() const {
    const auto hit = first_guard_violation(std::span<const float>(storage_).subspan(count_));
    if (!hit) return {};
    return fmt::format("something wrote past the end of the {}-element output: element {} (that is, {} past the "
                       "last valid index) was changed. Check the bounds test in the kernel and the sizes the host "
                       "passes.",
                       count_, count_ + *hit, *hit + 1);
}

}  // namespace workbook
