// Gradebooks a learning-management system imports (`workbook grade --export canvas|moodle|csv`):
// the grades of a run matched to the LMS's students through the roster the instructor downloads
// from it. Every roster student gets a row; a submission that matches no roster row is listed, on
// stderr and in lms-unmatched.csv, never dropped. The grader calls this after its own gradebook.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace workbook::grading {

namespace fs = std::filesystem;

// What the command line asks for (commands.cpp). Empty `formats`: no export.
struct ExportOptions {
    std::vector<std::string> formats;  // "canvas", "moodle", "csv"
    fs::path roster;                   // --lms-roster: the LMS's own CSV (see read_lms_roster)
    bool missing_zero = false;         // --lms-missing zero; default blank (no grade written for them)
    std::string total_column;          // --lms-total NAME: one column, the total, instead of one per exercise
};

// The grades as the exports see them: one column per graded exercise, one row per submission.
struct ExportColumn {
    std::string name;  // the exercise's folder, e.g. 02_vadd
    double max = 0;    // its weight
};
struct ExportRow {
    std::string submission;      // the grader's name for it
    std::string student;         // from the grader's --roster, else the name
    std::vector<double> scores;  // per column
};

// A CSV text as rows of fields (RFC 4180: quoted fields, doubled quotes, line breaks inside quotes;
// LF or CRLF; a UTF-8 byte-order mark, as spreadsheets write, is skipped).
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

// One student of the LMS's roster: the fields a format writes back, and the identifiers a
// submission may match (compared ignoring ASCII case).
struct RosterStudent {
    std::vector<std::string> fields;  // canvas: Student, ID, SIS User ID, SIS Login ID, Section; moodle, csv: the id
    std::vector<std::string> ids;
    std::string label;  // for messages: the name where the roster has one
};
struct LmsRoster {
    std::string format;
    std::vector<std::string> header;  // of `fields`
    std::vector<RosterStudent> students;
};

// Reads the roster for `format`; throws workbook::Error naming the file and what is missing.
//   canvas: the Gradebook's export (Grades > Export): columns Student, ID, SIS User ID, SIS Login ID,
//           Section (matched by ID, SIS User ID or SIS Login ID; rows without any, such as
//           "Points Possible", are skipped)
//   moodle: a grade export or participants list with Email address, ID number or Username
//           (matched by any; the first of them every row fills identifies the student)
//   csv:    any CSV with a header, the student id in its first column
LmsRoster read_lms_roster(const fs::path& file, const std::string& format);

// Writes <format>-import.csv for each format and lms-unmatched.csv into `dir`, and returns the
// report (one line each: matched, without a submission, unknown to the roster). Throws
// workbook::Error before writing anything when one roster row matches two submissions, or one
// submission two roster rows.
std::vector<std::string> write_exports(const std::vector<ExportColumn>& columns, const std::vector<ExportRow>& rows,
                                       const ExportOptions& options, const fs::path& dir);

}  // namespace workbook::grading
