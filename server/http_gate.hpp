// The contest server's front door: an httplib::Server whose connections are read and written by
// one poll() thread, not by a pool thread each, so that slow clients (sending or reading) cost a
// socket and a buffer, never a thread. A request reaches httplib's routing only once it has
// arrived whole (headers and body) before its deadline, and its answer is made in memory; each
// client address (an IPv6 address's /64) may hold a few connections and two workers at once.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <memory>

namespace workbook::server {

struct GateLimits {
    std::chrono::milliseconds request_deadline{10'000};  // for the whole request, from accept
    int max_per_address = 10;                           // open connections per client address (0: no cap)
    int max_connections = 512;                          // all addresses together
    std::size_t max_header_bytes = 16 * 1024;
    std::size_t max_body_bytes = 1024 * 1024;           // larger Content-Length: 413 before reading it
    int workers = 8;                                    // threads that run the handlers
    int workers_per_address = 2;                        // of them, on one address's requests at once
    std::chrono::milliseconds write_deadline{10'000};   // for a whole response, sent as the client reads
    int send_buffer_bytes = 64 * 1024;                  // the kernel's per connection (SO_SNDBUF; 0: its own)
};

struct Connection;
class Gate;

class GatedServer : public httplib::Server {
public:
    explicit GatedServer(const GateLimits& limits);
    ~GatedServer() override;
    // Closes every connection and joins the gate's threads; call after listen returns.
    void stop_gate();

private:
    // Called by httplib's accept loop for each new connection: hands it to the gate.
    bool process_and_close_socket(socket_t sock) override;
    void serve_complete_request(Connection& c);
    friend class Gate;
    GateLimits limits_;
    std::unique_ptr<Gate> gate_;
};

}  // namespace workbook::server
