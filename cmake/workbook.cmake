# The course's CMake vocabulary:
#   workbook_read_manifest(<course.toml>)  reads the exercise list (in order) and each exercise's
#                                          edited and kernel files into global properties
#   workbook_exercise()                    in an exercise folder: its demo and its graded test,
#                                          built against the starter, the solution and each
#                                          planted-bug mutant, registered with CTest
#
# Conventions of an exercise folder exercises/NN_name/: main.cpp is the demo, test.cpp the graded
# test, the manifest's `edit` files are what the student writes, and any header there is the API
# that the test and the student's code share.

# A small reader for the subset of TOML that course.toml uses for these keys (strings and flat
# arrays of strings). tests/course_check.cpp compares what it finds with toml++'s reading.
# The order of a clean `ctest -j2` (no timings from an earlier run): ctest starts a test that runs
# alone (RUN_SERIAL: the speed checks) only when nothing else runs, which in practice leaves them to
# the end; the long end-to-end tests start first (their COST, tests/CMakeLists.txt), so that none
# of them is still running there, holding the serial ones back with one core idle (as make.path
# did for 7 minutes). Among the serial ones, this COST puts them before any other test ready then.
set(WORKBOOK_SERIAL_COST 100000)

function(workbook_read_manifest manifest)
  file(READ "${manifest}" text)
  string(REGEX REPLACE "(^|\n)[ \t]*#[^\n]*" "\\1" text "${text}")
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[[exercise]]" ";" blocks "${text}")
  list(POP_FRONT blocks)  # the [course] table
  set(dirs "")
  foreach(block IN LISTS blocks)
    string(REGEX MATCH "\nid *= *\"([^\"]*)\"" _ "${block}")
    set(id "${CMAKE_MATCH_1}")
    string(REGEX MATCH "\nname *= *\"([^\"]*)\"" _ "${block}")
    set(dir "${id}_${CMAKE_MATCH_1}")
    if(id STREQUAL "" OR dir MATCHES "_$")
      message(FATAL_ERROR "${manifest}: an [[exercise]] lacks id or name")
    endif()
    foreach(key edit kernels speed_references traffic_references)
      string(REGEX MATCH "\n${key} *= *\\[([^]]*)\\]" _ "${block}")
      string(REGEX MATCHALL "\"[^\"]*\"" quoted "${CMAKE_MATCH_1}")
      string(REPLACE "\"" "" values "${quoted}")
      set_property(GLOBAL PROPERTY WORKBOOK_${dir}_${key} "${values}")
    endforeach()
    string(REGEX MATCH "\ntime_limit_s *= *([0-9]+)" _ "${block}")
    set(limit "${CMAKE_MATCH_1}")
    if(limit STREQUAL "")
      set(limit 60)
    endif()
    set_property(GLOBAL PROPERTY WORKBOOK_${dir}_time_limit "${limit}")
    set(race ON)
    if(block MATCHES "\nrace_check *= *false")
      set(race OFF)
    endif()
    set_property(GLOBAL PROPERTY WORKBOOK_${dir}_race_check "${race}")
    list(APPEND dirs "${dir}")
  endforeach()
  set_property(GLOBAL PROPERTY WORKBOOK_EXERCISES "${dirs}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
endfunction()

# workbook_embed_kernels(<target> <qualify> <files...>): an object library that builds the .cl
# files into whatever links it, each registered under its file name ("mmul.cl"), or with
# <qualify> set to QUALIFIED under "<folder>/<file name>" ("05_mmul_naive/mmul.cl") so that
# several exercises' kernels of the same name can live in one program.
function(workbook_embed_kernels target qualify)
  set(sources ${ARGN})
  set(embedded "${CMAKE_CURRENT_BINARY_DIR}/${target}.cpp")
  add_custom_command(
    OUTPUT "${embedded}"
    COMMAND "${CMAKE_COMMAND}" "-DOUTPUT=${embedded}" "-DROOT=${PROJECT_SOURCE_DIR}" "-DSOURCES=${sources}"
            "-DQUALIFY=${qualify}" -P "${PROJECT_SOURCE_DIR}/cmake/embed_kernels.cmake"
    DEPENDS ${sources} "${PROJECT_SOURCE_DIR}/cmake/embed_kernels.cmake"
    COMMENT "Embedding kernels for ${target}"
    VERBATIM)
  add_library(${target} OBJECT "${embedded}")
  target_link_libraries(${target} PUBLIC workbook_common)
endfunction()

# One line of the build registry that tests/course_check.cpp reads: what CMake built and from
# which files.
function(_workbook_register line)
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_BUILD_REGISTRY "${line}")
endfunction()

# A JSON string literal of `text` (a path, a name) in `out`.
function(_workbook_json_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# One entry of the calibration manifest, build/calibration.json (written by tests/CMakeLists.txt,
# read by `workbook calibrate`): a planted bug (kind mutant) or a correct kernel in an unusual
# style (kind variant), with what the grader's path needs to run it as a student's submission: the
# checker it grades with (the starter's graded test), the runner built from these files, and the
# kernel files to put in its kernel folder; and the solution's graded test, whose run on the same
# seed says which test cases a complete run has. `mark`: RACE or ALSO_RACE as workbook_mutant() got it.
function(_workbook_calibration_entry dir kind name target kernel_paths)
  set(mark "")
  if(kind STREQUAL "mutant" AND WORKBOOK_VARIANT_RACE)
    set(mark RACE)
  elseif(kind STREQUAL "mutant" AND WORKBOOK_VARIANT_ALSO_RACE)
    set(mark ALSO_RACE)
  endif()
  set(kernels "")
  foreach(k IN LISTS kernel_paths)
    _workbook_json_string(q "${k}")
    list(APPEND kernels "${q}")
  endforeach()
  string(JOIN ", " kernels ${kernels})
  _workbook_json_string(name_json "${name}")
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_CALIBRATION_ENTRIES
    "{\"exercise\": \"${dir}\", \"name\": ${name_json}, \"kind\": \"${kind}\", \"mark\": \"${mark}\", \
\"checker\": \"$<TARGET_FILE:ex${dir}_starter_test>\", \"runner\": \"$<TARGET_FILE:${target}_runner>\", \
\"kernels\": [${kernels}], \"reference\": \"$<TARGET_FILE:ex${dir}_solution_test>\"}")
endfunction()

# Builds one variant of an exercise. Each edited file comes from the first of `dirs` that has it.
function(_workbook_variant dir variant)
  set(dirs ${ARGN})
  get_property(edit GLOBAL PROPERTY WORKBOOK_${dir}_edit)
  get_property(kernels GLOBAL PROPERTY WORKBOOK_${dir}_kernels)
  get_property(limit GLOBAL PROPERTY WORKBOOK_${dir}_time_limit)
  set(here "${CMAKE_CURRENT_SOURCE_DIR}")

  set(resolved_edit "")
  set(host_sources "")
  foreach(file IN LISTS edit)
    set(found "")
    foreach(d IN LISTS dirs)
      if(NOT found AND EXISTS "${d}/${file}")
        set(found "${d}/${file}")
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "${dir} (${variant}): no ${file} in ${dirs}")
    endif()
    list(APPEND resolved_edit "${found}")
    if(file MATCHES "\\.(cpp|cc|cxx)$")
      list(APPEND host_sources "${found}")
    endif()
  endforeach()

  set(kernel_paths "")
  foreach(kernel IN LISTS kernels)
    list(FIND edit "${kernel}" edited)
    if(edited GREATER -1)
      list(GET resolved_edit ${edited} path)
    else()
      get_filename_component(path "${here}/${kernel}" ABSOLUTE)
    endif()
    list(APPEND kernel_paths "${path}")
  endforeach()

  set(target "ex${dir}_${variant}")
  workbook_embed_kernels(${target}_kernels "" ${kernel_paths})
  # Variants with the same host files (a kernel-only mutant and the solution) share one compiled
  # copy of them.
  string(MD5 host_key "${here};${host_sources}")
  get_property(host_target GLOBAL PROPERTY WORKBOOK_HOST_${host_key})
  if(NOT host_sources)
    set(host_target "")  # a kernel-only exercise
  elseif(NOT host_target)
    set(host_target "${target}_host")
    add_library(${host_target} OBJECT ${host_sources})
    target_include_directories(${host_target} PUBLIC "${here}")
    target_link_libraries(${host_target} PUBLIC workbook_common)
    set_property(GLOBAL PROPERTY WORKBOOK_HOST_${host_key} "${host_target}")
  endif()
  set(files ${host_target} ${target}_kernels)

  if(variant STREQUAL "starter" OR variant STREQUAL "solution")
    set(demo_name "${dir}")
    if(variant STREQUAL "solution")
      set(demo_name "${dir}-solution")
    endif()
    add_executable(${target}_demo)
    target_link_libraries(${target}_demo PRIVATE ex${dir}_demo_main ${files})
    set_target_properties(${target}_demo PROPERTIES OUTPUT_NAME "${demo_name}"
                          RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
    _workbook_register("demo ${dir} ${variant} $<TARGET_FILE:${target}_demo>")
  endif()

  # The graded test is two programs (harness/runner/include/workbook/runner.hpp): the runner links
  # the student's host code and builds the kernels; the test itself (the checker) links neither,
  # and finds its runner beside it by name (test-NN-x -> runner-NN-x).
  add_executable(${target}_runner)
  target_link_libraries(${target}_runner PRIVATE workbook_runner_main ${files})
  if(TARGET ex${dir}_runner_ops)
    target_link_libraries(${target}_runner PRIVATE ex${dir}_runner_ops)
  endif()
  if(TARGET ex${dir}_references)
    target_link_libraries(${target}_runner PRIVATE ex${dir}_references)
  endif()
  set_target_properties(${target}_runner PROPERTIES OUTPUT_NAME "runner-${dir}-${variant}"
                        RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
  add_executable(${target}_test)
  # The kernels are data here: a test may read a kernel's text (exercise 14), never run it.
  target_link_libraries(${target}_test PRIVATE ex${dir}_test_main ${target}_kernels workbook_testing)
  add_dependencies(${target}_test ${target}_runner)
  set_target_properties(${target}_test PROPERTIES OUTPUT_NAME "test-${dir}-${variant}"
                        RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
  get_property(speed_references GLOBAL PROPERTY WORKBOOK_${dir}_speed_references)
  if(variant STREQUAL "solution" OR variant MATCHES "^variant-")
    # The solution, and each correct kernel in an unusual style, passes.
    list(LENGTH speed_references speed_reference_count)
    if(speed_references AND variant MATCHES "^variant-" AND speed_reference_count EQUAL 2)
      # A correct variant of a rung graded on traffic where speed cannot tell (15-19): here its
      # traffic rule alone (WORKBOOK_SPEED=traffic), untimed and so beside other tests; its speed
      # is checked on the GPU (bench/h200_track_gains.sh variants).
      add_test(NAME "${dir}.${variant}" COMMAND ${target}_test "--test-case-exclude=*speed*")
      add_test(NAME "${dir}.${variant}.traffic" COMMAND ${target}_test "--test-case=*speed*")
      set_tests_properties("${dir}.${variant}.traffic" PROPERTIES ENVIRONMENT "WORKBOOK_SPEED=traffic" TIMEOUT "${limit}"
                           LABELS "graded;traffic;${dir}")
    elseif(speed_references)
      # A rung graded on speed: its correctness beside other tests, its speed check alone
      # (RUN_SERIAL), since a neighbour's load moves the three kernels' times apart.
      add_test(NAME "${dir}.${variant}" COMMAND ${target}_test "--test-case-exclude=*speed*")
      add_test(NAME "${dir}.${variant}.speed" COMMAND ${target}_test "--test-case=*speed*")
      set_tests_properties("${dir}.${variant}.speed" PROPERTIES RUN_SERIAL TRUE COST ${WORKBOOK_SERIAL_COST} TIMEOUT "${limit}"
                           LABELS "graded;speed;${dir}")
    else()
      add_test(NAME "${dir}.${variant}" COMMAND ${target}_test)
    endif()
    # ... and is clean under the race check (exercises with kernels).
    get_property(race_check GLOBAL PROPERTY WORKBOOK_${dir}_race_check)
    if(WORKBOOK_RACE_CHECK AND kernels AND race_check)
      add_test(NAME "${dir}.${variant}.race" COMMAND race_check --expect clean $<TARGET_FILE:${target}_test>)
      set_tests_properties("${dir}.${variant}.race" PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77
                           LABELS "race;${dir};${variant}")
    endif()
  elseif(variant MATCHES "^slow-")
    # A correct kernel without the rung's technique (tests/slow/): its speed check fails it, as
    # too slow (where speed grades, or under a waived requirement's floor) or, where speed cannot
    # tell, as doing the previous rung's traffic. Timed alone (RUN_SERIAL), as every speed check
    # of the suite.
    add_test(NAME "${dir}.${variant}" COMMAND expect_failure --timeout ${limit} --expect-message "Your kernel is correct but"
                                              $<TARGET_FILE:${target}_test>)
    set_tests_properties("${dir}.${variant}" PROPERTIES RUN_SERIAL TRUE COST ${WORKBOOK_SERIAL_COST})
    # ... and, being correct, passes every other case, beside other tests.
    add_test(NAME "${dir}.${variant}.correct" COMMAND ${target}_test "--test-case-exclude=*speed*")
    set_tests_properties("${dir}.${variant}.correct" PROPERTIES TIMEOUT "${limit}" LABELS "graded;${dir}")
  else()
    # The starter must fail its graded test with a reported failure; a mutant may also crash
    # (an out-of-bounds private array, say). A pass, a hang or a missing binary is an error.
    # Given the kernels, a failure of kernels that synchronise is explained by the race pass
    # first, as `workbook check` does; a mutant may require words in that message.
    set(allow "")
    if(variant MATCHES "^mutant-")
      set(allow --allow-crash)
    endif()
    set(expect "")
    foreach(m IN LISTS WORKBOOK_VARIANT_MESSAGES)
      list(APPEND expect --expect-message "${m}")
    endforeach()
    foreach(m IN LISTS WORKBOOK_VARIANT_RACE_MESSAGES)
      list(APPEND expect --expect-race-message "${m}")
    endforeach()
    set(explain "")
    if(WORKBOOK_RACE_CHECK)
      foreach(k IN LISTS kernel_paths)
        list(APPEND explain --kernel "${k}")
      endforeach()
    endif()
    if(WORKBOOK_VARIANT_RACE AND WORKBOOK_RACE_CHECK)
      add_test(NAME "${dir}.${variant}" COMMAND race_check --expect report $<TARGET_FILE:${target}_test>)
    else()
      add_test(NAME "${dir}.${variant}" COMMAND expect_failure ${allow} --timeout ${limit} ${explain} ${expect}
                                                $<TARGET_FILE:${target}_test>)
    endif()
    if(WORKBOOK_VARIANT_ALSO_RACE AND WORKBOOK_RACE_CHECK)
      add_test(NAME "${dir}.${variant}.race" COMMAND race_check --expect report $<TARGET_FILE:${target}_test>)
      set_tests_properties("${dir}.${variant}.race" PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS "race;mutant;${dir}")
    endif()
  endif()
  # The race pass that explains a failure runs after the test: time for both.
  set(test_timeout "${limit}")
  if(NOT variant STREQUAL "solution" AND NOT variant MATCHES "^variant-" AND WORKBOOK_RACE_CHECK)
    math(EXPR test_timeout "${limit} * 3")
  endif()
  set_tests_properties("${dir}.${variant}" PROPERTIES TIMEOUT "${test_timeout}" SKIP_RETURN_CODE 77
                       LABELS "graded;${dir};${variant}")
  if(variant MATCHES "^(mutant|variant)-(.+)$")
    _workbook_calibration_entry(${dir} ${CMAKE_MATCH_1} ${CMAKE_MATCH_2} ${target} "${kernel_paths}")
  endif()
  string(REPLACE ";" "," edit_list "${edit}")
  string(REPLACE ";" "," kernel_list "${kernels}")
  _workbook_register(
    "test ${dir} ${variant} $<TARGET_FILE:${target}_test> edit=${edit_list} kernels=${kernel_list} race=${WORKBOOK_VARIANT_RACE}")
endfunction()

function(workbook_exercise)
  get_filename_component(dir "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  get_property(known GLOBAL PROPERTY WORKBOOK_EXERCISES)
  if(NOT dir IN_LIST known)
    message(FATAL_ERROR "exercises/${dir} is not listed in course.toml")
  endif()
  # Compiled once per exercise, whatever the number of variants.
  add_library(ex${dir}_demo_main OBJECT main.cpp)
  target_include_directories(ex${dir}_demo_main PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(ex${dir}_demo_main PUBLIC workbook_common)
  add_library(ex${dir}_test_main OBJECT test.cpp)
  target_include_directories(ex${dir}_test_main PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(ex${dir}_test_main PUBLIC workbook_testing)
  # runner.cpp: the exercise's own operations for its runner (calls into the student's code).
  if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/runner.cpp")
    add_library(ex${dir}_runner_ops OBJECT runner.cpp)
    target_include_directories(ex${dir}_runner_ops PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
    target_link_libraries(ex${dir}_runner_ops PUBLIC workbook_harness)
  endif()

  # The speed check's references (course.toml's speed_references): the named rungs' solution
  # kernels, embedded into this exercise's runners under "<folder>/mmul.cl". The check runs them
  # in a runner outside the sandbox, which is safe only when that program holds no student code.
  # The traffic check's references (traffic_references, exercises 08-10) are embedded the same way.
  get_property(references GLOBAL PROPERTY WORKBOOK_${dir}_speed_references)
  get_property(traffic_references GLOBAL PROPERTY WORKBOOK_${dir}_traffic_references)
  set(embedded ${references} ${traffic_references})
  if(embedded)
    get_property(edit GLOBAL PROPERTY WORKBOOK_${dir}_edit)
    foreach(file IN LISTS edit)
      if(NOT file MATCHES "\\.cl$")
        message(FATAL_ERROR "course.toml: ${dir} has speed_references or traffic_references but the student edits "
                            "${file}; the check runs the references in the exercise's runner outside the sandbox, so "
                            "that runner must hold no student host code (edit only .cl files)")
      endif()
    endforeach()
    set(paths "")
    list(REMOVE_DUPLICATES embedded)
    foreach(r IN LISTS embedded)
      list(APPEND paths "${PROJECT_SOURCE_DIR}/solutions/${r}/mmul.cl")
    endforeach()
    workbook_embed_kernels(ex${dir}_references QUALIFIED ${paths})
    # What the references' runner is built from besides the student's kernel, for the name under
    # which the test keeps the references' traffic figures (speed_testing.cpp, reference_figures):
    # a save that edits only the kernel rebuilds the runner, but none of these.
    set(built "$<JOIN:$<TARGET_OBJECTS:ex${dir}_references>,;>;$<JOIN:$<TARGET_OBJECTS:workbook_runner_main>,;>")
    if(TARGET ex${dir}_runner_ops)
      string(APPEND built ";$<JOIN:$<TARGET_OBJECTS:ex${dir}_runner_ops>,;>")
    endif()
    # And the checker's library, whose count_traffic turns Oclgrind's counts into the figures.
    string(APPEND built ";$<TARGET_FILE:workbook_harness>;$<TARGET_FILE:workbook_common>;$<TARGET_FILE:workbook_testing>")
    file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/ex${dir}_reference_build.cpp" CONTENT
         "// Generated by cmake/workbook.cmake: what the references' runner is built from besides the student's kernel.\nnamespace workbook::testing {\nconst char* reference_build_files() { return \"${built}\"; }\n}  // namespace workbook::testing\n")
    target_sources(ex${dir}_test_main PRIVATE "${CMAKE_CURRENT_BINARY_DIR}/ex${dir}_reference_build.cpp")
  endif()

  set(solution "${PROJECT_SOURCE_DIR}/solutions/${dir}")
  _workbook_variant(${dir} starter "${CMAKE_CURRENT_SOURCE_DIR}")
  _workbook_variant(${dir} solution "${solution}")
  # Correct kernels in unusual styles: each folder tests/variants/NN_name/<style>/ holds edited
  # files written another way (the rest come from the solution); each must pass like the solution.
  # A correct kernel rejected is as bad as a wrong one accepted.
  if(NOT WORKBOOK_ONLY)
    file(GLOB styles LIST_DIRECTORIES true CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/variants/${dir}/*")
    foreach(style_dir IN LISTS styles)
      if(IS_DIRECTORY "${style_dir}")
        get_filename_component(style "${style_dir}" NAME)
        _workbook_variant(${dir} "variant-${style}" "${style_dir}" "${solution}")
        set_property(TEST "${dir}.variant-${style}" APPEND PROPERTY LABELS variant)
      endif()
    endforeach()
  endif()
  # The speed check can fail a correct kernel: the previous rung's solution in the student's place
  # must be too slow wherever this rung's technique pays, fail on traffic where speed cannot tell
  # and the rung names what its lesson cuts, and be waived (with the gain it measured) otherwise.
  # Where the traffic rules can run (Oclgrind and its plugin: the suite's build), every rung of
  # the track grades on one or the other, so a waiver is a failure of this test
  # (tests/traffic/speed_previous.py).
  # A rung timed against its own solution alone (exercise 20, tuning) has no previous rung: its
  # failing cases are tests/tuning's.
  list(LENGTH references reference_count)
  if(reference_count GREATER 1 AND NOT WORKBOOK_ONLY)
    get_property(limit GLOBAL PROPERTY WORKBOOK_${dir}_time_limit)
    math(EXPR with_traffic "${limit} + 60")  # three launches under Oclgrind after the timing
    if(WORKBOOK_RACE_CHECK AND WORKBOOK_OVERLAP_PLUGIN)
      # ... and the traffic table shows the two solutions' figures as tests/traffic/figures.txt
      # records them (WORKBOOK_TRAFFIC=show counts them even where speed grades).
      add_test(NAME "${dir}.speed-previous" COMMAND python3 "${PROJECT_SOURCE_DIR}/tests/traffic/speed_previous.py"
               $<TARGET_FILE:ex${dir}_solution_test> ${dir} "${PROJECT_SOURCE_DIR}/tests/traffic/figures.txt" ${with_traffic})
      math(EXPR test_limit "${with_traffic} + 10")  # the script's own limit first, with its message
      set_tests_properties("${dir}.speed-previous" PROPERTIES TIMEOUT "${test_limit}" RUN_SERIAL TRUE COST ${WORKBOOK_SERIAL_COST}
                           LABELS "graded;speed;${dir}")
    else()
      add_test(NAME "${dir}.speed-previous" COMMAND ex${dir}_solution_test "--test-case=*speed*")
      set_tests_properties("${dir}.speed-previous" PROPERTIES ENVIRONMENT "WORKBOOK_SPEED_STUDENT=previous"
        PASS_REGULAR_EXPRESSION "too slow for this rung|does the previous rung.s traffic|the speed requirement is waived here"
        TIMEOUT "${limit}" RUN_SERIAL TRUE COST ${WORKBOOK_SERIAL_COST} LABELS "graded;speed;${dir}")
    endif()
  endif()
  # A rung graded on traffic alone (exercises 08-10): the previous rung's solution in the
  # student's place fails its traffic case (WORKBOOK_SPEED_STUDENT=previous, as for speed).
  if(traffic_references AND WORKBOOK_RACE_CHECK AND NOT WORKBOOK_ONLY)
    get_property(limit GLOBAL PROPERTY WORKBOOK_${dir}_time_limit)
    add_test(NAME "${dir}.traffic-previous" COMMAND expect_failure --timeout ${limit} --expect-message "Your kernel is correct but"
                                                  -- $<TARGET_FILE:ex${dir}_solution_test> "--test-case=*traffic*")
    set_tests_properties("${dir}.traffic-previous" PROPERTIES ENVIRONMENT "WORKBOOK_SPEED_STUDENT=previous"
                         LABELS "graded;traffic;${dir}")
  endif()
  # Correct kernels without the rung's technique: tests/slow/NN_name/<style>/ (rungs graded on
  # speed, or on traffic where speed cannot tell).
  if(references AND NOT WORKBOOK_ONLY)
    file(GLOB slow LIST_DIRECTORIES true CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/slow/${dir}/*")
    foreach(style_dir IN LISTS slow)
      if(IS_DIRECTORY "${style_dir}")
        get_filename_component(style "${style_dir}" NAME)
        _workbook_variant(${dir} "slow-${style}" "${style_dir}" "${solution}")
        set_property(TEST "${dir}.slow-${style}" APPEND PROPERTY LABELS speed)
      endif()
    endforeach()
  endif()
  # Planted bugs: tests/mutants/NN_name.cmake calls workbook_mutant() once for each.
  set(mutants "${PROJECT_SOURCE_DIR}/tests/mutants/${dir}.cmake")
  if(EXISTS "${mutants}" AND NOT WORKBOOK_ONLY)
    set(WORKBOOK_MUTANT_EXERCISE "${dir}")
    include("${mutants}")
  endif()
endfunction()

# workbook_mutant(<name> <file> <find> <replace>): the solution with one mistake a student makes.
# <file> is one of the exercise's edited files; the text <find> must occur in the solution's copy
# exactly once and is replaced by <replace>. Write both as bracket arguments ([=[...]=]) so C++ and
# OpenCL text (array indexing included) passes through untouched. The graded test, built against this variant, must fail.
#
# A trailing RACE marks a bug that a CPU device hides (a missing barrier: PoCL runs the work-items
# of a group in an order that gives the right answer anyway). Its test runs under the race check
# (Oclgrind), which must report it; without Oclgrind it is registered but disabled (label `race`).
# A trailing ALSO_RACE marks a bug the graded test catches on the CPU that the race check must
# report as well (a write one past the end, a read of local memory nobody wrote): it adds the
# test `<NN_name>.mutant-<name>.race`.
# MESSAGE <text>... : the failure's message must contain each text (the real cause, named).
# RACE_MESSAGE <text>... : the same, for what the race pass adds in front of it (a divergent
# barrier with its line); the test is skipped when the race check is off.
function(workbook_mutant name file find replace)
  cmake_parse_arguments(PARSE_ARGV 4 opt "RACE;ALSO_RACE" "" "MESSAGE;RACE_MESSAGE")
  set(race "")
  if(opt_RACE)
    set(race 1)
  endif()
  set(also_race "")
  if(opt_ALSO_RACE)
    set(also_race 1)
  endif()
  set(dir "${WORKBOOK_MUTANT_EXERCISE}")
  set(solution "${PROJECT_SOURCE_DIR}/solutions/${dir}/${file}")
  file(READ "${solution}" text)
  string(FIND "${text}" "${find}" first)
  string(FIND "${text}" "${find}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    message(FATAL_ERROR "mutant ${dir}/${name}: the text to replace must occur exactly once in "
                        "solutions/${dir}/${file}; update tests/mutants/${dir}.cmake")
  endif()
  string(REPLACE "${find}" "${replace}" text "${text}")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/mutants/${name}")
  # Written only when it changes, so a reconfigure rebuilds nothing that did not change.
  set(old "")
  if(EXISTS "${out}/${file}")
    file(READ "${out}/${file}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${out}/${file}" "${text}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${solution}")
  set(WORKBOOK_VARIANT_RACE "${race}")
  set(WORKBOOK_VARIANT_ALSO_RACE "${also_race}")
  set(WORKBOOK_VARIANT_MESSAGES "${opt_MESSAGE}")
  set(WORKBOOK_VARIANT_RACE_MESSAGES "${opt_RACE_MESSAGE}")
  _workbook_variant(${dir} "mutant-${name}" "${out}" "${PROJECT_SOURCE_DIR}/solutions/${dir}")
  set_property(TEST "${dir}.mutant-${name}" APPEND PROPERTY LABELS mutant)
  if(race)
    # A CPU device passes it: its test runs under the race check, which must report it, or is
    # disabled when the race check is off.
    set_property(TEST "${dir}.mutant-${name}" APPEND PROPERTY LABELS race)
    set_property(TEST "${dir}.mutant-${name}" PROPERTY SKIP_RETURN_CODE 77)
    if(NOT WORKBOOK_RACE_CHECK)
      set_property(TEST "${dir}.mutant-${name}" PROPERTY DISABLED TRUE)
    endif()
  endif()
endfunction()
