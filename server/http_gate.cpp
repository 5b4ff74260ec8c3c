// The gate in front of httplib's routing (see http_gate.hpp).
//
// httplib (0.11) gives each accepted socket to a pool thread that reads the request with a
// timeout per recv(): a client sending one byte every few seconds holds that thread for ever, and
// 40 of them hold the whole pool. Here the accept loop only registers the socket; one thread
// polls every connection still arriving, against a deadline for the whole request; a small pool
// runs httplib's process_request on requests that arrived whole, from memory, into memory; and
// the polling thread sends the answers as the clients take them, against a deadline for the
// whole answer. A client that never reads its answer costs a socket and a buffer, never a worker.
#include "http_gate.hpp"

#include "workbook/text.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace workbook::server {

using Clock = std::chrono::steady_clock;

struct Connection {
    int fd = -1;
    std::string address;
    std::string group;           // what the limits count per: the address, or an IPv6 address's /64
    int port = 0;
    Clock::time_point deadline;  // for the request while it arrives, then for the answer
    std::string bytes;           // what arrived so far
    std::size_t header_end = 0;  // just past the blank line; 0 while the headers are arriving
    std::size_t body_length = 0;
    std::string answer;          // the whole answer, once a worker made it
    std::size_t sent = 0;
};

namespace {

// Sends what fits now, without waiting (the gate's own short answers).
void send_now(int fd, const std::string& text) { (void)::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT); }

std::string short_answer(int status, const char* reason, const std::string& message) {
    std::string body = "{\"error\":\"" + message + "\"}";  // our own words: no quotes or backslashes in them
    return fmt::format("HTTP/1.1 {} {}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n"
                       "Connection: close\r\nCache-Control: no-store\r\n\r\n{}",
                       status, reason, body.size(), body);
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// A numeric address ("192.0.2.7", "::1"; IPv4-mapped IPv6 as IPv4) and port of the peer.
bool peer(int fd, std::string& address, int& port) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return false;
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return false;
    address = host;
    if (address.rfind("::ffff:", 0) == 0 && address.find('.') != std::string::npos) address = address.substr(7);
    port = std::atoi(serv);
    return true;
}

// The limits' unit for an address: IPv4 addresses one by one, IPv6 by /64 (one machine may hold
// a whole /64 of them).
std::string address_group(const std::string& address) {
    in6_addr a6{};
    if (address.find(':') == std::string::npos || inet_pton(AF_INET6, address.c_str(), &a6) != 1) return address;
    std::string group;
    for (int i = 0; i < 8; i += 2) group += fmt::format("{:02x}{:02x}:", a6.s6_addr[i], a6.s6_addr[i + 1]);
    return group + ":/64";
}

// A request held in memory, its answer made in memory: what httplib's process_request reads from
// and writes to. The gate's polling thread sends the answer.
class BufferedStream : public httplib::Stream {
public:
    explicit BufferedStream(Connection& c) : c_(c) {}

    bool is_readable() const override { return at_ < c_.bytes.size(); }
    bool is_writable() const override { return true; }
    ssize_t read(char* ptr, size_t size) override {
        const std::size_t n = std::min(size, c_.bytes.size() - at_);
        std::copy_n(c_.bytes.data() + at_, n, ptr);
        at_ += n;
        return static_cast<ssize_t>(n);
    }
    ssize_t write(const char* ptr, size_t size) override {
        c_.answer.append(ptr, size);
        return static_cast<ssize_t>(size);
    }
    void get_remote_ip_and_port(std::string& ip, int& port) const override { ip = c_.address, port = c_.port; }
    void get_local_ip_and_port(std::string& ip, int& port) const override {
        sockaddr_storage ss{};
        socklen_t len = sizeof ss;
        char host[NI_MAXHOST] = "", serv[NI_MAXSERV] = "0";
        if (getsockname(c_.fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0)
            getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, serv, sizeof serv,
                        NI_NUMERICHOST | NI_NUMERICSERV);
        ip = host;
        port = std::atoi(serv);
    }
    socket_t socket() const override { return c_.fd; }

private:
    Connection& c_;
    std::size_t at_ = 0;
};

}  // namespace

class Gate {
public:
    Gate(GatedServer& server, const GateLimits& limits) : server_(server), limits_(limits) {
        wake_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    }

    // At the first connection, from the accept loop's thread: the threads inherit its signal
    // mask (serve() blocks SIGINT and SIGTERM there before listening, for its signal thread).
    void start() {
        std::call_once(started_, [this] {
            poller_ = std::thread([this] { poll_loop(); });
            for (int i = 0; i < std::max(1, limits_.workers); ++i) workers_.emplace_back([this] { work_loop(); });
        });
    }

    ~Gate() { stop(); }

    void stop() {
        {
            std::lock_guard lock(m_);
            if (stopping_) return;
            stopping_ = true;
        }
        wake();
        ready_cv_.notify_all();
        std::call_once(started_, [] {});  // waits for a start() under way; none after this
        if (poller_.joinable()) poller_.join();
        for (auto& w : workers_) w.join();
        for (auto& c : incoming_) release(*c);
        for (auto& c : ready_) release(*c);
        for (auto& c : answered_) release(*c);
        ::close(wake_);
    }

    // In httplib's accept thread: counts the connection against its address, or refuses it.
    void admit(int fd) {
        start();
        auto c = std::make_unique<Connection>();
        c->fd = fd;
        c->deadline = Clock::now() + limits_.request_deadline;
        if (!peer(fd, c->address, c->port)) return (void)::close(fd);
        c->group = address_group(c->address);
        std::string refusal;
        {
            std::lock_guard lock(m_);
            const auto it = per_address_.find(c->group);
            const int mine = it == per_address_.end() ? 0 : it->second;
            if (stopping_) refusal = short_answer(503, "Service Unavailable", "the server is stopping");
            else if (limits_.max_per_address > 0 && mine >= limits_.max_per_address)
                refusal = short_answer(503, "Service Unavailable",
                                       fmt::format("too many connections from your address (at most {} at once); "
                                                   "close some and try again",
                                                   limits_.max_per_address));
            else if (total_ >= limits_.max_connections)
                refusal = short_answer(503, "Service Unavailable", "the server is busy; try again in a few seconds");
            else {
                ++per_address_[c->group], ++total_;
                fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
                // Answers wait in the gate's memory, not in up to 4 MiB of the kernel's per socket.
                if (limits_.send_buffer_bytes > 0)
                    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &limits_.send_buffer_bytes, sizeof limits_.send_buffer_bytes);
                incoming_.push_back(std::move(c));
            }
        }
        if (!refusal.empty()) {
            send_now(fd, refusal);
            ::close(fd);
            return;
        }
        wake();
    }

    // Closes the connection and gives its place back.
    void release(Connection& c) {
        if (c.fd < 0) return;
        ::shutdown(c.fd, SHUT_RDWR);
        ::close(c.fd);
        c.fd = -1;
        std::lock_guard lock(m_);
        --total_;
        if (--per_address_[c.group] <= 0) per_address_.erase(c.group);
    }

private:
    void wake() {
        const std::uint64_t one = 1;
        (void)::write(wake_, &one, sizeof one);
    }

    // The one thread that reads requests while they arrive, and sends answers while they leave.
    void poll_loop() {
        std::vector<std::unique_ptr<Connection>> arriving, sending;
        for (;;) {
            {
                std::lock_guard lock(m_);
                if (stopping_) break;
                for (auto& c : incoming_) arriving.push_back(std::move(c));
                incoming_.clear();
                for (auto& c : answered_) sending.push_back(std::move(c));
                answered_.clear();
            }
            std::vector<pollfd> fds{{wake_, POLLIN, 0}};
            auto next = Clock::now() + std::chrono::seconds(1);
            for (auto& c : arriving) {
                fds.push_back({c->fd, POLLIN, 0});
                next = std::min(next, c->deadline);
            }
            for (auto& c : sending) {
                fds.push_back({c->fd, POLLOUT, 0});
                next = std::min(next, c->deadline);
            }
            const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
            ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(0, wait) + 1));
            if (fds[0].revents & POLLIN) {
                std::uint64_t n;
                (void)::read(wake_, &n, sizeof n);
            }
            const auto now = Clock::now();
            const std::size_t arriving_polled = arriving.size();
            std::vector<std::unique_ptr<Connection>> still;
            for (std::size_t i = 0; i < arriving.size(); ++i) {
                auto& c = arriving[i];
                const bool readable = fds[i + 1].revents != 0;
                if (readable && !read_more(*c)) continue;  // answered or gone: released
                if (complete(*c)) {
                    hand_over(std::move(c));
                } else if (now >= c->deadline) {
                    send_now(c->fd, short_answer(408, "Request Timeout",
                                                 fmt::format("the request did not arrive whole within {} s",
                                                             limits_.request_deadline.count() / 1000.0)));
                    release(*c);
                } else {
                    still.push_back(std::move(c));
                }
            }
            arriving = std::move(still);
            still.clear();
            for (std::size_t i = 0; i < sending.size(); ++i) {
                auto& c = sending[i];
                if (fds[1 + arriving_polled + i].revents != 0 && !send_more(*c)) continue;  // sent, or gone
                if (now >= c->deadline) release(*c);  // a client that does not take its answer loses it
                else still.push_back(std::move(c));
            }
            sending = std::move(still);
        }
        for (auto& c : arriving) release(*c);
        for (auto& c : sending) release(*c);
    }

    // Sends what the socket takes now; false when the connection is done with (all sent, or gone):
    // released.
    bool send_more(Connection& c) {
        while (c.sent < c.answer.size()) {
            const ssize_t n = ::send(c.fd, c.answer.data() + c.sent, c.answer.size() - c.sent, MSG_NOSIGNAL);
            if (n > 0) c.sent += static_cast<std::size_t>(n);
            else if (n < 0 && errno == EINTR) continue;
            else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
            else break;
        }
        release(c);
        return false;
    }

    // Reads what is there; false when the connection was answered and closed (or closed by the
    // client).
    bool read_more(Connection& c) {
        char buf[16384];
        for (;;) {
            const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
            if (n > 0) {
                c.bytes.append(buf, static_cast<std::size_t>(n));
                if (!c.header_end && !parse_headers(c)) return false;
                if (c.header_end && c.bytes.size() > c.header_end + c.body_length) break;  // pipelined: ignored
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
            release(c);  // closed by the client, or an error
            return false;
        }
        return true;
    }

    // Once the blank line is in: the body's length from Content-Length, refusing what httplib
    // would have to read past its limits. False when the request was answered with an error.
    bool parse_headers(Connection& c) {
        const auto end = c.bytes.find("\r\n\r\n");
        if (end == std::string::npos) {
            if (c.bytes.size() <= limits_.max_header_bytes) return true;
            return refuse(c, 431, "Request Header Fields Too Large", "the request's headers are too large");
        }
        std::size_t length = 0;
        bool expect_continue = false;
        std::size_t at = c.bytes.find("\r\n") + 2, expect_at = 0, expect_len = 0;
        while (at < end + 2) {
            const auto eol = c.bytes.find("\r\n", at);
            const std::string line = c.bytes.substr(at, eol - at);
            const auto colon = line.find(':');
            const std::string name = lower(trim(line.substr(0, colon)));
            const std::string value = colon == std::string::npos ? "" : trim(line.substr(colon + 1));
            if (name == "transfer-encoding")
                return refuse(c, 411, "Length Required", "send the body with a Content-Length, not chunked");
            if (name == "content-length") {
                if (value.empty() || value.size() > 12 || value.find_first_not_of("0123456789") != std::string::npos)
                    return refuse(c, 400, "Bad Request", "the Content-Length is not a number");
                length = std::stoull(value);
            }
            if (name == "expect" && lower(value) == "100-continue") expect_continue = true, expect_at = at,
                                                                    expect_len = eol + 2 - at;
            at = eol + 2;
        }
        if (length > limits_.max_body_bytes) return refuse(c, 413, "Payload Too Large", "the upload is too large");
        if (expect_continue) c.bytes.erase(expect_at, expect_len);  // answered here, not again by httplib
        c.header_end = c.bytes.find("\r\n\r\n") + 4;
        c.body_length = length;
        if (expect_continue && c.bytes.size() < c.header_end + length) send_now(c.fd, "HTTP/1.1 100 Continue\r\n\r\n");
        return true;
    }

    bool refuse(Connection& c, int status, const char* reason, const std::string& message) {
        send_now(c.fd, short_answer(status, reason, message));
        release(c);
        return false;
    }

    static bool complete(const Connection& c) { return c.header_end && c.bytes.size() >= c.header_end + c.body_length; }

    void hand_over(std::unique_ptr<Connection> c) {
        c->bytes.resize(c->header_end + c->body_length);
        {
            std::lock_guard lock(m_);
            ready_.push_back(std::move(c));
        }
        ready_cv_.notify_one();
    }

    // The first request waiting whose address has fewer than its share of the workers busy.
    std::deque<std::unique_ptr<Connection>>::iterator next_ready() {
        return std::find_if(ready_.begin(), ready_.end(), [&](const std::unique_ptr<Connection>& c) {
            const auto it = busy_.find(c->group);
            return it == busy_.end() || it->second < std::max(1, limits_.workers_per_address);
        });
    }

    void work_loop() {
        for (;;) {
            std::unique_ptr<Connection> c;
            {
                std::unique_lock lock(m_);
                ready_cv_.wait(lock, [&] { return stopping_ || next_ready() != ready_.end(); });
                if (stopping_) return;
                const auto it = next_ready();
                c = std::move(*it);
                ready_.erase(it);
                ++busy_[c->group];
            }
            server_.serve_complete_request(*c);
            {
                std::lock_guard lock(m_);
                if (--busy_[c->group] <= 0) busy_.erase(c->group);
            }
            ready_cv_.notify_all();  // a request of this address may now go
            if (c->answer.empty()) {
                release(*c);
                continue;
            }
            c->deadline = Clock::now() + limits_.write_deadline;
            {
                std::lock_guard lock(m_);
                answered_.push_back(std::move(c));
            }
            wake();
        }
    }

    GatedServer& server_;
    GateLimits limits_;
    int wake_ = -1;
    std::mutex m_;
    bool stopping_ = false;
    std::map<std::string, int> per_address_;  // open connections, by address group
    std::map<std::string, int> busy_;         // requests in the workers' hands, by address group
    int total_ = 0;
    std::vector<std::unique_ptr<Connection>> incoming_;
    std::deque<std::unique_ptr<Connection>> ready_;
    std::vector<std::unique_ptr<Connection>> answered_;  // answers for the polling thread to send
    std::condition_variable ready_cv_;
    std::once_flag started_;
    std::thread poller_;
    std::vector<std::thread> workers_;
};

namespace {

// httplib's accept loop hands each socket to its task queue: run at once, in that thread, since
// admitting a connection only registers it.
class RunAtOnce : public httplib::TaskQueue {
public:
    void enqueue(std::function<void()> fn) override { fn(); }
    void shutdown() override {}
};

}  // namespace

GatedServer::GatedServer(const GateLimits& limits) : limits_(limits), gate_(std::make_unique<Gate>(*this, limits)) {
    new_task_queue = [] { return new RunAtOnce; };
}

GatedServer::~GatedServer() { stop_gate(); }

void GatedServer::stop_gate() { gate_->stop(); }

bool GatedServer::process_and_close_socket(socket_t sock) {
    gate_->admit(sock);
    return true;
}

void GatedServer::serve_complete_request(Connection& c) {
    BufferedStream stream(c);
    bool closed = false;
    process_request(stream, /*close_connection=*/true, closed, [](httplib::Request&) {});
}

}  // namespace workbook::server
