// Restoring starters, with a backup first (see reset.hpp).
#include "reset.hpp"

#include "workbook/errors.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

namespace workbook::cli {

namespace {

std::string timestamp() {
    return fmt::format("{:%Y%m%d-%H%M%S}",
                       fmt::localtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

// A folder under backups/ that no earlier backup uses (two resets in one second keep both).
fs::path fresh_backup_dir(const Workspace& ws, const std::string& stem) {
    fs::path dir = ws.backup_dir() / stem;
    for (int n = 2; fs::exists(dir); ++n) dir = ws.backup_dir() / fmt::format("{}-{}", stem, n);
    return dir;
}

// Every starter of `ex` is in the snapshot, or an Error saying how to get it back.
void need_pristine(const Workspace& ws, const Exercise& ex) {
    const fs::path pristine = ws.pristine_dir(ex);
    for (const auto& f : ex.edit)
        if (!fs::exists(pristine / f))
            throw Error(
                fmt::format("no pristine copy of {} in {}: restore it with `git checkout -- "
                            "exercises/{}/{}` if this is a git clone",
                            f, pristine.string(), ex.dir(), f));
}

void restore(Workspace& ws, const Exercise& ex) {
    for (const auto& f : ex.edit) {
        const fs::path to = ws.exercise_dir(ex) / f;
        // A link in the student's place is replaced, never written through.
        if (fs::is_symlink(fs::symlink_status(to))) fs::remove(to);
        fs::copy_file(ws.pristine_dir(ex) / f, to, fs::copy_options::overwrite_existing);
    }
    ws.progress(ex).hints_shown = 0;
}

}  // namespace

fs::path back_up_into(const Workspace& ws, const Exercise& ex, const fs::path& dir) {
    fs::create_directories(dir);
    for (const auto& f : ex.edit) {
        const fs::path from = ws.exercise_dir(ex) / f;
        // A symbolic link is kept as a link (copy_symlink), not as what it points to.
        const auto st = fs::symlink_status(from);
        if (fs::is_symlink(st))
            fs::copy_symlink(from, dir / f);
        else if (fs::is_regular_file(st))
            fs::copy_file(from, dir / f, fs::copy_options::overwrite_existing);
    }
    return dir;
}

fs::path back_up(const Workspace& ws, const Exercise& ex) {
    return back_up_into(ws, ex, fresh_backup_dir(ws, ex.dir() + "-" + timestamp()));
}

int reset_command(Workspace& ws, const Exercise& ex) {
    need_pristine(ws, ex);
    const fs::path backup = back_up(ws, ex);
    restore(ws, ex);
    ws.save();
    fmt::print("Reset {}: the starter files are back.\nYour previous files are kept in {}\n", ex.dir(),
               fs::relative(backup, ws.root()).string());
    return exit_ok;
}

int reset_all_command(Workspace& ws) {
    for (const auto& ex : ws.course().exercises) need_pristine(ws, ex);
    const fs::path backup = fresh_backup_dir(ws, "all-" + timestamp());
    for (const auto& ex : ws.course().exercises) back_up_into(ws, ex, backup / ex.dir());
    for (const auto& ex : ws.course().exercises) restore(ws, ex);
    ws.save();
    fmt::print(
        "Reset all {} exercises: the starter files are back (your passes are kept; the hints start again).\n"
        "Your previous files are kept in {}/ (a folder per exercise)\n",
        ws.course().exercises.size(), fs::relative(backup, ws.root()).string());
    return exit_ok;
}

}  // namespace workbook::cli
