// The participant's client of a contest server (see client.hpp).
#include "client/client.hpp"

#include "contest/board.hpp"
#include "client/http_client.hpp"
#include "contest/ranking.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace workbook::client {

using contest::BoardRow;
using contest::DeviceBoard;
using contest::boards_text;

namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? sanitize(j[key].get<std::string>(), 2000) : std::string();
}
double num(const json& j, const char* key) { return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0; }

// One request; Error when the server cannot be reached or answers what no contest server would.
struct Answer {
    int status = 0;
    json body;
};

ServerClient connect(const ClientOptions& o) {
    check_server_address(o.server, "--server " + o.server);
    return ServerClient(o.server, o.token, std::chrono::seconds(o.timeout_s));
}

Answer answer(const HttpAnswer& r, const ClientOptions& o) {
    if (!r)
        throw Error(fmt::format("cannot reach the contest server at {} ({}): check the address, and that the server "
                                "runs (`workbook contest serve`) and this machine can reach it",
                                o.server, r.error));
    Answer a{r.status, json::parse(r.body, nullptr, false)};
    if (a.body.is_discarded() || !a.body.is_object())
        throw Error(fmt::format("{} answered HTTP {} with something that is not a contest server's JSON: is the "
                                "address right?",
                                o.server, r.status));
    return a;
}

// The server's refusal, and what to do about it.
int refused(const Answer& a) {
    const std::string why = str(a.body, "error");
    const char* fix = a.status == 401   ? "check the token (--token, or WORKBOOK_CONTEST_TOKEN) your instructor gave you"
                      : a.status == 403 ? "the contest takes no entries now, or the alias is not yours"
                      : a.status == 413 ? "send only the kernel file"
                      : a.status == 429 ? "wait, then upload again"
                                        : "";
    fmt::print(stderr, "refused (HTTP {}): {}{}{}\n", a.status, why.empty() ? "no reason given" : why,
               *fix ? "\n  fix: " : "", fix);
    return exit_wrong_result;
}

std::vector<DeviceBoard> boards_from(const json& devices) {
    std::vector<DeviceBoard> out;
    if (!devices.is_array()) return out;
    for (const auto& d : devices) {
        DeviceBoard b{str(d, "device"), str(d, "hardware"), num(d, "baseline_gflops"), {}};
        if (d.contains("rows") && d["rows"].is_array())
            for (const auto& r : d["rows"]) {
                BoardRow row;
                row.rank = static_cast<int>(num(r, "rank"));
                row.tied = r.contains("tied") && r["tied"].is_boolean() && r["tied"].get<bool>();
                row.alias = str(r, "alias");
                row.gflops = num(r, "gflops");
                row.ratio = num(r, "ratio");
                row.ratio_low = num(r, "ratio_low");
                row.ratio_high = num(r, "ratio_high");
                row.speedup = num(r, "speedup");
                row.when = str(r, "when");
                row.runs = std::max(1, static_cast<int>(num(r, "runs")));
                b.rows.push_back(std::move(row));
            }
        out.push_back(std::move(b));
    }
    return out;
}

std::string contest_line(const json& c) {
    if (!c.is_object()) return {};
    const std::string state = str(c, "state");
    if (state == "closed") return fmt::format("The contest closed at {} UTC.\n", str(c, "closes"));
    if (state == "not open yet") return fmt::format("The contest opens at {} UTC.\n", str(c, "opens"));
    const std::string closes = str(c, "closes");
    return fmt::format("The contest is open{}.\n", closes.empty() ? "" : " until " + closes + " UTC");
}

}  // namespace

void check_server_address(const std::string& server, const std::string& given) {
    if (server.rfind("http://", 0) != 0 && server.rfind("https://", 0) != 0)
        throw Error(fmt::format("{}: give the address the instructor gave, starting with http:// (for example "
                                "http://10.0.0.5:8080)",
                                given));
}

int client_submit(const ClientOptions& o, const std::filesystem::path& kernel) {
    std::ifstream in(kernel, std::ios::binary);
    if (!in) throw Error(fmt::format("cannot read {}", kernel.string()));
    std::ostringstream text;
    text << in.rdbuf();
    std::vector<FormPart> form{{"kernel", text.str(), kernel.filename().string()}};
    if (!o.alias.empty()) form.push_back({"alias", o.alias, ""});
    const auto client = connect(o);
    const Answer a = answer(client.post_form("/api/submit", form), o);
    if (a.status != 200) return refused(a);
    fmt::print("queued as entry {} on {}: `workbook contest status --server {}` follows it to the board\n",
               static_cast<long long>(num(a.body, "id")), o.server, o.server);
    return exit_ok;
}

int client_status(const ClientOptions& o) {
    const auto client = connect(o);
    const std::string path = o.alias.empty() ? "/api/mine" : "/api/mine?alias=" + httplib::detail::encode_query_param(o.alias);
    const Answer a = answer(client.get(path), o);
    if (a.status != 200) return refused(a);
    std::string out = contest_line(a.body.value("contest", json()));
    const json entries = a.body.value("entries", json::array());
    if (!entries.is_array() || entries.empty()) out += "No entries of yours yet.\n";
    for (const auto& e : entries) {
        const std::string status = str(e, "status");
        const int place = static_cast<int>(num(e, "queue_position"));
        out += fmt::format("{:>5}  {:<24} {:<9} {}  {}\n", static_cast<long long>(num(e, "id")),
                           str(e, "file_name").substr(0, 24), status, str(e, "submitted_at"),
                           status == "queued" && place > 0 ? fmt::format("place {} in the queue", place) : str(e, "reason"));
        if (e.contains("devices") && e["devices"].is_array())
            for (const auto& d : e["devices"])
                out += fmt::format("       {:<24} {:<9} {}\n", str(d, "device").substr(0, 24), str(d, "state"), str(d, "reason"));
    }
    fmt::print("{}", out);
    return exit_ok;
}

int client_board(const ClientOptions& o, const std::function<std::string(const std::string&)>& bold) {
    const auto client = connect(o);
    const Answer a = answer(client.get("/api/board"), o);
    if (a.status != 200) return refused(a);
    std::string out = contest_line(a.body.value("contest", json()));
    const auto finals = boards_from(a.body.value("final", json::array()));
    if (!finals.empty()) out += bold("The final") + ": the top entries judged again after the close.\n\n" + boards_text(finals, bold);
    const auto boards = boards_from(a.body.value("devices", json::array()));
    out += boards.empty() ? "No results yet.\n" : boards_text(boards, bold);
    if (str(a.body, "race_pass") == "off") out += "Race pass off: entries were not checked under Oclgrind.\n";
    fmt::print("{}", out);
    return exit_ok;
}

}  // namespace workbook::client
