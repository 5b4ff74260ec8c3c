// What is in the submissions folder, and each one's name (see grader.hpp).
#include "grader.hpp"

#include "workbook/process.hpp"
#include "workbook/text.hpp"

#include "workbook/errors.hpp"

#include <algorithm>
#include <cstring>

namespace workbook::grading {


// A submission's name is a file and folder name in every output and a cgroup's: letters, digits,
// '.', '_' and '-'. Anything else (a newline, a right-to-left override, a slash's look-alike)
// becomes '_', said in the report; two files that end up with one name are refused below.
namespace {

std::string safe_name(const std::string& raw) {
    std::string n;
    for (const unsigned char c : raw) n += std::isalnum(c) || c == '.' || c == '_' || c == '-' ? static_cast<char>(c) : '_';
    if (n.empty() || n.front() == '.') n.insert(n.begin(), '_');
    return n;
}

std::string stem_of(const fs::path& p) {
    std::string n = p.filename().string();
    for (const char* ext : {".tar.gz", ".tgz", ".tar", ".zip"})
        if (n.size() > std::strlen(ext) && n.compare(n.size() - std::strlen(ext), std::string::npos, ext) == 0)
            return n.substr(0, n.size() - std::strlen(ext));
    return n;
}

}  // namespace

std::vector<Submission> find_submissions(const fs::path& dir, const fs::path& roster) {
    if (!fs::is_directory(dir))
        throw Error(fmt::format("{} is not a folder of submissions (each one a folder, .zip, .tar or .tar.gz)",
                                dir.string()));
    std::map<std::string, std::string> ids;
    if (!roster.empty()) {
        std::ifstream in(roster);
        if (!in) throw Error(fmt::format("cannot read the roster {}", roster.string()));
        for (std::string line; std::getline(in, line);) {
            const auto comma = line.find(',');
            if (comma == std::string::npos || line.rfind("submission", 0) == 0) continue;
            ids[line.substr(0, comma)] = sanitize(line.substr(comma + 1), 200);
        }
    }
    std::vector<Submission> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string raw = stem_of(e.path()), name = safe_name(raw);
        const std::string note = name == raw ? std::string()
                                             : fmt::format("graded as \"{}\": the file name \"{}\" holds characters a "
                                                           "submission name may not have (letters, digits, '.', '_', '-')",
                                                           name, sanitize(e.path().filename().string(), 300));
        out.push_back({name, e.path(), ids.count(name) ? ids[name] : name, note});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    // One identity per submission: `alice/` and `alice.zip` would share a work folder and results.
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i].name == out[i - 1].name)
            throw Error(fmt::format("two submissions are both called \"{}\": {} and {}. Keep one of them (or rename "
                                    "one) and grade again",
                                    out[i].name, sanitize(out[i - 1].path.filename().string(), 300),
                                    sanitize(out[i].path.filename().string(), 300)));
    // Without unzip every zipped submission would score 0 for a failed unpacking: refuse instead.
    if (std::any_of(out.begin(), out.end(), [](const auto& s) { return s.path.extension() == ".zip"; }) &&
        find_on_path("unzip").empty())
        throw Error("some submissions are .zip files and unzip is not installed: apt-get install unzip (or "
                    "scripts/setup.sh --all), then grade again");
    return out;
}

std::vector<std::string> submission_names(const fs::path& dir, const fs::path& roster) {
    std::vector<std::string> names;
    for (const auto& s : find_submissions(dir, roster)) names.push_back(s.name);
    return names;
}

}  // namespace workbook::grading
