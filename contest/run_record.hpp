// One encoding of a judged run, as JSON: what the judge's checker (run-one) writes in its verdict
// file, what a Slurm job posts back as its result, and what a merge or the database's columns are
// read into. Every reader goes through run_from_json, which refuses a missing or mistyped field.
#pragma once

#include "contest/types.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace workbook::contest {

nlohmann::json run_to_json(const Run& run);
Run run_from_json(const nlohmann::json& j);  // throws on a missing or mistyped field

// The checker's verdict on one submission: "ok" with the run it timed (none for a race pass, which
// times nothing), or "rejected" with the reason.
struct CheckerVerdict {
    std::string result;  // "ok", "rejected"; "" when the file is missing or does not parse
    std::string reason;
    std::optional<Run> run;
    bool damaged = false;  // a run was there but does not parse: the checker's fault, not the entry's
};
void write_verdict(const std::filesystem::path& file, const CheckerVerdict& verdict);
CheckerVerdict read_verdict(const std::filesystem::path& file);  // never throws: "" result on any fault

}  // namespace workbook::contest
