# The contest's web server (serve.cpp: the projector page, the board API and the upload
# endpoint), its test helper and the end-to-end test with headless Chromium. Included from
# contest/CMakeLists.txt after workbook_contest (which must hold judge.cpp: serve calls judge_next).
find_package(nlohmann_json REQUIRED)  # nlohmann-json3-dev
find_package(Threads REQUIRED)
# libcpp-httplib-dev: Debian builds httplib as a shared library (libcpp-httplib.so.0.11), and its
# header must see the same CPPHTTPLIB_*_SUPPORT definitions, which only the pkg-config file gives.
find_package(PkgConfig REQUIRED)
pkg_check_modules(CPP_HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)

add_library(workbook_contest_serve STATIC "${CMAKE_CURRENT_LIST_DIR}/serve.cpp" "${CMAKE_CURRENT_LIST_DIR}/http_gate.cpp")
target_link_libraries(workbook_contest_serve
  PUBLIC workbook_contest
  PRIVATE nlohmann_json::nlohmann_json PkgConfig::CPP_HTTPLIB Threads::Threads)

# The helper of the end-to-end test: serve with the judge off, record runs, upload, get.
add_executable(contest_serve_test "${CMAKE_CURRENT_LIST_DIR}/serve_test_main.cpp")
target_link_libraries(contest_serve_test PRIVATE workbook_contest_serve PkgConfig::CPP_HTTPLIB Threads::Threads)

# Needs the Debian package chromium (skipped, exit 77, where it is missing).
add_test(NAME contest.web
  COMMAND bash "${PROJECT_SOURCE_DIR}/tests/contest/web_chromium.sh" "$<TARGET_FILE:contest_serve_test>"
          "${PROJECT_BINARY_DIR}/contest-web")
set_tests_properties(contest.web PROPERTIES LABELS e2e TIMEOUT 120 SKIP_RETURN_CODE 77)

# The server against real clients on 127.0.0.1 (python3; no OpenCL, no judge): one identity per
# student (tokens, bound aliases, per-student limits, look-alike aliases over HTTP), and 40 slow
# clients with the board still answering within a second.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME contest.roster
    COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/tests/contest/server_test.py" roster
            "$<TARGET_FILE:contest_serve_test>" "${PROJECT_BINARY_DIR}/contest-roster")
  add_test(NAME contest.slow_clients
    COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/tests/contest/server_test.py" slow
            "$<TARGET_FILE:contest_serve_test>" "${PROJECT_BINARY_DIR}/contest-slow-clients")
  set_tests_properties(contest.roster contest.slow_clients PROPERTIES LABELS e2e TIMEOUT 180)
endif()
