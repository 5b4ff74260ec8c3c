// SVG bar charts (see chart.hpp).
#include "chart.hpp"

#include <fmt/format.h>

#include "workbook/text.hpp"

#include <algorithm>

namespace workbook::bench {

std::string bar_chart_svg(const std::string& title, const std::string& unit, const std::vector<Bar>& bars) {
    const int label_width = 250, bar_width = 460, row = 28, top = 50;
    const int height = top + row * static_cast<int>(bars.size()) + 20;
    double largest = 0;
    for (const auto& b : bars) largest = std::max(largest, b.value);
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
        "font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        "<text x=\"10\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
        label_width + bar_width + 170, height, html_escape(title));
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const int y = top + row * static_cast<int>(i);
        const double w = largest > 0 ? bars[i].value / largest * bar_width : 0;
        svg += fmt::format(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n"
            "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#3b6ea8\"/>\n"
            "<text x=\"{:.1f}\" y=\"{}\">{} {}</text>\n",
            label_width - 8, y + 15, html_escape(bars[i].label), label_width, y + 2, w, row - 8,
            label_width + w + 6, y + 15,
            bars[i].value >= 100 ? fmt::format("{:.0f}", bars[i].value) : fmt::format("{:.3g}", bars[i].value),
            html_escape(unit));
    }
    return svg + "</svg>\n";
}

}  // namespace workbook::bench
