// Messages between checker and runner, and the checker's end of the pipes (see runner.hpp).
#include "workbook/runner.hpp"

#include "workbook/cpu_quota.hpp"
#include "workbook/run_main.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

extern char** environ;

namespace workbook::runner {

// ---- fields ---------------------------------------------------------------------------------

const std::string& Message::str(const std::string& key) const {
    const auto it = text.find(key);
    if (it == text.end()) throw ProtocolError(fmt::format("the message has no text field \"{}\"", key));
    return it->second;
}

double Message::num(const std::string& key) const {
    const auto it = numbers.find(key);
    if (it == numbers.end()) throw ProtocolError(fmt::format("the message has no number \"{}\"", key));
    return it->second;
}

const std::vector<float>& Message::array(const std::string& key) const {
    const auto it = arrays.find(key);
    if (it == arrays.end()) throw ProtocolError(fmt::format("the message has no array \"{}\"", key));
    return it->second;
}

const std::vector<float>& Message::array(const std::string& key, std::size_t count) const {
    const auto& a = array(key);
    if (a.size() != count)
        throw ProtocolError(fmt::format("the runner returned {} floats for \"{}\", not the {} asked for", a.size(), key,
                                        count));
    return a;
}

// ---- encoding: little-endian lengths, then bytes ----------------------------------------------

namespace {

void put(std::string& out, const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
void put_u64(std::string& out, std::uint64_t v) { put(out, &v, sizeof v); }
void put_key(std::string& out, char kind, const std::string& key) {
    out.push_back(kind);
    put_u64(out, key.size());
    out += key;
}

struct Reader {
    std::string_view in;
    std::size_t at = 0;
    void need(std::size_t n) const {
        if (n > in.size() - at) throw ProtocolError("a message was cut short or is malformed");
    }
    std::uint64_t u64() {
        need(8);
        std::uint64_t v;
        std::memcpy(&v, in.data() + at, 8);
        at += 8;
        return v;
    }
    std::string bytes(std::uint64_t n) {
        need(n);
        std::string s(in.substr(at, n));
        at += n;
        return s;
    }
};

constexpr std::string_view magic = "WBM1";

}  // namespace

std::string encode(const Message& m) {
    std::string out(magic);
    put_u64(out, m.text.size() + m.numbers.size() + m.arrays.size());
    for (const auto& [k, v] : m.text) put_key(out, 't', k), put_u64(out, v.size()), out += v;
    for (const auto& [k, v] : m.numbers) put_key(out, 'n', k), put(out, &v, sizeof v);
    for (const auto& [k, v] : m.arrays) put_key(out, 'a', k), put_u64(out, v.size()), put(out, v.data(), v.size() * 4);
    return out;
}

Message decode(std::string_view bytes) {
    if (bytes.substr(0, magic.size()) != magic) throw ProtocolError("the runner sent something that is not a message");
    Reader r{bytes, magic.size()};
    Message m;
    const std::uint64_t fields = r.u64();
    if (fields > 4096) throw ProtocolError("a message with too many fields");
    for (std::uint64_t i = 0; i < fields; ++i) {
        r.need(1);
        const char kind = r.in[r.at++];
        const std::uint64_t key_size = r.u64();
        if (key_size > 256) throw ProtocolError("a message field name is too long");
        const std::string key = r.bytes(key_size);
        if (kind == 't') {
            m.text[key] = r.bytes(r.u64());
        } else if (kind == 'n') {
            r.need(8);
            double v;
            std::memcpy(&v, r.in.data() + r.at, 8);
            r.at += 8;
            m.numbers[key] = v;
        } else if (kind == 'a') {
            const std::uint64_t count = r.u64();
            if (count > (r.in.size() - r.at) / 4) throw ProtocolError("a message array is longer than its message");
            std::vector<float> v(count);
            std::memcpy(v.data(), r.in.data() + r.at, count * 4);
            r.at += count * 4;
            m.arrays[key] = std::move(v);
        } else {
            throw ProtocolError("a message field of unknown kind");
        }
    }
    if (r.at != r.in.size()) throw ProtocolError("a message has trailing bytes");
    return m;
}

// ---- frames on file descriptors ---------------------------------------------------------------

namespace {

void write_all(int fd, const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw ProtocolError(fmt::format("the pipe closed ({})", std::strerror(errno)));
        done += static_cast<std::size_t>(n);
    }
}

// Reads exactly n bytes before `deadline` (steady clock), or throws.
void read_exact(int fd, char* out, std::size_t n, std::chrono::steady_clock::time_point deadline, bool& eof_at_start) {
    std::size_t done = 0;
    eof_at_start = false;
    while (done < n) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) throw ProtocolError("timeout");
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR) throw ProtocolError(std::strerror(errno));
        if (ready <= 0) continue;
        const ssize_t got = ::read(fd, out + done, n - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            eof_at_start = done == 0;
            throw ProtocolError("eof");
        }
        done += static_cast<std::size_t>(got);
    }
}

void send_frame(int fd, const Message& m) {
    const std::string body = encode(m);
    std::string frame;
    put_u64(frame, body.size());
    write_all(fd, frame + body);
}

}  // namespace

// ---- the checker's client ---------------------------------------------------------------------

std::chrono::milliseconds Client::call_timeout() {
    if (const char* v = std::getenv("WORKBOOK_RUNNER_TIMEOUT"); v && std::atoi(v) > 0)
        return std::chrono::seconds(std::atoi(v));
    return std::chrono::seconds(120);
}

Client::Client(std::vector<std::string> command, bool wrapped) : command_(std::move(command)), wrapped_(wrapped) {}
Client::Client(std::vector<std::string> command, bool wrapped, Observer observer)
    : command_(std::move(command)), wrapped_(wrapped), observer_(std::move(observer)) {
    captured_ = ::memfd_create("runner-stdout", MFD_CLOEXEC);
    if (captured_ < 0) throw ProtocolError(fmt::format("cannot create the runner's output file: {}", std::strerror(errno)));
}
Client::~Client() {
    close();
    if (captured_ >= 0) ::close(captured_);
}

std::string Client::captured_stdout(std::size_t limit) const {
    std::string out;
    if (captured_ < 0) return out;
    char chunk[65536];
    for (off_t at = 0; out.size() < limit;) {
        const ssize_t got = ::pread(captured_, chunk, std::min(sizeof chunk, limit - out.size()), at);
        if (got <= 0) break;
        out.append(chunk, static_cast<std::size_t>(got));
        at += got;
    }
    return out;
}

namespace {

// The broker's programs, built with the harness (harness/broker); absolute paths from the build.
#ifdef WORKBOOK_BROKER_SERVER
constexpr const char* broker_server_path = WORKBOOK_BROKER_SERVER;
constexpr const char* broker_icd_path = WORKBOOK_BROKER_ICD;
#else
constexpr const char* broker_server_path = "";
constexpr const char* broker_icd_path = "";
#endif
// A broker's report longer than this is not read as evidence (a runner launching without end).
constexpr std::size_t max_broker_report = std::size_t{16} << 20;

std::string runner_program() {
    if (const char* v = std::getenv("WORKBOOK_RUNNER"); v && *v) return v;
    // test-NN_name-variant -> runner-NN_name-variant, beside this program.
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    std::string name = self.filename().string();
    if (ec || name.rfind("test-", 0) != 0)
        throw ProtocolError("no runner: set WORKBOOK_RUNNER to the runner program of this exercise");
    return (self.parent_path() / ("runner-" + name.substr(5))).string();
}

std::vector<std::string> split_wrapper(const char* v) {
    std::vector<std::string> words;
    if (!v || !*v) return words;
    std::string s(v), word;
    for (char c : s) {
        if (c == '\x1f') words.push_back(word), word.clear();
        else word += c;
    }
    words.push_back(word);
    return words;
}

bool secret(const char* entry) {
    for (const char* prefix : {"WORKBOOK_SEED=", "WORKBOOK_EVIDENCE_", "WORKBOOK_RUNNER"})
        if (std::strncmp(entry, prefix, std::strlen(prefix)) == 0) return true;
    return false;
}

// An exec's argument or environment list: the strings' own storage, ended by a null pointer.
std::vector<char*> pointers(std::vector<std::string>& words) {
    std::vector<char*> out;
    for (auto& w : words) out.push_back(w.data());
    out.push_back(nullptr);
    return out;
}

}  // namespace

std::vector<std::string> Client::wrapper_words() const {
    return split_wrapper(wrapped_ ? std::getenv("WORKBOOK_RUNNER_WRAPPER") : nullptr);
}

void Client::start() {
    std::signal(SIGPIPE, SIG_IGN);  // a dead runner is an error reply, not the checker's death
    // The runner's environment: ours without the secrets.
    std::vector<std::string> env_strings;
    const auto set_by_observer = [&](const char* e) {
        for (const auto& o : observer_.env)
            if (const auto eq = o.find('='); eq != std::string::npos && std::strncmp(e, o.c_str(), eq + 1) == 0) return true;
        return false;
    };
    for (char** e = environ; *e; ++e)
        if (!secret(*e) && !set_by_observer(*e)) env_strings.emplace_back(*e);
    env_strings.insert(env_strings.end(), observer_.env.begin(), observer_.env.end());
    const auto env = pointers(env_strings);

    int requests[2], replies[2];
    if (::pipe2(requests, O_CLOEXEC) != 0 || ::pipe2(replies, O_CLOEXEC) != 0)
        throw ProtocolError(fmt::format("cannot create pipes: {}", std::strerror(errno)));
    // The broker first, its socket's other end for the runner as fd 5, the loader pointed at the
    // broker's ICD by `env` between the sandbox's wrapper (which clears the environment) and the runner.
    std::vector<std::string> argv = wrapper_words();
    int broker_end = -1;
    if (broker_) {
        broker_end = start_broker();
        for (const std::string& w : {std::string("env"), std::string("WORKBOOK_BROKER_FD=5"),
                                     std::string("OCL_ICD_VENDORS=") + broker_icd_path,
                                     std::string("OCL_ICD_FILENAMES=") + broker_icd_path})
            argv.push_back(w);
    }
    argv.insert(argv.end(), observer_.tool.begin(), observer_.tool.end());
    if (command_.empty()) argv.push_back(runner_program());
    else argv.insert(argv.end(), command_.begin(), command_.end());
    const auto args = pointers(argv);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw ProtocolError(fmt::format("cannot start the runner: {}", std::strerror(errno)));
    if (pid == 0) {
        // The runner dies with its checker, whatever killed the checker.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        // fds 3 and 4, without close-on-exec (dup2 clears it; a same-number dup needs fcntl).
        // The captured stdout's fd may itself be 3 or 4: moved out of the way first.
        int in = ::fcntl(requests[0], F_DUPFD_CLOEXEC, 10), out = ::fcntl(replies[1], F_DUPFD_CLOEXEC, 10);
        const int captured = captured_ >= 0 ? ::fcntl(captured_, F_DUPFD_CLOEXEC, 10) : -1;
        ::dup2(in, 3);
        ::dup2(out, 4);
        if (broker_end >= 0) ::dup2(broker_end, 5);
        if (captured >= 0) ::dup2(captured, 1);
        ::execvpe(args[0], args.data(), env.data());
        std::fprintf(stderr, "cannot run the runner %s: %s\n", args[0], std::strerror(errno));
        ::_exit(127);
    }
    ::close(requests[0]);
    ::close(replies[1]);
    if (broker_end >= 0) ::close(broker_end);  // the runner holds it now: its exit ends the broker
    pid_ = pid;
    to_runner_ = requests[1];
    from_runner_ = replies[0];
}

void Client::close(std::chrono::milliseconds grace) { stop(grace); }

double Client::cpu_seconds() {
    if (pid_ < 0) return -1;
    const auto find = [&] {
        cpu_pids_ = descendant_processes(pid_);
        if (broker_pid_ > 0)
            for (const int p : descendant_processes(broker_pid_)) cpu_pids_.push_back(p);
        cpu_pids_of_ = pid_;
    };
    if (cpu_pids_of_ != pid_) find();
    double s = processes_cpu_seconds(cpu_pids_);
    if (s < 0) {  // one of them has gone (a wrapper that ended): look again
        find();
        s = processes_cpu_seconds(cpu_pids_);
    }
    return s;
}

bool Client::broker_available() { return ::access(broker_server_path, X_OK) == 0 && ::access(broker_icd_path, R_OK) == 0; }

std::vector<std::string> Client::broker_files() {
    if (!broker_available()) return {};
    return {broker_server_path, broker_icd_path};
}

void Client::use_broker(Broker broker) { broker_ = std::move(broker); }

void Client::clear_broker() { broker_.reset(); }

int Client::start_broker() {
    if (!broker_available())
        throw ProtocolError(fmt::format("this build has no OpenCL broker ({}): rebuild the harness", broker_server_path));
    int sv[2], options[2], report[2], watch[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || ::pipe2(options, O_CLOEXEC) != 0 ||
        ::pipe2(report, O_CLOEXEC) != 0 || ::pipe2(watch, O_CLOEXEC) != 0)
        throw ProtocolError(fmt::format("cannot start the OpenCL broker: {}", std::strerror(errno)));
    // Confined as the runner is (its sandbox's wrapper: its user, limits and namespaces, in a
    // sandbox of its own): the broker runs kernels the runner launches, with sizes it chooses.
    std::vector<std::string> words = wrapper_words();
    for (const char* w : {broker_server_path, "--socket-fd", "3", "--options-fd", "4", "--report-fd", "5", "--watch-fd", "6"})
        words.emplace_back(w);
    const auto argv = pointers(words);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw ProtocolError(fmt::format("cannot start the OpenCL broker: {}", std::strerror(errno)));
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        // Each moved out of the way of fds 3-6 first (a pipe's end may itself be one of them).
        int from[4] = {sv[0], options[0], report[1], watch[0]};
        for (int& fd : from) fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
        for (int i = 0; i < 4; ++i) ::dup2(from[i], 3 + i);
        ::execvp(argv[0], argv.data());
        std::fprintf(stderr, "cannot run the OpenCL broker %s: %s\n", broker_server_path, std::strerror(errno));
        ::_exit(127);
    }
    ::close(sv[0]);
    ::close(options[0]);
    ::close(report[1]);
    ::close(watch[0]);
    // One line, the secret; one of bounds; then each of the checker's sources ended by a NUL
    // (harness/broker).
    std::string text = broker_->secret + "\n" + broker_->bounds + "\n";
    for (const auto& s : broker_->sources) text += s + '\0';
    write_all(options[1], text);
    ::close(options[1]);
    // Each watched array as its length (8 bytes, little-endian) and its bytes.
    std::string arrays;
    for (const auto& a : broker_->watched) {
        std::uint64_t n = a.size() * sizeof(float);
        for (int b = 0; b < 8; ++b, n >>= 8) arrays += static_cast<char>(n & 0xff);
        arrays.append(reinterpret_cast<const char*>(a.data()), a.size() * sizeof(float));
    }
    write_all(watch[1], arrays);
    ::close(watch[1]);
    broker_pid_ = pid;
    broker_report_fd_ = report[0];
    broker_report_.clear();
    return sv[1];
}

void Client::stop(std::chrono::milliseconds grace) {
    if (to_runner_ >= 0) ::close(to_runner_);
    if (from_runner_ >= 0) ::close(from_runner_);
    to_runner_ = from_runner_ = -1;
    if (pid_ > 0) {
        // A runner reads the closed pipe as its end and leaves at once; one that does not is killed.
        const auto until = std::chrono::steady_clock::now() + grace;
        bool gone = false;
        while (!gone && std::chrono::steady_clock::now() < until) {
            const pid_t done = ::waitpid(pid_, nullptr, WNOHANG);
            gone = done == pid_ || (done < 0 && errno != EINTR);
            if (!gone) ::usleep(2000);
        }
        if (!gone) {
            ::kill(pid_, SIGKILL);
            while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
            }
        }
    }
    pid_ = -1;
    if (broker_pid_ > 0) {
        // The runner's end of its socket closed with the runner: the broker leaves by itself
        // (it fails the user events nobody set and waits for the device at most 10 s).
        // Its report is read as it comes (a long one would not fit in the pipe).
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
        std::string report;
        bool open = true, whole = true;
        while (open && std::chrono::steady_clock::now() < until) {
            pollfd p{broker_report_fd_, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0) continue;
            char chunk[65536];
            const ssize_t n = ::read(broker_report_fd_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) open = false;
            else if (report.size() + static_cast<std::size_t>(n) <= max_broker_report) report.append(chunk, static_cast<std::size_t>(n));
            else whole = false;
        }
        while (::waitpid(broker_pid_, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < until) ::usleep(2000);
        if (::waitpid(broker_pid_, nullptr, WNOHANG) == 0) {
            ::kill(broker_pid_, SIGKILL);
            ::waitpid(broker_pid_, nullptr, 0);
        }
        ::close(broker_report_fd_);
        broker_report_fd_ = -1;
        // Evidence past its cap, or cut off, is no evidence.
        broker_report_ = whole && !open && !report.empty() && report.back() == '\n' ? report : std::string();
        broker_pid_ = -1;
    }
}

Message Client::call(const std::string& op, Message request, std::size_t reply_bytes) {
    if (pid_ < 0) start();
    const std::uint64_t id = next_id_++;
    request.text["op"] = op;
    request.numbers["id"] = static_cast<double>(id);
    const auto deadline = std::chrono::steady_clock::now() + call_timeout();
    try {
        const std::string body_out = encode(request);
        const std::size_t limit = std::min(max_message_bytes, reply_bytes ? reply_bytes : body_out.size() + reply_slack);
        std::string frame;
        put_u64(frame, body_out.size());
        write_all(to_runner_, frame + body_out);
        char header[8];
        bool eof = false;
        read_exact(from_runner_, header, 8, deadline, eof);
        std::uint64_t size;
        std::memcpy(&size, header, 8);
        if (size > limit)
            throw ProtocolError(fmt::format("the runner announced a reply of {} bytes to \"{}\", where at most {} are expected",
                                            size, op, limit));
        std::string body(size, '\0');
        read_exact(from_runner_, body.data(), size, deadline, eof);
        Message reply = decode(body);
        if (reply.numbers.count("id") == 0 || reply.numbers.at("id") != static_cast<double>(id))
            throw ProtocolError("the runner replied out of turn (a reply to another request, or one it made up)");
        if (const auto it = reply.text.find("error"); it != reply.text.end()) throw ProtocolError(it->second);
        return reply;
    } catch (const ProtocolError& e) {
        const std::string what = e.what();
        // Reap it to say how it ended.
        std::string ending;
        if (pid_ > 0 && (what == "eof" || what.rfind("the pipe closed", 0) == 0)) {
            int status = 0;
            pid_t done = 0;
            for (int i = 0; i < 50 && (done = ::waitpid(pid_, &status, WNOHANG)) == 0; ++i) ::usleep(20000);
            if (done == pid_) {
                ending = WIFSIGNALED(status) ? fmt::format("killed by signal {} ({})", WTERMSIG(status),
                                                           strsignal(WTERMSIG(status)))
                                             : fmt::format("exit {}", WEXITSTATUS(status));
                pid_ = -1;
            }
        }
        stop();
        if (what == "timeout")
            throw ProtocolError(fmt::format("the student's code did not answer within {} s ({}); it was stopped",
                                            call_timeout().count() / 1000, op));
        if (what == "eof" || what.rfind("the pipe closed", 0) == 0)
            throw ProtocolError(fmt::format("the student's code ended during {} ({}) before it returned", op,
                                            ending.empty() ? "it closed its end of the pipe" : ending));
        throw;
    }
}

const std::string& Client::device_description() {
    if (device_.empty()) device_ = call("hello", {}).str("device");
    return device_;
}

namespace {
bool client_made = false;
}

Client& client() {
    static Client c;
    client_made = true;
    return c;
}

void close_client() {
    if (client_made) client().close();
}

bool configured() {
    if (const char* v = std::getenv("WORKBOOK_RUNNER"); v && *v) return true;
    std::error_code ec;
    return std::filesystem::read_symlink("/proc/self/exe", ec).filename().string().rfind("test-", 0) == 0;
}

// ---- the runner's loop ------------------------------------------------------------------------

namespace {

std::map<std::string, Handler>& operations() {
    static std::map<std::string, Handler> ops;
    return ops;
}

}  // namespace

Operation::Operation(const char* name, Handler handler) { operations()[name] = std::move(handler); }

int serve() {
    std::signal(SIGPIPE, SIG_IGN);
    const auto forever = std::chrono::steady_clock::now() + std::chrono::hours(24 * 365);
    for (;;) {
        Message request, reply;
        try {
            char header[8];
            bool eof = false;
            try {
                read_exact(3, header, 8, forever, eof);
            } catch (const ProtocolError&) {
                return 0;  // the checker closed the pipe: done
            }
            std::uint64_t size;
            std::memcpy(&size, header, 8);
            if (size > max_message_bytes) return 2;
            std::string body(size, '\0');
            read_exact(3, body.data(), size, forever, eof);
            request = decode(body);
        } catch (const ProtocolError&) {
            return 2;
        }
        try {
            const auto it = operations().find(request.str("op"));
            if (it == operations().end())
                throw ProtocolError(fmt::format("this runner has no operation \"{}\"", request.str("op")));
            reply = it->second(request);
        } catch (...) {
            reply = {};
            reply.text["error"] = describe_exception(std::current_exception());
        }
        reply.numbers["id"] = request.num("id");
        std::fflush(stdout);
        std::fflush(stderr);
        try {
            send_frame(4, reply);
        } catch (const ProtocolError&) {
            return 2;
        }
    }
}

}  // namespace workbook::runner
