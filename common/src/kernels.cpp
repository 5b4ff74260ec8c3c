// The registry behind kernel_source(): a function-local static, so registration from generated
// static objects works whatever the order of static initialisation.
#include "workbook/kernels.hpp"
#include "workbook/text.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace workbook {
namespace {

std::vector<KernelSource>& registry() {
    static std::vector<KernelSource> sources;
    return sources;
}

std::optional<KernelSource>& override_slot() {
    static std::optional<KernelSource> slot;
    return slot;
}

}  // namespace

KernelSource override_source(const std::string& name, std::string text) {
    return KernelSource{name, name + " (the graded test's own kernel, in place of yours)", std::move(text)};
}

KernelOverride::KernelOverride(std::string name, std::string text) { override_slot() = override_source(name, std::move(text)); }

KernelOverride::~KernelOverride() { override_slot().reset(); }

EmbeddedKernel::EmbeddedKernel(const char* name, const char* path, const char* text, std::size_t size) {
    registry().push_back(KernelSource{name, path, std::string(text, size)});
}

std::vector<std::string> embedded_kernel_names() {
    std::vector<std::string> names;
    for (const auto& k : registry()) names.push_back(k.name);
    return names;
}

KernelSource kernel_source(const std::string& name) {
    if (const auto& o = override_slot(); o && o->name == name) return *o;
    if (const char* dir = std::getenv("WORKBOOK_KERNEL_DIR"); dir && *dir) {
        const auto path = std::filesystem::path(dir) / name;
        // The grader's checkers read a student's kernels from a folder the student's runner can
        // write: a plain file of sane size, or an error (never a wait on a FIFO).
        std::string text;
        try {
            text = read_plain_file(path, 4 << 20);
        } catch (const Error& e) {
            throw Error(fmt::format("WORKBOOK_KERNEL_DIR={} is set, but {}.\n"
                                    "Fix: put {} there, or unset WORKBOOK_KERNEL_DIR to use the copy built into "
                                    "this program.",
                                    dir, e.what(), name));
        }
        return KernelSource{name, path.string(), text};
    }
    return embedded_kernel_source(name);
}

KernelSource embedded_kernel_source(const std::string& name) {
    for (const auto& k : registry())
        if (k.name == name) return k;
    const auto names = embedded_kernel_names();
    throw Error(fmt::format("no kernel source called {} is built into this program (it has: {}).\n"
                            "Fix: check the name, or set WORKBOOK_KERNEL_DIR to a directory holding {}.",
                            name, names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", ")), name));
}

}  // namespace workbook
