// One encoding of a judged run (see run_record.hpp).
#include "contest/run_record.hpp"

#include <fstream>
#include <sstream>

namespace workbook::contest {

using json = nlohmann::json;

json run_to_json(const Run& r) {
    return {{"device", r.device},
            {"driver", r.driver},
            {"n", r.n},
            {"median_s", r.median_s},
            {"min_s", r.min_s},
            {"max_s", r.max_s},
            {"gflops", r.gflops},
            {"repeats", r.repeats},
            {"sizes", r.sizes},
            {"build_options", r.build_options},
            {"kernel_hash", r.kernel_hash},
            {"ratio", r.ratio},
            {"ratio_low", r.ratio_low},
            {"ratio_high", r.ratio_high},
            {"yardstick", r.yardstick},
            {"yardstick_median_s", r.yardstick_median_s}};
}

Run run_from_json(const json& j) {
    Run r;
    r.device = j.at("device").get<std::string>();
    r.driver = j.at("driver").get<std::string>();
    r.n = j.at("n").get<int>();
    r.median_s = j.at("median_s").get<double>();
    r.min_s = j.at("min_s").get<double>();
    r.max_s = j.at("max_s").get<double>();
    r.gflops = j.at("gflops").get<double>();
    r.repeats = j.at("repeats").get<int>();
    r.sizes = j.at("sizes").get<std::string>();
    r.build_options = j.at("build_options").get<std::string>();
    r.kernel_hash = j.at("kernel_hash").get<std::string>();
    r.ratio = j.at("ratio").get<double>();
    r.ratio_low = j.at("ratio_low").get<double>();
    r.ratio_high = j.at("ratio_high").get<double>();
    r.yardstick = j.at("yardstick").get<std::string>();
    r.yardstick_median_s = j.at("yardstick_median_s").get<double>();
    return r;
}

void write_verdict(const std::filesystem::path& file, const CheckerVerdict& v) {
    json j = {{"result", v.result}, {"reason", v.reason}};
    if (v.run) j["run"] = run_to_json(*v.run);
    std::ofstream(file, std::ios::trunc) << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
}

CheckerVerdict read_verdict(const std::filesystem::path& file) {
    CheckerVerdict v;
    json j;
    try {
        std::ifstream in(file);
        std::stringstream text;
        text << in.rdbuf();
        j = json::parse(text.str());
        v.result = j.at("result").get<std::string>();
        v.reason = j.value("reason", "");
    } catch (const std::exception&) {
        return {};
    }
    try {
        if (j.contains("run")) v.run = run_from_json(j.at("run"));
    } catch (const std::exception&) {
        v.damaged = true;
    }
    return v;
}

}  // namespace workbook::contest
