// The student's side of a class's server beyond the contest (server/lab_routes.hpp,
// server/remote_check.hpp): who a token is, the lab's reports, remote checks. Every answer is the
// server's text: sanitised here, where it enters. The verbs (cli/lab.hpp) keep the files under
// .workbook/ and turn results into their own terms.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace workbook::client {

// The class a workbook has joined, as the server's roster knows the student.
struct ClassInfo {
    std::string server, token;
    std::string student, name, alias;
    std::string joined_at;
    bool lab = true;      // the server keeps a lab dashboard: checks are reported
    std::string remote;   // the exercises it checks remotely ("15 16 17"), "" for none
    std::string devices;  // the devices a remote check may name (`--on`), as shown: "\"A\", \"B\""; "": its own
};

// Who the server's roster says the token's student is: Error with the server's reason and a fix.
ClassInfo class_hello(const std::string& server, const std::string& token);

// Posts the lab's reports, oldest first: `waiting` lists the files left, `note` is told of each
// delivery (sent) or failure (error). Waits out a server that is away (about a minute)
// or busy (429, as it asks, at most 8 times in a row); drops a report the server will never take;
// stops at any other refusal (a revoked token), leaving the reports for the next run.
void send_reports(const ClassInfo& c, const std::function<std::vector<std::filesystem::path>()>& waiting,
                  const std::function<void(bool sent, const std::string& error)>& note);

// A remote check's result as the server gave it (sanitised).
struct RemoteResult {
    std::int64_t id = 0;
    std::string status;    // the grader's: "passed", "build failed", "race", "timed out", ..., "not graded"
    std::string output;    // the graded test's output, or the server's reason when not graded
    std::string where;     // the device, as the student can read it
    double seconds = 0;    // round trip
};
// Sends `files` (name, content) of `exercise` to be graded on the class's device (`device`: one
// of the server's, "" its default) and waits for the result; `step` is told of each new queue
// place. Error when the server cannot be reached, refuses, or gives no result within
// remote_check_deadline().
RemoteResult remote_check(const ClassInfo& c, const std::string& exercise,
                          const std::vector<std::pair<std::string, std::string>>& files, const std::string& device,
                          const std::function<void(const std::string&)>& step);
// The whole of a remote check, queue included: 30 minutes, or WORKBOOK_REMOTE_DEADLINE_S (tests).
std::chrono::seconds remote_check_deadline();

}  // namespace workbook::client
