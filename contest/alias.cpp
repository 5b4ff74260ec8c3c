// Alias normalisation and the look-alike rules (see alias.hpp), on utf8proc.
#include "alias.hpp"

#include "contest/db.hpp"
#include "workbook/errors.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <cstdlib>
#include <memory>
#include <vector>

namespace workbook::contest {

namespace {

constexpr std::size_t max_alias_chars = 40;
constexpr std::size_t max_alias_bytes = 160;

std::vector<utf8proc_int32_t> code_points(const std::string& s) {
    std::vector<utf8proc_int32_t> out;
    auto p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
    while (left > 0) {
        utf8proc_int32_t cp = 0;
        const auto n = utf8proc_iterate(p, left, &cp);
        if (n <= 0) throw Error("the alias must be valid UTF-8");
        out.push_back(cp);
        p += n;
        left -= n;
    }
    return out;
}

std::string encode(const std::vector<utf8proc_int32_t>& cps) {
    std::string out;
    for (auto cp : cps) {
        utf8proc_uint8_t buf[4];
        out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(utf8proc_encode_char(cp, buf)));
    }
    return out;
}

std::string map(const std::string& s, int options) {
    utf8proc_uint8_t* out = nullptr;
    const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                static_cast<utf8proc_ssize_t>(s.size()), &out,
                                static_cast<utf8proc_option_t>(options | UTF8PROC_STABLE));
    if (n < 0) throw Error(fmt::format("the alias cannot be normalised: {}", utf8proc_errmsg(n)));
    std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(out, &std::free);
    return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

bool bidi_control(utf8proc_int32_t cp) {
    return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f ||
           cp == 0x061c;
}

// Characters that show nothing (zero-width, fillers, variation selectors): Unicode's default
// ignorables and the blank letters that are not in that set.
bool invisible(utf8proc_int32_t cp) {
    return cp == 0x00ad || cp == 0x034f || (cp >= 0x115f && cp <= 0x1160) || (cp >= 0x17b4 && cp <= 0x17b5) ||
           (cp >= 0x180b && cp <= 0x180f) || (cp >= 0x200b && cp <= 0x200d) || (cp >= 0x2060 && cp <= 0x206f) ||
           cp == 0x2800 || cp == 0x3164 || (cp >= 0xfe00 && cp <= 0xfe0f) || cp == 0xfeff || cp == 0xffa0 ||
           (cp >= 0x1bca0 && cp <= 0x1bca3) || (cp >= 0x1d173 && cp <= 0x1d17a) || (cp >= 0xe0000 && cp <= 0xe0fff);
}

std::string character_problem(utf8proc_int32_t cp) {
    const auto u = fmt::format("U+{:04X}", cp);
    if (bidi_control(cp))
        return fmt::format("the alias contains {}, a bidirectional control (it reorders the text shown around it); "
                           "type the alias without it",
                           u);
    if (invisible(cp))
        return fmt::format("the alias contains {}, an invisible (zero-width or blank) character; type the alias "
                           "without it",
                           u);
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_CC:
        return fmt::format("the alias may not contain control characters ({})", u);
    case UTF8PROC_CATEGORY_CF:
        return fmt::format("the alias contains {}, a formatting character that is not shown; type the alias "
                           "without it",
                           u);
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
        return fmt::format("the alias must be one line ({} is a line or paragraph separator)", u);
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CN:
        return fmt::format("the alias contains {}, a private-use or unassigned code point", u);
    default:
        return {};
    }
}

// Letters (after case folding) that read as an ASCII letter on a projector; what NFKC leaves.
char look_alike(utf8proc_int32_t cp) {
    switch (cp) {
    case 0x0430: case 0x03b1: case 0x0251: case 0x1d00: return 'a';            // Cyrillic а, Greek α, ɑ, ᴀ
    case 0x0432: case 0x0299: return 'b';                                        // в, ʙ
    case 0x0441: case 0x03f2: case 0x1d04: return 'c';                           // с, ϲ, ᴄ
    case 0x0501: return 'd';                                                     // ԁ
    case 0x0435: case 0x04bd: case 0x1d07: return 'e';                           // е, ҽ, ᴇ
    case 0x0261: case 0x0581: return 'g';                                        // ɡ, ց
    case 0x04bb: case 0x0570: case 0x043d: case 0x029c: return 'h';              // һ, հ, н, ʜ
    case 0x0458: case 0x03f3: return 'j';                                        // ј, ϳ
    case 0x043a: case 0x03ba: case 0x1d0b: return 'k';                           // к, κ, ᴋ
    case 0x0456: case 0x04cf: case 0x0131: case 0x0269: case 0x026a: case 0x01c0:
    case 0x03b9: case 0x05c0: case 0x07ca: case 0x2223: return 'l';              // і, ӏ, ı, ɩ, ɪ, ǀ, ι, ׀, ߊ, ∣
    case 0x043c: case 0x1d0d: return 'm';                                        // м, ᴍ
    case 0x0578: case 0x03b7: case 0x043f: case 0x0274: return 'n';              // ո, η, п, ɴ
    case 0x043e: case 0x03bf: case 0x0585: case 0x03c3: case 0x1d0f: case 0x0d20:
    case 0x0c66: case 0x0ce6: return 'o';                                        // о, ο, օ, σ, ᴏ, ...
    case 0x0440: case 0x03c1: case 0x1d18: return 'p';                           // р, ρ, ᴘ
    case 0x051b: case 0x0566: return 'q';                                        // ԛ, զ
    case 0x0433: case 0x0280: return 'r';                                        // г, ʀ
    case 0x0455: case 0xa731: return 's';                                        // ѕ, ꜱ
    case 0x0442: case 0x03c4: case 0x1d1b: return 't';                           // т, τ, ᴛ
    case 0x057d: case 0x03c5: case 0x1d1c: return 'u';                           // ս, υ, ᴜ
    case 0x03bd: case 0x0475: case 0x1d20: return 'v';                           // ν, ѵ, ᴠ
    case 0x051d: case 0x0461: case 0x1d21: return 'w';                           // ԝ, ѡ, ᴡ
    case 0x0445: case 0x03c7: return 'x';                                        // х, χ
    case 0x0443: case 0x03b3: case 0x028f: return 'y';                           // у, γ, ʏ
    case 0x1d22: return 'z';                                                     // ᴢ
    default: return 0;
    }
}

// The letters and digits of a case-folded alias as a projector shows them: look-alikes mapped
// to ASCII, the pairs that read as one letter merged, everything else (spaces, punctuation,
// marks) dropped.
std::string skeleton(const std::string& key) {
    std::string s;
    for (auto cp : code_points(key)) {
        char c = 0;
        if ((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9')) c = static_cast<char>(cp);
        else c = look_alike(cp);
        if (c == '0') c = 'o';
        if (c == '1' || c == 'i') c = 'l';  // I, l, 1 and | on a sans-serif projector
        if (c) s += c;
    }
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i + 1 < s.size() && s[i] == 'r' && s[i + 1] == 'n') out += 'm', ++i;
        else if (i + 1 < s.size() && s[i] == 'v' && s[i + 1] == 'v') out += 'w', ++i;
        else out += s[i];
    }
    return out;
}

std::string fold(const std::string& s) { return map(s, UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD); }

// NFKC, then every kind of space as one ASCII space, runs collapsed, the ends trimmed.
std::string display_form(const std::string& raw) {
    std::vector<utf8proc_int32_t> out;
    for (auto cp : code_points(map(raw, UTF8PROC_COMPOSE | UTF8PROC_COMPAT))) {
        if (utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS) cp = ' ';
        if (cp == ' ' && (out.empty() || out.back() == ' ')) continue;
        out.push_back(cp);
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return encode(out);
}

}  // namespace

bool imitates_reserved(const std::string& key) {
    const std::string s = skeleton(key);
    if (s.empty()) return false;
    for (const char* reserved : {baseline_alias, reference_alias})
        if (s.find(skeleton(fold(reserved))) != std::string::npos) return true;
    return false;
}

std::string alias_problem(const std::string& raw) {
    try {
        for (auto cp : code_points(raw))
            if (auto problem = character_problem(cp); !problem.empty()) return problem;
        const std::string display = display_form(raw);
        const auto chars = code_points(display);
        if (chars.empty() || chars.size() > max_alias_chars || display.size() > max_alias_bytes)
            return fmt::format("the alias must be 1 to {} characters long (spaces at either end do not count)",
                               max_alias_chars);
        for (auto cp : chars)  // NFKC can make characters the raw text did not hold
            if (auto problem = character_problem(cp); !problem.empty()) return problem;
        if (utf8proc_category(chars.front()) == UTF8PROC_CATEGORY_PS)
            return "the alias may not start with an opening bracket: the rows in parentheses are the instructor's";
        if (imitates_reserved(fold(display)))
            return fmt::format("the alias looks like the instructor's row \"{}\" or \"{}\"; choose another", baseline_alias,
                               reference_alias);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

Alias normalise_alias(const std::string& raw) {
    if (auto problem = alias_problem(raw); !problem.empty()) throw Error(problem);
    Alias a;
    a.display = display_form(raw);
    a.key = fold(a.display);
    return a;
}

}  // namespace workbook::contest
