// One program for every compiler. The workbook runs each kernel through the C preprocessor itself,
// with a fixed set of macros and the -D options of its build, before any OpenCL compiler sees it:
// the device's, PoCL's and Oclgrind's (the race pass) then compile the same text. Without this, a
// kernel could test a macro that one compiler defines and another does not (__OPTIMIZE__, a
// vendor's version macro, one pasted together with ##) and hand the race pass another program than
// the one that is graded. Lines stay where they were, so compiler messages name the right line.
#pragma once

#include "workbook/kernels.hpp"

#include <string>

namespace workbook {

struct Preprocessed {
    std::string text;     // the kernel after preprocessing, line k still holding source line k
    std::string options;  // the build options left for the OpenCL compiler (-D, -U and -I are spent)
};

// Preprocesses `source` with `options`' -D/-U. Throws workbook::BuildError, naming the .cl file
// and line, when the source reads files (#include, #embed, __has_include: a kernel is one file), the
// preprocessor reports an error, or what is left names the compiler's reserved namespace (an
// identifier starting with two underscores other than OpenCL's keywords, or an extension macro
// such as cl_khr_fp64), whose value may differ from compiler to compiler.
// The preprocessor is `cpp` (WORKBOOK_CPP overrides), run with no inherited environment, no
// include path, and limits on its time and output.
Preprocessed preprocess(const KernelSource& source, const std::string& options);

// The macros every kernel is preprocessed with: the OpenCL C 1.2 view that every device the
// workbook grades on provides ("__OPENCL_VERSION__=120", ...).
const std::vector<std::string>& fixed_macros();

}  // namespace workbook
