// The contest's times (see window.hpp).
#include "contest/window.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <ctime>
#include <regex>

namespace workbook::contest {

namespace {

std::time_t to_time(const std::string& t) {
    std::tm tm{};
    if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                    &tm.tm_sec) != 6)
        throw Error(fmt::format("not a time of the contest's database: \"{}\"", t));
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return timegm(&tm);
}

std::string to_text(std::time_t t) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                       tm.tm_min, tm.tm_sec);
}

}  // namespace

std::string parse_contest_time(const std::string& text, const std::string& now) {
    std::smatch m;
    static const std::regex relative(R"(\+(\d{1,6})([smhd]))");
    static const std::regex absolute(R"((\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?)");
    static const std::regex clock(R"((\d{2}):(\d{2}))");
    if (std::regex_match(text, m, relative)) {
        const long n = std::stol(m[1]);
        const long unit = m[2] == "s" ? 1 : m[2] == "m" ? 60 : m[2] == "h" ? 3600 : 86400;
        return to_text(to_time(now) + n * unit);
    }
    std::string t;
    if (std::regex_match(text, m, absolute))
        t = fmt::format("{}-{}-{}T{}:{}:{}", m[1].str(), m[2].str(), m[3].str(), m[4].str(), m[5].str(),
                        m[6].matched ? m[6].str() : "00");
    else if (std::regex_match(text, m, clock))
        t = now.substr(0, 11) + fmt::format("{}:{}:00", m[1].str(), m[2].str());
    else
        throw Error(fmt::format("\"{}\" is not a time: give it as 2026-11-27T09:00 (UTC), 09:00 (today, UTC) or +90m "
                                "(from now; s, m, h or d)",
                                text));
    // Normalised through the calendar, so that 25:00 or February 30 is refused, not carried over.
    const std::string back = to_text(to_time(t));
    if (back != t) throw Error(fmt::format("\"{}\" is not a time of the calendar", text));
    return t;
}

std::int64_t seconds_between(const std::string& a, const std::string& b) {
    return static_cast<std::int64_t>(to_time(b) - to_time(a));
}

std::string in_words(std::int64_t seconds) {
    if (seconds < 0) seconds = 0;
    if (seconds < 60) return fmt::format("in {} s", seconds);
    const std::int64_t minutes = (seconds + 59) / 60;
    if (minutes < 60) return fmt::format("in {} min", minutes);
    if (minutes < 48 * 60) return fmt::format("in {} h {} min", minutes / 60, minutes % 60);
    return fmt::format("in {} days", minutes / (24 * 60));
}

}  // namespace workbook::contest
