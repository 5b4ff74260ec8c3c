// Which file of a submission is graded for an exercise. One rule for every entry point (`workbook
// grade`, the Gradescope package): a student's copy of the workbook holds solutions/, the CLI's
// .workbook/ snapshot and build folders beside exercises/, and only exercises/ is theirs.
#pragma once

#include <string>
#include <vector>

namespace workbook::grading {

// How the submission is laid out, decided once from all its files:
//   exercises_tree  some path has a folder `exercises/`: files come from exercises/NN_name/<file>
//   exercise_dirs   no exercises/, but folders named like exercises: from NN_name/<file>
//   flat            neither (a Gradescope upload): by file name, when one exercise edits that name
enum class Layout { exercises_tree, exercise_dirs, flat };

struct Located {
    enum class Outcome { found, missing, ambiguous } outcome = Outcome::missing;
    std::string path;                     // the graded file, relative to the submission (found)
    std::vector<std::string> candidates;  // every copy that matched (ambiguous: two or more)
    std::string explain() const;          // for the student's report: what was graded, or why not
    std::string file;                     // the file wanted (e.g. vadd.cl)
    std::string wanted;                   // where this layout looks for it (exercises/02_vadd/vadd.cl)
};

class SubmissionFiles {
public:
    // `files`: every regular file of the submission, relative to its root, '/'-separated.
    // `exercise_dirs`: the course's folder names (NN_name), to recognise the second layout.
    SubmissionFiles(std::vector<std::string> files, const std::vector<std::string>& exercise_dirs);

    Layout layout() const { return layout_; }
    std::string layout_name() const;

    // The student's copy of `file` for the exercise in folder `exercise_dir`. By name alone
    // (flat layout) only when `unique_name` (no other exercise edits a file of that name).
    Located locate(const std::string& exercise_dir, const std::string& file, bool unique_name) const;

    // False for copies that are never a student's work: anything under solutions/, a hidden
    // folder (.workbook/, .git/), a build folder (build*/), or macOS archive debris.
    static bool eligible(const std::string& path);

private:
    std::vector<std::string> files_;  // the eligible ones, sorted
    Layout layout_ = Layout::flat;
};

}  // namespace workbook::grading
