// The outputs of a run: gradebook.csv, Gradescope's results, summary.json, the HTML reports and the
// LMS exports (see grader.hpp).
#include "grader.hpp"

#include "workbook/grading/calibrate.hpp"
#include "workbook/grading/export.hpp"

namespace workbook::grading {

namespace {

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace

void Grader::write_outputs(const std::vector<SubmissionGrade>& all) const {
    // gradebook.csv
    std::string csv = "student,submission";
    for (const Exercise* ex : exercises_) csv += "," + ex->id;
    // Graded without the race pass: the header says so, where nobody can miss it.
    csv += race_note_.empty() ? ",total,max\n" : ",total (race pass off),max\n";
    for (const auto& g : all) {
        csv += csv_field(g.student) + "," + csv_field(g.name);
        for (const auto& e : g.exercises) csv += fmt::format(",{:.2f}", e.score);
        csv += fmt::format(",{:.2f},{:.2f}\n", g.total(), g.max());
    }
    write_text(o_.out / "gradebook.csv", csv);

    // Gradescope results.json per student, and the class summary.
    json summary = {{"submissions", all.size()}, {"exercises", json::array()}, {"students", json::array()},
                    {"race_pass", race_note_.empty() ? "on" : race_note_}};
    for (const Exercise* ex : exercises_) summary["exercises"].push_back({{"id", ex->id}, {"title", ex->title}});
    for (const auto& g : all) {
        json tests = json::array();
        for (const auto& e : g.exercises)
            tests.push_back({{"name", e.id + " " + tree_.find(e.id).title}, {"score", e.score}, {"max_score", e.max},
                             {"status", e.status == "passed" ? "passed" : "failed"}, {"output", e.output},
                             {"visibility", "visible"}});
        std::string notes;
        for (const auto& n : g.notes) notes += n + "\n";
        write_text(o_.out / "results" / (g.name + ".json"),
                   dump(json{{"score", g.total()}, {"max_score", g.max()}, {"tests", tests}, {"output", notes}}, 2));
        json row = {{"student", g.student}, {"submission", g.name}, {"total", g.total()}, {"max", g.max()}};
        for (const auto& e : g.exercises) row[e.id] = {{"score", e.score}, {"status", e.status}};
        summary["students"].push_back(row);
    }
    if (!calibration_.is_null()) {
        json c = calibration_;
        c.erase("entries");  // the per-run details stay in the calibration's own file
        c["file"] = fs::absolute(o_.calibration).string();
        summary["calibration"] = c;
    }
    write_text(o_.out / "summary.json", dump(summary, 2));

    // The HTML report: a class overview and one page per student.
    std::string page = "<!doctype html><meta charset=utf-8><title>Gradebook</title><style>body{font-family:sans-serif}"
                       "td,th{padding:2px 8px;border-bottom:1px solid #ddd}.passed{color:#070}.bad{color:#a00}</style>"
                       "<h1>Gradebook</h1>" +
                       (race_note_.empty() ? std::string() : "<p class=bad>" + html_escape(race_note_) + "</p>") +
                       "<table><tr><th>student</th>";
    for (const Exercise* ex : exercises_) page += "<th>" + html_escape(ex->id) + "</th>";
    page += "<th>total</th></tr>";
    for (const auto& g : all) {
        page += "<tr><td><a href=\"students/" + html_escape(g.name) + ".html\">" + html_escape(g.student) + "</a></td>";
        for (const auto& e : g.exercises)
            page += fmt::format("<td class={} title=\"{}\">{:.1f}</td>", e.status == "passed" ? "passed" : "bad",
                                html_escape(e.status), e.score);
        page += fmt::format("<td>{:.1f} / {:.1f}</td></tr>", g.total(), g.max());
        std::string sp = "<!doctype html><meta charset=utf-8><title>" + html_escape(g.student) +
                         "</title><style>body{font-family:sans-serif}pre{background:#f4f4f4;padding:8px;"
                         "white-space:pre-wrap}</style><p><a href=\"../report.html\">class</a></p><h1>" +
                         html_escape(g.student) + fmt::format("</h1><p>{:.2f} / {:.2f}</p>", g.total(), g.max());
        for (const auto& n : g.notes) sp += "<p>" + html_escape(n) + "</p>";
        for (const auto& e : g.exercises)
            sp += fmt::format("<h2>{} {}: {} ({:.2f} / {:.2f})</h2><pre>{}</pre>", html_escape(e.id),
                              html_escape(tree_.find(e.id).title), html_escape(e.status), e.score, e.max,
                              html_escape(e.output));
        write_text(o_.out / "students" / (g.name + ".html"), sp);
    }
    page += "</table>";
    if (!calibration_.is_null())
        page += "<h2>Calibration: what this grading catches</h2><pre>" + html_escape(calibration_text(calibration_)) + "</pre>";
    write_text(o_.out / "report.html", page);

    // Gradebooks an LMS imports (export.hpp); what they leave out is said on stderr, even with --quiet.
    if (!o_.exports.formats.empty()) {
        std::vector<ExportColumn> columns;
        for (const Exercise* ex : exercises_) columns.push_back({ex->dir(), weight(*ex)});
        std::vector<ExportRow> rows;
        for (const auto& g : all) {
            ExportRow r{g.name, g.student, {}};
            for (const Exercise* ex : exercises_) {
                const auto e = std::find_if(g.exercises.begin(), g.exercises.end(),
                                            [&](const auto& e) { return e.id == ex->id; });
                r.scores.push_back(e == g.exercises.end() ? 0.0 : e->score);
            }
            rows.push_back(r);
        }
        for (const auto& line : write_exports(columns, rows, o_.exports, o_.out))
            fmt::print(stderr, "export: {}\n", line);
    }
}

}  // namespace workbook::grading
