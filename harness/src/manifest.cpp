// Reading course.toml with toml++ (see manifest.hpp).
#include "workbook/manifest.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <regex>
#include <set>

namespace workbook {
namespace {

std::vector<std::string> string_array(const toml::table& t, const std::string& key, const std::string& where,
                                      bool required) {
    std::vector<std::string> out;
    const auto* array = t[key].as_array();
    if (!array) {
        if (required || t.contains(key))
            throw Error(fmt::format("{}: \"{}\" must be an array of strings", where, key));
        return out;
    }
    for (const auto& item : *array) {
        const auto* s = item.as_string();
        if (!s) throw Error(fmt::format("{}: every entry of \"{}\" must be a string", where, key));
        out.push_back(s->get());
    }
    return out;
}

std::string required_string(const toml::table& t, const std::string& key, const std::string& where) {
    const auto value = t[key].value<std::string>();
    if (!value || value->empty()) throw Error(fmt::format("{}: \"{}\" is missing or not a string", where, key));
    return *value;
}

}  // namespace

const Exercise* Course::find(const std::string& key) const {
    for (const auto& e : exercises)
        if (e.id == key || e.name == key || e.dir() == key) return &e;
    return nullptr;
}

Course load_course(const std::filesystem::path& manifest) {
    toml::table root;
    try {
        root = toml::parse_file(manifest.string());
    } catch (const toml::parse_error& e) {
        throw Error(fmt::format("{}:{}:{}: {}", manifest.string(), e.source().begin.line, e.source().begin.column,
                                e.description()));
    }
    const std::string file = manifest.string();
    Course course;
    const auto* meta = root["course"].as_table();
    if (!meta) throw Error(fmt::format("{}: the [course] table is missing", file));
    course.title = required_string(*meta, "title", file + " [course]");
    course.readme_headings = string_array(*meta, "readme_headings", file + " [course]", true);

    const auto* list = root["exercise"].as_array();
    if (!list || list->empty()) throw Error(fmt::format("{}: no [[exercise]] entries", file));
    static const std::regex id_shape("[0-9]{2}"), name_shape("[a-z][a-z0-9_]*");
    std::set<std::string> seen;
    for (const auto& node : *list) {
        const auto* t = node.as_table();
        const std::string where = fmt::format("{} exercise #{}", file, course.exercises.size() + 1);
        if (!t) throw Error(where + ": not a table");
        Exercise ex;
        ex.id = required_string(*t, "id", where);
        ex.name = required_string(*t, "name", where);
        if (!std::regex_match(ex.id, id_shape)) throw Error(where + ": id must be two digits, like \"02\"");
        if (!std::regex_match(ex.name, name_shape))
            throw Error(where + ": name must be lower_snake_case, like \"vadd_chain\"");
        const std::string at = fmt::format("{} exercise {}", file, ex.dir());
        if (!seen.insert(ex.id).second || !seen.insert(ex.name).second)
            throw Error(at + ": id or name used twice");
        ex.title = required_string(*t, "title", at);
        ex.edit = string_array(*t, "edit", at, true);
        ex.kernels = string_array(*t, "kernels", at, false);
        ex.hints = string_array(*t, "hints", at, true);
        ex.speed_references = string_array(*t, "speed_references", at, false);
        ex.traffic_references = string_array(*t, "traffic_references", at, false);
        if (ex.edit.empty()) throw Error(at + ": \"edit\" lists no file");
        if (ex.hints.empty()) throw Error(at + ": give at least one hint");
        ex.time_limit_s = static_cast<int>(t->at_path("time_limit_s").value_or(int64_t{60}));
        ex.weight = t->at_path("weight").value_or(1.0);
        ex.race_check = t->at_path("race_check").value_or(true);
        if (ex.time_limit_s <= 0 || ex.weight < 0) throw Error(at + ": time_limit_s must be > 0 and weight >= 0");
        for (const auto& f : ex.edit)
            if ((!ex.speed_references.empty() || !ex.traffic_references.empty()) && !f.ends_with(".cl"))
                throw Error(at + ": speed_references and traffic_references need an exercise whose student edits kernels only (" + f +
                            " is host code): the references run in its runner outside the sandbox");
        if (!course.exercises.empty() && ex.id <= course.exercises.back().id)
            throw Error(at + ": exercises must be listed in increasing id order");
        course.exercises.push_back(std::move(ex));
    }
    return course;
}

}  // namespace workbook
