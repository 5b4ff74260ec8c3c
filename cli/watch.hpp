// Watch mode, the default verb: the current exercise on one screen, re-checked whenever one of
// its files changes, with single-key commands. Without a terminal on stdin it checks once.
#pragma once

#include "term.hpp"
#include "workspace.hpp"

namespace workbook::cli {

struct WatchOptions {
    bool poll = false;        // stat the files every half second instead of inotify
    bool verbose = false;     // the whole log under each result
    bool remote = false;      // check on the joined class's server (lab.hpp: check_remotely)
    std::string on;           // its device to check on ("": the server's default)
};

int run_watch(Workspace& ws, const Style& style, const WatchOptions& options);

// The exercise list with statuses, as `list` and watch's `l` show it.
std::string format_list(const Workspace& ws, const Style& style);

// The next rung of the hint ladder for `ex` (records that it was shown), or a note that the
// ladder is exhausted.
std::string next_hint(Workspace& ws, const Exercise& ex);

}  // namespace workbook::cli
