// kernel-prebuild LIST: builds OpenCL programs ahead of a graded test, so that the test's runners
// find them in the compiler's cache (PoCL keys it by the preprocessed source, the options and the
// device, so a program built here is the one a runner would build).
//
// Why: on PoCL the first build in a process costs about 0.5 s more than the next (it loads the
// built-in kernel library), and each exercise's runner is a process of its own. The grader runs
// this once per submission, in that submission's sandbox, as its user, before any of its code:
// it compiles the student's kernels and runs none of them, into a fresh cache folder that the
// grader then makes read-only and each of that submission's runners starts from a copy of
// (Sandbox::kernel_cache). LIST has a line per build: the kernel file's path, a tab, the options.
// Nothing here decides anything: a build that fails is left to the runner, which reports it.
#include "workbook/cl.hpp"
#include "workbook/device.hpp"
#include "workbook/kernels.hpp"
#include "workbook/program.hpp"
#include "workbook/text.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: kernel-prebuild LIST (a line per build: path, tab, options)\n");
        return 2;
    }
    int built = 0, failed = 0;
    try {
        const auto choice = workbook::select_device(workbook::DeviceQuery::from_environment());
        const cl::Context context(choice.device);
        std::ifstream list(argv[1]);
        for (std::string line; std::getline(list, line);) {
            const auto tab = line.find('\t');
            if (tab == std::string::npos) continue;
            const std::filesystem::path path = line.substr(0, tab);
            try {
                const workbook::KernelSource source{path.filename().string(), path.string(),
                                                   workbook::read_plain_file(path, 4 << 20)};
                workbook::build_program(context, source, line.substr(tab + 1));
                ++built;
            } catch (const std::exception&) {
                ++failed;  // the runner builds it again and says why
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kernel-prebuild: %s\n", e.what());
    }
    std::printf("kernel-prebuild: %d built, %d left to the runners\n", built, failed);
    std::fflush(stdout);
    // As the runners do: leave without releasing OpenCL objects during exit.
    std::_Exit(0);
}
