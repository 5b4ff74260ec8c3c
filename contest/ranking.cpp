// Ranking within noise (see ranking.hpp).
#include "contest/ranking.hpp"

#include <algorithm>
#include <cmath>
#include <map>

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

std::vector<CrossDeviceRow> cross_device(const std::vector<DeviceBoard>& boards) {
    std::vector<CrossDeviceRow> rows;
    std::map<std::string, std::size_t> index;
    for (const auto& b : boards)
        for (const auto& r : b.rows) {
            if (!(r.speedup > 0) || !std::isfinite(r.speedup)) continue;
            if (!index.count(r.alias)) {
                index[r.alias] = rows.size();
                rows.push_back({0, r.alias, 0, {}});
            }
            rows[index[r.alias]].speedups.emplace_back(b.device, r.speedup);
        }
    for (auto& row : rows) {
        double log_sum = 0;
        for (const auto& [board, x] : row.speedups) log_sum += std::log(x);
        row.geomean = std::exp(log_sum / static_cast<double>(row.speedups.size()));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.geomean > b.geomean; });
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i].rank = static_cast<int>(i) + 1;
    return rows;
}

}  // namespace workbook::contest
