// The student's side of every request to a class's server (the contest's client, `join`, the lab
// reports, remote checks). The server is someone else's machine: a broken or hostile one must not
// cost the student's laptop more than a few MiB of memory or more than a deadline of time. Every
// answer is read into a buffer of at most max_answer_bytes (a board of 40 students is about
// 0.3 MiB), and the whole exchange, not only each read, has a deadline.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace workbook::client {

struct HttpAnswer {
    int status = 0;           // 0: no answer (see error)
    std::string body;
    std::string retry_after;  // the Retry-After header, when a refusal names one
    std::string error;        // why there is no answer: unreachable, timed out, too large
    explicit operator bool() const { return status != 0; }
};

struct FormPart {
    std::string name, content, file_name;  // file_name empty: a plain field
};

class ServerClient {
public:
    static constexpr std::size_t max_answer_bytes = std::size_t{4} << 20;

    // `server`: http://host:port (checked by the caller); `token`: sent as a bearer token when set.
    // Each request ends after `timeout` in all, whatever the server sends or withholds.
    ServerClient(std::string server, std::string token, std::chrono::seconds timeout);

    HttpAnswer get(const std::string& path) const;
    HttpAnswer post(const std::string& path, const std::string& body, const std::string& content_type) const;
    HttpAnswer post_form(const std::string& path, const std::vector<FormPart>& parts) const;

private:
    HttpAnswer send(const std::string& method, const std::string& path, const std::string& body,
                    const std::string& content_type) const;
    std::string server_, token_;
    std::chrono::seconds timeout_;
};

}  // namespace workbook::client
