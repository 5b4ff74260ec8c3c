// The instructor's build recipe for a student's host code (see grader.hpp).
#include "grader.hpp"

#include "workbook/errors.hpp"

#include <algorithm>
#include <chrono>
#include <string_view>

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
    // The link line: link.txt where CMake generated Makefiles (paths relative to the exercise's build
    // folder); with Ninja, the last command `ninja -t commands` gives for the runner (paths relative
    // to the build folder, wrapped in ": && ... && :").
    const fs::path link_txt = tree.runner_link_file(ex);
    const bool ninja = !fs::exists(link_txt) && fs::exists(tree.build() / "build.ninja");
    const fs::path dir = ninja ? tree.build() : tree.build() / "exercises" / ex.dir();  // where CMake links from
    std::string line;
    if (ninja) {
        const auto listed = run_process({"ninja", "-C", tree.build().string(), "-t", "commands", tree.runner_target(ex)},
                                   std::chrono::seconds(60));
        if (!listed.passed())
            throw Error(fmt::format("could not read the link line of {} from {} ({}): {}\nFix: install ninja-build, "
                                    "or build the workbook again (cmake --build {})",
                                    tree.runner_target(ex), (tree.build() / "build.ninja").string(), listed.status(),
                                    listed.output.substr(0, 300), tree.build().string()));
        std::string_view out = listed.output;
        while (!out.empty() && out.back() == '\n') out.remove_suffix(1);
        line = std::string(out.substr(out.rfind('\n') == std::string_view::npos ? 0 : out.rfind('\n') + 1));
    } else if (fs::exists(link_txt)) {
        line = read_file_or_empty(link_txt);
    } else {
        throw Error(fmt::format("{} is missing: build the workbook first (cmake --build {})", link_txt.string(),
                                tree.build().string()));
    }
    auto words = split_words(line);
    if (ninja) {  // ": && c++ ... && :" -> "c++ ..."
        if (!words.empty() && words.front() == ":") words.erase(words.begin());
        if (!words.empty() && words.front() == "&&") words.erase(words.begin());
        if (words.size() >= 2 && words.back() == ":" && words[words.size() - 2] == "&&") words.resize(words.size() - 2);
    }
    bool replaced = false;
    for (auto& w : words) {
        if (w.find("_starter_host.dir/") != std::string::npos) {
            if (!replaced) r.link.push_back("{objs}");
            replaced = true;
        } else if (!r.link.empty() && r.link.back() == "-o") {
            r.link.push_back("{out}");
        } else {
            // Objects and libraries relative to the link directory become absolute.
            const bool relative_file = !w.empty() && w[0] != '-' && w[0] != '/' && w.find('/') != std::string::npos;
            r.link.push_back(relative_file ? (dir / w).lexically_normal().string() : w);
        }
    }
    if (!replaced || r.link.empty())
        throw Error(fmt::format("the link line of {} names none of the starter's objects: {}\nFix: build the workbook "
                                "again (cmake --build {})",
                                tree.runner_target(ex), line.substr(0, 300), tree.build().string()));
    // Stripped: a runner is built per submission and exercise, into the submission's scratch budget.
    // With gold where binutils has it: it links these debug-laden objects in about half the time.
    r.link.insert(r.link.begin() + 1, "-s");
    if (fs::exists("/usr/bin/ld.gold")) r.link.insert(r.link.begin() + 1, "-fuse-ld=gold");
    r.link_dir = dir;
    return r;
}

}  // namespace workbook::grading
