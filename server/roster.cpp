// The roster and its tokens (see roster.hpp).
#include "roster.hpp"

#include "contest/alias.hpp"
#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

namespace workbook::server {

using contest::alias_problem;
using contest::normalise_alias;
using contest::Alias;
using contest::Database;
using contest::Student;

namespace {

// "a,b" or "a,\"b, c\"" into its fields (a doubled quote inside quotes is one quote).
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
        else if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) out.emplace_back();
        else out.back() += c;
    }
    for (auto& f : out) f = trim(f);
    return out;
}

bool valid_id(const std::string& id) {
    if (id.empty() || id.size() > 64) return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '@' || c == '-';
    });
}

bool header_line(const std::vector<std::string>& f) {
    std::string first = f[0];
    std::transform(first.begin(), first.end(), first.begin(), [](unsigned char c) { return std::tolower(c); });
    return first == "id" || first == "student" || first == "student id" || first == "student_id";
}

std::string hex(const unsigned char* data, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", data[i]);
    return out;
}

std::string csv_quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

std::vector<RosterEntry> read_roster(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw Error(fmt::format("cannot read the roster {}: check the path", file.string()));
    std::vector<RosterEntry> out;
    std::set<std::string> ids;
    std::map<std::string, int> names;  // alias key -> line
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const std::string where = fmt::format("{}:{}", file.string(), number);
        if (trim(line).empty() || trim(line)[0] == '#') continue;
        const auto f = csv_fields(line);
        if (out.empty() && ids.empty() && header_line(f)) continue;
        if (f.size() > 2) throw Error(fmt::format("{}: expected \"student id\" or \"student id,display name\"", where));
        if (!valid_id(f[0]))
            throw Error(fmt::format("{}: the student id \"{}\" must be 1 to 64 of A-Z a-z 0-9 . _ @ -", where, f[0]));
        if (!ids.insert(f[0]).second) throw Error(fmt::format("{}: the student id \"{}\" is listed twice", where, f[0]));
        RosterEntry e{f[0], f.size() == 2 ? f[1] : "", number};
        if (!e.name.empty()) {
            if (const auto problem = alias_problem(e.name); !problem.empty())
                throw Error(fmt::format("{}: the name \"{}\" cannot be an alias: {}", where, e.name, problem));
            if (const auto [it, fresh] = names.emplace(normalise_alias(e.name).key, number); !fresh)
                throw Error(fmt::format("{}: the name \"{}\" is the same alias as line {}'s (aliases are compared "
                                        "case-folded and NFKC-normalised); give one of them another name",
                                        where, e.name, it->second));
        }
        out.push_back(std::move(e));
    }
    if (out.empty()) throw Error(fmt::format("the roster {} lists no student", file.string()));
    return out;
}

Enrolment enrol(Database& db, const std::vector<RosterEntry>& roster, const std::vector<std::string>& reissue,
                const std::function<void(const std::vector<IssuedToken>&)>& deliver) {
    for (const auto& id : reissue)
        if (std::none_of(roster.begin(), roster.end(), [&](const RosterEntry& e) { return e.id == id; }))
            throw Error(fmt::format("--reissue {}: no such student in the roster", id));
    Enrolment out;
    db.in_one_transaction([&] {
        std::vector<std::string> ids;
        for (const auto& e : roster) {
            ids.push_back(e.id);
            if (db.has_student(e.id)) continue;
            Student st{e.id, e.name, "", ""};
            if (!e.name.empty()) {
                const Alias a = normalise_alias(e.name);
                if (const auto holder = db.alias_holder(a.key))
                    out.warnings.push_back(fmt::format(
                        "{} (roster line {}) is enrolled without the name \"{}\": student \"{}\" took it as their "
                        "alias at an upload. {} picks an alias at their first upload; to give them one, put another "
                        "name beside them in the roster and start again.",
                        e.id, e.line, e.name, *holder, e.id));
                else
                    st.alias = a.display, st.alias_key = a.key;
            }
            const std::string token = new_token();
            db.add_student(st, token_hash(token));
            out.issued.push_back({e.id, st.alias, token});
        }
        for (const auto& id : reissue) {
            if (std::any_of(out.issued.begin(), out.issued.end(), [&](const IssuedToken& t) { return t.student == id; }))
                continue;
            const std::string token = new_token();
            db.set_token_hash(id, token_hash(token));
            const auto it = std::find_if(roster.begin(), roster.end(), [&](const RosterEntry& e) { return e.id == id; });
            out.issued.push_back({id, it->name, token});
        }
        db.set_active_students(ids);
        if (!out.issued.empty()) deliver(out.issued);
    });
    return out;
}

PrivateFile::PrivateFile(const std::filesystem::path& file, int flags, const std::string& what) {
    fd = ::open(file.c_str(), flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        throw Error(fmt::format("cannot open {} {}: {} (is it a link, or in a folder you cannot write?)", what,
                                file.string(), std::strerror(errno)));
    struct stat st{};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        ::close(fd);
        throw Error(fmt::format("{} {} must be a plain file of yours that only you can read: `chmod 600 {}`, or "
                                "name another file",
                                what, file.string(), file.string()));
    }
    size = st.st_size;
}

PrivateFile::~PrivateFile() { ::close(fd); }

void append_tokens(const std::filesystem::path& file, const std::vector<IssuedToken>& tokens) {
    const PrivateFile f(file, O_WRONLY | O_APPEND, "the tokens file");
    std::string text;
    if (f.size == 0) text = "student,name,token\n";
    for (const auto& t : tokens) text += fmt::format("{},{},{}\n", t.student, csv_quoted(t.name), t.token);
    if (::write(f.fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
        throw Error(fmt::format("cannot write the tokens to {}: {}", file.string(), std::strerror(errno)));
}

std::string new_token() {
    unsigned char bytes[32];
    if (RAND_bytes(bytes, sizeof bytes) != 1) throw Error("OpenSSL could not draw random bytes for a token");
    return hex(bytes, sizeof bytes);
}

std::string token_hash(const std::string& token) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(token.data(), token.size(), digest, &n, EVP_sha256(), nullptr) != 1)
        throw Error("OpenSSL could not compute SHA-256");
    return hex(digest, n);
}

}  // namespace workbook::server
