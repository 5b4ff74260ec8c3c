// A horizontal bar chart as a self-contained SVG file: no plotting library needed to look at a
// bench result in a browser.
#pragma once

#include <string>
#include <vector>

namespace workbook::bench {

struct Bar {
    std::string label;
    double value = 0;
};

// Bars scaled to the largest value, each labelled with its value and `unit`.
std::string bar_chart_svg(const std::string& title, const std::string& unit, const std::vector<Bar>& bars);

}  // namespace workbook::bench
