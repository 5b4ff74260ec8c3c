// workbook-broker: runs the real OpenCL runtime for one client (a graded runner, through the
// forwarding ICD) in a process of its own, giving the checker's kernels a secret argument the
// client never sees.
// Usage: workbook-broker --socket-fd N [--options-fd M] [--report-fd R] [--watch-fd W]
#include "server.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>
#include <sys/prctl.h>
#include <unistd.h>

namespace workbook::broker {

Server::Server(int socket_fd, std::string secret, std::set<std::string> ours,
               std::vector<std::vector<std::byte>> watched, std::map<std::string, Bound> bounds)
    : ours_(std::move(ours)), watched_(std::move(watched)), fd_(socket_fd), secret_(std::move(secret)),
      bounds_(std::move(bounds)) {
    secret_value_ = static_cast<cl_uint>(std::strtoull(secret_.c_str(), nullptr, 10));
    for (const auto& w : watched_) watched_bytes_ = std::max(watched_bytes_, w.size());
    // Hidden wherever a text reply repeats it, in decimal or hexadecimal (no program holds it, so
    // none should; shorter forms are too common to hide without mangling ordinary text).
    if (!secret_.empty()) {
        char lower[16], upper[16];
        std::snprintf(lower, sizeof lower, "%x", secret_value_);
        std::snprintf(upper, sizeof upper, "%X", secret_value_);
        for (const std::string& p : {secret_, std::string(lower), std::string(upper)})
            if (p.size() >= 4) secret_pieces_.push_back(p);
    }
}

bool Server::serve() {
    std::vector<std::byte> frame;
    try {
        while (receive_frame(fd_, frame)) {
            Reader in(std::move(frame));
            collect_writes();
            const auto op = in.get<Op>();
            send_frame(fd_, handle(op, in));
        }
        return true;
    } catch (const WireError& e) {
        std::cerr << "workbook-broker: " << e.what() << '\n';
        return false;
    }
}

std::uint64_t Server::add(Kind kind, void* handle) {
    const auto id = next_id_++;
    objects_[id] = Entry{kind, handle};
    ids_[handle] = id;
    return id;
}

std::uint64_t Server::id_of(Kind kind, void* handle) {
    if (!handle) return 0;
    if (const auto it = ids_.find(handle); it != ids_.end() && objects_.at(it->second).kind == kind) return it->second;
    // Platforms and devices are not created by the client: they get an id when first seen.
    if (kind == Kind::Platform || kind == Kind::Device) return add(kind, handle);
    return 0;
}

void* Server::lookup(Kind kind, std::uint64_t id, bool nullable) {
    if (id == 0 && nullable) return nullptr;
    const auto it = objects_.find(id);
    if (it == objects_.end() || it->second.kind != kind) throw Refused{invalid_code(kind)};
    return it->second.handle;
}

std::vector<cl_event> Server::wait_list(Reader& in) {
    std::vector<cl_event> out;
    for (const auto id : in.ids()) {
        const auto it = objects_.find(id);
        if (it == objects_.end() || it->second.kind != Kind::Event) throw Refused{CL_INVALID_EVENT_WAIT_LIST};
        out.push_back(static_cast<cl_event>(it->second.handle));
    }
    return out;
}

std::uint64_t Server::hand_out(cl_event event, bool wanted) {
    if (wanted) return add(Kind::Event, event);
    clReleaseEvent(event);
    return 0;
}

void Server::collect_writes() {
    std::erase_if(writes_, [](auto& w) {
        cl_int s = CL_QUEUED;
        clGetEventInfo(w.first, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr);
        if (s > CL_COMPLETE) return false;
        clReleaseEvent(w.first);
        return true;
    });
}

std::string Server::scrub(std::string text) const {
    for (const auto& piece : secret_pieces_)
        for (auto at = text.find(piece); at != std::string::npos; at = text.find(piece, at))
            text.replace(at, piece.size(), "[hidden]");
    return text;
}

bool Server::looks_like_text(const std::vector<std::byte>& value) const {
    if (value.empty() || value.back() != std::byte{0}) return false;
    return std::all_of(value.begin(), value.end() - 1, [](std::byte b) {
        const auto c = std::to_integer<unsigned char>(b);
        return c >= 0x20 || c == '\n' || c == '\t' || c == '\r';
    });
}

std::vector<std::size_t> Server::matches(Staged& s, std::chrono::steady_clock::time_point deadline) {
    std::vector<std::size_t> out;
    cl_int state = CL_QUEUED;
    for (; s.read;) {
        clGetEventInfo(s.read, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr);
        if (state <= CL_COMPLETE || std::chrono::steady_clock::now() > deadline) break;
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    if (s.read && state == CL_COMPLETE)
        for (std::size_t j = 0; j < watched_.size(); ++j)
            if (!watched_[j].empty() && watched_[j].size() <= s.bytes.size() &&
                std::equal(watched_[j].begin(), watched_[j].end(), s.bytes.begin()))
                out.push_back(j);
    return out;
}

std::string Server::report() {
    // Commands held back by a user event the client never set would never finish: fail them.
    for (auto e : user_events_) {
        cl_int s = CL_COMPLETE;
        clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr);
        if (s > CL_COMPLETE) clSetUserEventStatus(e, -1);
    }
    for (const auto& [id, entry] : objects_)
        if (entry.kind == Kind::Queue) clFlush(static_cast<cl_command_queue>(entry.handle));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    nlohmann::json kernels = nlohmann::json::array();
    for (auto& run : runs_) {
        cl_int s = CL_QUEUED;
        for (;;) {
            clGetEventInfo(run.event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr);
            if (s <= CL_COMPLETE || std::chrono::steady_clock::now() > deadline) break;
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        nlohmann::json k{{"name", run.name}, {"dims", run.dims}, {"global", run.global}, {"status", s}};
        // [argument, watched array] for each buffer argument that began with a watched array.
        nlohmann::json inputs = nlohmann::json::array();
        for (auto& staged : run.inputs)
            for (const auto j : matches(staged, deadline)) inputs.push_back({staged.arg, j});
        k["inputs"] = std::move(inputs);
        k["offset"] = run.offset.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.offset);
        k["local"] = run.local.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.local);
        if (run.profiling && s == CL_COMPLETE) {
            cl_ulong start = 0, end = 0;
            clGetEventProfilingInfo(run.event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
            clGetEventProfilingInfo(run.event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
            k["start_ns"] = start;
            k["end_ns"] = end;
        }
        kernels.push_back(std::move(k));
    }
    // Nothing of a copy is touched after this (a read still on its way past the deadline keeps
    // its memory: the broker is about to exit).
    for (auto& staged : stale_) matches(staged, deadline);
    return nlohmann::json{{"kernels", kernels}, {"unsupported", unsupported_}}.dump();
}

}  // namespace workbook::broker

namespace {

int usage(const char* why) {
    std::cerr << "workbook-broker: " << why << "\nusage: workbook-broker --socket-fd N [--options-fd M] [--report-fd R] [--watch-fd W]\n";
    return 2;
}

bool parse_fd(const char* text, int& out) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (!*text || *end || v < 0 || v > 1 << 20) return false;
    out = static_cast<int>(v);
    return true;
}

std::string read_to_end(int fd) {
    std::string out;
    char chunk[4096];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(chunk, static_cast<std::size_t>(n));
    }
    return out;
}

void write_to(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

int main(int argc, char** argv) {
    int socket_fd = -1, options_fd = -1, report_fd = -1, watch_fd = -1;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        int* target = flag == "--socket-fd" ? &socket_fd
                      : flag == "--options-fd" ? &options_fd
                      : flag == "--report-fd"  ? &report_fd
                      : flag == "--watch-fd"   ? &watch_fd
                                               : nullptr;
        if (!target) return usage(("unknown argument " + flag).c_str());
        if (i + 1 >= argc || !parse_fd(argv[++i], *target)) return usage(("bad value for " + flag).c_str());
    }
    if (socket_fd < 0) return usage("--socket-fd is required");

    // The options fd: one line, the secret (a 32-bit number in decimal; empty: none); one line of
    // bounds, each kernel:argument:power (server.hpp, Bound), separated by spaces; then the sources
    // that get the secret, each ended by a NUL byte (a kernel's text holds none).
    std::string secret;
    std::set<std::string> ours;
    std::map<std::string, workbook::broker::Bound> bounds;
    if (options_fd >= 0) {
        const std::string all = read_to_end(options_fd);
        ::close(options_fd);
        const auto line = all.find('\n');
        secret = all.substr(0, line);
        const auto second = line == std::string::npos ? std::string::npos : all.find('\n', line + 1);
        std::istringstream rules(second == std::string::npos ? std::string() : all.substr(line + 1, second - line - 1));
        for (std::string rule; rules >> rule;) {
            const auto a = rule.find(':'), b = a == std::string::npos ? a : rule.find(':', a + 1);
            if (b == std::string::npos || a == 0 || b == a + 1 || (rule.substr(b + 1) != "1" && rule.substr(b + 1) != "2"))
                return usage("--options-fd: a bound is kernel:argument:power, the power 1 or 2");
            bounds[rule.substr(0, a)] = {rule.substr(a + 1, b - a - 1), rule[b + 1] - '0'};
        }
        for (std::size_t at = second == std::string::npos ? all.size() : second + 1; at < all.size();) {
            const auto end = all.find('\0', at);
            ours.insert(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
            at = end == std::string::npos ? all.size() : end + 1;
        }
        while (!secret.empty() && std::isspace(static_cast<unsigned char>(secret.back()))) secret.pop_back();
        if (!secret.empty() && (secret.size() > 10 || !std::all_of(secret.begin(), secret.end(), ::isdigit) ||
                                std::stoull(secret) > 0xffffffffull))
            return usage("--options-fd: the secret must be a 32-bit number in decimal");
    }
    // The watch fd: the arrays to look for in launches' buffer arguments, each as an 8-byte
    // little-endian length and its bytes.
    std::vector<std::vector<std::byte>> watched;
    if (watch_fd >= 0) {
        const std::string all = read_to_end(watch_fd);
        ::close(watch_fd);
        for (std::size_t at = 0; at + 8 <= all.size();) {
            std::uint64_t n = 0;
            for (int b = 7; b >= 0; --b) n = n << 8 | static_cast<unsigned char>(all[at + static_cast<std::size_t>(b)]);
            at += 8;
            if (n > all.size() - at) return usage("--watch-fd: an array runs past the end of its input");
            const auto* data = reinterpret_cast<const std::byte*>(all.data() + at);
            watched.emplace_back(data, data + n);
            at += n;
        }
    }
    // Same-uid processes (the runner) may not ptrace this one or read its memory or environment.
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        std::perror("workbook-broker: prctl(PR_SET_DUMPABLE)");
        return 1;
    }
    // PoCL's cache stays on: no program built here holds the secret (it is an argument). A cached
    // binary planted for the checker's source would be given the secret, though: the sandbox
    // gives the broker a cache of its own (a private copy), which no runner writes.
    std::signal(SIGPIPE, SIG_IGN);

    workbook::broker::Server server(socket_fd, std::move(secret), std::move(ours), std::move(watched), std::move(bounds));
    const bool clean = server.serve();
    ::close(socket_fd);
    const std::string report = server.report() + "\n";
    if (report_fd >= 0) {
        write_to(report_fd, report);
        ::close(report_fd);
    }
    return clean ? 0 : 1;
}
