// The course's trees and names (see course_tree.hpp).
#include "workbook/harness/course_tree.hpp"

#include "workbook/errors.hpp"

#include <fmt/format.h>

namespace workbook::harness {

CourseTree::CourseTree(fs::path root, fs::path build)
    : root_(std::move(root)), build_(std::move(build)), course_(load_course(root_ / "course.toml")) {}

const Exercise& CourseTree::find(const std::string& key) const {
    if (const Exercise* ex = course_.find(key)) return *ex;
    std::string ids;
    for (const auto& ex : course_.exercises) ids += (ids.empty() ? "" : ", ") + ex.id;
    throw Error(fmt::format("no exercise \"{}\": give its number ({}), its name or its folder (`workbook list` shows "
                            "them)",
                            key, ids));
}

}  // namespace workbook::harness
