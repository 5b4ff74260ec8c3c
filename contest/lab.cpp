// The lab dashboard's checks and states (see lab.hpp).
#include "contest/lab.hpp"

#include "contest/window.hpp"

#include "workbook/errors.hpp"
#include "workbook/failure_kind.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>

namespace workbook::contest {

namespace {

constexpr std::int64_t max_delay_s = 12 * 3600;

// A UTC time `seconds` before the database-format time `now`.
std::string before(const std::string& now, std::int64_t seconds) {
    std::tm tm{};
    if (!strptime(now.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return now;
    std::time_t t = timegm(&tm) - seconds;
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
}

bool is_time(const std::string& s) {
    std::tm tm{};
    const char* end = s.size() == 19 ? strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) : nullptr;
    return end && *end == '\0';
}

}  // namespace

LabCheck parse_lab_check(const std::string& body, const std::vector<std::string>& exercises, const std::string& now) {
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (!j.is_object()) throw Error("the body must be a JSON object");
    for (const auto& [key, value] : j.items())
        if (key != "exercise" && key != "passed" && key != "failure" && key != "seconds_on_exercise" &&
            key != "hints_used" && key != "checked_at")
            throw Error(fmt::format("unknown field \"{}\": a check says only exercise, passed, failure, "
                                    "seconds_on_exercise, hints_used, checked_at",
                                    key.substr(0, 40)));
    const auto field = [&](const char* name) -> const nlohmann::json& {
        if (!j.contains(name)) throw Error(fmt::format("the field \"{}\" is missing", name));
        return j.at(name);
    };
    LabCheck c;
    if (!field("exercise").is_string()) throw Error("\"exercise\" must be a string");
    c.exercise = field("exercise").get<std::string>();
    if (std::find(exercises.begin(), exercises.end(), c.exercise) == exercises.end())
        throw Error(fmt::format("\"{}\" is not an exercise of this course", c.exercise.substr(0, 20)));
    if (!field("passed").is_boolean()) throw Error("\"passed\" must be true or false");
    c.passed = field("passed").get<bool>();
    if (!field("failure").is_string()) throw Error("\"failure\" must be a string");
    c.failure = field("failure").get<std::string>();
    if (c.passed ? !c.failure.empty() : !is_failure_kind(c.failure)) {
        std::string names;
        for (const auto& k : failure_kinds) names += (names.empty() ? "" : ", ") + std::string(k.name);
        throw Error(c.passed ? "a passed check has no failure kind (\"failure\": \"\")"
                             : fmt::format("\"failure\" must be one of {}", names));
    }
    const auto& seconds = field("seconds_on_exercise");
    if (!seconds.is_number_integer() || seconds.get<std::int64_t>() < 0 || seconds.get<std::int64_t>() > 365LL * 86400)
        throw Error("\"seconds_on_exercise\" must be a whole number of seconds, 0 to a year");
    c.seconds_on_exercise = seconds.get<std::int64_t>();
    const auto& hints = field("hints_used");
    if (!hints.is_number_integer() || hints.get<std::int64_t>() < 0 || hints.get<std::int64_t>() > 100)
        throw Error("\"hints_used\" must be a whole number, 0 to 100");
    c.hints_used = static_cast<int>(hints.get<std::int64_t>());
    if (!field("checked_at").is_string() || !is_time(field("checked_at").get<std::string>()))
        throw Error("\"checked_at\" must be a UTC time like 2026-11-27T09:00:00");
    c.checked_at = field("checked_at").get<std::string>();
    // Text comparison is time order in this format.
    c.checked_at = std::clamp(c.checked_at, before(now, max_delay_s), now);
    return c;
}

const char* lab_state_name(LabState s) {
    switch (s) {
    case LabState::not_started: return "not started";
    case LabState::working: return "working";
    case LabState::stuck: return "stuck";
    case LabState::passed: return "passed";
    }
    return "";
}

LabState lab_state(const LabCell& cell, const std::string& now, std::int64_t stuck_after_s) {
    if (cell.checks == 0) return LabState::not_started;
    if (!cell.passed_at.empty()) return LabState::passed;
    return seconds_between(cell.first_at, now) >= stuck_after_s ? LabState::stuck : LabState::working;
}

}  // namespace workbook::contest
