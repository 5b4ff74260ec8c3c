// Tuned choices of build options (tuning.hpp): parsed, kept in a kernel file's comment lines, and
// in the instructor's reference file.
#include "workbook/tuning.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace workbook::tuning {

namespace {

constexpr std::string_view marker = "// tuned:";

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

// A device name as OpenCL returns it may end in NULs; the key must not carry them, nor the '|'
// and newline that separate a tuned line's fields.
std::string clean(std::string s) {
    while (!s.empty() && s.back() == '\0') s.pop_back();
    for (char& c : s)
        if (c == '|' || c == '\n' || c == '\r') c = ' ';
    return trim(s);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(s);
    while (std::getline(in, part, sep)) parts.push_back(trim(part));
    return parts;
}

bool is_candidate(const Choice& c, const std::vector<Choice>& candidates) {
    for (const auto& k : candidates)
        if (k == c) return true;
    return false;
}

}  // namespace

int Choice::get(const std::string& name) const {
    for (const auto& [k, v] : values)
        if (k == name) return v;
    throw Error(fmt::format("the choice {} has no {}", text(), name));
}

std::string Choice::text() const {
    std::vector<std::string> parts;
    for (const auto& [k, v] : values) parts.push_back(fmt::format("{}={}", k, v));
    return fmt::format("{}", fmt::join(parts, " "));
}

std::string Choice::options() const {
    std::vector<std::string> parts;
    for (const auto& [k, v] : values) parts.push_back(fmt::format("-D{}={}", k, v));
    return fmt::format("{}", fmt::join(parts, " "));
}

std::optional<Choice> parse(const std::string& text, std::string* why) {
    Choice c;
    std::istringstream in(text);
    for (std::string word; in >> word;) {
        const auto eq = word.find('=');
        const std::string name = eq == std::string::npos ? word : word.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : word.substr(eq + 1);
        bool ok = !name.empty() && !value.empty() && value.size() <= 6;
        for (const char ch : name) ok = ok && (std::isupper(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '_');
        for (const char ch : value) ok = ok && std::isdigit(static_cast<unsigned char>(ch));
        if (!ok) {
            if (why) *why = fmt::format("\"{}\" is not NAME=number", word);
            return std::nullopt;
        }
        c.values.emplace_back(name, std::stoi(value));
    }
    if (c.values.empty()) {
        if (why) *why = "it names no option";
        return std::nullopt;
    }
    return c;
}

std::string device_key(const cl::Device& device) {
    return clean(device.getInfo<CL_DEVICE_NAME>()) + " | " + clean(device.getInfo<CL_DRIVER_VERSION>());
}

std::string format_line(const Line& line) {
    return fmt::format("{} {} | {} | {:.1f} GFLOPS at N = {}", marker, line.device, line.choice.text(), line.gflops, line.n);
}

std::vector<Line> read_lines(const std::string& source, std::vector<std::string>* unreadable) {
    std::vector<Line> lines;
    std::istringstream in(source);
    for (std::string raw; std::getline(in, raw);) {
        const std::string t = trim(raw);
        if (t.rfind(marker, 0) != 0) continue;
        // "<name> | <driver> | <choice> | <GFLOPS> GFLOPS at N = <n>": the key is the first two.
        const auto parts = split(t.substr(marker.size()), '|');
        std::string why;
        std::optional<Choice> c;
        double gflops = 0;
        int n = 0;
        if (parts.size() != 4) {
            why = "it does not have the four fields of `// tuned: <device> | <driver> | <choice> | <speed>`";
        } else if (!(c = parse(parts[2], &why))) {
            why = "its choice cannot be read: " + why;
        } else if (std::sscanf(parts[3].c_str(), "%lf GFLOPS at N = %d", &gflops, &n) != 2) {
            why = "its speed field is not \"<GFLOPS> GFLOPS at N = <n>\"";
        }
        if (!why.empty()) {
            if (unreadable) unreadable->push_back(fmt::format("\"{}\": {}", t, why));
            continue;
        }
        lines.push_back({parts[0] + " | " + parts[1], *c, gflops, n});
    }
    return lines;
}

std::string with_line(const std::string& source, const Line& line) {
    std::istringstream in(source);
    std::vector<std::string> out;
    bool placed = false;
    for (std::string raw; std::getline(in, raw);) {
        const std::string t = trim(raw);
        if (t.rfind(marker, 0) == 0) {
            const auto parts = split(t.substr(marker.size()), '|');
            int n = 0;
            const bool same_n = parts.size() == 4 && std::sscanf(parts[3].c_str(), "%*f GFLOPS at N = %d", &n) == 1 && n == line.n;
            if (parts.size() >= 2 && parts[0] + " | " + parts[1] == line.device && same_n) {
                if (!placed) out.push_back(format_line(line));
                placed = true;
                continue;
            }
        }
        out.push_back(raw);
    }
    if (!placed) {
        // After the tuned lines already there, else at the top, where it is seen.
        std::size_t at = 0;
        for (std::size_t i = 0; i < out.size(); ++i)
            if (trim(out[i]).rfind(marker, 0) == 0) at = i + 1;
        out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), format_line(line));
    }
    std::string text;
    for (const auto& l : out) text += l + "\n";
    if (!source.empty() && source.back() != '\n') text.pop_back();
    return text;
}

namespace {

// Of several choices tuned at different N, the one tuned nearest `n` on a log scale (the first of
// equals); any when n is 0.
template <typename Entry>
const Entry* nearest(const std::vector<Entry>& entries, int n, int Entry::*size) {
    const Entry* best = nullptr;
    for (const auto& e : entries)
        if (!best || (n > 0 && std::fabs(std::log(double(e.*size) / n)) < std::fabs(std::log(double(best->*size) / n)))) best = &e;
    return best;
}

}  // namespace

std::optional<Choice> student_choice(const std::string& source, const std::string& device_key,
                                     const std::vector<Choice>& candidates, std::string* why, int n) {
    std::vector<std::string> unreadable;
    const auto lines = read_lines(source, &unreadable);
    std::vector<std::string> others;
    std::vector<Line> mine;
    for (const auto& l : lines) {
        if (l.device != device_key) {
            if (std::find(others.begin(), others.end(), l.device) == others.end()) others.push_back(l.device);
            continue;
        }
        if (is_candidate(l.choice, candidates) && l.n > 0) {
            mine.push_back(l);
            continue;
        }
        if (why) *why = fmt::format("your tuned line for this device ({}) is not one of this exercise's candidates here: "
                                    "ignored (run `workbook tune` again)", l.choice.text());
        return std::nullopt;
    }
    if (const Line* l = nearest(mine, n, &Line::n)) return l->choice;
    if (why) {
        if (!unreadable.empty())
            *why = fmt::format("a tuned line in your kernel cannot be read, {}: ignored", unreadable.front());
        else if (!others.empty())
            *why = fmt::format("your kernel is tuned for {} only, not for this device and driver ({}): ignored",
                               fmt::join(others, " and "), device_key);
        else
            *why = "your kernel holds no tuned choice";
    }
    return std::nullopt;
}

std::string reference_file() {
    if (const char* f = std::getenv("WORKBOOK_REFERENCE_TUNING"); f && *f) return f;
    const char* home = std::getenv("HOME");
    return fmt::format("{}/.cache/workbook/reference_tuning.toml", home && *home ? home : "/tmp");
}

std::optional<Choice> reference_choice(const std::string& exercise, const std::string& device_key,
                                       const std::vector<Choice>& candidates, std::string* why, int n) {
    const std::string file = reference_file();
    if (!std::filesystem::exists(file)) {
        if (why) *why = fmt::format("the solution is not tuned on this device ({} has no entry)", file);
        return std::nullopt;
    }
    try {
        const auto t = toml::parse_file(file);
        const auto* entries = t[exercise][device_key].as_table();
        if (!entries || entries->empty()) {
            if (why) *why = fmt::format("the solution is not tuned on this device ({} has no entry for it)", file);
            return std::nullopt;
        }
        // One entry per N tuned at ("N=2048"); the one nearest n.
        struct Entry {
            std::string text;
            int n = 0;
        };
        std::vector<Entry> all;
        for (const auto& [key, value] : *entries)
            if (const auto* e = value.as_table())
                all.push_back({(*e)["choice"].value_or(std::string()), static_cast<int>((*e)["n"].value_or(int64_t{0}))});
        const Entry* best = nearest(all, n, &Entry::n);
        std::string bad;
        const auto c = best ? parse(best->text, &bad) : std::nullopt;
        if (c && best->n > 0 && is_candidate(*c, candidates)) return c;
        if (why) *why = fmt::format("{}'s entry for this device ({}) is not one of the candidates: ignored", file,
                                    best ? best->text : std::string("unreadable"));
    } catch (const toml::parse_error& e) {
        if (why) *why = fmt::format("{} cannot be read ({}): ignored", file, e.description());
    }
    return std::nullopt;
}

void store_reference_choice(const std::string& exercise, const Line& line) {
    const std::string file = reference_file();
    toml::table t;
    if (std::filesystem::exists(file)) t = toml::parse_file(file);
    if (!t[exercise].is_table()) t.insert_or_assign(exercise, toml::table{});
    auto& per_exercise = *t[exercise].as_table();
    if (!per_exercise[line.device].is_table()) per_exercise.insert_or_assign(line.device, toml::table{});
    toml::table entry;
    entry.insert("choice", line.choice.text());
    entry.insert("gflops", line.gflops);
    entry.insert("n", line.n);
    per_exercise[line.device].as_table()->insert_or_assign(fmt::format("N={}", line.n), std::move(entry));
    std::filesystem::create_directories(std::filesystem::absolute(file).parent_path());
    const std::string partial = file + ".partial";
    {
        std::ofstream out(partial);
        out << "# Reference choices tuned by `workbook tune NN --reference`, per exercise and device.\n" << t << "\n";
        if (!out) throw Error(fmt::format("could not write {}", partial));
    }
    std::filesystem::rename(partial, file);
}

}  // namespace workbook::tuning
