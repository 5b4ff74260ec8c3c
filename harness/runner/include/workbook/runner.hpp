// The two roles of a graded test. The *checker* (the test binary: our code only) draws the
// inputs, computes the references, compares, and alone writes the verdict. The *runner* (a second
// process that links the student's host code and builds the student's kernels) only turns the
// inputs it is sent into outputs on the device. They talk over two pipes (the runner's fds 3 and
// 4; its stdout and stderr stay free for the student's prints), one message each way per call.
// Nothing the runner sends is trusted: the checker checks sizes, ids and values, and a runner that
// dies, hangs, floods or answers out of turn fails the case that asked.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace workbook::runner {

// Named fields of three kinds. Accessors throw ProtocolError naming a missing field.
struct Message {
    std::map<std::string, std::string> text;
    std::map<std::string, double> numbers;
    std::map<std::string, std::vector<float>> arrays;

    const std::string& str(const std::string& key) const;
    double num(const std::string& key) const;
    const std::vector<float>& array(const std::string& key) const;
    // An array that must hold exactly `count` floats (what the checker asked for).
    const std::vector<float>& array(const std::string& key, std::size_t count) const;
};

// The runner broke the protocol or failed; the message says how, in the student's terms.
class ProtocolError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::string encode(const Message& m);
Message decode(std::string_view bytes);  // throws ProtocolError on anything malformed

// Limits the checker holds the runner to.
inline constexpr std::size_t max_message_bytes = std::size_t{512} << 20;

// ---- checker side --------------------------------------------------------------------------

// The runner process, started on the first call and again after it dies. Which program: the
// environment's WORKBOOK_RUNNER, else the runner built beside this test (test-NN-x -> runner-NN-x).
// WORKBOOK_RUNNER_WRAPPER (words separated by the unit separator \x1f) is put in front of it: the
// grader's sandbox, the race pass's Oclgrind. The runner never sees WORKBOOK_SEED nor any
// WORKBOOK_EVIDENCE_* variable.
class Client {
public:
    // `command`: the runner's command line; empty for the default above. `wrapped` false: no
    // WORKBOOK_RUNNER_WRAPPER (a runner of our own code only, such as the contest's yardstick).
    explicit Client(std::vector<std::string> command = {}, bool wrapped = true);
    // A runner under a tool that reports on stdout (Oclgrind's instruction counts): `tool` goes
    // between the wrapper and the runner, `env` sets variables in the runner's environment, and
    // the runner's stdout goes to a memory file that only this side reads (captured_stdout).
    struct Observer {
        std::vector<std::string> tool;
        std::vector<std::string> env;  // NAME=VALUE
    };
    Client(std::vector<std::string> command, bool wrapped, Observer observer);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    // Sends `request` as operation `op`; returns the reply. Throws ProtocolError when the runner
    // reports an error (its message), dies, stays silent past the time limit, or replies out of
    // turn. The runner is stopped then, and started afresh by the next call.
    // `reply_bytes`: the largest reply this call expects; a runner that announces more is refused
    // before anything is allocated for it, so the checker's memory follows the case, not what the
    // runner declares. 0: the request's own size plus `reply_slack` (the outputs of every
    // operation fit in what was sent, plus text such as a build log).
    Message call(const std::string& op, Message request, std::size_t reply_bytes = 0);
    static constexpr std::size_t reply_slack = std::size_t{1} << 20;

    // What the runner reported about its device (its first reply).
    const std::string& device_description();

    static std::chrono::milliseconds call_timeout();

    // Ends the runner as a finished run should: its pipes closed, it leaves by itself (within
    // `grace`, else it is killed) and is reaped, so that the processor time it and its sandbox
    // spent is counted to whoever waits for this checker (the grader's phase table). A later
    // call starts a fresh runner.
    void close(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

    // The processor time the kernel has counted so far to this client's processes (the runner,
    // its wrappers and sandbox, the broker where one is used), read here: never reported by the
    // runner, in which a CPU device's kernels run as native code. Negative before the runner
    // started, or where it cannot be read.
    double cpu_seconds();

    // What an observed runner wrote to stdout so far, at most `limit` bytes (the first ones).
    std::string captured_stdout(std::size_t limit = std::size_t{1} << 20) const;

    // The next runner started sees OpenCL only through the broker (harness/broker): a process of
    // the checker's, outside the runner's sandbox, that makes the real calls, alone builds
    // `sources` (the checker's own kernels) and gives their kernels `secret` (a 32-bit number in
    // decimal) as their hidden last argument `workbook_secret`; it never enters the runner.
    // The runner's loader is pointed at the broker's ICD alone. Until clear_broker().
    struct Broker {
        std::string secret;
        std::string bounds;  // how far the checker's kernels index their buffers (witness.hpp)
        std::vector<std::string> sources;
        // Arrays to look for in each launch's buffer arguments (the graded inputs): the broker's
        // report says which launch's arguments began with which (harness/broker/README.md).
        std::vector<std::vector<float>> watched;
    };
    void use_broker(Broker broker);
    void clear_broker();
    // The broker's report of the last runner that used it, once that runner was closed: one JSON
    // line (every kernel launch, its sizes, its watched inputs, its device times), or "" when the
    // broker wrote none or more than a report may hold.
    const std::string& broker_report() const { return broker_report_; }
    // Whether this build has the broker (its programs were built beside the checker's library).
    static bool broker_available();
    // The broker's program and ICD library, which the sandbox must be able to read (none without).
    static std::vector<std::string> broker_files();

private:
    void start();
    int start_broker();  // the broker's process; returns the runner's end of its socket
    std::vector<std::string> wrapper_words() const;  // WORKBOOK_RUNNER_WRAPPER's, when wrapped
    void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(0));

    std::vector<std::string> command_;
    bool wrapped_ = true;
    int pid_ = -1, to_runner_ = -1, from_runner_ = -1;
    std::uint64_t next_id_ = 1;
    std::string device_;
    Observer observer_;
    int captured_ = -1;  // the memory file an observed runner's stdout goes to
    std::optional<Broker> broker_;
    int broker_pid_ = -1;
    int broker_report_fd_ = -1;  // our end of the pipe its report comes through
    std::string broker_report_;
    std::vector<int> cpu_pids_;  // cpu_seconds()'s processes, found once per runner started
    int cpu_pids_of_ = -1;       // the runner they were found for
};

// The checker's one client.
Client& client();
// Closes the checker's client (Client::close) if it ever started a runner: the checker's last
// act before it leaves without running destructors.
void close_client();

// Whether this program has a runner (WORKBOOK_RUNNER is set, or it is a graded test test-*).
bool configured();

// ---- runner side ---------------------------------------------------------------------------

using Handler = std::function<Message(const Message& request)>;

// Registers an operation. Exercises' runner.cpp files register theirs as static objects.
struct Operation {
    Operation(const char* name, Handler handler);
};

// The main() of every runner: answers requests on fds 3 and 4 until told to stop or the checker
// goes away. Exceptions in a handler become an error reply with the error's description.
int serve();

}  // namespace workbook::runner
