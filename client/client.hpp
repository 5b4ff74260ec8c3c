// The participant's side of a contest server (`workbook contest submit|status|board --server URL`):
// an upload, one's own entries with their states and queue places, the live board in the
// terminal. Every answer the server gives is someone's text: sanitised before it is printed.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace workbook::client {

struct ClientOptions {
    std::string server;  // http://host:port
    std::string token;   // the upload token (the roster's own, or the workshop's shared one)
    std::string alias;   // the name on the board: needed with a shared token, optional with a roster's
    int timeout_s = 20;
};

// Error unless `server` is an http:// or https:// address (`given`: how the user gave it).
void check_server_address(const std::string& server, const std::string& given);

// Each prints what happened and returns the exit status; a refusal (closed contest, rate limit,
// bad token, too large) is the server's own words and a fix, and exit 1.
int client_submit(const ClientOptions& options, const std::filesystem::path& kernel);
int client_status(const ClientOptions& options);
int client_board(const ClientOptions& options, const std::function<std::string(const std::string&)>& bold);

}  // namespace workbook::client
