// A submission unpacked, located and compiled in its sandbox, its kernels built ahead (see grader.hpp).
#include "grader.hpp"

#include "workbook/errors.hpp"
#include "workbook/grading/locate.hpp"
#include "workbook/process.hpp"
#include "workbook/race_check.hpp"
#include "workbook/runner.hpp"

#include <set>

#include <unistd.h>

namespace workbook::grading {

namespace {

// A submission's compiled kernels (see warm_kernel_cache), beside its kernel snapshot.
fs::path compiled_kernels(const fs::path& snapshot) { return snapshot / "pocl-cache"; }

// Folders and plain files only, each file once (a link or a second name of a file is left out):
// `from` was written by the submission's user, `to` is read by every one of its processes.
void copy_plain_tree(const fs::path& from, const fs::path& to) {
    std::error_code ec;
    fs::create_directories(to);
    for (auto it = fs::recursive_directory_iterator(from, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::path dest = to / fs::relative(it->path(), from);
        if (it->is_symlink(ec)) continue;
        if (it->is_directory(ec)) fs::create_directories(dest, ec);
        else if (it->is_regular_file(ec) && it->hard_link_count(ec) == 1)
            fs::copy_file(it->path(), dest, fs::copy_options::skip_existing, ec);
    }
}

// Root's, readable by the submission's group alone, writable by nobody else.
void lock_down(const fs::path& dir, int uid) {
    std::error_code ec;
    const auto give = [&](const fs::path& f, fs::perms perms) {
        fs::permissions(f, perms, ec);
        if (::lchown(f.c_str(), 0, static_cast<gid_t>(uid)) != 0)
            throw Error(fmt::format("cannot give {} to group {}: {}", f.string(), uid, std::strerror(errno)));
    };
    const auto folder = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec;
    give(dir, folder);
    for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it)
        give(it->path(), it->is_directory() ? folder : fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

}  // namespace

// Each submission runs as its own user (see Sandbox::uid), inside its budget, and sees of the
// workbook only what compiling and running its runners needs (workbook_paths()).
Sandbox Grader::sandbox_for(const Prepared& p) const {
    Sandbox s;
    s.uid = p.uid;
    s.scratch = p.scratch.string();
    s.namespaces = !o_.no_sandbox;
    s.readable = workbook_paths_;
    if (!p.kernels.empty() && fs::exists(p.kernels)) s.readable.push_back(p.kernels.string());
    if (!p.kernels.empty() && fs::is_directory(compiled_kernels(p.kernels))) s.kernel_cache = compiled_kernels(p.kernels).string();
    if (p.budget) s.cgroups = p.budget->procs();
    return s;
}

// The allow-list of the instructor's files a sandbox mounts: the include folders, objects and
// libraries of the graded exercises' compile and link recipes (the starters' objects: public),
// and the instructor's runners for exercises whose files are all kernels. Nothing else of
// either tree: no solution, no planted bug, no test binary, no grading configuration.
void Grader::find_workbook_paths(const json& commands) {
    std::set<std::string> paths;
    auto add = [&](const std::string& word) {
        std::string w = word.rfind("-I", 0) == 0 ? word.substr(2) : word;
        std::error_code ec;
        // Never the root itself: mounted read-only over everything, it would show the runner the
        // whole machine and hide the sandbox's own /tmp.
        const std::string normal = fs::path(w).lexically_normal().string();
        if (!w.empty() && w[0] == '/' && normal != "/" && w.rfind("/usr/", 0) != 0 && fs::exists(w, ec)) paths.insert(normal);
    };
    for (const Exercise* ex : exercises_) {
        bool host = false;
        for (const auto& f : ex->edit) host = host || fs::path(f).extension() == ".cpp";
        if (!host || own_kernels(*ex)) add(tree_.runner_binary(*ex).string());
        if (!host) continue;
        const Recipe r = recipe_for(tree_, *ex, commands);
        for (const auto& w : r.compile) add(w);
        for (const auto& w : r.link) add(w);
        recipes_.emplace(ex->id, r);
    }
    // An Oclgrind named by WORKBOOK_OCLGRIND: its folder, where it exists (a name that does not
    // is the race pass's to refuse, and its parent folder may be "/").
    if (const char* o = std::getenv("WORKBOOK_OCLGRIND"); o && *o && fs::exists(o))
        add(fs::path(o).parent_path().string());
    // Our Oclgrind plugins, loaded into the student's runner: rungs 18 and 19's traffic runs count with
    // one, every race pass checks local memory with another, and every race pass and traffic run
    // checks the kernel for pointer bits with the third.
    for (const auto& plugin : {race::overlap_plugin, race::local_init_plugin, race::fingerprint_plugin})
        if (std::string why_not, path = plugin(why_not); !path.empty()) add(path);
    // The OpenCL broker: its ICD, which a witness case's runner loads, and its server, which runs
    // in a sandbox of its own beside it.
    for (const auto& f : runner::Client::broker_files()) add(f);
    if (o_.share_work) add(prebuild().string());
    if (o_.share_work && !recipes_.empty()) {
        const PhaseTimes::Scope timed(phases_, "precompile <CL/opencl.hpp> (once)");
        if (const fs::path dir = host_pch(); !dir.empty()) paths.insert(dir.string());
    }
    workbook_paths_.assign(paths.begin(), paths.end());
}

// Most of compiling a student's host file at -O0 is parsing <CL/opencl.hpp> (about 0.6 of 1.0 s
// here), which every host file includes through its exercise's header (workbook/cl.hpp). It is
// precompiled once per grading run, with each recipe's own flags, and force-included: the
// student's code sees what it saw before, in the same order. GCC checks that a PCH matches the
// flags and ignores one that does not (it parses the header itself): slower, never different.
// Instructor's headers only; readable by the sandboxes, written by nobody else.
fs::path Grader::host_pch() {
    const fs::path dir = fs::absolute(base() / "pch");
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
    std::map<std::vector<std::string>, fs::path> made;  // flags (no -I, no files) -> header
    for (auto& [id, r] : recipes_) {
        std::vector<std::string> flags, argv;
        for (const auto& w : r.compile) {
            if (w.rfind("-I", 0) == 0) argv.push_back(w);
            else if (w == "{src}" || w == "{obj}" || w == "-c" || w == "-o") continue;
            else flags.push_back(w), argv.push_back(w);
        }
        if (auto it = made.find(flags); it != made.end()) {
            r.header = it->second;
            continue;
        }
        const fs::path header = dir / fmt::format("host{}.hpp", made.size());
        write_text(header, "#include \"workbook/cl.hpp\"\n");
        argv.insert(argv.end(), {"-x", "c++-header", header.string(), "-o", header.string() + ".gch"});
        const auto built = run_process(argv, 300s);
        if (!built.passed()) {
            say(fmt::format("note: precompiling the host header failed (students' host files are compiled "
                            "without it, more slowly): {}", cap(built.output, 500)));
            continue;
        }
        for (const fs::path& f : {header, fs::path(header.string() + ".gch")}) fs::permissions(f, readable_by_all);
        made.emplace(flags, header);
        r.header = header;
    }
    return made.empty() ? fs::path() : dir;
}

// On PoCL a kernel build costs about a second (it links the built-in library), most of a small
// exercise's graded test, and each runner starts with an empty cache. Where every kernel file
// of an exercise is byte for byte the instructor's (host-only exercises, and students whose
// kernel is the solution's), the submission's compiled kernels get a copy of the cache the
// reference run built, and its runner links nothing. Never otherwise: that cache holds the
// solution's compiled kernel.
bool Grader::seed_kernel_cache(const Exercise& ex, const Prepared& p, const fs::path& dir) {
    const fs::path cache = kernel_cache(ex);
    if (!o_.share_work || ex.kernels.empty() || !fs::is_directory(cache)) return false;
    for (const auto& k : ex.kernels) {
        const bool edited = std::find(ex.edit.begin(), ex.edit.end(), k) != ex.edit.end();
        const fs::path theirs = dir / fs::path(k).filename();
        const fs::path ours = (edited ? tree_.solution_dir(ex) : tree_.exercise_dir(ex)) / k;
        if (!fs::is_regular_file(theirs) || !fs::is_regular_file(ours) ||
            read_file_or_empty(theirs) != read_file_or_empty(ours))
            return false;
    }
    const PhaseTimes::Scope timed(phases_, "seed kernel cache");
    std::error_code ec;
    fs::copy(cache, compiled_kernels(p.kernels), fs::copy_options::recursive | fs::copy_options::skip_existing, ec);
    return !ec;  // else a slower build, nothing worse
}

// Before the tests, each exercise's programs go into the submission's compiled kernels: a copy
// of the reference run's where every kernel file is the instructor's (seed_kernel_cache), else
// built by kernel-prebuild (grading/src/prebuild_main.cpp) in the sandbox, as the reference run
// built them (builds_). One process for the whole submission pays PoCL's start-up once instead
// of once per exercise, and it runs here, beside the previous submission's tests. A build it
// could not do costs nothing: the runner builds as it always did.
// Only our code fills it, before any of the submission's code runs; then it is read-only, and
// each runner starts from a copy in its own /tmp (Sandbox::kernel_cache). Shared and writable,
// one runner's host code planted a binary under the key of another exercise's kernel source,
// which the race pass and traffic count read while PoCL ran the binary.
void Grader::warm_kernel_cache(const Prepared& p, const Sandbox& box) {
    if (!o_.share_work || p.kernels.empty()) return;
    const fs::path compiled = compiled_kernels(p.kernels);
    fs::create_directories(compiled);
    std::string list;
    for (const Exercise* ex : exercises_) {
        if (p.problem.count(ex->id) || ex->kernels.empty()) continue;
        const fs::path dir = p.kernels / ex->dir();  // the text the tests read (snapshot_kernels)
        if (seed_kernel_cache(*ex, p, dir)) continue;
        if (const auto it = builds_.find(ex->id); it != builds_.end())
            for (const auto& [name, options] : it->second) list += (dir / name).string() + '\t' + options + '\n';
    }
    if (!list.empty() && fs::exists(prebuild())) {
        const PhaseTimes::Scope timed(phases_, "prebuild kernels (one process)");
        const fs::path file = p.kernels / "prebuild.txt";
        write_text(file, list);
        fs::permissions(file, readable_by_all);
        // It writes as the submission's user, into a folder made afresh (whatever the unpacking
        // left there is gone), and only what it wrote is taken.
        const fs::path built = p.scratch / ".pocl-prebuild";
        std::error_code ec;
        fs::remove_all(built, ec);
        fs::create_directories(built);
        if (::chown(built.c_str(), static_cast<uid_t>(p.uid), static_cast<gid_t>(p.uid)) != 0)
            throw Error(fmt::format("cannot give {} to user {}: {}", built.string(), p.uid, std::strerror(errno)));
        Sandbox fill = box;
        fill.kernel_cache.clear();
        fill.readable.push_back(p.kernels.string());
        fill.run({prebuild().string(), file.string()}, 60s, {"POCL_CACHE_DIR=" + built.string()}, 4096);  // about 2 s for a whole workbook
        copy_plain_tree(built, compiled);
        fs::remove_all(built, ec);
        fs::remove(file, ec);
    }
    lock_down(compiled, p.uid);
}

// The graded test and the race pass read the kernel files from a copy owned by root, readable by
// the submission's user alone and writable by nobody: a race pass runs beside the next graded
// tests, whose code (the same user's) must not swap the kernels one of them reads.
void Grader::snapshot_kernels(Prepared& p) {
    const fs::path all = fs::absolute(base() / "kernels");
    fs::create_directories(all);
    fs::permissions(all, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    p.kernels = all / random_hex(8);
    const auto mine = [&](const fs::path& f, fs::perms perms) {
        fs::permissions(f, perms);
        if (::chown(f.c_str(), 0, static_cast<gid_t>(p.uid)) != 0)
            throw Error(fmt::format("cannot give {} to group {}: {}", f.string(), p.uid, std::strerror(errno)));
    };
    const auto folder = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec;
    fs::create_directories(p.kernels);
    mine(p.kernels, folder);
    for (const Exercise* ex : exercises_) {
        if (p.problem.count(ex->id) || ex->kernels.empty()) continue;
        const fs::path to = p.kernels / ex->dir();
        fs::create_directories(to);
        mine(to, folder);
        for (const auto& k : ex->kernels) {
            // Root reads from a folder the submission's user may write: a plain file only, never
            // a link to somewhere else that the copy would then make readable to that user.
            const fs::path name = fs::path(k).filename();
            write_text(to / name, read_plain_file(p.scratch / ex->dir() / name, 4 << 20));
            mine(to / name, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
        }
    }
}

Grader::Prepared Grader::prepare(const Submission& s, int uid, const std::string& slot) {
    auto unpacking = std::make_unique<PhaseTimes::Scope>(phases_, "unpack and locate");
    Prepared p;
    p.uid = uid;
    p.race_budget = std::make_shared<RaceBudget>();
    for (const Exercise* ex : exercises_)
        if (ex->race_check && !ex->kernels.empty())
            p.race_budget->total_s += 2 * (o_.timeout_s > 0 ? o_.timeout_s : ex->time_limit_s);
    p.race_budget->left_s = p.race_budget->total_s;
    // Named by its slot in this run, not by the student: every path below appears in command lines
    // (the sandbox's, the tests'), which every local account can read in /proc.
    p.scratch = fs::absolute(base() / "work" / slot);
    remove_scratch(p.scratch);
    fs::create_directories(p.scratch);
    // The submission's own user alone may enter its scratch folder.
    fs::permissions(p.scratch, fs::perms::owner_all);
    if (::chown(p.scratch.c_str(), static_cast<uid_t>(p.uid), static_cast<gid_t>(p.uid)) != 0)
        throw Error(fmt::format("cannot give {} to user {}: {}", p.scratch.string(), p.uid, std::strerror(errno)));
    // Its budget: the cgroups every process of it joins, and its scratch folder's quota.
    p.budget = std::make_shared<Budget>(*budget_support_, fmt::format("s{}", uid), p.scratch, p.uid);
    p.race_cgroups = std::make_shared<Budget>(*budget_support_, fmt::format("s{}-race", uid), o_.budget.race_memory_mib);
    p.notes.push_back(budget_support_->describe());
    for (const auto& n : p.budget->notes()) p.notes.push_back(n);
    const fs::path src = p.scratch / "src";
    fs::create_directories(src);
    fs::permissions(src, fs::perms::all);
    Sandbox box = sandbox_for(p);
    std::string too_large;
    // The grader hands each submission's user its own copy of the upload (links copied as links,
    // never followed), in its quota: the submissions folder stays the grader's alone (a class
    // server keeps it 0700), and its path is in no sandbox's command line, where every local
    // user could read it.
    // Its name is not the student's either (tar finds the compression by content).
    const fs::path copy = p.scratch / "upload";
    {
        std::error_code copied;
        fs::copy(s.path, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks, copied);
        if (copied) too_large = "copying the upload: " + copied.message();
        if (p.uid >= 0 && ::geteuid() == 0)
            run_process({"chown", "-R", "--no-dereference", fmt::format("{}:{}", p.uid, p.uid), copy.string()}, 60s);
    }
    const std::string from = copy.string();
    std::vector<std::string> unpack;
    if (fs::is_directory(s.path)) unpack = {"cp", "-r", "--no-preserve=mode", from + "/.", src.string()};
    else if (s.path.extension() == ".zip") unpack = {"unzip", "-q", "-o", from, "-d", src.string()};
    else unpack = {"tar", "-xf", from, "-C", src.string(), "--no-same-owner", "--no-same-permissions"};
    if (too_large.empty()) {
        const auto r = box.run(unpack, 60s);
        if (!r.passed()) p.notes.push_back(fmt::format("unpacking: {}: {}", r.status(), cap(r.output, 500)));
        if (!r.passed() && p.budget->scratch_full()) too_large = "unpacking stopped: " + cap(r.output, 300);
    }
    {
        std::error_code gone;  // unpacked: the copy's room goes back to the quota
        fs::remove_all(copy, gone);
    }

    // Every file of the submission, by path relative to where it was unpacked; counted against
    // the quota where no tmpfs enforced it.
    std::vector<fs::path> files;
    std::uintmax_t bytes = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(src, fs::directory_options::skip_permission_denied, ec);
         too_large.empty() && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && !it->is_symlink(ec)) {
            files.push_back(fs::relative(it->path(), src));
            bytes += it->file_size(ec);
        }
        if (files.size() > static_cast<std::size_t>(o_.budget.files) || bytes > (std::uintmax_t(o_.budget.disk_mib) << 20))
            too_large = "unpacked, it holds more than the quota";
    }
    if (!too_large.empty()) {
        const std::string why = fmt::format("too large: the submission does not fit its quota of {} MiB and {} files "
                                            "({}). Submit only your exercises/ folder.",
                                            o_.budget.disk_mib, o_.budget.files, too_large);
        p.notes.push_back(why);
        for (const Exercise* ex : exercises_) p.problem[ex->id] = why;
        return p;
    }

    // Which copy of each edited file is graded: one rule (grading/locate.hpp), said per exercise.
    std::vector<std::string> names, dirs;
    for (const auto& c : files) names.push_back(c.generic_string());
    for (const auto& ex : tree_.course().exercises) dirs.push_back(ex.dir());
    const SubmissionFiles layout(names, dirs);
    p.notes.push_back("layout: " + layout.layout_name());
    p.notes.push_back(o_.no_sandbox ? "isolation: the runner as its own user, resource limits, an allow-listed environment; "
                                      "NO namespaces (--no-sandbox)"
                                    : "isolation: the runner in bubblewrap namespaces, as its own user, resource limits, "
                                      "an allow-listed environment; the checker outside");
    std::set<std::string> used;
    for (const Exercise* ex : exercises_) {
        const fs::path dir = p.scratch / ex->dir();
        fs::create_directories(dir);
        fs::permissions(dir, fs::perms::all);
        std::string graded;
        for (const auto& f : ex->edit) {
            const Located found = layout.locate(ex->dir(), f, edited_by_one_exercise(f));
            if (found.outcome != Located::Outcome::found) {
                p.problem[ex->id] = cap(found.explain(), 2000);
                break;
            }
            graded += cap(found.explain(), 2000) + "\n";
            used.insert(found.path);
            fs::copy_file(src / found.path, dir / f, fs::copy_options::overwrite_existing);
            fs::permissions(dir / f, readable_by_all);
        }
        p.graded_from[ex->id] = graded;
        // The exercise's other kernels, from the instructor's tree.
        for (const auto& k : ex->kernels)
            if (std::find(ex->edit.begin(), ex->edit.end(), k) == ex->edit.end())
            {
                fs::copy_file(tree_.exercise_dir(*ex) / k, dir / fs::path(k).filename(),
                              fs::copy_options::overwrite_existing);
                fs::permissions(dir / fs::path(k).filename(), readable_by_all);
            }
    }
    // Anything else that differs from the instructor's copy is ignored, and said so.
    for (const auto& c : files) {
        if (used.count(c.generic_string())) continue;
        std::string rel = c.generic_string();
        const auto at = rel.find("exercises/");
        if (at != std::string::npos) rel = rel.substr(at);
        const fs::path mine = tree_.root() / rel;
        if (fs::exists(mine) && read_file_or_empty(mine) != read_file_or_empty(src / c))
            p.notes.push_back("ignored (differs from the instructor's copy): " + cap(rel, 400));
    }
    // The upload is not needed past this point: its space goes to the builds.
    fs::remove_all(src, ec);
    unpacking.reset();
    for (const Exercise* ex : exercises_)
        if (!p.problem.count(ex->id)) {
            const PhaseTimes::Scope timed(phases_, "compile host code");
            compile(*ex, p, box);
        }
    snapshot_kernels(p);
    warm_kernel_cache(p, box);
    return p;
}

void Grader::compile(const Exercise& ex, Prepared& p, const Sandbox& box) {
    const fs::path dir = p.scratch / ex.dir();
    std::vector<std::string> hosts;
    for (const auto& f : ex.edit)
        if (fs::path(f).extension() == ".cpp") hosts.push_back(f);
    if (hosts.empty()) {  // kernels only: the instructor's runner, the student's kernels
        p.binary[ex.id] = tree_.runner_binary(ex);
        return;
    }
    const Recipe& recipe = recipes_.at(ex.id);
    std::vector<std::string> objects;
    for (const auto& h : hosts) {
        std::vector<std::string> argv;
        const std::string obj = (dir / (h + ".o")).string();
        for (const auto& w : recipe.compile)
            argv.push_back(w == "{src}" ? (dir / h).string() : w == "{obj}" ? obj : w);
        if (!recipe.header.empty()) argv.insert(argv.begin() + 1, {"-include", recipe.header.string()});
        const auto r = box.run(argv, 300s, {}, 64 * 1024);
        if (!r.passed()) {
            p.problem[ex.id] = "build failed: " + r.status() + "\n" + cap(r.output, 4000);
            return;
        }
        objects.push_back(obj);
    }
    std::vector<std::string> argv;
    const fs::path out = dir / "runner";
    for (const auto& w : recipe.link) {
        if (w == "{objs}") argv.insert(argv.end(), objects.begin(), objects.end());
        else argv.push_back(w == "{out}" ? out.string() : w);
    }
    const auto r = box.run(argv, 300s, {}, 64 * 1024);
    if (!r.passed()) {
        p.problem[ex.id] = "build failed (link): " + r.status() + "\n" + cap(r.output, 4000);
        return;
    }
    p.binary[ex.id] = out;
}

}  // namespace workbook::grading
