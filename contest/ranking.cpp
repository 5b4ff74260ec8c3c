// Ranking within noise (see ranking.hpp).
#include "contest/ranking.hpp"

#include <algorithm>

namespace workbook::contest {

Spread spread(std::vector<double> values) {
    if (values.empty()) return {};
    std::sort(values.begin(), values.end());
    const std::size_t k = values.size(), drop = k / 10;
    const double median = k % 2 ? values[k / 2] : (values[k / 2 - 1] + values[k / 2]) / 2;
    return {median, values[drop], values[k - 1 - drop]};
}

void assign_ranks(std::vector<Ranked>& rows) {
    std::size_t leader = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i > 0 && rows[i].speed.median > 0 && rows[leader].speed.median > 0 &&
            rows[i].speed.high >= rows[leader].speed.low) {
            rows[i].rank = rows[leader].rank;
            rows[i].tied = rows[leader].tied = true;
        } else {
            leader = i;
            rows[i].rank = static_cast<int>(i) + 1;
            rows[i].tied = false;
        }
    }
}

}  // namespace workbook::contest
