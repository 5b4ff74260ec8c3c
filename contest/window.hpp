// The contest's times: when it opens and closes, and the freeze of its public board. Stored in
// the database (Database::window), so `contest close` from another shell reaches a running
// server; the times here are UTC text in the database's own format, "2026-11-27T09:00:00".
#pragma once

#include <cstdint>
#include <string>

namespace workbook::contest {

// A time given on the command line, relative to `now` (the database's format): "2026-11-27T09:00"
// or with seconds (a space for the T too), "09:00" (today, UTC), or "+90m", "+2h", "+30s", "+1d"
// from now. Throws workbook::Error naming the forms when `text` is none of them.
std::string parse_contest_time(const std::string& text, const std::string& now);

// Seconds from `a` to `b` (both in the database's format; negative when b is earlier).
std::int64_t seconds_between(const std::string& a, const std::string& b);

// "in 1 h 5 min", "in 40 s": how long until a time `seconds` away, for messages and the page.
std::string in_words(std::int64_t seconds);

}  // namespace workbook::contest
