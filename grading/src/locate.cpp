// The submission layout rule (see locate.hpp).
#include "workbook/grading/locate.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace workbook::grading {

namespace {

std::vector<std::string> components(const std::string& path) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t slash = path.find('/', start);
        const std::size_t end = slash == std::string::npos ? path.size() : slash;
        if (end > start) out.push_back(path.substr(start, end - start));
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return out;
}

// The path's last components are exactly `tail`.
bool ends_with(const std::vector<std::string>& parts, const std::vector<std::string>& tail) {
    return parts.size() >= tail.size() && std::equal(tail.rbegin(), tail.rend(), parts.rbegin());
}

}  // namespace

bool SubmissionFiles::eligible(const std::string& path) {
    const auto parts = components(path);
    if (parts.empty()) return false;
    if (parts.back().rfind("._", 0) == 0) return false;  // macOS resource forks in zips
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        const std::string& dir = parts[i];
        if (dir == "solutions" || dir == "__MACOSX" || dir.front() == '.' || dir.rfind("build", 0) == 0) return false;
    }
    return true;
}

SubmissionFiles::SubmissionFiles(std::vector<std::string> files, const std::vector<std::string>& exercise_dirs) {
    for (auto& f : files)
        if (eligible(f)) files_.push_back(std::move(f));
    std::sort(files_.begin(), files_.end());
    bool tree = false, dirs = false;
    for (const auto& f : files_) {
        const auto parts = components(f);
        for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
            tree = tree || parts[i] == "exercises";
            dirs = dirs || std::find(exercise_dirs.begin(), exercise_dirs.end(), parts[i]) != exercise_dirs.end();
        }
    }
    layout_ = tree ? Layout::exercises_tree : dirs ? Layout::exercise_dirs : Layout::flat;
}

std::string SubmissionFiles::layout_name() const {
    switch (layout_) {
    case Layout::exercises_tree: return "an exercises/ folder: files taken from exercises/NN_name/";
    case Layout::exercise_dirs: return "exercise folders: files taken from NN_name/";
    case Layout::flat: return "loose files: each taken by its name";
    }
    return "";
}

Located SubmissionFiles::locate(const std::string& exercise_dir, const std::string& file, bool unique_name) const {
    Located l;
    l.file = file;
    l.wanted = layout_ == Layout::exercises_tree ? "exercises/" + exercise_dir + "/" + file
               : layout_ == Layout::exercise_dirs ? exercise_dir + "/" + file
               : unique_name ? file
                             : fmt::format("{}/{} (several exercises edit a file of that name: put it in its folder)",
                                           exercise_dir, file);
    for (const auto& f : files_) {
        const auto parts = components(f);
        bool match = false;
        switch (layout_) {
        case Layout::exercises_tree: match = ends_with(parts, {"exercises", exercise_dir, file}); break;
        case Layout::exercise_dirs: match = ends_with(parts, {exercise_dir, file}); break;
        case Layout::flat: match = unique_name && parts.back() == file; break;
        }
        if (match) l.candidates.push_back(f);
    }
    if (l.candidates.size() == 1) {
        l.outcome = Located::Outcome::found;
        l.path = l.candidates.front();
    } else {
        l.outcome = l.candidates.empty() ? Located::Outcome::missing : Located::Outcome::ambiguous;
    }
    return l;
}

std::string Located::explain() const {
    switch (outcome) {
    case Outcome::found: return fmt::format("{} graded from {}", file, path);
    case Outcome::ambiguous: {
        std::string list;
        for (std::size_t i = 0; i < candidates.size(); ++i)
            list += (i == 0 ? "" : i + 1 == candidates.size() ? " and " : ", ") + candidates[i];
        return fmt::format("ambiguous: {} copies of {}: {}. Keep one (in exercises/NN_name/) and submit again",
                           candidates.size() == 2 ? "two" : std::to_string(candidates.size()), file, list);
    }
    case Outcome::missing: break;
    }
    return fmt::format("not submitted: no {} in the submission", wanted);
}

}  // namespace workbook::grading
