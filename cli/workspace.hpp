// The student's workbook as the CLI sees it: the source tree (course.toml, exercises/,
// solutions/), the build tree, and the progress file .workbook/progress.toml (git ignores
// .workbook/), which also holds the pristine starters that `reset` restores.
#pragma once

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

    const Course& course() const { return course_; }
    const fs::path& root() const { return root_; }
    const fs::path& build() const { return build_; }

    const Exercise& find(const std::string& key) const;  // throws Error listing the ids
    const Exercise& current() const;
    std::size_t index_of(const Exercise& ex) const;
    const Exercise* next_after(const Exercise& ex) const;  // nullptr after the last one

    ExerciseProgress& progress(const Exercise& ex) { return progress_.exercises[ex.id]; }
    const ExerciseProgress& progress(const Exercise& ex) const;
    std::size_t done_count() const;
    void set_current(const Exercise& ex) { progress_.current = ex.id; }
    void record(const Exercise& ex, bool passed);  // a check's outcome
    void save() const;  // written atomically (temporary file, then rename)

    fs::path exercise_dir(const Exercise& ex) const { return root_ / "exercises" / ex.dir(); }
    fs::path solution_dir(const Exercise& ex) const { return root_ / "solutions" / ex.dir(); }
    fs::path pristine_dir(const Exercise& ex) const { return state_dir() / "pristine" / ex.dir(); }
    fs::path backup_dir() const { return state_dir() / "backups"; }
    fs::path state_dir() const { return root_ / ".workbook"; }
    // The graded test binary built from the student's files, and its CMake target.
    fs::path test_binary(const Exercise& ex) const { return build_ / "bin" / ("test-" + ex.dir() + "-starter"); }
    std::string test_target(const Exercise& ex) const { return "ex" + ex.dir() + "_starter_test"; }

private:
    void snapshot_pristine() const;
    fs::path root_, build_;
    Course course_;
    Progress progress_;
};

}  // namespace workbook::cli
