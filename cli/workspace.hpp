// The student's workbook as the CLI sees it: the source tree (course.toml, exercises/,
// solutions/), the build tree, and the progress file .workbook/progress.toml (git ignores
// .workbook/), which also holds the pristine starters that `reset` restores.
#pragma once

#include "workbook/harness/course_tree.hpp"
#include "workbook/manifest.hpp"

#include <filesystem>
#include <map>
#include <string>

namespace workbook::cli {

namespace fs = std::filesystem;

enum class Status { pending, failing, done };
std::string status_name(Status s);

struct ExerciseProgress {
    Status status = Status::pending;
    int hints_shown = 0;   // how far up the hint ladder the student has climbed
    std::string passed_at; // ISO time of the first pass
    // Unix times of the first check and the first pass (0: none yet): the time spent on it.
    long long started_unix = 0, passed_unix = 0;
    long long seconds_on_it(long long now_unix) const;
};

struct Progress {
    std::string current;  // exercise id; empty: the first one not done
    std::map<std::string, ExerciseProgress> exercises;  // by id
};

class Workspace {
public:
    // Reads course.toml under `root` and the progress file (a missing one is a fresh start).
    // Takes the pristine snapshot of the starters the first time.
    Workspace(fs::path root, fs::path build);

    const harness::CourseTree& tree() const { return tree_; }
    const Course& course() const { return tree_.course(); }
    const fs::path& root() const { return tree_.root(); }
    const fs::path& build() const { return tree_.build(); }

    const Exercise& find(const std::string& key) const { return tree_.find(key); }  // throws Error listing the ids
    const Exercise& current() const;
    std::size_t index_of(const Exercise& ex) const;
    const Exercise* next_after(const Exercise& ex) const;  // nullptr after the last one

    ExerciseProgress& progress(const Exercise& ex) { return progress_.exercises[ex.id]; }
    const ExerciseProgress& progress(const Exercise& ex) const;
    std::size_t done_count() const;
    void set_current(const Exercise& ex) { progress_.current = ex.id; }
    void record(const Exercise& ex, bool passed);  // a check's outcome
    void save() const;  // written atomically (temporary file, then rename)

    fs::path exercise_dir(const Exercise& ex) const { return tree_.exercise_dir(ex); }
    fs::path solution_dir(const Exercise& ex) const { return tree_.solution_dir(ex); }
    fs::path pristine_dir(const Exercise& ex) const { return state_dir() / "pristine" / ex.dir(); }
    fs::path backup_dir() const { return state_dir() / "backups"; }
    fs::path state_dir() const { return root() / ".workbook"; }
    // The graded test binary built from the student's files, and its CMake target.
    fs::path test_binary(const Exercise& ex) const { return tree_.test_binary(ex); }
    std::string test_target(const Exercise& ex) const { return tree_.test_target(ex); }

private:
    void snapshot_pristine() const;
    harness::CourseTree tree_;
    Progress progress_;
};

}  // namespace workbook::cli
