// A submission's grades as the journal keeps them, one JSON line each (see grader.hpp).
#include "grader.hpp"

namespace workbook::grading {

json to_json(const SubmissionGrade& g) {
    json ex = json::array();
    for (const auto& e : g.exercises)
        ex.push_back({{"id", e.id}, {"status", e.status}, {"score", e.score}, {"max", e.max}, {"output", e.output}});
    return {{"name", g.name}, {"student", g.student}, {"exercises", ex}, {"notes", g.notes}};
}

SubmissionGrade from_json(const json& j) {
    SubmissionGrade g{j.at("name"), j.at("student"), {}, j.at("notes").get<std::vector<std::string>>()};
    for (const auto& e : j.at("exercises"))
        g.exercises.push_back({e.at("id"), e.at("status"), e.at("score"), e.at("max"), e.at("output")});
    return g;
}

std::vector<SubmissionGrade> read_journal(const fs::path& file, std::size_t* whole_bytes) {
    const std::string text = read_file_or_empty(file);
    std::vector<SubmissionGrade> out;
    std::size_t good = 0;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = text.find('\n', at);
        if (end == std::string::npos) break;  // no newline: torn
        try {
            out.push_back(from_json(json::parse(text.substr(at, end - at))));
            good = end + 1;
        } catch (...) {
            break;  // a damaged record: it and whatever follows are graded again
        }
        at = end + 1;
    }
    if (whole_bytes) *whole_bytes = good;
    return out;
}

std::vector<std::string> journal_names(const fs::path& out) {
    std::vector<std::string> names;
    for (const auto& g : read_journal(out / "journal.jsonl")) names.push_back(g.name);
    return names;
}

}  // namespace workbook::grading
