// Where a grading run's time goes (see phase_times.hpp).
#include "workbook/grading/phase_times.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace workbook::grading {

std::string PhaseTimes::table(int submissions) const {
    std::lock_guard lock(m_);
    std::string out = fmt::format("{:<36} {:>10} {:>8} {:>14}\n", "phase", "seconds", "times", "per submission");
    for (const auto& name : order_) {
        const Phase& p = phases_.at(name);
        out += fmt::format("{:<36} {:>10.1f} {:>8} {:>14.2f}\n", name, p.seconds, p.count,
                           submissions > 0 ? p.seconds / submissions : 0.0);
    }
    return out;
}

std::string PhaseTimes::json() const {
    std::lock_guard lock(m_);
    nlohmann::json j = nlohmann::json::object();
    for (const auto& name : order_) j[name] = {{"seconds", phases_.at(name).seconds}, {"times", phases_.at(name).count}};
    return j.dump(2);
}

}  // namespace workbook::grading
