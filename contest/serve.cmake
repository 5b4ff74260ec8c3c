# The contest's web server (serve.cpp: the projector page, the board API and the upload
# endpoint), its test helper and the end-to-end test with headless Chromium. Included from
# contest/CMakeLists.txt after workbook_contest (which must hold judge.cpp: serve calls judge_next).
# cpp-httplib comes from the top-level CMakeLists.txt (PkgConfig::CPP_HTTPLIB: Debian's shared
# library with the definitions its header must see).
find_package(nlohmann_json REQUIRED)  # nlohmann-json3-dev
find_package(Threads REQUIRED)

add_library(workbook_contest_serve STATIC "${CMAKE_CURRENT_LIST_DIR}/serve.cpp" "${CMAKE_CURRENT_LIST_DIR}/http_gate.cpp"
  "${CMAKE_CURRENT_LIST_DIR}/slurm_jobs.cpp" "${CMAKE_CURRENT_LIST_DIR}/http_json.cpp" "${CMAKE_CURRENT_LIST_DIR}/client.cpp" "${CMAKE_CURRENT_LIST_DIR}/http_client.cpp"
  "${CMAKE_CURRENT_LIST_DIR}/lab.cpp" "${CMAKE_CURRENT_LIST_DIR}/lab_routes.cpp" "${CMAKE_CURRENT_LIST_DIR}/remote_check.cpp")
target_link_libraries(workbook_contest_serve
  PUBLIC workbook_contest nlohmann_json::nlohmann_json PkgConfig::CPP_HTTPLIB
  PRIVATE Threads::Threads)

# The helper of the end-to-end test: serve with the judge off, record runs, upload, get.
add_executable(contest_serve_test "${CMAKE_CURRENT_LIST_DIR}/serve_test_main.cpp")
target_link_libraries(contest_serve_test PRIVATE workbook_contest_serve PkgConfig::CPP_HTTPLIB Threads::Threads)

# The page in headless Chromium (the test's script still skips, exit 77, where it is missing).
workbook_part(WORKBOOK_TEST_CONTEST_WEB "the contest page's test in headless Chromium (contest.web)"
  PACKAGES chromium PROGRAMS chromium)
if(WORKBOOK_TEST_CONTEST_WEB)
  add_test(NAME contest.web
    COMMAND bash "${PROJECT_SOURCE_DIR}/tests/contest/web_chromium.sh" "$<TARGET_FILE:contest_serve_test>"
            "${PROJECT_BINARY_DIR}/contest-web")
  set_tests_properties(contest.web PROPERTIES LABELS e2e TIMEOUT 120 SKIP_RETURN_CODE 77)
endif()

# The server against real clients on 127.0.0.1 (python3; no OpenCL, no judge): one identity per
# student (tokens, bound aliases, per-student limits, look-alike aliases over HTTP), and 40 slow
# clients with the board still answering within a second.
find_package(Python3 COMPONENTS Interpreter)
workbook_part(WORKBOOK_TEST_CONTEST_SERVER "the contest server's tests with Python clients (contest.roster, contest.slow_clients, contest.window)"
  PACKAGES python3 FOUND Python3_Interpreter_FOUND)
if(WORKBOOK_TEST_CONTEST_SERVER)
  add_test(NAME contest.roster
    COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/tests/contest/server_test.py" roster
            "$<TARGET_FILE:contest_serve_test>" "${PROJECT_BINARY_DIR}/contest-roster")
  add_test(NAME contest.slow_clients
    COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/tests/contest/server_test.py" slow
            "$<TARGET_FILE:contest_serve_test>" "${PROJECT_BINARY_DIR}/contest-slow-clients")
  # A contest with a start and an end: opened and closed by time and by hand, frozen, an entry
  # withdrawn, all exported (the instructor's verbs through `workbook`, from another process).
  add_test(NAME contest.window
    COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/tests/contest/window_test.py"
            "$<TARGET_FILE:contest_serve_test>" "$<TARGET_FILE:workbook>" "${PROJECT_BINARY_DIR}/contest-window")
  # The participant's client (`contest submit|status|board --server`, `contest check`) against a real server.
  add_test(NAME contest.client
    COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/tests/contest/client_test.py"
            "$<TARGET_FILE:contest_serve_test>" "$<TARGET_FILE:workbook>" "${PROJECT_BINARY_DIR}/contest-client"
            "${PROJECT_SOURCE_DIR}")
  set_tests_properties(contest.roster contest.slow_clients contest.window contest.client PROPERTIES LABELS e2e TIMEOUT 180)
endif()
