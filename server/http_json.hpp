// What every JSON route of the contest server shares: the reply, the bearer token, and the
// comparison of secrets. The board's routes (serve.cpp) and the Slurm jobs' routes
// (slurm_jobs.cpp) both use these, so that a token is read and a reply is written one way.
#pragma once

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <string>

namespace workbook::server {

// Aliases and device names are whatever the database holds: invalid UTF-8 is replaced, never
// thrown on, so that one odd name cannot make the board fail.
std::string dump_json(const nlohmann::json& j);

// The reply, never cached (boards change, tokens must not linger in a proxy).
void send_json(httplib::Response& res, const nlohmann::json& j, int status = 200);
void send_error(httplib::Response& res, int status, const std::string& message);

// A page of the server (one self-contained document): every "@NONCE@" in `html` becomes this
// response's CSP nonce, and the CSP lets only the page's own <script> and <style> run, so even
// markup that slipped into the DOM could not run a handler.
void send_page(httplib::Response& res, const std::string& html);

// The token of "Authorization: Bearer <token>", the scheme in any case ("" without one).
std::string bearer_token(const httplib::Request& req);

// Compares without stopping at the first difference (the length is no secret); an empty
// expected value never matches.
bool equal_constant_time(const std::string& given, const std::string& expected);

}  // namespace workbook::server
