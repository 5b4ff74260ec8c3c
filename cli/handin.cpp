// The student's hand-in (see handin.hpp). The archive is written by the system's tar, the tool the
// grader unpacks it with (grading/src/prepare.cpp: `tar -xf`), from a staging folder holding copies
// of the files read here: what was checked is what is packed.
#include "handin.hpp"

#include "workbook/device.hpp"
#include "workbook/errors.hpp"
#include "workbook/process.hpp"
#include "workbook/random.hpp"
#include "workbook/text.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <unistd.h>

namespace workbook::cli {

namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

struct Taken {
    std::string path;   // in the archive and the workbook: exercises/NN_name/<file>
    std::string bytes;  // the file as read
    bool untouched = false;
};

struct Refused {
    std::string path, why;
};

std::tm local_now() {
    return fmt::localtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()));
}

std::string size_text(std::uintmax_t bytes) {
    return bytes < 1024        ? fmt::format("{} bytes", bytes)
           : bytes < (1 << 20) ? fmt::format("{:.1f} KiB", bytes / 1024.0)
                               : fmt::format("{:.1f} MiB", bytes / 1048576.0);
}

// One edited file: taken (its bytes), or why not. Plain files only, at most the limit: a link
// would pack whatever it points to, which is nobody's work and may be nobody's business.
std::optional<Taken> take(const fs::path& file, const std::string& rel, const fs::path& starter,
                          std::vector<Refused>& refused, bool& missing) {
    std::error_code ec;
    const auto st = fs::symlink_status(file, ec);
    if (ec || st.type() == fs::file_type::not_found) {
        missing = true;
        return std::nullopt;
    }
    if (fs::is_symlink(st)) {
        refused.push_back({rel, fmt::format("a symbolic link (to {}): only plain files are handed in. Put the file "
                                            "itself there: cp --remove-destination \"$(readlink -f {})\" {}",
                                            sanitize(fs::read_symlink(file, ec).string(), 300), rel, rel)});
        return std::nullopt;
    }
    if (!fs::is_regular_file(st)) {
        refused.push_back({rel, "not a plain file (a folder, a pipe or a device)"});
        return std::nullopt;
    }
    if (const auto size = fs::file_size(file, ec); !ec && size > handin_file_limit) {
        refused.push_back({rel, fmt::format("{}, larger than the {} a source file of the course may be: is "
                                            "something pasted or generated into it?",
                                            size_text(size), size_text(handin_file_limit))});
        return std::nullopt;
    }
    Taken t{rel, {}, false};
    try {
        t.bytes = read_plain_file(file, handin_file_limit);  // again, as it is read: no swap in between
    } catch (const Error& e) {
        refused.push_back({rel, e.what()});
        return std::nullopt;
    }
    t.untouched = fs::exists(starter) && read_file_or_empty(starter) == t.bytes;
    return t;
}

// What no student hands in, as the grader reads a tree (grading/locate.hpp): hidden files and
// folders (an editor's swap files, .git/) and build folders.
bool skipped(const fs::path& rel, bool is_folder) {
    for (auto it = rel.begin(); it != rel.end(); ++it) {
        const std::string p = it->string();
        const bool last = std::next(it) == rel.end();
        if (!p.empty() && (p[0] == '.' || ((!last || is_folder) && p.rfind("build", 0) == 0))) return true;
    }
    return false;
}

// Files under exercises/ that the student added or changed but does not hand in (not in an edit
// list): in a git clone, what git calls untracked or modified; elsewhere, files written after the
// CLI's first start took its snapshot of the starters.
std::vector<Refused> left_out(const Workspace& ws) {
    std::map<std::string, const Exercise*> by_dir;
    for (const auto& ex : ws.course().exercises) by_dir[ex.dir()] = &ex;
    const auto edited = [&](const fs::path& rel) {  // rel: exercises/NN_name/<file>
        auto it = rel.begin();
        if (it == rel.end() || ++it == rel.end()) return false;
        const auto ex = by_dir.find(it->string());
        if (ex == by_dir.end()) return false;
        const std::string file = rel.lexically_relative(fs::path("exercises") / ex->first).generic_string();
        return std::find(ex->second->edit.begin(), ex->second->edit.end(), file) != ex->second->edit.end();
    };
    const auto why = [&](const fs::path& rel) {
        auto it = rel.begin();
        const auto ex = ++it == rel.end() ? by_dir.end() : by_dir.find(it->string());
        if (ex == by_dir.end())
            return std::string("outside every exercise folder: the grader takes only the files each exercise edits");
        return fmt::format(
            "not a file you edit: exercise {} is graded from {} (course.toml) with the course's own "
            "copy of everything else",
            ex->second->id, fmt::join(ex->second->edit, ", "));
    };
    std::set<std::string> found;
    const fs::path root = ws.root();
    if (fs::exists(root / ".git") && !find_on_path("git").empty()) {
        const auto r = run_process({"git", "-C", root.string(), "ls-files", "-z", "--others", "--modified",
                                    "--exclude-standard", "--", "exercises"},
                                   30s);
        if (r.passed())
            for (std::size_t at = 0; at < r.output.size();) {
                const auto end = r.output.find('\0', at);
                const std::string p = r.output.substr(at, end == std::string::npos ? std::string::npos : end - at);
                if (!p.empty() && fs::exists(fs::symlink_status(root / p)))
                    found.insert(p);  // --modified lists deletions too
                if (end == std::string::npos) break;
                at = end + 1;
            }
    } else {
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(root / "exercises", ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            const fs::path rel = it->path().lexically_relative(root);  // not through a link
            if (it->is_directory(ec) && !it->is_symlink(ec)) {
                if (skipped(rel, true)) it.disable_recursion_pending();
                continue;
            }
            auto part = rel.begin();
            const auto ex = ++part == rel.end() ? by_dir.end() : by_dir.find(part->string());
            const fs::path snapshot = ex == by_dir.end() ? ws.state_dir() / "pristine" : ws.pristine_dir(*ex->second);
            const auto written = fs::symlink_status(it->path(), ec).type() == fs::file_type::symlink
                                     ? fs::file_time_type::max()  // a link is never the course's
                                     : it->last_write_time(ec);
            if (fs::exists(snapshot) && written > fs::last_write_time(snapshot, ec)) found.insert(rel.generic_string());
        }
    }
    std::vector<Refused> out;
    for (const auto& p : found)
        if (!edited(p) && !skipped(p, false)) out.push_back({p, why(p)});
    return out;
}

std::string course_commit(const fs::path& root) {
    if (!fs::exists(root / ".git") || find_on_path("git").empty()) return "";
    const auto r = run_process({"git", "-C", root.string(), "rev-parse", "HEAD"}, 10s);
    return r.passed() ? trim(r.output) : "";
}

// Where the archive goes: a .tar.gz (or .tgz) file, or a folder for the default name.
fs::path archive_path(const Workspace& ws, const fs::path& output) {
    const std::string name = fmt::format("handin-{:%Y%m%d-%H%M%S}.tar.gz", local_now());
    if (output.empty()) return fs::absolute(ws.root() / name);
    if (fs::is_directory(output)) return fs::absolute(output / name);
    const std::string s = output.filename().string();
    const auto ends = [&](const std::string& ext) {
        return s.size() > ext.size() && s.compare(s.size() - ext.size(), ext.size(), ext) == 0;
    };
    if (!ends(".tar.gz") && !ends(".tgz"))
        throw Error(
            fmt::format("{}: a hand-in is a .tar.gz file (what `workbook grade` unpacks): name it "
                        "{}.tar.gz, or give a folder to put it in",
                        output.string(), output.stem().string()));
    return fs::absolute(output);
}

// Removes the staging folder however the hand-in ends.
struct Staging {
    fs::path dir;
    ~Staging() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

}  // namespace

int handin_command(const Workspace& ws, const fs::path& output) {
    const fs::path archive = archive_path(ws, output);
    std::vector<Taken> taken;
    std::vector<Refused> refused;
    std::vector<std::string> untouched, missing;  // exercise ids
    json exercises = json::array();
    for (const auto& ex : ws.course().exercises) {
        json files = json::array();
        std::vector<std::string> absent;
        bool all_untouched = true, any = false;
        for (const auto& f : ex.edit) {
            const std::string rel = "exercises/" + ex.dir() + "/" + f;
            bool gone = false;
            auto t = take(ws.exercise_dir(ex) / f, rel, ws.pristine_dir(ex) / f, refused, gone);
            if (gone) absent.push_back(f);
            if (t) {
                any = true;
                all_untouched = all_untouched && t->untouched;
                files.push_back(
                    {{"path", rel}, {"bytes", t->bytes.size()}, {"state", t->untouched ? "untouched" : "edited"}});
                taken.push_back(std::move(*t));
            } else {
                all_untouched = false;
                files.push_back({{"path", rel}, {"state", gone ? "missing" : "refused"}});
            }
        }
        if (!absent.empty())
            missing.push_back(fmt::format("{} ({})", ex.id, fmt::join(absent, ", ")));
        else if (any && all_untouched)
            untouched.push_back(ex.id);
        const auto& p = ws.progress(ex);
        exercises.push_back({{"id", ex.id},
                             {"dir", ex.dir()},
                             {"local_status", status_name(p.status)},
                             {"passed_at", p.passed_at.empty() ? json(nullptr) : json(p.passed_at)},
                             {"hints_shown", p.hints_shown},
                             {"files", files}});
    }
    const std::vector<Refused> extra = left_out(ws);

    json manifest = {{"about",
                      "Written by `workbook handin` on the student's machine, for information only: nothing here is "
                      "checked, and `workbook grade` reads none of it (it grades the files under exercises/ with its "
                      "own checks)."},
                     {"handin_format", 1},
                     {"created", fmt::format("{:%Y-%m-%dT%H:%M:%S%z}", local_now())},
                     {"course",
                      {{"title", ws.course().title},
                       {"commit",
                        [&] {  // null outside a git clone
                            const std::string c = course_commit(ws.root());
                            return c.empty() ? json(nullptr) : json(c);
                        }()},
                       {"course_toml_fnv1a",
                        [&] {
                            const std::string text = read_file_or_empty(ws.root() / "course.toml");
                            return fmt::format("{:016x}", fnv1a(text.data(), text.size()));
                        }()}}},
                     {"exercises", exercises},
                     {"not_handed_in", json::array()}};
    try {
        manifest["device"] = select_device(DeviceQuery::from_environment()).describe();
    } catch (const std::exception& e) {
        manifest["device"] = nullptr;
        manifest["device_error"] = sanitize(e.what(), 500);
    }
    for (const auto& list : {refused, extra})
        for (const auto& r : list) manifest["not_handed_in"].push_back({{"path", r.path}, {"why", r.why}});

    // The archive: the copies read above and the manifest, packed by tar from a folder of our own.
    if (find_on_path("tar").empty())
        throw Error("tar is not installed: install it (apt-get install tar) and hand in again");
    const Staging staging{fs::temp_directory_path() / fmt::format("workbook-handin-{}-{}", ::getpid(), random_hex(4))};
    fs::create_directories(staging.dir);
    const auto write = [](const fs::path& p, const std::string& text) {
        fs::create_directories(p.parent_path());
        std::ofstream out(p, std::ios::binary);
        out << text;
        if (!out) throw Error(fmt::format("cannot write {}: is the disk full?", p.string()));
    };
    for (const auto& t : taken) write(staging.dir / t.path, t.bytes);
    write(staging.dir / "handin.json", manifest.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
    std::vector<std::string> argv = {"tar",        "-czf", archive.string() + ".partial", "-C", staging.dir.string(),
                                     "handin.json"};
    if (!taken.empty()) argv.push_back("exercises");
    fs::create_directories(archive.parent_path());
    const auto r = run_process(argv, 120s);
    if (!r.passed()) {
        std::error_code ec;
        fs::remove(archive.string() + ".partial", ec);
        throw Error(
            fmt::format("tar could not write {}: {}\n{}", archive.string(), r.status(), sanitize(r.output, 2000)));
    }
    fs::rename(archive.string() + ".partial", archive);

    fmt::print("Handed in {} file(s) of {} exercises into\n  {}  ({})\n", taken.size(), ws.course().exercises.size(),
               archive.string(), size_text(fs::file_size(archive)));
    if (!untouched.empty())
        fmt::print("Untouched (still exactly the starter): {}\n", fmt::join(untouched, " "));
    if (!missing.empty()) fmt::print("Missing files (that exercise scores 0): {}\n", fmt::join(missing, "; "));
    if (!refused.empty()) {
        fmt::print("NOT handed in, fix these and hand in again:\n");
        for (const auto& x : refused) fmt::print("  {}: {}\n", x.path, x.why);
    }
    if (!extra.empty()) {
        fmt::print("Left out (only the files each exercise edits are handed in):\n");
        for (const auto& x : extra) fmt::print("  {}: {}\n", x.path, x.why);
    }
    fmt::print(
        "Upload that file where your instructor asks. Its handin.json (when, which device, your last local "
        "results) is for information only: grading runs its own checks.\n");
    return refused.empty() ? exit_ok : exit_wrong_result;
}

}  // namespace workbook::cli
