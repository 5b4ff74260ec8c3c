// LMS gradebook imports (see export.hpp). The columns follow each LMS's import as documented:
// - Canvas: its importer (canvas-lms, app/models/gradebook_importer.rb) takes a header row whose
//   first cells are Student, ID, then SIS User ID and SIS Login ID, with Section ending the
//   student columns, then one column per assignment; a row whose first cell holds "Points
//   Possible" sets the maxima. It finds a student by ID, else SIS User ID or SIS Login ID, else
//   name, and an assignment by "Name (id)", else by name, else makes a new one. Universities'
//   guides (Ohio State's "Import a CSV file into Carmen Grades") ask for the same columns.
// - Moodle: MoodleDocs "Grade import" (CSV): one column that identifies the user, mapped at
//   import to email address, ID number or username (emails compared with case), then a column per
//   grade item, each mapped to an item.
#include "workbook/grading/export.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

namespace workbook::grading {

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = "\"";
    for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
    return line + "\n";
}

// At most two decimals, without trailing zeros: 2, 1.5, 0.33 (what a person would type).
std::string score_text(double s) {
    std::string t = fmt::format("{:.2f}", s);
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
    return t == "-0" ? "0" : t;
}

void write_file(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    const fs::path tmp = p.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out) throw Error(fmt::format("cannot write {}: is the disk full?", tmp.string()));
    }
    fs::rename(tmp, p);
}

// The column of `header` named like one of `names` (ignoring case and blanks at the ends); -1: none.
int column(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
    for (std::size_t i = 0; i < header.size(); ++i)
        for (const char* n : names)
            if (lower(trim(header[i])) == n) return static_cast<int>(i);
    return -1;
}

std::string cell(const std::vector<std::string>& row, int i) {
    return i >= 0 && static_cast<std::size_t>(i) < row.size() ? trim(row[i]) : std::string();
}

bool known_format(const std::string& f) {
    return f == "canvas" || f == "moodle" || f == "csv";
}

std::string file_for(const std::string& format) {
    return format == "csv" ? "lms-import.csv" : format + "-import.csv";
}

// Canvas's "Download Submissions" names each file <name>_[late_]<user id>_<submission id>_<file>:
// the user id is the roster's ID.
std::string canvas_download_id(const std::string& submission) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
        const auto us = submission.find('_', start);
        parts.push_back(submission.substr(start, us == std::string::npos ? std::string::npos : us - start));
        if (us == std::string::npos) break;
        start = us + 1;
    }
    std::size_t i = 1;
    if (i < parts.size() && lower(parts[i]) == "late") ++i;
    if (i + 1 >= parts.size() || parts[i].empty()) return "";
    for (const auto& p : {parts[i], parts[i + 1]})
        if (p.empty() || !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; })) return "";
    return parts[i];
}

}  // namespace

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, any = false;
    std::size_t i = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
    const auto end_row = [&] {
        row.push_back(field);
        field.clear();
        if (!(row.size() == 1 && row[0].empty())) rows.push_back(row);  // blank lines are no rows
        row.clear();
        any = false;
    };
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                field += c;
            continue;
        }
        any = true;
        if (c == '"')
            quoted = true;
        else if (c == ',')
            row.push_back(field), field.clear();
        else if (c == '\n')
            end_row();
        else if (c == '\r') {
            if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
            end_row();
        } else
            field += c;
    }
    if (any || !field.empty() || !row.empty()) end_row();
    return rows;
}

LmsRoster read_lms_roster(const fs::path& file, const std::string& format) {
    if (!known_format(format)) throw Error(fmt::format("unknown export format \"{}\": canvas, moodle or csv", format));
    if (file.empty())
        throw Error(fmt::format("--export {} needs --lms-roster FILE: the class list downloaded from the LMS", format));
    const auto rows = parse_csv(read_file(file));
    if (rows.empty())
        throw Error(fmt::format("the roster {} is empty: it needs a header row and a row per student", file.string()));
    const auto& header = rows[0];
    LmsRoster r;
    r.format = format;
    const auto body = [&](auto each) {
        for (std::size_t k = 1; k < rows.size(); ++k) each(rows[k]);
    };
    if (format == "canvas") {
        const int student = column(header, {"student"}), id = column(header, {"id"}),
                  sis_user = column(header, {"sis user id"}), sis_login = column(header, {"sis login id"}),
                  section = column(header, {"section"});
        if (student < 0 || id < 0)
            throw Error(
                fmt::format("{} is not a Canvas gradebook export: it has no \"Student\" and \"ID\" columns. "
                            "Download it in Canvas with Grades > Export > Export Entire Gradebook",
                            file.string()));
        r.header = {"Student", "ID", "SIS User ID", "SIS Login ID", "Section"};
        body([&](const std::vector<std::string>& row) {
            RosterStudent s;
            for (const int c : {student, id, sis_user, sis_login, section}) s.fields.push_back(cell(row, c));
            for (const int c : {id, sis_user, sis_login})
                if (!cell(row, c).empty()) s.ids.push_back(cell(row, c));
            s.label = s.fields[0].empty() ? s.ids.empty() ? "" : s.ids[0] : s.fields[0];
            // "Points Possible" and the posting-policy rows identify nobody.
            if (!s.ids.empty()) r.students.push_back(s);
        });
    } else if (format == "moodle") {
        const int email = column(header, {"email address", "email"}),
                  idnumber = column(header, {"id number", "idnumber"}), username = column(header, {"username"}),
                  first = column(header, {"first name", "firstname"}),
                  last = column(header, {"last name", "surname", "lastname"});
        std::vector<int> id_columns;
        for (const int c : {email, idnumber, username})
            if (c >= 0) id_columns.push_back(c);
        if (id_columns.empty())
            throw Error(
                fmt::format("{} has no column Moodle identifies a user by (\"Email address\", \"ID number\" or "
                            "\"Username\"). Download it in Moodle with Grades > Export > Plain text file",
                            file.string()));
        std::vector<std::vector<std::string>> kept;
        body([&](const std::vector<std::string>& row) {
            if (std::any_of(id_columns.begin(), id_columns.end(), [&](int c) { return !cell(row, c).empty(); }))
                kept.push_back(row);
        });
        // The one column the import maps: the first that every student has.
        int chosen = -1;
        for (const int c : id_columns)
            if (std::all_of(kept.begin(), kept.end(), [&](const auto& row) { return !cell(row, c).empty(); })) {
                chosen = c;
                break;
            }
        if (chosen < 0)
            throw Error(
                fmt::format("in {} no identifying column (email, ID number, username) is filled for every "
                            "student: Moodle's import maps one of them; fill one in",
                            file.string()));
        r.header = {trim(header[chosen])};
        for (const auto& row : kept) {
            RosterStudent s;
            s.fields = {cell(row, chosen)};
            for (const int c : id_columns)
                if (!cell(row, c).empty()) s.ids.push_back(cell(row, c));
            s.label = trim(cell(row, first) + " " + cell(row, last));
            if (s.label.empty()) s.label = s.fields[0];
            r.students.push_back(s);
        }
    } else {
        r.header = {trim(header[0])};
        body([&](const std::vector<std::string>& row) {
            if (cell(row, 0).empty()) return;
            r.students.push_back({{cell(row, 0)}, {cell(row, 0)}, cell(row, 0)});
        });
    }
    return r;
}

std::vector<std::string> write_exports(const std::vector<ExportColumn>& columns, const std::vector<ExportRow>& rows,
                                       const ExportOptions& options, const fs::path& dir) {
    std::vector<std::string> report;
    // The grade columns: one per exercise, or the total alone.
    std::vector<std::string> names;
    std::vector<double> maxima;
    const auto values = [&](const ExportRow& r) {
        std::vector<double> v = r.scores;
        if (!options.total_column.empty()) {
            double t = 0;
            for (const double s : r.scores) t += s;
            v = {t};
        }
        return v;
    };
    if (options.total_column.empty()) {
        for (const auto& c : columns) names.push_back(c.name), maxima.push_back(c.max);
    } else {
        double t = 0;
        for (const auto& c : columns) t += c.max;
        names = {options.total_column};
        maxima = {t};
    }

    std::vector<std::pair<std::string, std::string>> files;  // name, text: written once all are known to be right
    std::map<std::size_t, std::size_t> imports_of;           // submission -> how many imports hold it
    for (const auto& format : options.formats) {
        const LmsRoster roster = read_lms_roster(options.roster, format);
        std::map<std::string, std::set<std::size_t>> by_id;  // lower-case id -> roster rows
        std::map<std::string, std::set<std::size_t>> by_canvas_id;
        for (std::size_t i = 0; i < roster.students.size(); ++i) {
            for (const auto& id : roster.students[i].ids) by_id[lower(id)].insert(i);
            if (format == "canvas" && !roster.students[i].fields[1].empty())
                by_canvas_id[roster.students[i].fields[1]].insert(i);
        }
        std::map<std::size_t, std::size_t> row_of;  // roster row -> submission
        for (std::size_t k = 0; k < rows.size(); ++k) {
            std::set<std::size_t> hits;
            for (const auto& key : {rows[k].student, rows[k].submission})
                if (const auto it = by_id.find(lower(key)); it != by_id.end())
                    hits.insert(it->second.begin(), it->second.end());
            if (const std::string id = canvas_download_id(rows[k].submission);
                hits.empty() && format == "canvas" && !id.empty())
                if (const auto it = by_canvas_id.find(id); it != by_canvas_id.end()) hits = it->second;
            if (hits.size() > 1) {
                std::string who;
                for (const auto i : hits) who += (who.empty() ? "" : ", ") + roster.students[i].label;
                throw Error(
                    fmt::format("submission {} (student id \"{}\") matches {} students of the roster {}: {}. "
                                "Give it a student id only one of them has (--roster), then export again",
                                rows[k].submission, rows[k].student, hits.size(), options.roster.string(), who));
            }
            if (hits.empty()) continue;
            const std::size_t i = *hits.begin();
            if (const auto it = row_of.find(i); it != row_of.end())
                throw Error(
                    fmt::format("two submissions belong to {} of the roster {}: {} and {}. Keep one of them in "
                                "the submissions folder (or map it to another student with --roster), then "
                                "export again",
                                roster.students[i].label, options.roster.string(), rows[it->second].submission,
                                rows[k].submission));
            row_of[i] = k;
            ++imports_of[k];
        }

        std::string text;
        std::vector<std::string> head = roster.header;
        head.insert(head.end(), names.begin(), names.end());
        text += csv_line(head);
        if (format == "canvas") {
            std::vector<std::string> pp(roster.header.size(), "");
            pp[0] = "Points Possible";
            for (const double m : maxima) pp.push_back(score_text(m));
            text += csv_line(pp);
        }
        std::vector<std::string> missing;
        for (std::size_t i = 0; i < roster.students.size(); ++i) {
            std::vector<std::string> line = roster.students[i].fields;
            if (const auto it = row_of.find(i); it != row_of.end()) {
                for (const double v : values(rows[it->second])) line.push_back(score_text(v));
            } else {
                missing.push_back(roster.students[i].label);
                line.resize(line.size() + names.size(), options.missing_zero ? "0" : "");
            }
            text += csv_line(line);
        }
        files.emplace_back(file_for(format), text);
        std::string line =
            fmt::format("{}: {} of {} roster students graded", file_for(format), row_of.size(), roster.students.size());
        if (!missing.empty())
            line += fmt::format("; {} without a submission ({}): {}", missing.size(),
                                options.missing_zero ? "0" : "left blank", fmt::join(missing, ", "));
        report.push_back(line);
    }

    // Submissions a roster row did not claim (for some format): never dropped, listed with their grades.
    std::vector<std::string> head = {"submission", "student"};
    for (const auto& c : columns) head.push_back(c.name);
    head.push_back("total");
    std::string unmatched = csv_line(head);
    std::vector<std::string> unknown;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        if (imports_of[k] == options.formats.size()) continue;
        unknown.push_back(rows[k].submission);
        std::vector<std::string> line = {rows[k].submission, rows[k].student};
        double t = 0;
        for (const double s : rows[k].scores) line.push_back(score_text(s)), t += s;
        line.push_back(score_text(t));
        unmatched += csv_line(line);
    }
    files.emplace_back("lms-unmatched.csv", unmatched);
    if (!unknown.empty())
        report.push_back(fmt::format(
            "{} submission(s) match no roster student, so no import holds them (listed with their grades in "
            "{}): {}",
            unknown.size(), (dir / "lms-unmatched.csv").string(), fmt::join(unknown, ", ")));
    for (const auto& [name, text] : files) write_file(dir / name, text);
    return report;
}

}  // namespace workbook::grading
