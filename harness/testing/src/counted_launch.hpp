// One kernel launch counted by Oclgrind's instruction counter in an observed runner: the tool's
// command line and the reading of its report, shared by the traffic run (speed_testing.cpp) and
// counted_call (counted_testing.cpp). Internal to the graded tests' library.
#pragma once

#include "workbook/traffic.hpp"

#include <string>
#include <vector>

namespace workbook::testing {

// Oclgrind with --inst-counts, our `plugins` (empty ones skipped; one --plugins, ':'-joined, since
// Oclgrind keeps only the last) and the graded device's local memory size.
std::vector<std::string> counting_tool(const std::string& oclgrind, const std::vector<std::string>& plugins);

// The one launch in an observed runner's stdout, or an Error naming `run` ("the traffic run of
// X"): where the pointer-bits plugin was loaded (`fingerprint`), its finding; a second report
// header anywhere (a kernel's printf can add one, or glue text to the real one; never remove
// one); other than one launch, or (`kernel` not empty) one of another kernel.
traffic::Counts one_counted_launch(const std::string& counted, const std::string& run, bool fingerprint,
                                   const std::string& kernel = "");

// How many times `header` occurs anywhere in `text`, not only at a line's start.
std::size_t occurrences(const std::string& text, const std::string& header);

}  // namespace workbook::testing
