// The evidence record (see evidence.hpp).
#include "workbook/harness/evidence.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace workbook::harness {

namespace {

std::string escape(const std::string& s) {
    std::string out;
    for (const char c : s) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') continue;
        else out += c;
    }
    return out;
}

std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        const char n = s[++i];
        out += n == 'n' ? '\n' : n == 't' ? '\t' : n;
    }
    return out;
}

bool starts(const std::string& line, const char* prefix, std::string& rest) {
    const std::string p(prefix);
    if (line.compare(0, p.size(), p) != 0) return false;
    rest = line.substr(p.size());
    return true;
}

}  // namespace

bool Evidence::passed() const {
    return complete && !cases.empty() && std::all_of(cases.begin(), cases.end(), [](const auto& c) { return c.passed; });
}

std::vector<std::string> Evidence::failures() const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& c : cases)
        for (const auto& f : c.failures)
            if (seen.insert(f).second) out.push_back(f);
    return out;
}

std::string write_evidence(const Evidence& e) {
    std::string out = "evidence " + e.nonce + "\n";
    for (const auto& c : e.cases) {
        out += (c.passed ? "case ok " : "case fail ") + escape(c.name) + "\n";
        for (const auto& f : c.failures) out += "failure " + escape(f) + "\n";
    }
    if (!e.speed.empty()) out += "speed " + escape(e.speed) + "\n";
    if (!e.timeline.empty()) out += "timeline " + escape(e.timeline) + "\n";
    if (e.complete)
        out += "run cases=" + std::to_string(e.cases.size()) + " asserts=" + std::to_string(e.asserts) +
               " asserts_failed=" + std::to_string(e.asserts_failed) + "\n";
    return out;
}

std::optional<Evidence> read_evidence(const std::string& text, const std::string& nonce) {
    std::istringstream in(text);
    std::string line, rest;
    if (nonce.empty() || !std::getline(in, line) || line != "evidence " + nonce) return std::nullopt;
    Evidence e;
    e.nonce = nonce;
    while (std::getline(in, line)) {
        if (starts(line, "case ok ", rest)) e.cases.push_back({unescape(rest), true, {}});
        else if (starts(line, "case fail ", rest)) e.cases.push_back({unescape(rest), false, {}});
        else if (starts(line, "failure ", rest) && !e.cases.empty()) e.cases.back().failures.push_back(unescape(rest));
        else if (starts(line, "speed ", rest)) e.speed = unescape(rest);
        else if (starts(line, "timeline ", rest)) e.timeline = unescape(rest);
        else if (starts(line, "run ", rest)) {
            e.complete = true;
            std::istringstream fields(rest);
            for (std::string f; fields >> f;) {
                const auto eq = f.find('=');
                if (eq == std::string::npos) continue;
                const std::string key = f.substr(0, eq);
                const int value = std::atoi(f.c_str() + eq + 1);
                if (key == "asserts") e.asserts = value;
                else if (key == "asserts_failed") e.asserts_failed = value;
            }
        }
    }
    return e;
}

Verdict judge_evidence(const std::string& text, const std::string& nonce, const std::string& reference) {
    Verdict v;
    std::set<std::string> expected;
    // The solution's record was written under the nonce on its own first line.
    const std::string first = reference.substr(0, reference.find('\n'));
    const std::string ref_nonce = first.rfind("evidence ", 0) == 0 ? first.substr(9) : std::string();
    if (const auto ref = read_evidence(reference, ref_nonce))
        for (const auto& c : ref->cases) expected.insert(c.name);
    v.cases_expected = static_cast<int>(expected.size());
    const auto e = read_evidence(text, nonce);
    if (!e) {
        v.problem = "the test left no valid evidence (it exited early, was killed, or something else wrote the file)";
        return v;
    }
    std::set<std::string> passed, seen;
    for (const auto& c : e->cases) {
        seen.insert(c.name);
        if (c.passed) passed.insert(c.name);
    }
    if (!e->complete || seen != expected) {
        v.problem = "the test run did not complete every test case";
        return v;
    }
    v.valid = true;
    v.cases_passed = static_cast<int>(passed.size());
    return v;
}

}  // namespace workbook::harness
