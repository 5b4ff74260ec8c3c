// The student's capped client of a class's server (see http_client.hpp).
#include "client/http_client.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <random>

namespace workbook::client {

ServerClient::ServerClient(std::string server, std::string token, std::chrono::seconds timeout)
    : server_(std::move(server)), token_(std::move(token)), timeout_(timeout) {}

HttpAnswer ServerClient::get(const std::string& path) const { return send("GET", path, "", ""); }

HttpAnswer ServerClient::post(const std::string& path, const std::string& body, const std::string& content_type) const {
    return send("POST", path, body, content_type);
}

HttpAnswer ServerClient::post_form(const std::string& path, const std::vector<FormPart>& parts) const {
    // A boundary no part's content holds: drawn again until none does.
    std::mt19937_64 draw{std::random_device{}()};
    std::string boundary;
    for (bool clash = true; clash;) {
        boundary = fmt::format("----workbook-{:016x}{:016x}", draw(), draw());
        clash = false;
        for (const auto& p : parts) clash |= p.content.find(boundary) != std::string::npos;
    }
    std::string body;
    for (const auto& p : parts) {
        body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + p.name + "\"";
        if (!p.file_name.empty()) body += "; filename=\"" + p.file_name + "\"\r\nContent-Type: text/plain";
        body += "\r\n\r\n" + p.content + "\r\n";
    }
    body += "--" + boundary + "--\r\n";
    return send("POST", path, body, "multipart/form-data; boundary=" + boundary);
}

HttpAnswer ServerClient::send(const std::string& method, const std::string& path, const std::string& body,
                              const std::string& content_type) const {
    httplib::Client client(server_);
    const auto seconds = static_cast<time_t>(timeout_.count());
    client.set_connection_timeout(seconds);
    client.set_read_timeout(seconds);
    client.set_write_timeout(seconds);
    if (!token_.empty()) client.set_bearer_token_auth(token_);
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    HttpAnswer out;
    bool too_large = false, too_late = false;
    httplib::Request req;
    req.method = method;
    req.path = path;
    if (!content_type.empty()) req.set_header("Content-Type", content_type);
    req.body = body;
    // The answer's body arrives here piece by piece: past the cap or the deadline, the exchange
    // ends (a trickle of bytes keeps each read alive, never the whole).
    req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
        if (out.body.size() + n > max_answer_bytes) return !(too_large = true);
        if (std::chrono::steady_clock::now() > deadline) return !(too_late = true);
        out.body.append(data, n);
        return true;
    };
    const auto r = client.send(req);
    if (too_large) {
        out.body.clear();
        out.error = fmt::format("its answer was larger than {} MiB, which no class's server sends", max_answer_bytes >> 20);
    } else if (too_late) {
        out.body.clear();
        out.error = fmt::format("its answer took longer than {} s", timeout_.count());
    } else if (!r) {
        out.error = httplib::to_string(r.error());
    } else {
        out.status = r->status;
        out.retry_after = r->get_header_value("Retry-After");
    }
    return out;
}

}  // namespace workbook::client
