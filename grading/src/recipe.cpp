// The instructor's build recipe for a student's host code (see grader.hpp).
#include "grader.hpp"

#include "workbook/errors.hpp"

#include <algorithm>

namespace workbook::grading {

// How CMake built the starter's runner (the half of a graded test that links the student's host
// code): the compile line of a host file (from compile_commands.json) and the link line
// (link.txt), with the starter's objects as slots.
Recipe recipe_for(const harness::CourseTree& tree, const Exercise& ex, const json& commands) {
    Recipe r;
    for (const auto& e : commands) {
        // The starter's own host file: <the build's source>/exercises/NN_name/<edited .cpp>.
        const fs::path file = std::string(e.at("file"));
        if (file.extension() != ".cpp" || file.parent_path().filename() != ex.dir() ||
            file.parent_path().parent_path().filename() != "exercises")
            continue;
        if (std::find(ex.edit.begin(), ex.edit.end(), file.filename().string()) == ex.edit.end()) continue;
        auto words = split_words(e.at("command"));
        for (std::size_t i = 0; i < words.size(); ++i) {
            if (words[i] == "-o" && i + 1 < words.size()) words[i + 1] = "{obj}";
            if (words[i] == "-c" && i + 1 < words.size()) words[i + 1] = "{src}";
        }
        // Grading needs the code right, not fast: no optimisation and no debug information
        // compile a student's file several times faster (the kernels run on the device anyway).
        std::erase_if(words, [](const std::string& w) { return w == "-g" || (w.size() == 3 && w.rfind("-O", 0) == 0); });
        words.insert(words.begin() + 1, "-O0");
        r.compile = words;
        r.compile_dir = std::string(e.at("directory"));
        break;
    }
    if (r.compile.empty())
        throw Error(fmt::format("{} has no compile command for {}'s host files: build the workbook first "
                                "(cmake --build {})",
                                tree.compile_commands().string(), ex.dir(), tree.build().string()));
    const fs::path link_txt = tree.runner_link_file(ex);
    const fs::path dir = tree.build() / "exercises" / ex.dir();  // where CMake links from
    if (!fs::exists(link_txt))
        throw Error(fmt::format("{} is missing: build the workbook first (cmake --build {})", link_txt.string(),
                                tree.build().string()));
    bool replaced = false;
    for (auto& w : split_words(read_file_or_empty(link_txt))) {
        if (w.find("_starter_host.dir/") != std::string::npos) {
            if (!replaced) r.link.push_back("{objs}");
            replaced = true;
        } else if (!r.link.empty() && r.link.back() == "-o") {
            r.link.push_back("{out}");
        } else {
            // Objects and libraries relative to the link directory become absolute.
            r.link.push_back(w.rfind("CMakeFiles/", 0) == 0 || w.rfind("../", 0) == 0 ? (dir / w).lexically_normal().string() : w);
        }
    }
    // Stripped: a runner is built per submission and exercise, into the submission's scratch budget.
    // With gold where binutils has it: it links these debug-laden objects in about half the time.
    r.link.insert(r.link.begin() + 1, "-s");
    if (fs::exists("/usr/bin/ld.gold")) r.link.insert(r.link.begin() + 1, "-fuse-ld=gold");
    r.link_dir = dir;
    return r;
}

}  // namespace workbook::grading
