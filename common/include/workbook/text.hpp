// Small text helpers shared by the tools that write HTML and SVG (the bench chart, the
// grader's report).
#pragma once

#include <string>

namespace workbook {

// Safe inside HTML/SVG text and attribute values: & < > " ' replaced by entities.
inline std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

}  // namespace workbook
