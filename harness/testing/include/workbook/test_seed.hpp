// A graded test's inputs come from the session seed (random.hpp), so that every failure can be
// repeated: the generators and the hint every failure message ends with.
#pragma once

#include "workbook/random.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace workbook::testing {

// A generator for one purpose and size, derived from the session seed.
inline Rng rng(std::string_view purpose, std::uint64_t index = 0) { return Rng::derived(session_seed(), purpose, index); }

// "repeat with WORKBOOK_SEED=1234": appended to every failure message.
inline std::string repeat_hint() { return fmt::format("repeat with WORKBOOK_SEED={}", session_seed()); }

}  // namespace workbook::testing
