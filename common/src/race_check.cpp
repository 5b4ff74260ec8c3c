// Running tests under Oclgrind and reading its reports (see race_check.hpp).
#include "workbook/race_check.hpp"

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

namespace workbook::race {

std::string Report::explanation() const {
    const std::string h = headline;
    auto has = [&](const char* word) { return h.find(word) != std::string::npos; };
    if (has("race"))
        return "Two work-items used the same memory with no barrier between them, so the result depends on timing: "
               "right on a CPU device, wrong on a GPU. Look for a missing barrier(CLK_LOCAL_MEM_FENCE) between "
               "writing local memory and reading it, or before it is overwritten.";
    if (has("divergence"))
        return "Work-items of one group did not all reach the same barrier: every work-item must reach every "
               "barrier, so none may return early or skip one inside an if.";
    if (has("Uninitiali"))
        return "A value was read before anything was stored there, e.g. a slot of a local array that no work-item "
               "filled: the result is whatever the memory held.";
    if (has("Invalid read") || has("Invalid write"))
        return "An access outside a buffer or local array: check the bounds test and the index arithmetic.";
    return "Oclgrind found a problem that a CPU device did not show.";
}

std::string oclgrind_path() {
    if (const char* v = std::getenv("WORKBOOK_OCLGRIND"); v && *v) return v;
    for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
        const auto p = std::filesystem::path(dir) / "oclgrind";
        if (std::filesystem::exists(p)) return p.string();
    }
    return {};
}

std::vector<Report> parse(const std::string& output) {
    static const std::regex kernel_line(R"(^\s+Kernel: )");
    std::vector<std::string> lines;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::vector<Report> reports;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        if (!std::regex_search(lines[i + 1], kernel_line) || lines[i].empty()) continue;
        Report r{lines[i], {}};
        for (std::size_t j = i + 1; j < lines.size() && !lines[j].empty() && j < i + 12; ++j)
            r.details += lines[j] + "\n";
        reports.push_back(r);
    }
    return reports;
}

Result check(const std::string& test, std::chrono::seconds timeout) {
    Result r;
    const std::string oclgrind = oclgrind_path();
    if (oclgrind.empty()) {
        r.available = false;
        return r;
    }
    // --max-errors keeps a kernel that races on every element from flooding the log.
    r.run = run_process({oclgrind, "--data-races", "--uninitialized", "--max-errors", "20", test}, timeout,
                        {"WORKBOOK_SMALL=1"});
    r.reports = parse(r.run.output);
    return r;
}

}  // namespace workbook::race
