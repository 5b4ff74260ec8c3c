// See http_json.hpp.
#include "http_json.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <random>
#include <string_view>

namespace workbook::server {

std::string dump_json(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void send_json(httplib::Response& res, const nlohmann::json& j, int status) {
    res.status = status;
    res.set_header("Cache-Control", "no-store");
    res.set_content(dump_json(j), "application/json; charset=utf-8");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
    send_json(res, {{"error", message}}, status);
}

void send_page(httplib::Response& res, const std::string& html) {
    std::random_device rd;
    std::string nonce;
    for (int i = 0; i < 4; ++i) nonce += fmt::format("{:08x}", static_cast<std::uint32_t>(rd()));
    std::string page = html;
    const std::string placeholder = "@NONCE@";
    for (auto at = page.find(placeholder); at != std::string::npos; at = page.find(placeholder, at + nonce.size()))
        page.replace(at, placeholder.size(), nonce);
    res.set_header("Content-Security-Policy",
                   fmt::format("default-src 'none'; script-src 'nonce-{0}'; style-src 'nonce-{0}'; "
                               "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
                               "frame-ancestors 'none'",
                               nonce));
    res.set_header("Cache-Control", "no-store");
    res.set_content(page, "text/html; charset=utf-8");
}

std::string bearer_token(const httplib::Request& req) {
    const std::string header = req.get_header_value("Authorization");
    constexpr std::string_view scheme = "bearer ";
    if (header.size() <= scheme.size()) return {};
    for (std::size_t i = 0; i < scheme.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(header[i])) != scheme[i]) return {};
    return header.substr(scheme.size());
}

bool equal_constant_time(const std::string& given, const std::string& expected) {
    if (given.size() != expected.size() || expected.empty()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < given.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ expected[i]);
    return diff == 0;
}

}  // namespace workbook::server
