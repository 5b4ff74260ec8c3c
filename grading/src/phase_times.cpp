// Where a grading run's time goes (see phase_times.hpp).
#include "workbook/grading/phase_times.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace workbook::grading {

std::string PhaseTimes::table(int submissions) const {
    std::lock_guard lock(m_);
    const int n = std::max(1, submissions);
    std::string out = fmt::format("{:<36} {:>8} {:>8} {:>6} {:>10} {:>10}\n", "phase", "wall s", "CPU s", "times",
                                  "wall/sub.", "CPU/sub.");
    double cpu = 0;
    for (const auto& name : order_) {
        const Phase& p = phases_.at(name);
        out += fmt::format("{:<36} {:>8.1f} {:>8.1f} {:>6} {:>10.2f} {:>10.2f}\n", name, p.seconds, p.cpu_seconds,
                           p.count, p.seconds / n, p.cpu_seconds / n);
        cpu += p.cpu_seconds;
    }
    out += fmt::format("{:<36} {:>8} {:>8.1f} {:>6} {:>10} {:>10.2f}\n", "processor time in all", "", cpu, "", "",
                       cpu / n);
    return out;
}

std::string PhaseTimes::json() const {
    std::lock_guard lock(m_);
    nlohmann::json j = nlohmann::json::object();
    for (const auto& name : order_) j[name] = {{"seconds", phases_.at(name).seconds},
                                                        {"cpu_seconds", phases_.at(name).cpu_seconds},
                                                        {"times", phases_.at(name).count}};
    return j.dump(2);
}

}  // namespace workbook::grading
