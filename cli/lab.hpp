// The student's side of the lab dashboard (server/lab_routes.hpp on the class's server): joining
// a class (`workbook join URL`, `workbook leave`), and each check reported while joined.
//
// Reporting never slows a check or makes it fail: the check writes one small file into
// .workbook/lab-outbox/ and starts a detached sender (`workbook lab-send`), which posts what is
// waiting, retries for a while when the server is away, and is started again by the next check.
// A report holds the exercise, pass or fail, the first failure's kind, the time on the exercise
// and the hints used: never code, never messages.
#pragma once

#include "checker.hpp"
#include "workspace.hpp"

#include "client/class_client.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace workbook::cli {

// The class a workbook has joined (.workbook/class.toml, mode 0600).
using client::ClassInfo;

// Records a check's outcome in the progress file and, when joined, reports it. Never throws for
// the report (a full disk or a missing sender only skip it).
void record_check(Workspace& ws, const Exercise& ex, const CheckResult& r);

// `workbook join` / `leave` / the progress line saying whether and where checks are reported.
int join_command(const Workspace& ws, const std::string& server, std::string token);
int leave_command(const Workspace& ws);
std::string lab_status_line(const Workspace& ws);

// Network, in lab_net.cpp through client/class_client.hpp (contest_missing.cpp where the build has
// no contest server libraries):
// who the server's roster says the token's student is (Error with the server's reason and a fix),
// and the background sender's whole run (the hidden `workbook lab-send`).
ClassInfo lab_hello(const std::string& server, const std::string& token);
int lab_send(const Workspace& ws);
// `workbook check EX --remote` (and watch mode's): the exercise's edit files to the joined class's
// server, graded there on its device (server/remote_check.hpp) and waited for, `step` told of the
// queue place. The result as a local check's; Error when the server cannot be reached or refuses.
// `device`: one of the server's devices (`--on`); "" its default.
CheckResult check_remotely(const Workspace& ws, const Exercise& ex,
                           const std::function<void(const std::string&)>& step = {}, const std::string& device = "");

// Shared by lab.cpp and lab_net.cpp: the files under .workbook/.
fs::path class_file(const Workspace& ws);
fs::path outbox_dir(const Workspace& ws);
fs::path lab_status_file(const Workspace& ws);
std::optional<ClassInfo> read_class(const Workspace& ws);  // nothing when not joined
std::optional<ClassInfo> read_class_file(const fs::path& file);
// Writes `text` to `file` with mode 0600 (a temporary file, then rename).
void write_private(const fs::path& file, const std::string& text);
std::vector<fs::path> waiting_reports(const Workspace& ws);  // the outbox's reports, oldest first
std::string utc_now();                                       // "2026-11-27T09:00:00"

}  // namespace workbook::cli
