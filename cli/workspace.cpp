// Progress and pristine starters (see workspace.hpp).
#include "workspace.hpp"

#include "workbook/errors.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <chrono>
#include <fstream>

namespace workbook::cli {

std::string status_name(Status s) {
    switch (s) {
    case Status::done: return "done";
    case Status::failing: return "failing";
    case Status::pending: return "pending";
    }
    return "pending";
}

namespace {

Status status_from(const std::string& s) {
    if (s == "done") return Status::done;
    if (s == "failing") return Status::failing;
    return Status::pending;
}

fs::path progress_file(const fs::path& state) { return state / "progress.toml"; }

Progress read_progress(const fs::path& file) {
    Progress p;
    if (!fs::exists(file)) return p;
    toml::table t;
    try {
        t = toml::parse_file(file.string());
    } catch (const toml::parse_error& e) {
        throw Error(fmt::format("{} is damaged ({}): delete it to start the progress afresh (your exercise files are "
                                "not touched)",
                                file.string(), e.description()));
    }
    p.current = t["current"].value_or(std::string{});
    if (const auto* exercises = t["exercises"].as_table()) {
        for (const auto& [id, node] : *exercises) {
            const auto* e = node.as_table();
            if (!e) continue;
            ExerciseProgress ep;
            ep.status = status_from((*e)["status"].value_or(std::string{"pending"}));
            ep.hints_shown = static_cast<int>((*e)["hints_shown"].value_or(0));
            ep.passed_at = (*e)["passed_at"].value_or(std::string{});
            ep.started_unix = (*e)["started_unix"].value_or(0LL);
            ep.passed_unix = (*e)["passed_unix"].value_or(0LL);
            p.exercises[std::string(id.str())] = ep;
        }
    }
    return p;
}

}  // namespace

Workspace::Workspace(fs::path root, fs::path build) : tree_(std::move(root), std::move(build)) {
    progress_ = read_progress(progress_file(state_dir()));
    snapshot_pristine();
}

// The starters as shipped, copied once before the student's first change could be recorded:
// `reset` restores from here. (Taken on the first start of the CLI, which setup.sh runs.)
void Workspace::snapshot_pristine() const {
    for (const auto& ex : course().exercises) {
        const fs::path dir = pristine_dir(ex);
        if (fs::exists(dir)) continue;
        fs::create_directories(dir);
        for (const auto& file : ex.edit) {
            const fs::path from = exercise_dir(ex) / file;
            if (fs::exists(from)) fs::copy_file(from, dir / file, fs::copy_options::overwrite_existing);
        }
    }
}

const Exercise& Workspace::current() const {
    if (!progress_.current.empty())
        if (const Exercise* ex = course().find(progress_.current)) return *ex;
    for (const auto& ex : course().exercises)
        if (progress(ex).status != Status::done) return ex;
    return course().exercises.back();
}

std::size_t Workspace::index_of(const Exercise& ex) const {
    for (std::size_t i = 0; i < course().exercises.size(); ++i)
        if (course().exercises[i].id == ex.id) return i;
    return 0;
}

const Exercise* Workspace::next_after(const Exercise& ex) const {
    const std::size_t i = index_of(ex) + 1;
    return i < course().exercises.size() ? &course().exercises[i] : nullptr;
}

const ExerciseProgress& Workspace::progress(const Exercise& ex) const {
    static const ExerciseProgress none;
    const auto it = progress_.exercises.find(ex.id);
    return it == progress_.exercises.end() ? none : it->second;
}

std::size_t Workspace::done_count() const {
    std::size_t n = 0;
    for (const auto& ex : course().exercises) n += progress(ex).status == Status::done;
    return n;
}

long long ExerciseProgress::seconds_on_it(long long now_unix) const {
    if (started_unix == 0) return 0;
    return std::max(0LL, (passed_unix != 0 ? passed_unix : now_unix) - started_unix);
}

void Workspace::record(const Exercise& ex, bool passed) {
    // Pin the current exercise before a pass would move the "first not done" default past it.
    if (progress_.current.empty()) progress_.current = current().id;
    auto& p = progress(ex);
    const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch()).count();
    if (p.started_unix == 0) p.started_unix = now;
    if (passed && p.passed_unix == 0) p.passed_unix = now;
    if (passed) {
        if (p.passed_at.empty())
            p.passed_at = fmt::format("{:%Y-%m-%dT%H:%M:%S}", fmt::localtime(std::chrono::system_clock::to_time_t(
                                                                  std::chrono::system_clock::now())));
        p.status = Status::done;
    } else if (p.status != Status::done) {
        // Once done stays done (as in rustlings): breaking it later shows in the check, not the tally.
        p.status = Status::failing;
    }
}

void Workspace::save() const {
    toml::table exercises;
    for (const auto& [id, p] : progress_.exercises) {
        toml::table e{{"status", status_name(p.status)}, {"hints_shown", p.hints_shown}};
        if (!p.passed_at.empty()) e.insert("passed_at", p.passed_at);
        if (p.started_unix != 0) e.insert("started_unix", p.started_unix);
        if (p.passed_unix != 0) e.insert("passed_unix", p.passed_unix);
        exercises.insert(id, std::move(e));
    }
    toml::table t{{"current", progress_.current}, {"exercises", std::move(exercises)}};
    fs::create_directories(state_dir());
    const fs::path file = progress_file(state_dir()), tmp = file.string() + ".tmp";
    {
        std::ofstream out(tmp);
        out << "# Your progress through the workbook (written by `workbook`; safe to delete to start over).\n"
            << t << "\n";
        if (!out) throw Error(fmt::format("cannot write {}: is the disk full or the folder read-only?", tmp.string()));
    }
    fs::rename(tmp, file);
}

}  // namespace workbook::cli
