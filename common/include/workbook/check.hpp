// Checking results: tolerance-based comparison that reports the first mismatch, NaN poisoning of
// outputs, and the guard band after an output that must come back untouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace workbook {

// Unit roundoff of float: a correctly rounded float operation is off by at most u times the
// size of its exact result.
inline constexpr double float_unit_roundoff = 1.0 / 16777216.0;  // 2^-24

// |got - expected| <= abs + rel * scale, where scale is |expected| unless the caller gives a
// per-element scale (for a sum: the sum of the magnitudes of its terms).
struct Tolerance {
    double abs = 0.0;
    double rel = 0.0;
};

struct Mismatch {
    std::size_t index = 0;
    double expected = 0.0;
    double got = 0.0;
    double allowed = 0.0;  // the largest difference the tolerance accepted there
};

struct Comparison {
    std::size_t checked = 0;
    std::size_t mismatches = 0;
    std::optional<Mismatch> first;
    bool ok() const { return mismatches == 0; }
    // "3 of 1000 elements differ; first at index 17: expected 1.25, got nan (allowed difference 1e-07)"
    std::string describe() const;
};

// Prints "PASS c = a + b for 1048576 elements: all match (12.3 ms)" or the FAIL line with the
// first mismatch, and returns exit_ok or exit_wrong_result: the end of every demo. A `seconds` of
// 0 leaves the time out.
int report_result(const std::string& what, std::size_t count, double seconds, const Comparison& result);

// NaN in `got` never matches. `scale`, when not empty, has one entry per element.
Comparison compare(std::span<const float> expected, std::span<const float> got, Tolerance tol,
                   std::span<const float> scale = {});

// " NaN means nothing wrote it: <output> is filled with NaN before every run." when `got` is NaN,
// else empty: the sentence every failure report appends for a never-written element.
std::string poison_note(double got, const std::string& output);

// The value outputs are filled with before a run: a quiet NaN, so an element the code under test
// never wrote is caught by any comparison.
float poison_value();
void poison(std::span<float> values);

// The guard band: a bit pattern (a signalling-NaN payload no float arithmetic produces) that
// fills the elements after an output buffer. Any change means something wrote past the end.
inline constexpr std::uint32_t guard_bits = 0x7fa5a5a5u;
void fill_guard(std::span<float> guard);
// Index (from the start of the guard) of the first element that no longer holds the pattern.
std::optional<std::size_t> first_guard_violation(std::span<const float> guard);

// Host storage for an output of `count` elements followed by a guard band: the data part is
// poisoned, the guard filled.
class GuardedHost {
public:
    explicit GuardedHost(std::size_t count, std::size_t guard = 256);
    float* data() { return storage_.data(); }
    std::span<float> values() { return {storage_.data(), count_}; }
    std::span<float> all() { return storage_; }
    std::span<const float> all() const { return storage_; }
    std::size_t count() const { return count_; }
    // Empty when the guard is intact; otherwise a message saying how far past the end the first
    // write landed.
    std::string guard_report() const;

private:
    std::size_t count_;
    std::vector<float> storage_;
};

}  // namespace workbook
