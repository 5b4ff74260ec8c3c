// The check of one exercise as the student sees it (see checker.hpp).
#include "checker.hpp"

#include "term.hpp"

#include <fmt/format.h>

namespace workbook::cli {

std::string format_result(const Exercise& ex, const CheckResult& r, const Style& style, bool verbose,
                          std::size_t max_problems) {
    std::string out;
    if (r.passed()) {
        out += style.green("PASS") + fmt::format(" {} {}: the graded test passes", ex.id, ex.title);
        // (A remote check has no times of its own here: its note says the round trip.)
        out += r.build_s + r.test_s > 0 ? fmt::format(" (build {:.1f} s, test {:.1f} s)\n", r.build_s, r.test_s) : "\n";
        if (!r.speed.empty()) out += r.speed + "\n";
        if (!r.timeline.empty()) out += r.timeline + " (open it in a browser)\n";
    } else {
        out += style.red("FAIL") + fmt::format(" {} {}: {}\n", ex.id, ex.title, stage_message(r.stage));
        for (std::size_t i = 0; i < r.problems.size() && i < max_problems; ++i) out += "\n" + r.problems[i] + "\n";
        if (r.problems.size() > max_problems)
            out += style.dim(fmt::format("\n(and {} more; --verbose shows the whole log)\n",
                                         r.problems.size() - max_problems));
    }
    if (!r.race_note.empty()) out += (r.race_note.find("SKIPPED") != std::string::npos ? style.yellow(r.race_note)
                                                                                          : style.dim(r.race_note)) + "\n";
    if (verbose) out += "\n--- full log ---\n" + r.log + "\n";
    return out;
}

}  // namespace workbook::cli
