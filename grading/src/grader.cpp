// One grading run from start to gradebook (see grade.hpp). Phases: reference runs of the
// solutions on the secret seed; preparing and compiling every submission in parallel (in the
// sandbox); running the tests one at a time (timing-sensitive); writing the gradebook. Every
// finished submission is appended to a journal first, so a killed run resumes where it stopped.
#include "grader.hpp"

#include "workbook/cpu_quota.hpp"
#include "workbook/errors.hpp"
#include "workbook/grading/calibrate.hpp"
#include "workbook/grading/uid_lease.hpp"

#include <toml++/toml.h>

#include <sys/stat.h>
#include <unistd.h>

namespace workbook::grading {

int Grader::run() {
    for (const auto& ex : tree_.course().exercises)
        if (o_.only.empty() || std::find(o_.only.begin(), o_.only.end(), ex.id) != o_.only.end())
            exercises_.push_back(&ex);
    if (exercises_.empty()) throw Error("--only matches no exercise (give ids such as 02)");
    // Everything the grader writes is its own (0600, 0700) unless made otherwise below: without
    // namespaces the runner, another user, must read none of it (results, evidence, the seed).
    ::umask(077);
    read_config();
    // A roster the exports cannot read stops the run before any grading, not after.
    for (const auto& format : o_.exports.formats) read_lms_roster(o_.exports.roster, format);
    if (o_.step == GradeOptions::Step::prepare) return exit_ok;
    check_sandbox();
    check_race_pass();
    read_calibration_result();
    if (o_.step == GradeOptions::Step::gather) return gather();
    // A run killed part-way (the journal resumes it) leaves mounts and cgroups behind.
    for (const auto& line : reclaim_leftovers(base() / "work")) say(line);
    {  // and its copies of kernels, which only it used (the journal re-grades what was not kept),
       // and its scratch folders: one killed between its journal line and its clean-up stays
       // behind, since the journal says that submission needs no second look.
        std::error_code ec;
        fs::remove_all(base() / "kernels", ec);
        for (const auto& e : fs::directory_iterator(base() / "work", ec)) remove_scratch(e.path());
    }
    budget_support_ = std::make_unique<BudgetSupport>(o_.budget);
    say(budget_support_->describe());
    // A race pass beside the next graded test holds two Oclgrind runs at once (rung 19's: some 600
    // MB and 450 MB): within a tight memory limit (Gradescope's 768 MB) one of them would be
    // killed, so there each pass runs right after its own test.
    if (const std::uint64_t limit = read_memory_limit(); o_.share_work && limit > 0 && limit < race_beside_memory) {
        race_beside_ = false;
        say(fmt::format("memory limit {} MiB (under {} MiB): each race pass runs right after its graded test, not beside the next",
                        limit >> 20, race_beside_memory >> 20));
    }
    fs::create_directories(base() / "work");
    // The runners' users reach their scratch folders under work/ and can list nothing on the way.
    const auto pass_through = fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec;
    fs::permissions(o_.out, pass_through);
    if (o_.step == GradeOptions::Step::part) {  // out/slurm/task-K/work/
        fs::permissions(o_.out / "slurm", pass_through);
        fs::permissions(base(), pass_through);
    }
    fs::permissions(base() / "work", pass_through);
    auto subs = find_submissions(o_.submissions, o_.roster);
    if (o_.step == GradeOptions::Step::part)  // one task of a Slurm array: its chunk only
        std::erase_if(subs, [&](const Submission& s) {
            return std::find(o_.part_names.begin(), o_.part_names.end(), s.name) == o_.part_names.end();
        });
    load_journal();
    std::vector<const Submission*> todo;
    for (const auto& s : subs)
        if (!done_.count(s.name)) todo.push_back(&s);
    say(fmt::format("{} submission(s), {} already graded (journal), {} exercise(s) each; secret seed in {}",
                    subs.size(), subs.size() - todo.size(), exercises_.size(), (o_.out / "secret.toml").string()));
    if (o_.references_only) {
        reference_runs();
        say(fmt::format("reference runs kept in {}: grade into a copy of it to start from them", (o_.out / "reference").string()));
        return exit_ok;
    }
    if (!todo.empty()) {
        // The host-code recipes and their precompiled header, beside the reference runs.
        auto recipes = std::async(std::launch::async, [&] {
            find_workbook_paths(json::parse(read_file_or_empty(tree_.compile_commands())));
        });
        reference_runs();
        recipes.get();
        grade(todo);
    }
    if (o_.step == GradeOptions::Step::part) return exit_ok;  // the gather writes the outputs
    std::vector<SubmissionGrade> all;
    for (const auto& s : subs) all.push_back(done_.at(s.name));
    write_outputs(all);
    if (!calibration_.is_null()) say("\n" + calibration_text(calibration_));
    say(fmt::format("gradebook: {}", (o_.out / "gradebook.csv").string()));
    return exit_ok;
}

void Grader::say(const std::string& s) const {
    if (!o_.quiet) fmt::print("{}\n", s);
    std::fflush(stdout);
}

// A Slurm run's tasks (slurm_grade.cpp) each wrote a journal of their own: what the journal
// lacks of theirs goes into it, then the outputs are written as a local run writes them.
int Grader::gather() {
    const auto subs = find_submissions(o_.submissions, o_.roster);
    load_journal();
    std::vector<fs::path> parts;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(o_.out / "slurm", ec))
        if (fs::exists(e.path() / "journal.jsonl")) parts.push_back(e.path() / "journal.jsonl");
    std::sort(parts.begin(), parts.end());
    int merged = 0, missing = 0;
    for (const auto& file : parts)
        for (const auto& g : read_journal(file))
            if (!done_.count(g.name)) append_journal(g), ++merged;
    std::vector<SubmissionGrade> all;
    for (const auto& s : subs) {
        if (const auto it = done_.find(s.name); it != done_.end()) {
            all.push_back(it->second);
            continue;
        }
        const auto why = o_.not_graded.count(s.name) ? o_.not_graded.at(s.name) : std::string("no task graded it");
        SubmissionGrade g{s.name, s.student, {}, {"not graded: " + cap(why, 4000)}};
        for (const Exercise* ex : exercises_)
            g.exercises.push_back({ex->id, "not graded", 0, weight(*ex), "not graded: " + cap(why, 4000)});
        all.push_back(g);
        ++missing;
    }
    write_outputs(all);
    say(fmt::format("merged {} graded submission(s) from {} task journal(s); gradebook: {}", merged, parts.size(),
                    (o_.out / "gradebook.csv").string()));
    if (missing == 0) return exit_ok;
    fmt::print(stderr, "{} of {} submission(s) were not graded; their rows and reports say why.\n", missing, subs.size());
    return exit_wrong_result;
}

// The seed stays the same across restarts (same inputs, same gradebook); the nonce is fresh.
void Grader::read_config() {
    if (!o_.config.empty()) {
        toml::table t;
        try {
            t = toml::parse_file(o_.config.string());
        } catch (const toml::parse_error& e) {
            throw Error(fmt::format("{}: {}", o_.config.string(), e.description()));
        }
        if (auto s = t["secret_seed"].value<int64_t>()) seed_ = static_cast<std::uint64_t>(*s);
        if (const auto* w = t["weights"].as_table())
            for (const auto& [k, v] : *w) weights_[std::string(k.str())] = v.value_or(1.0);
    }
    const fs::path secret = o_.out / "secret.toml";
    if (fs::exists(secret)) {
        seed_ = static_cast<std::uint64_t>(toml::parse_file(secret.string())["seed"].value_or(int64_t{0}));
        if (seed_ == 0) throw Error(fmt::format("{} holds no seed: restore it, or grade into a new --out", secret.string()));
    } else if (o_.step == GradeOptions::Step::part || o_.step == GradeOptions::Step::gather) {
        // A Slurm task never makes a seed of its own: the submitting step kept the class's there.
        throw Error(fmt::format("{} is missing: the tasks of a Slurm run read the class's seed there (is the output "
                                "folder on a file system the nodes share?)",
                                secret.string()));
    } else {
        if (seed_ == 0) {
            std::random_device rd;
            seed_ = (static_cast<std::uint64_t>(rd()) << 20) ^ rd();
            seed_ &= 0x7fffffffffffULL;
        }
        write_text(secret, fmt::format("# The secret seed of this grading run (keep it from students).\nseed = {}\n", seed_));
    }
    nonce_ = random_hex(16);
}

double Grader::weight(const Exercise& ex) const {
    const auto it = weights_.find(ex.id);
    return it != weights_.end() ? it->second : ex.weight;
}

// No silent grade without the race pass: on a GPU, and for some bugs on a CPU, it is what
// catches a missing barrier.
void Grader::check_race_pass() {
    if (o_.no_race_check) {
        race_note_ = "race pass off (--no-race-check): missing barriers and waits, and reads past a tile, that "
                     "this device hides were not looked for";
        fmt::print(stderr, "WARNING: {}\n", race_note_);
        return;
    }
    if (o_.step == GradeOptions::Step::gather) return;  // the tasks, which ran the tests, checked
    race::require_available("the", "to grade without it (every report then says so)");
}

// What this grading catches, as `workbook calibrate` measured it (kept in the reports). Without
// the race pass, the race note says what the graded tests alone catch.
void Grader::read_calibration_result() {
    if (o_.calibration.empty()) return;
    calibration_ = read_calibration(o_.calibration);
    const auto& t = calibration_["total"];
    say(fmt::format("calibration from {}: measured on {} ({}, race pass {}): {} of {} planted bugs caught, {} of "
                    "{} correct variants accepted; grade on that device for these figures to hold",
                    o_.calibration.string(), calibration_.value("device", "?"), calibration_.value("date", "?"),
                    calibration_.value("race_pass", "?"), t.value("by_test", 0) + t.value("by_race_pass", 0),
                    t.value("planted", 0), t.value("accepted", 0), t.value("variants", 0)));
    if (!race_note_.empty())
        race_note_ += fmt::format("; on {}, the graded tests alone catch {} of the {} planted bugs (calibration)",
                                  calibration_.value("device", "?"), t.value("by_test", 0), t.value("planted", 0));
}

void Grader::check_sandbox() {
    if (o_.step == GradeOptions::Step::gather) return;  // nothing runs here
    const std::string problem = sandbox_problem();
    if (!problem.empty() && !o_.no_sandbox)
        throw Error(fmt::format("the sandbox cannot run: {}.\nFix that, or pass --no-sandbox to grade with "
                                "resource limits only (NOT safe against hostile code).",
                                problem));
    // The grader hands each submission's user a copy of its upload (prepare.cpp), so the
    // submissions may be the grader's alone; where other local accounts may read them, it says so.
    if (o_.step != GradeOptions::Step::gather && !o_.references_only && !o_.submissions.empty() && fs::exists(o_.submissions) &&
        (fs::status(o_.submissions).permissions() & (fs::perms::others_read | fs::perms::others_exec)) != fs::perms::none)
        fmt::print(stderr, "note: {} is open to other users of this machine, who may read the students' files: chmod "
                           "-R o-rwx {} (grading needs no access for them)\n",
                   o_.submissions.string(), o_.submissions.string());
    if (o_.no_sandbox) {
        fmt::print(stderr, "WARNING: --no-sandbox: student code runs as its own user with resource limits but "
                           "WITHOUT namespaces: it can reach the network and read whatever other users may read.\n");
        // The checker still decides every verdict; what the runner could read is the file system's business.
        for (const fs::path& dir : {tree_.root() / "solutions", build_source_dir() / "solutions"})
            if (fs::exists(dir) && (fs::status(dir).permissions() & fs::perms::others_read) != fs::perms::none)
                fmt::print(stderr, "WARNING: {} is readable by other users, so student code can read it here: "
                                   "chmod -R o-rwx {}\n",
                           dir.string(), dir.string());
    }
}

// Only whole records count (read_journal), and the file is cut back to the last of them, so the
// next append starts on a line of its own (a torn record's submission is graded again, once).
void Grader::load_journal() {
    std::size_t good = 0;
    for (auto& g : read_journal(journal(), &good)) done_[g.name] = std::move(g);
    std::error_code ec;
    const auto size = fs::exists(journal()) ? fs::file_size(journal(), ec) : 0;
    if (good < size) {
        fs::resize_file(journal(), good, ec);
        say(fmt::format("journal: dropped a torn last record ({} bytes); that submission is graded again",
                        size - good));
    }
}

void Grader::append_journal(const SubmissionGrade& g) {
    std::ofstream out(journal(), std::ios::app);
    out << dump(to_json(g)) << "\n";
    out.flush();
    done_[g.name] = g;
}

bool Grader::edited_by_one_exercise(const std::string& file) const {
    int n = 0;
    for (const auto& ex : tree_.course().exercises)
        n += static_cast<int>(std::count(ex.edit.begin(), ex.edit.end(), file));
    return n == 1;
}

// The tree the build was configured from (its compile lines include headers from there); it
// differs from the workbook root when, say, Gradescope's copy is graded with another build.
fs::path Grader::build_source_dir() const {
    std::ifstream in(tree_.build() / "CMakeCache.txt");
    const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key, 0) == 0) return line.substr(key.size());
    return fs::absolute(tree_.root());
}

// Outputs go back to students: the secret seed must not.
std::string Grader::redact(std::string text) const {
    const std::string seed = std::to_string(seed_);
    for (auto at = text.find(seed); at != std::string::npos; at = text.find(seed, at))
        text.replace(at, seed.size(), "(secret)");
    return text;
}

int run_grade_step(const harness::CourseTree& tree, const GradeOptions& options) { return Grader(tree, options).run(); }

}  // namespace workbook::grading
