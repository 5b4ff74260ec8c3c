// The tuner's ranking rule (tuning_rank.hpp): fastest round, its spread, and the tie within noise.
#include "workbook/tuning_rank.hpp"

#include <algorithm>

namespace workbook::tuning {

namespace {

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

const Ranked* Ranking::find(std::size_t index) const {
    for (const auto& r : order)
        if (r.index == index) return &r;
    return nullptr;
}

double noise_between(const Ranked& a, const Ranked& b) { return std::max({noise_floor, a.spread, b.spread}); }

bool clearly_slower(const Ranked& slow, const Ranked& fast) {
    return slow.fastest > fast.fastest * (1 + noise_between(slow, fast));
}

Ranking rank(const std::vector<std::vector<double>>& rounds) {
    Ranking r;
    for (std::size_t i = 0; i < rounds.size(); ++i) {
        if (rounds[i].empty()) continue;
        Ranked c;
        c.index = i;
        c.fastest = *std::min_element(rounds[i].begin(), rounds[i].end());
        c.median = median_of(rounds[i]);
        std::vector<double> sorted = rounds[i];
        std::sort(sorted.begin(), sorted.end());
        c.next = sorted.size() > 1 ? sorted[1] : sorted[0];
        c.spread = c.fastest > 0 ? c.next / c.fastest - 1 : 0;
        r.order.push_back(c);
    }
    std::stable_sort(r.order.begin(), r.order.end(), [](const Ranked& a, const Ranked& b) { return a.fastest < b.fastest; });
    if (r.order.empty()) return r;
    const Ranked& lead = r.order.front();
    for (const auto& c : r.order)
        if (!clearly_slower(c, lead)) r.tied.push_back(c.index);
    r.chosen = lead.index;
    r.clear = r.tied.size() == 1;
    if (r.clear && r.order.size() > 1) r.noise = noise_between(r.order[1], lead);
    return r;
}

}  // namespace workbook::tuning
