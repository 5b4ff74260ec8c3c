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

inline constexpr std::array<FailureKind, 6> failure_kinds{{
    {"build_error", "build error"},    // host code or kernel does not compile
    {"wrong_values", "wrong values"},  // the graded test's checks fail
    {"race", "race"},                  // the race pass (Oclgrind) found a problem
    {"too_slow", "too slow"},          // a speed rung below its bar
    {"timeout", "timeout"},            // the test ran past the exercise's time limit
    {"crash", "crash"},                // it died (a signal) or stopped before its end
}};

inline bool is_failure_kind(std::string_view name) {
    for (const auto& k : failure_kinds)
        if (k.name == name) return true;
    return false;
}

}  // namespace workbook
