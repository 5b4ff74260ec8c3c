// Checking one exercise the way the CLI does (harness/local_check.hpp: build, test, race check,
// speed check), over the student's workspace, and the result as the student sees it.
#pragma once

#include "workspace.hpp"

#include "workbook/harness/local_check.hpp"

#include <functional>
#include <string>
#include <vector>

namespace workbook::cli {

using harness::CheckResult;
using harness::Stage;
using harness::stage_message;
using harness::summarize_build_output;

inline CheckResult check_exercise(const Workspace& ws, const Exercise& ex,
                                  const std::function<void(const std::string&)>& step = {}) {
    return harness::check_exercise(ws.tree(), ws.state_dir(), ex, step);
}

struct Style;
// The result as the student sees it: PASS/FAIL with the stage, then the problems (at most
// `max_problems`), then the race-check note; `verbose` appends the whole log.
std::string format_result(const Exercise& ex, const CheckResult& r, const Style& style, bool verbose,
                          std::size_t max_problems = 3);

}  // namespace workbook::cli
