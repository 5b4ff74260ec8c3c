// What the generated files of embedded kernels include (cmake/embed_kernels.cmake,
// make_defs/embed_kernels.sh): one registration class and nothing heavier, since some 170 such
// files are compiled (kernels.hpp's <string> and <vector> cost 0.2 s of the processor in each).
#pragma once

#include <cstddef>

namespace workbook {

// Registers one embedded file. Only generated code creates these, as static objects.
class EmbeddedKernel {
public:
    EmbeddedKernel(const char* name, const char* path, const char* text, std::size_t size);
};

}  // namespace workbook
