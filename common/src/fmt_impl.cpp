// fmt's compiled half, once for the whole project. Built header-only, fmt compiled its formatting
// code again in each of some 120 translation units (about 3 s of the processor each at -O2: a
// quarter of the whole build); linking libfmt.so instead would stop the binaries running on
// machines without it (the GPU machine, ../../../shared/GPU.md). So the headers are used as a
// library's, and this file is that library: its definitions, and the few templates format.h
// declares as instantiated elsewhere.
#ifndef FMT_HEADER_ONLY
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl<char>(locale_ref) -> char;
template FMT_API auto decimal_point_impl<wchar_t>(locale_ref) -> wchar_t;
}  // namespace detail
FMT_END_NAMESPACE
#endif
