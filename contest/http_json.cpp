// See http_json.hpp.
#include "http_json.hpp"

#include <cctype>
#include <string_view>

namespace workbook::contest {

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

}  // namespace workbook::contest
