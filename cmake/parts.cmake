# The parts of the build a student can do without (the contest, the bench's library rows, the
# tests that need the instructor's tools). `scripts/setup.sh` installs only the student's packages,
# so each such part is left out when what it needs is missing, and configure says once, at the
# end, what was left out and which packages bring it back. -DWORKBOOK_REQUIRE_ALL=ON (what
# `scripts/setup.sh --all` configures with) turns that into an error: the test suite's build
# never skips a part silently.
#
#   workbook_part(<var> "<what it is>" PACKAGES <Debian packages> [PROGRAMS <names>] [FOUND <vars>])
#     sets <var> ON when every program is on PATH and every FOUND variable is true, OFF otherwise
#     (and records the part and its packages for workbook_report_parts()).
#   workbook_report_parts()  the one message (or error) naming every part left out.

option(WORKBOOK_REQUIRE_ALL "fail at configure time when a part of the build is left out (the test suite's build)" OFF)

function(workbook_part var what)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "PACKAGES;PROGRAMS;FOUND")
  set(missing "")
  foreach(program IN LISTS arg_PROGRAMS)
    string(MAKE_C_IDENTIFIER "WORKBOOK_PROGRAM_${program}" cached)
    find_program(${cached} ${program})
    if(NOT ${cached})
      list(APPEND missing "${program}")
    endif()
  endforeach()
  foreach(found IN LISTS arg_FOUND)
    if(NOT ${found})
      list(APPEND missing "${found}")
    endif()
  endforeach()
  if(missing)
    set(${var} OFF PARENT_SCOPE)
    set_property(GLOBAL APPEND PROPERTY WORKBOOK_LEFT_OUT "${what}")
    set_property(GLOBAL APPEND PROPERTY WORKBOOK_LEFT_OUT_PACKAGES ${arg_PACKAGES})
  else()
    set(${var} ON PARENT_SCOPE)
  endif()
endfunction()

function(workbook_report_parts)
  get_property(parts GLOBAL PROPERTY WORKBOOK_LEFT_OUT)
  if(NOT parts)
    message(STATUS "Every part of the workbook is in this build (contest, bench rows, all tests)")
    return()
  endif()
  get_property(packages GLOBAL PROPERTY WORKBOOK_LEFT_OUT_PACKAGES)
  list(REMOVE_DUPLICATES packages)
  list(JOIN packages " " packages)
  set(text "Left out of this build, as their Debian packages are not installed:")
  foreach(part IN LISTS parts)
    string(APPEND text "\n  - ${part}")
  endforeach()
  string(APPEND text "\nThe exercises and the `workbook` command do not need them. To build them too, run as\n"
                     "root (or with sudo):\n  apt-get install ${packages}\n"
                     "then scripts/setup.sh again; or scripts/setup.sh --all, which installs them itself.")
  if(WORKBOOK_REQUIRE_ALL)
    message(FATAL_ERROR "WORKBOOK_REQUIRE_ALL is ON (scripts/setup.sh --all, the test suite's build): no part may be "
                        "left out.\n${text}")
  endif()
  message(NOTICE "${text}")
endfunction()
