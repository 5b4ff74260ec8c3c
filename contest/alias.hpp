// Aliases on the contest board: normalised (NFKC, spaces collapsed) so that two spellings that
// look the same are one identity, and refused when they could pass for the instructor's rows or
// hide what they are (bidirectional controls, invisible characters).
#pragma once

#include <string>

namespace workbook::contest {

struct Alias {
    std::string display;  // what the board shows: NFKC, runs of spaces as one, trimmed
    std::string key;      // the identity: `display` case-folded; equal keys are the same alias
};

// Why a student may not use `raw` as an alias ("" when it is fine). The message names the
// character (U+XXXX) or the row it imitates, and says what to do instead.
std::string alias_problem(const std::string& raw);

// `raw` normalised; throws workbook::Error with alias_problem's message when it is refused.
Alias normalise_alias(const std::string& raw);

// True when `key` (a case-folded alias) could be read as one of the reserved rows: letters that
// look alike (Cyrillic "а", "1" for "l"), any punctuation or spacing around them.
bool imitates_reserved(const std::string& key);

}  // namespace workbook::contest
