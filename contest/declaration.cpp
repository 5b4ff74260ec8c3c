// Contest declarations and their size expressions (see declaration.hpp).
#include "contest/declaration.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <utility>
#include <sstream>

namespace workbook::contest {

namespace {

// A recursive-descent evaluator for the size expressions.
class Expression {
public:
    Expression(const std::string& text, long n) : s_(text), n_(n) {}
    long value() {
        const long v = sum();
        skip();
        if (i_ != s_.size()) fail("unexpected text");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw Error(fmt::format("size expression \"{}\": {} at character {}", s_, why, i_ + 1));
    }
    void skip() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    bool eat(char c) {
        skip();
        if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
        return false;
    }
    long sum() {
        long v = product();
        for (;;) {
            if (eat('+')) v += product();
            else if (eat('-')) v -= product();
            else return v;
        }
    }
    long product() {
        long v = atom();
        for (;;) {
            if (eat('*')) v *= atom();
            else if (eat('/')) v = divide(v, atom());
            else if (eat('%')) {
                const long d = atom();
                if (d == 0) fail("remainder by zero");
                v %= d;
            } else return v;
        }
    }
    long divide(long a, long b) const {
        if (b == 0) fail("division by zero");
        return a / b;
    }
    long atom() {
        skip();
        if (eat('(')) {
            const long v = sum();
            if (!eat(')')) fail("missing )");
            return v;
        }
        if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
            long v = 0;
            while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
                v = v * 10 + (s_[i_++] - '0');
                if (v > (1L << 40)) fail("number too large");
            }
            return v;
        }
        std::string word;
        while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) word += s_[i_++];
        if (word == "N") return n_;
        if (word == "roundup" || word == "cdiv") {
            if (!eat('(')) fail("expected ( after " + word);
            const long a = sum();
            if (!eat(',')) fail("expected , in " + word);
            const long b = sum();
            if (!eat(')')) fail("missing ) after " + word);
            if (b <= 0) fail(word + " needs a positive second argument");
            return word == "cdiv" ? (a + b - 1) / b : (a + b - 1) / b * b;
        }
        fail(word.empty() ? "expected a number, N, ( or a function" : "unknown name \"" + word + "\"");
    }
    std::string s_;
    long n_;
    std::size_t i_ = 0;
};

std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char c : s) {
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == ',' && depth == 0) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty() || !out.empty()) out.push_back(cur);
    return out;
}

}  // namespace

long evaluate(const std::string& expression, long n) { return Expression(expression, n).value(); }

matmul::Launch launch_geometry(const Declaration& d, int n) {
    auto range = [&](const std::vector<std::string>& e, const char* what) {
        std::vector<std::size_t> v;
        for (const auto& x : e) {
            const long value = evaluate(x, n);
            if (value <= 0) throw Error(fmt::format("{} size \"{}\" is {} for N = {}: sizes must be positive", what, x, value, n));
            v.push_back(static_cast<std::size_t>(value));
        }
        if (v.size() == 1) return cl::NDRange(v[0]);
        if (v.size() == 2) return cl::NDRange(v[0], v[1]);
        return cl::NDRange(v[0], v[1], v[2]);
    };
    matmul::Launch g{range(d.global, "global"), range(d.local, "local"), {}};
    for (const auto& x : d.local_floats) {
        const long value = evaluate(x, n);
        if (value <= 0) throw Error(fmt::format("local_floats \"{}\" is {} for N = {}", x, value, n));
        g.local_floats.push_back(static_cast<std::size_t>(value));
    }
    return g;
}

namespace {

// No std::regex on an entry's lines (text.hpp): one 300 KB line overflowed its stack.
constexpr const char* blanks = " \t\r\f\v";

// `// contest: key = value`: the key and the value (blanks trimmed), or nothing when the line is not that.
std::optional<std::pair<std::string, std::string>> declaration_line(const std::string& line) {
    std::size_t i = line.find_first_not_of(blanks);
    auto expect = [&](const std::string& text) {
        if (i == std::string::npos || line.compare(i, text.size(), text) != 0) return false;
        i = line.find_first_not_of(blanks, i + text.size());
        return true;
    };
    if (!expect("//") || !expect("contest:") || i == std::string::npos) return std::nullopt;
    const std::size_t key_end = line.find_first_not_of("abcdefghijklmnopqrstuvwxyz_", i);
    if (key_end == i || key_end == std::string::npos) return std::nullopt;
    std::string key = line.substr(i, key_end - i);
    i = line.find_first_not_of(blanks, key_end);
    if (!expect("=")) return std::nullopt;
    std::string value = i == std::string::npos ? std::string() : line.substr(i);
    value.erase(value.find_last_not_of(blanks) + 1);
    return std::make_pair(std::move(key), std::move(value));
}

}  // namespace

Declaration parse_declaration(const std::string& source) {
    // An entry is one file: nothing outside it reaches the compiler (and no file's text a reason).
    // Checked on the text as the preprocessor reads it (continued lines joined, comments out), and
    // with every spelling of the directive: `%:` is `#`, and include_next and embed read files too.
    {
        std::istringstream lines(as_preprocessor_reads(source));
        int at = 0;
        for (std::string line; std::getline(lines, line);)
            if (++at, reads_another_file(line))
                throw Error(fmt::format("submission.cl:{}: #include is not allowed: a contest entry is one file", at));
    }
    Declaration d;
    std::istringstream in(source);
    int number = 0;
    bool has_global = false, has_local = false;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (line.find("contest:") == std::string::npos) continue;
        const auto declared = declaration_line(line);
        if (!declared) throw Error(fmt::format("line {}: a declaration reads `// contest: key = value`", number));
        const auto& [key, value] = *declared;
        if (key == "global") d.global = split_list(value), has_global = true;
        else if (key == "local") d.local = split_list(value), has_local = true;
        else if (key == "local_floats") d.local_floats = split_list(value);
        else if (key == "options") d.options = value;
        else throw Error(fmt::format("line {}: unknown key \"{}\" (global, local, local_floats, options)", number, key));
        for (const auto& e : key == "options" ? std::vector<std::string>{} : split_list(value))
            evaluate(e, 64);  // syntax errors now, before anything runs
    }
    if (!has_global || !has_local)
        throw Error("missing `// contest: global = ...` or `// contest: local = ...`: the judge needs both");
    if (d.global.empty() || d.global.size() > 3 || d.global.size() != d.local.size())
        throw Error("global and local need the same number (1 to 3) of sizes");
    if (d.options.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_=. -") != std::string::npos)
        throw Error("options: only build flags such as -cl-fast-relaxed-math or -DTS=16 are allowed");
    return d;
}
}  // namespace workbook::contest
