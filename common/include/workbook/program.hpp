// Building OpenCL programs with messages a student can act on: on failure, the compiler's
// file:line diagnostics first, then the options and every device's full build log.
#pragma once

#include "workbook/cl.hpp"
#include "workbook/kernels.hpp"

#include <string>
#include <vector>

namespace workbook {

// One "file:line:column: severity: message" line of a compiler log.
struct Diagnostic {
    std::string file;
    int line = 0;
    int column = 0;
    std::string severity;  // "error", "warning", "note"
    std::string message;
};

// The diagnostics in a build log, in order. Lines of other shapes are skipped.
std::vector<Diagnostic> parse_build_log(const std::string& log);

// Maps a diagnostic to the .cl file. `source_path` is what the `#line 1` prefix named: a compiler
// that honoured it reports that file and the right line. One that ignores #line (NVIDIA's says
// "<kernel>") counts the prefix as line 1, so its lines are one too high.
Diagnostic locate_in_source(Diagnostic d, const std::string& source_path);

// Builds `source` for every device of `context`. A `#line 1 "<path>"` directive goes in front
// of the text so that compilers name the real .cl file, not a temporary copy.
// Throws workbook::BuildError on failure.
cl::Program build_program(const cl::Context& context, const KernelSource& source, const std::string& options = "");

// The text build_program hands the OpenCL compiler for `source` and `options`: preprocessed, with
// a #line naming the source. (The checker names its own kernels to the OpenCL broker by it.)
std::string program_text(const KernelSource& source, const std::string& options = "");

}  // namespace workbook
