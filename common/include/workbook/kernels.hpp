// Kernel sources: embedded into each program at build time (cmake/embed_kernels.cmake), or read
// from the directory WORKBOOK_KERNEL_DIR names, so an edited .cl file can be tried without a
// rebuild and a grader can point a prebuilt test at a student's kernels.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "workbook/embedded_kernel.hpp"  // EmbeddedKernel

namespace workbook {

struct KernelSource {
    std::string name;  // "vadd.cl": what programs ask for
    std::string path;  // where it came from, as messages should show it: "exercises/02_vadd/vadd.cl"
    std::string text;
};

// The source called `name`: from $WORKBOOK_KERNEL_DIR/name when that variable is set (an error
// if the file is missing there), else the copy embedded at build time. Throws workbook::Error
// listing the embedded names when there is neither.
KernelSource kernel_source(const std::string& name);

// The copy of `name` embedded at build time, whatever WORKBOOK_KERNEL_DIR says: what reference
// kernels are read from (the speed check's yardsticks), never a file a student can replace.
// Throws workbook::Error like kernel_source() when there is none.
KernelSource embedded_kernel_source(const std::string& name);

// While it lives, kernel_source(name) returns `text` instead of the file: how a runner hands the
// student's host code the checker's own kernel (the witness case of a host exercise, testing.hpp).
// Runner code only, one at a time.
// The source a KernelOverride hands out for `name` (the graded test's own kernel).
KernelSource override_source(const std::string& name, std::string text);

class KernelOverride {
public:
    KernelOverride(std::string name, std::string text);
    ~KernelOverride();
    KernelOverride(const KernelOverride&) = delete;
    KernelOverride& operator=(const KernelOverride&) = delete;
};

// Names of the kernel files this program embeds, in registration order.
std::vector<std::string> embedded_kernel_names();

}  // namespace workbook
