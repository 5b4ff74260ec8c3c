// `workbook`: the students' command. `workbook list` shows the exercises in course order with the
// files to edit and the commands to run them.
#include "workbook/errors.hpp"
#include "workbook/manifest.hpp"
#include "workbook/run_main.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>

int main(int argc, char** argv) {
    CLI::App app("OpenCL Workbook: hands-on OpenCL exercises, from device info to fast matrix multiplication");
    std::string root = WORKBOOK_SOURCE_DIR;
    app.add_option("--root", root, "the workbook's source tree (default: where it was built from)")
        ->check(CLI::ExistingDirectory);
    auto* list = app.add_subcommand("list", "list the exercises in course order");
    app.require_subcommand(1);
    CLI11_PARSE(app, argc, argv);

    try {
        const auto course = workbook::load_course(std::filesystem::path(root) / "course.toml");
        if (*list) {
            fmt::print("{}: {} exercises\n\n", course.title, course.exercises.size());
            for (const auto& ex : course.exercises) {
                fmt::print("{}  {}\n", ex.id, ex.title);
                fmt::print("    edit:  ");
                for (const auto& f : ex.edit) fmt::print("exercises/{}/{}  ", ex.dir(), f);
                fmt::print("\n    run:   cmake --build build && build/bin/{}\n    check: cmake --build build && "
                           "build/bin/test-{}-starter\n\n",
                           ex.dir(), ex.dir());
            }
            fmt::print("Start with exercises/{}/README.md.\n", course.exercises.front().dir());
        }
        return workbook::exit_ok;
    } catch (...) {
        fmt::print(stderr, "{}\n", workbook::describe_exception(std::current_exception()));
        return workbook::exit_error;
    }
}
