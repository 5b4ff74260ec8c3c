// `workbook calibrate` (see calibrate.hpp). The manifest CMake writes (build/calibration.json)
// lists each planted bug and correct variant with the instructor's checker, the runner built from
// its files and its kernel files. Each is graded as the grader grades a submission: the kernels in
// a folder of their own (WORKBOOK_KERNEL_DIR), the checker on a seed with its evidence judged
// against the solution's, and, when the test passes and the exercise has a race pass, the race
// pass. Unlike the grader there is no sandbox: these are the course's own files.
#include "workbook/grading/calibrate.hpp"

#include "workbook/grading/graded_run.hpp"

#include "workbook/device.hpp"
#include "workbook/errors.hpp"
#include "workbook/process.hpp"
#include "workbook/race_check.hpp"
#include "workbook/random.hpp"
#include "workbook/text.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <unistd.h>

namespace workbook::grading {

using json = nlohmann::json;

namespace {

struct Entry {
    std::string exercise, name, kind, mark;  // kind: mutant or variant; mark: RACE, ALSO_RACE or empty
    std::string checker, runner, reference;
    std::vector<std::string> kernels;
    std::string label() const { return exercise + " " + kind + "-" + name; }
};

std::string full_build_fix(const fs::path& build) {
    return fmt::format("configure without -DWORKBOOK_ONLY (cmake -S . -B {} -UWORKBOOK_ONLY) and build (cmake --build "
                       "{}), or point --manifest at the calibration.json of a full build",
                       build.string(), build.string());
}

std::vector<Entry> read_manifest(const fs::path& file) {
    const fs::path build = file.parent_path().empty() ? fs::path(".") : file.parent_path();
    if (!fs::exists(file))
        throw Error(fmt::format("no calibration manifest at {}. CMake writes it when the workbook is built with its "
                                "tests (the planted bugs and correct variants), which a build with WORKBOOK_ONLY "
                                "leaves out.\nFix: {}",
                                file.string(), full_build_fix(build)));
    json j;
    try {
        j = json::parse(read_file_or_empty(file));
    } catch (const json::exception& e) {
        throw Error(fmt::format("{} is not valid JSON ({}).\nFix: delete it and configure again (cmake -S . -B {})",
                                file.string(), e.what(), build.string()));
    }
    if (!j.is_object() || j.value("format", "") != "workbook-calibration-manifest 1" || !j.contains("entries") ||
        !j["entries"].is_array())
        throw Error(fmt::format("{} is not a calibration manifest (no \"format\": \"workbook-calibration-manifest 1\" "
                                "with \"entries\").\nFix: point --manifest at the calibration.json CMake writes in "
                                "a build folder",
                                file.string()));
    std::vector<Entry> out;
    for (const auto& e : j["entries"]) {
        Entry x;
        try {
            x = {e.at("exercise"), e.at("name"), e.at("kind"), e.value("mark", ""), e.at("checker"), e.at("runner"),
                 e.at("reference"), e.at("kernels").get<std::vector<std::string>>()};
        } catch (const json::exception& err) {
            throw Error(fmt::format("{}: an entry lacks a field or has the wrong type ({}): {}.\nFix: configure again "
                                    "(cmake -S . -B {})",
                                    file.string(), err.what(), sanitize(e.dump(), 400), build.string()));
        }
        if (x.kind != "mutant" && x.kind != "variant")
            throw Error(fmt::format("{}: {} has kind \"{}\"; a calibration entry is a mutant (a planted bug) or a "
                                    "variant (a correct kernel).\nFix: correct the entry, or configure again",
                                    file.string(), x.label(), sanitize(x.kind, 100)));
        for (const auto& program : {x.checker, x.runner, x.reference})
            if (!fs::exists(program))
                throw Error(fmt::format("{} (for {}) is missing: the manifest lists it, but it is not built.\nFix: "
                                        "cmake --build {}",
                                        program, x.label(), build.string()));
        for (const auto& k : x.kernels)
            if (!fs::exists(k))
                throw Error(fmt::format("{} (a kernel of {}) is missing.\nFix: configure again (cmake -S . -B {})", k,
                                        x.label(), build.string()));
        out.push_back(std::move(x));
    }
    if (out.empty())
        throw Error(fmt::format("{} lists no planted bug and no correct variant.\nFix: {}", file.string(),
                                full_build_fix(build)));
    return out;
}


// Why a run failed, from its evidence record: its first three failed checks' messages, each on
// one line; a run that left no record (a crash, a hang) says so with its status.
std::string why_failed(const GradedRun& run) {
    std::string out;
    for (std::size_t i = 0; i < run.failures.size() && i < 3; ++i) {
        std::string line = run.failures[i];
        std::replace(line.begin(), line.end(), '\n', ' ');
        out += (out.empty() ? "" : " / ") + line;
    }
    return sanitize(out.empty() ? "no failed check recorded (" + run.process.status() + ")" : out, 600);
}

struct Tally {
    int planted = 0, by_test = 0, by_race = 0, missed = 0, variants = 0, accepted = 0, rejected = 0;
    json to_json(const std::string& race_pass) const {
        return {{"race_pass", race_pass}, {"planted", planted}, {"by_test", by_test}, {"by_race_pass", by_race},
                {"missed", missed},       {"variants", variants}, {"accepted", accepted}, {"rejected", rejected}};
    }
};

// A markdown table whose columns line up in a terminal too.
std::string table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width(rows.front().size(), 3);
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    auto line = [&](const std::vector<std::string>& r) {
        std::string s = "|";
        for (std::size_t c = 0; c < r.size(); ++c)
            s += c == 0 ? fmt::format(" {:<{}} |", r[c], width[c]) : fmt::format(" {:>{}} |", r[c], width[c]);
        return s + "\n";
    };
    std::string out = line(rows.front()) + "|";
    for (std::size_t c = 0; c < width.size(); ++c) out += std::string(width[c] + 1, '-') + (c == 0 ? "-|" : ":|");
    out += "\n";
    for (std::size_t i = 1; i < rows.size(); ++i) out += line(rows[i]);
    return out;
}

class Calibration {
public:
    Calibration(const harness::CourseTree& tree, const CalibrateOptions& o) : tree_(tree), o_(o) {}

    int run() {
        const fs::path manifest = o_.manifest.empty() ? tree_.build() / "calibration.json" : o_.manifest;
        // No silent calibration without the race pass, as no silent grade (grader.cpp).
        std::string oclgrind;
        if (!o_.no_race_check) {
            oclgrind = race::require_available("the", "to calibrate the graded tests alone (the column \"only "
                                               "by the race pass\" then reads \"off\")")
                           .command;
        }
        std::vector<Entry> entries;
        for (auto& e : read_manifest(manifest))
            if (selected(e)) entries.push_back(std::move(e));
        if (entries.empty()) throw Error("--only matches no exercise of the manifest (give ids such as 02)");
        for (const auto& e : entries)
            if (!tree_.course().find(e.exercise))
                throw Error(fmt::format("{} names exercise {}, which {} does not list: the manifest comes from another "
                                        "tree.\nFix: point --root at that tree, or build this one (cmake --build {})",
                                        manifest.string(), e.exercise, (tree_.root() / "course.toml").string(),
                                        tree_.build().string()));

        const std::string device = select_device(DeviceQuery::from_environment()).describe();
        seed_ = o_.seed;
        if (seed_ == 0) {
            std::random_device rd;
            seed_ = ((static_cast<std::uint64_t>(rd()) << 20) ^ rd()) & 0x7fffffffffffULL;
        }
        nonce_ = random_hex(16);
        scratch_ = fs::temp_directory_path() / fmt::format("workbook-calibrate-{}-{}", ::getpid(), random_hex(4));
        fs::create_directories(scratch_);
        struct Cleanup {
            fs::path dir;
            ~Cleanup() {
                std::error_code ec;
                fs::remove_all(dir, ec);
            }
        } cleanup{scratch_};

        fmt::print(stderr, "calibrating the grader on {}: {} planted bug(s) and correct variant(s), seed {}, race pass {}\n",
                   device, entries.size(), seed_, o_.no_race_check ? "off (--no-race-check)" : "on (" + oclgrind + ")");
        const auto start = std::chrono::steady_clock::now();
        json out_entries = json::array();
        for (std::size_t i = 0; i < entries.size(); ++i) {
            fmt::print(stderr, "[{:>{}}/{}] {}: ", i + 1, std::to_string(entries.size()).size(), entries.size(),
                       entries[i].label());
            std::fflush(stderr);
            const json r = calibrate(entries[i]);
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            fmt::print(stderr, "{}{} ({:.1f} s; {:.0f} s so far)\n", r["outcome"].get<std::string>(),
                       r["detail"].get<std::string>().empty() ? "" : ": " + r["detail"].get<std::string>(),
                       r["seconds"].get<double>(), elapsed);
            out_entries.push_back(r);
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

        const json result = summarise(out_entries, device, oclgrind, manifest, seconds);
        fmt::print("{}", calibration_text(result));
        std::fflush(stdout);
        if (!o_.json_out.empty()) {
            if (o_.json_out.has_parent_path()) fs::create_directories(o_.json_out.parent_path());
            std::ofstream(o_.json_out) << result.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
            fmt::print(stderr, "calibration written to {}\n", o_.json_out.string());
        }
        const auto& t = result["total"];
        return t["missed"].get<int>() == 0 && t["rejected"].get<int>() == 0 ? exit_ok : exit_wrong_result;
    }

private:
    bool selected(const Entry& e) const {
        if (o_.only.empty()) return true;
        const Exercise* ex = tree_.course().find(e.exercise);
        for (const auto& key : o_.only) {
            const Exercise* want = tree_.course().find(key);
            if (!want) throw Error(fmt::format("--only {}: no such exercise (give ids such as 02)", key));
            if (ex == want) return true;
        }
        return false;
    }

    // The solution's evidence on this seed: which test cases a complete run has (as the grader's
    // reference runs).
    // Expected results computed once for every mutant and variant (matmul.hpp: expected()).
    std::string expected_cache() const {
        const fs::path dir = scratch_ / "expected";
        fs::create_directories(dir);
        return dir.string();
    }

    const std::string& reference(const Entry& e, const Exercise& ex) {
        if (auto it = reference_.find(e.exercise); it != reference_.end()) return it->second;
        const fs::path file = scratch_ / ("reference-" + e.exercise + ".txt");
        const auto r = run_process({e.reference}, std::chrono::seconds(ex.time_limit_s * 2),
                                   {fmt::format("WORKBOOK_SEED={}", seed_), "WORKBOOK_EVIDENCE_FILE=" + file.string(),
                                    "WORKBOOK_EVIDENCE_NONCE=" + nonce_, "WORKBOOK_REFERENCE_CACHE=" + expected_cache()});
        if (!r.passed() || !fs::exists(file))
            throw Error(fmt::format("the solution of {} does not pass its own graded test on seed {} ({}), so nothing "
                                    "can be calibrated against it.\nFix: the instructor's tree first (ctest --test-dir "
                                    "{} -R {}.solution)\n{}",
                                    e.exercise, seed_, r.status(), tree_.build().string(), e.exercise, sanitize(r.output, 2000)));
        return reference_[e.exercise] = read_file_or_empty(file);
    }

    json calibrate(const Entry& e) {
        const Exercise& ex = *tree_.course().find(e.exercise);
        const auto start = std::chrono::steady_clock::now();
        json r = {{"exercise", e.exercise}, {"name", e.name}, {"kind", e.kind}, {"mark", e.mark}};
        // The kernel folder, as the grader gives a submission its own.
        const fs::path dir = scratch_ / (e.exercise + "-" + e.kind + "-" + e.name);
        fs::create_directories(dir);
        for (const auto& k : e.kernels) fs::copy_file(k, dir / fs::path(k).filename(), fs::copy_options::overwrite_existing);
        const bool has_race_pass = !ex.kernels.empty() && ex.race_check;
        const std::string race_state = !has_race_pass ? "none" : o_.no_race_check ? "off" : "on";

        std::string test_status, race = "not run", detail;
        bool caught = false;  // by the test (mutant) or rejected by it (variant)
        bool race_caught = false;
        GradedRunSpec spec;
        spec.checker = e.checker;
        spec.runner = e.runner;
        spec.kernel_dir = dir;
        spec.evidence = scratch_ / ("evidence-" + random_hex(8));
        spec.seed = seed_;
        spec.nonce = nonce_;
        spec.reference = reference(e, ex);
        spec.limit_s = o_.timeout_s > 0 ? o_.timeout_s : ex.time_limit_s;
        spec.reference_cache = expected_cache();
        const GradedRun run = run_graded_test(spec);
        test_status = run.status;
        caught = run.status != "passed";
        if (caught) {
            detail = run.status == "failed" ? fmt::format("failed {} of {} test cases",
                                                          run.verdict.cases_expected - run.verdict.cases_passed,
                                                          run.verdict.cases_expected)
                                            : fmt::format("{} ({})", run.status, run.process.status());
            if (e.kind == "variant") detail = "the graded test " + detail + ": " + why_failed(run);
        } else if (race_state != "on") {
            race = race_state;
        } else {
            const race::Result rr = run_race_pass(spec, {});
            race_caught = !rr.clean();
            race = rr.reports.empty() ? (rr.clean() ? "clean" : rr.failure_without_report())
                                      : fmt::format("{} report(s)", rr.reports.size());
            if (race_caught)
                detail = rr.reports.empty() ? rr.failure_without_report()
                                            : "Oclgrind: " + sanitize(rr.reports.front().headline, 300);
        }
        std::string outcome;
        if (e.kind == "mutant") {
            outcome = caught ? "caught by the test" : race_caught ? "caught by the race pass" : "missed";
            if (outcome == "missed")
                detail = race_state == "on"    ? "the graded test passed and the race pass found nothing"
                         : race_state == "off" ? "the graded test passed; race pass off (--no-race-check)"
                                               : "the graded test passed; this exercise has no race pass";
        } else {
            outcome = caught || race_caught ? "rejected" : "accepted";
        }
        r["outcome"] = outcome;
        r["test"] = test_status;
        r["race_pass"] = race;
        r["detail"] = detail;
        r["seconds"] = std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 10) / 10;
        return r;
    }

    json summarise(const json& entries, const std::string& device, const std::string& oclgrind, const fs::path& manifest,
                   double seconds) const {
        std::vector<std::string> order;
        std::map<std::string, Tally> per;
        std::map<std::string, std::string> race_of;
        Tally total;
        json missed = json::array(), rejected = json::array();
        for (const auto& r : entries) {
            const std::string ex = r["exercise"];
            if (!per.count(ex)) order.push_back(ex);
            const Exercise& exercise = *tree_.course().find(ex);
            race_of[ex] = exercise.kernels.empty() || !exercise.race_check ? "none" : o_.no_race_check ? "off" : "on";
            Tally& t = per[ex];
            const std::string outcome = r["outcome"];
            for (Tally* x : {&t, &total}) {
                if (r["kind"] == "mutant") {
                    ++x->planted;
                    x->by_test += outcome == "caught by the test";
                    x->by_race += outcome == "caught by the race pass";
                    x->missed += outcome == "missed";
                } else {
                    ++x->variants;
                    x->accepted += outcome == "accepted";
                    x->rejected += outcome == "rejected";
                }
            }
            const json named = {{"exercise", ex}, {"name", r["name"]}, {"mark", r["mark"]}, {"detail", r["detail"]}};
            if (outcome == "missed") missed.push_back(named);
            if (outcome == "rejected") rejected.push_back(named);
        }
        json exercises = json::array();
        for (const auto& ex : order) {
            json row = per[ex].to_json(race_of[ex]);
            row["exercise"] = ex;
            exercises.push_back(row);
        }
        const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
        return {{"format", "workbook-calibration 1"},
                {"device", device},
                {"race_pass", o_.no_race_check ? "off" : "on"},
                {"oclgrind", oclgrind},
                {"seed", seed_},
                {"date", fmt::format("{:%Y-%m-%d %H:%M}", fmt::localtime(now))},
                {"seconds", std::round(seconds)},
                {"manifest", manifest.string()},
                {"exercises", exercises},
                {"total", total.to_json(o_.no_race_check ? "off" : "on")},
                {"missed", missed},
                {"rejected", rejected},
                {"entries", entries}};
    }

    const harness::CourseTree& tree_;
    CalibrateOptions o_;
    std::uint64_t seed_ = 0;
    std::string nonce_;
    fs::path scratch_;
    std::map<std::string, std::string> reference_;  // exercise folder -> the solution's evidence
};

}  // namespace

int run_calibrate(const harness::CourseTree& tree, const CalibrateOptions& options) { return Calibration(tree, options).run(); }

json read_calibration(const fs::path& file) {
    json j;
    try {
        j = json::parse(read_file_or_empty(file));
    } catch (const json::exception& e) {
        throw Error(fmt::format("{} is not valid JSON ({}).\nFix: write it with `workbook calibrate --json {}`",
                                file.string(), e.what(), file.string()));
    }
    const bool ok = j.is_object() && j.value("format", "") == "workbook-calibration 1" && j.contains("total") &&
                    j.contains("exercises") && j.contains("missed") && j.contains("rejected");
    if (!ok)
        throw Error(fmt::format("{} is not a calibration result (no \"format\": \"workbook-calibration 1\" with its "
                                "totals).\nFix: write it with `workbook calibrate --json {}`",
                                file.string(), file.string()));
    return j;
}

std::string calibration_text(const json& result) {
    auto race_cell = [](const json& t) {
        const std::string state = t.value("race_pass", "on");
        return state == "on" ? std::to_string(t.value("by_race_pass", 0)) : state == "off" ? std::string("off") : std::string("-");
    };
    auto dash_if_none = [](const json& t, const char* key) {
        return t.value("variants", 0) == 0 ? std::string("-") : std::to_string(t.value(key, 0));
    };
    std::vector<std::vector<std::string>> rows = {{"exercise", "planted bugs", "caught by the test",
                                                   "only by the race pass", "missed", "correct variants", "accepted",
                                                   "rejected"}};
    auto add = [&](const std::string& name, const json& t) {
        rows.push_back({name, std::to_string(t.value("planted", 0)), std::to_string(t.value("by_test", 0)), race_cell(t),
                        std::to_string(t.value("missed", 0)), std::to_string(t.value("variants", 0)),
                        dash_if_none(t, "accepted"), dash_if_none(t, "rejected")});
    };
    for (const auto& t : result["exercises"]) add(t.value("exercise", "?"), t);
    add("total", result["total"]);
    const bool race_on = result.value("race_pass", "") == "on";
    std::string out = fmt::format("Calibration of the grader on {}\nrace pass {}; seed {}; {}; {} s\n\n",
                                  result.value("device", "?"),
                                  race_on ? "on (Oclgrind " + result.value("oclgrind", std::string("?")) + ")" : "off (--no-race-check)",
                                  result.value("seed", std::uint64_t{0}), result.value("date", "?"),
                                  result.value("seconds", 0.0));
    out += table(rows);
    out += "(\"-\" in the race column: the exercise has no race pass; \"off\": calibrated with --no-race-check)\n";
    auto names = [](const json& list) {
        std::string s;
        for (const auto& m : list)
            s += fmt::format("  {} {}{}: {}\n", m.value("exercise", "?"), m.value("name", "?"),
                             m.value("mark", "").empty() ? "" : " [" + m.value("mark", "") + "]", m.value("detail", ""));
        return s;
    };
    if (!result["missed"].empty())
        out += "\nMissed planted bugs (a submission with this bug gets full marks here):\n" + names(result["missed"]);
    if (!result["rejected"].empty())
        out += "\nRejected correct variants (a correct submission written this way loses marks here):\n" +
               names(result["rejected"]);
    if (result["missed"].empty() && result["rejected"].empty())
        out += "\nEvery planted bug caught, every correct variant accepted.\n";
    return out;
}

}  // namespace workbook::grading
