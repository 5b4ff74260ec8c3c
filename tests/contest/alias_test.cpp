// Unit tests of the alias rules (contest/alias.hpp): look-alikes of the instructor's rows,
// bidirectional controls and invisible characters refused; spellings that look the same are one
// identity.
#include "contest/alias.hpp"
#include "contest/db.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

using namespace workbook::contest;

namespace {

bool refused_with(const std::string& alias, const std::string& words) {
    const std::string problem = alias_problem(alias);
    INFO("alias_problem(\"" << alias << "\") = \"" << problem << "\"");
    return !problem.empty() && problem.find(words) != std::string::npos;
}

}  // namespace

TEST_CASE("plain aliases are kept, their spaces collapsed") {
    CHECK(alias_problem("ada").empty());
    CHECK(alias_problem("José Müller").empty());
    CHECK(alias_problem("李雷").empty());
    const Alias a = normalise_alias("  Ada \u00a0  Lovelace ");
    CHECK(a.display == "Ada Lovelace");
    CHECK(a.key == "ada lovelace");
}

TEST_CASE("spellings that look the same are one identity") {
    CHECK(normalise_alias("ＡＤＡ").key == normalise_alias("ada").key);  // fullwidth
    CHECK(normalise_alias("Straße").key == normalise_alias("STRASSE").key);
    CHECK(normalise_alias("e\u0301").key == normalise_alias("\u00e9").key);  // combining acute, precomposed
    CHECK(normalise_alias("ﬁsh").key == normalise_alias("fish").key);        // the fi ligature
    CHECK(normalise_alias("ada").key != normalise_alias("bob").key);
}

TEST_CASE("the reserved rows and their look-alikes are refused") {
    CHECK(refused_with(baseline_alias, "instructor"));
    CHECK(refused_with(reference_alias, "instructor"));
    CHECK(refused_with("(baseline:\u00a0naive kernel)", "instructor"));            // no-break space
    CHECK(refused_with("(reference: instructor\u2019s tuned kernel)", "instructor"));  // curly apostrophe
    CHECK(refused_with("\uff08baseline: naive kernel\uff09", "instructor"));      // fullwidth parentheses
    CHECK(refused_with("\u2768baseline: naive kernel\u2769", "opening bracket"));  // ornamental parentheses
    CHECK(refused_with("(Baseline: Naive Kernel)", "instructor"));                   // case
    // Without the leading bracket, the skeleton rule alone has to see them.
    CHECK(refused_with("baseline: naive kernel", "looks like the instructor's row"));
    CHECK(refused_with("b\u0430seline: n\u0430ive kernel", "looks like"));            // Cyrillic а
    CHECK(refused_with("basel1ne naive kerne1", "looks like"));                       // 1 for l
    CHECK(refused_with("BASELINE\u2236NAIVE KERNEL", "looks like"));                  // ratio sign for a colon
    CHECK(refused_with("reference: instructor's tuned kernel", "looks like"));
    CHECK(refused_with("reference - instructor`s tuned kernel v2", "looks like"));
    CHECK(imitates_reserved("(baseline\u3000naive  kernel)"));
    CHECK_FALSE(imitates_reserved("baseline fan"));
    CHECK_FALSE(imitates_reserved("kernel"));
}

TEST_CASE("bidirectional controls are refused, each named") {
    for (char32_t cp : {0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f,
                        0x061c}) {
        std::string alias = "ada";
        // UTF-8 of cp (all of these take two or three bytes)
        if (cp < 0x800) {
            alias += static_cast<char>(0xc0 | (cp >> 6));
            alias += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            alias += static_cast<char>(0xe0 | (cp >> 12));
            alias += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            alias += static_cast<char>(0x80 | (cp & 0x3f));
        }
        alias += "evil";
        char name[16];
        std::snprintf(name, sizeof name, "U+%04X", static_cast<unsigned>(cp));
        CHECK(refused_with(alias, name));
        CHECK(refused_with(alias, "bidirectional"));
    }
}

TEST_CASE("invisible and control characters are refused") {
    CHECK(refused_with("a\u200bda", "U+200B"));
    CHECK(refused_with("a\u200dda", "invisible"));
    CHECK(refused_with("ada\ufeff", "invisible"));
    CHECK(refused_with("ada\ufe0f", "invisible"));
    CHECK(refused_with("\u3164", "invisible"));  // the Hangul filler, a blank letter
    CHECK(refused_with("ada\x07", "control"));
    CHECK(refused_with("ada\nbob", "control"));
    CHECK(refused_with("ada\u2028bob", "one line"));
    CHECK(refused_with("ada\xff", "valid UTF-8"));
    CHECK(refused_with("ada\xe2\x80", "valid UTF-8"));  // truncated
}

TEST_CASE("length: 1 to 40 characters, spaces at the ends not counted") {
    CHECK(refused_with("", "1 to 40"));
    CHECK(refused_with("   ", "1 to 40"));
    CHECK(alias_problem(std::string(40, 'x')).empty());
    CHECK(refused_with(std::string(41, 'x'), "1 to 40"));
    std::string forty_e;
    for (int i = 0; i < 40; ++i) forty_e += "\u00e9";  // 80 bytes, 40 characters
    CHECK(alias_problem(forty_e).empty());
    CHECK_THROWS_WITH_AS(normalise_alias("a\u202eb"), doctest::Contains("U+202E"), workbook::Error);
}
