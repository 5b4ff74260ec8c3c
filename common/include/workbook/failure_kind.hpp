// Why a check failed, in a fixed vocabulary: the checker names the first failure's kind, the lab
// dashboard (contest/lab.hpp) counts them per exercise. A word of this list is all a joined
// student's check tells the server about what went wrong: never messages, never code.
#pragma once

#include <array>
#include <string_view>

namespace workbook {

struct FailureKind {
    std::string_view name;   // on the wire and in the database
    std::string_view label;  // on the instructor's page
};

namespace failure {
inline constexpr std::string_view build_error = "build_error";    // host code or kernel does not compile
inline constexpr std::string_view wrong_values = "wrong_values";  // the graded test's checks fail
inline constexpr std::string_view race = "race";                  // the race pass (Oclgrind) found a problem
inline constexpr std::string_view too_slow = "too_slow";          // a speed rung below its bar
inline constexpr std::string_view timeout = "timeout";            // past the exercise's time limit
inline constexpr std::string_view crash = "crash";                // it died (a signal) or stopped before its end
}  // namespace failure

inline constexpr std::array<FailureKind, 6> failure_kinds{{
    {failure::build_error, "build error"},
    {failure::wrong_values, "wrong values"},
    {failure::race, "race"},
    {failure::too_slow, "too slow"},
    {failure::timeout, "timeout"},
    {failure::crash, "crash"},
}};

inline bool is_failure_kind(std::string_view name) {
    for (const auto& k : failure_kinds)
        if (k.name == name) return true;
    return false;
}

}  // namespace workbook
