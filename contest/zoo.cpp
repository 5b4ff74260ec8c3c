// Reading the zoo file (see zoo.hpp).
#include "contest/zoo.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <set>

namespace workbook::contest {

std::vector<std::string> ZooDevice::environment() const {
    std::vector<std::string> env;
    if (!platform.empty()) env.push_back("WORKBOOK_PLATFORM=" + platform);
    if (!device.empty()) env.push_back("WORKBOOK_DEVICE=" + device);
    if (!device_type.empty()) env.push_back("WORKBOOK_DEVICE_TYPE=" + device_type);
    return env;
}

bool Zoo::has_slurm() const {
    for (const auto& d : devices)
        if (d.slurm) return true;
    return false;
}

const ZooDevice* Zoo::find(const std::string& name) const {
    for (const auto& d : devices)
        if (d.name == name) return &d;
    return nullptr;
}

namespace {

// A table's keys must all be known: a misspelt "partiton" would otherwise be ignored silently.
void known_keys(const toml::table& t, const std::set<std::string>& keys, const std::string& where) {
    for (const auto& [key, value] : t)
        if (!keys.count(std::string(key.str())))
            throw Error(fmt::format("{}: unknown key \"{}\" (known: {})", where, key.str(), fmt::join(keys, ", ")));
}

std::string text(const toml::table& t, const std::string& key, const std::string& where) {
    const auto* node = t.get(key);
    if (!node) return {};
    const auto* s = node->as_string();
    if (!s) throw Error(fmt::format("{}: {} must be a string, in quotes", where, key));
    return s->get();
}

// Board names are shown on the page and used in URLs and Slurm job names: printable, short.
void check_name(const std::string& name, const std::string& where) {
    if (name.empty() || name.size() > 40)
        throw Error(fmt::format("{}: name must be 1 to 40 characters (it is the board's tab)", where));
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7f) throw Error(fmt::format("{}: name may not contain control characters", where));
}

}  // namespace

Zoo read_zoo(const std::filesystem::path& file) {
    const std::string f = file.string();
    toml::table root;
    try {
        root = toml::parse_file(f);
    } catch (const toml::parse_error& e) {
        throw Error(fmt::format("{}:{}: {} (the zoo file is TOML: [[device]] tables, see the README's contest guide)",
                                f, e.source().begin.line, e.description()));
    }
    known_keys(root, {"slurm", "device"}, f);
    Zoo zoo;
    if (const auto* s = root.get("slurm")) {
        const auto* t = s->as_table();
        if (!t) throw Error(fmt::format("{}: [slurm] must be a table", f));
        const std::string where = f + ": [slurm]";
        known_keys(*t, {"server", "jobs_dir", "workbook"}, where);
        zoo.server = text(*t, "server", where);
        zoo.jobs_dir = text(*t, "jobs_dir", where);
        zoo.workbook = text(*t, "workbook", where);
        if (!zoo.server.empty() && zoo.server.rfind("http://", 0) != 0 && zoo.server.rfind("https://", 0) != 0)
            throw Error(fmt::format("{}: server must be a URL such as \"http://head-node:8080\"", where));
    }
    const auto* list = root["device"].as_array();
    if (!list || list->empty())
        throw Error(fmt::format("{}: no devices: add a [[device]] table with name and reach for each board", f));
    std::set<std::string> names;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const auto* t = (*list)[i].as_table();
        const std::string where = fmt::format("{}: device {}", f, i + 1);
        if (!t) throw Error(where + " must be a [[device]] table");
        known_keys(*t, {"name", "reach", "platform", "device", "device_type", "partition", "gres", "constraint",
                        "result_timeout_s", "sbatch_options"},
                   where);
        ZooDevice d;
        d.name = text(*t, "name", where);
        check_name(d.name, where);
        const std::string named = fmt::format("{} (\"{}\")", where, d.name);
        if (!names.insert(d.name).second) throw Error(fmt::format("{}: another device has this name", named));
        const std::string reach = text(*t, "reach", named);
        if (reach != "local" && reach != "slurm")
            throw Error(fmt::format("{}: reach must be \"local\" (a device of this machine) or \"slurm\" (a job on a "
                                    "node), not \"{}\"",
                                    named, reach));
        d.slurm = reach == "slurm";
        d.platform = text(*t, "platform", named);
        d.device = text(*t, "device", named);
        d.device_type = text(*t, "device_type", named);
        d.partition = text(*t, "partition", named);
        d.gres = text(*t, "gres", named);
        d.constraint = text(*t, "constraint", named);
        if (!d.slurm && (!d.partition.empty() || !d.gres.empty() || !d.constraint.empty() ||
                         t->get("result_timeout_s") || t->get("sbatch_options")))
            throw Error(fmt::format("{}: partition, gres, constraint, result_timeout_s and sbatch_options are for reach "
                                    "= \"slurm\"",
                                    named));
        if (const auto* options = t->get("sbatch_options")) {
            const auto* list = options->as_array();
            if (!list) throw Error(fmt::format("{}: sbatch_options must be a list of strings, such as [\"--exclusive\"]", named));
            for (const auto& o : *list) {
                const auto* text = o.as_string();
                // Options only: a word without "--" would become the job script's name.
                if (!text || text->get().rfind("--", 0) != 0)
                    throw Error(fmt::format("{}: each of sbatch_options must be an option starting with \"--\", "
                                            "such as \"--exclusive\" or \"--account=NAME\"",
                                            named));
                d.sbatch_options.push_back(text->get());
            }
        }
        if (const auto* timeout = t->get("result_timeout_s")) {
            const auto v = timeout->value<std::int64_t>();
            if (!v || *v < 10 || *v > 7 * 24 * 3600)
                throw Error(fmt::format("{}: result_timeout_s must be a whole number of seconds, 10 to 604800", named));
            d.result_timeout_s = static_cast<int>(*v);
        }
        // Slurm's own syntax is checked by sbatch; here only what would break its command line.
        std::vector<const std::string*> settings = {&d.partition, &d.gres,   &d.constraint,
                                                    &d.platform,  &d.device, &d.device_type};
        for (const auto& o : d.sbatch_options) settings.push_back(&o);
        for (const auto* v : settings)
            for (unsigned char c : *v)
                if (c < 0x20 || c == 0x7f)
                    throw Error(fmt::format("{}: the device's settings may not contain control characters", named));
        zoo.devices.push_back(std::move(d));
    }
    return zoo;
}

}  // namespace workbook::contest
