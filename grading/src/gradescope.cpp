// Building the Gradescope autograder zip (see gradescope.hpp).
#include "workbook/grading/gradescope.hpp"

#include "workbook/grading/step.hpp"

#include "workbook/errors.hpp"
#include "workbook/process.hpp"

#include <fmt/format.h>

#include <unistd.h>

namespace workbook::grading {

int make_gradescope_package(const fs::path& root, const fs::path& zip) {
    using namespace std::chrono_literals;
    const fs::path out = fs::absolute(zip);
    const fs::path staging = fs::temp_directory_path() / fmt::format("workbook-gradescope-{}", ::getpid());
    if (find_on_path("zip").empty()) throw Error("zip is not installed: apt-get install zip (or scripts/setup.sh --all)");
    fs::remove_all(staging);
    fs::create_directories(staging);
    // The source without build trees or the student state; the two scripts at the top.
    auto r = run_process({"tar", "-C", root.string(), "--exclude=./build*", "--exclude=./.workbook",
                          "--exclude=./.git", "--exclude=./make.def", "-cf", (staging / "src.tar").string(), "."},
                         300s);
    if (r.passed()) r = run_process({"tar", "-C", staging.string(), "-xf", (staging / "src.tar").string()}, 300s);
    fs::remove(staging / "src.tar");
    for (const char* f : {"setup.sh", "run_autograder"})
        fs::copy_file(root / "grading" / "gradescope" / f, staging / f, fs::copy_options::overwrite_existing);
    fs::remove(out);
    if (r.passed()) r = run_process({"sh", "-c", "cd \"$0\" && zip -qr \"$1\" .", staging.string(), out.string()}, 300s);
    fs::remove_all(staging);
    if (!r.passed())
        throw Error(fmt::format("could not build {}: {}\n{}", out.string(), r.status(), r.output));
    fmt::print("Wrote {} ({:.1f} MiB): upload it as the autograder of a Gradescope programming assignment.\n"
               "Gradescope runs setup.sh once (installs and builds, a few minutes), then run_autograder for every "
               "submission.\n",
               out.string(), static_cast<double>(fs::file_size(out)) / (1 << 20));
    return exit_ok;
}

}  // namespace workbook::grading
