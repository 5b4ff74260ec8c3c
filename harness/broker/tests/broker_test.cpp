// Tests of the OpenCL broker: each case starts workbook-broker with a secret on one end of a
// socketpair and the test client (over the forwarding ICD) on the other, then checks what the
// client printed and what the broker reported.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <fstream>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr const char* secret_line = "1234";  // vadd_secret's hidden last argument

struct Outcome {
    int client_status = -1;
    int broker_status = -1;
    std::map<std::string, std::string> out;  // the client's key=value lines
    std::string report;
};

std::string drain(int fd) {
    std::string text;
    char chunk[4096];
    for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) > 0;) text.append(chunk, static_cast<std::size_t>(n));
    ::close(fd);
    return text;
}

int exit_status(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Keeps `fd` open across exec in the child.
void inherit(int fd) { ::fcntl(fd, F_SETFD, 0); }

pid_t start_client(std::vector<std::string> args, int broker_fd, int out_fd) {
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    // Debian's ocl-icd 2.3.1 ignores OCL_ICD_FILENAMES (the Khronos loader's variable) and takes
    // OCL_ICD_VENDORS naming a library as the only ICD; set both.
    ::setenv("OCL_ICD_FILENAMES", WORKBOOK_BROKER_ICD, 1);
    ::setenv("OCL_ICD_VENDORS", WORKBOOK_BROKER_ICD, 1);
    if (broker_fd >= 0) {
        inherit(broker_fd);
        ::setenv("WORKBOOK_BROKER_FD", std::to_string(broker_fd).c_str(), 1);
    } else {
        ::unsetenv("WORKBOOK_BROKER_FD");
    }
    ::dup2(out_fd, 1);
    std::vector<char*> argv{const_cast<char*>(WORKBOOK_BROKER_CLIENT)};
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
}

std::map<std::string, std::string> parse(const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (const auto eq = line.find('='); eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
    return out;
}

// Runs the client in `mode` against a fresh broker; with `peek`, the client is told the broker's pid.
Outcome brokered(const std::string& mode, bool peek = false) {
    int sv[2], options[2], report[2], out[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    REQUIRE(::pipe2(options, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(report, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    const pid_t broker = ::fork();
    if (broker == 0) {
        for (int fd : {sv[0], options[0], report[1]}) inherit(fd);
        const auto a = std::to_string(sv[0]), b = std::to_string(options[0]), c = std::to_string(report[1]);
        ::execl(WORKBOOK_BROKER_SERVER, WORKBOOK_BROKER_SERVER, "--socket-fd", a.c_str(), "--options-fd", b.c_str(),
                "--report-fd", c.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(sv[0]);
    ::close(options[0]);
    ::close(report[1]);
    // The secret, then the sources that alone get it (the test's kernel files, as the checker's).
    // vadd_secret indexes its buffers up to n: a launch on smaller ones is refused.
    std::string secret = std::string(secret_line) + "\nvadd_secret:n:1\n";
    for (const char* f : {"broker_test.cl", "broker_broken.cl"}) {
        std::ifstream in(std::string(WORKBOOK_BROKER_TEST_DIR) + "/" + f);
        std::stringstream text;
        text << in.rdbuf();
        secret += text.str() + '\0';
    }
    REQUIRE(::write(options[1], secret.data(), secret.size()) == static_cast<ssize_t>(secret.size()));
    ::close(options[1]);
    // Let the broker make itself non-dumpable before anyone looks at it.
    if (peek) ::usleep(200 * 1000);
    std::vector<std::string> args{mode};
    if (peek) args.push_back(std::to_string(broker));
    const pid_t client = start_client(args, sv[1], out[1]);
    ::close(sv[1]);
    ::close(out[1]);
    Outcome o;
    o.out = parse(drain(out[0]));
    o.client_status = exit_status(client);
    o.report = drain(report[0]);
    o.broker_status = exit_status(broker);
    return o;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a vector add of awkward length runs on the device with the secret added") {
    Outcome o = brokered("vadd");
    CHECK(o.client_status == 0);
    CHECK(o.broker_status == 0);
    CHECK(o.out["count"] == "1000003");
    CHECK(o.out["offsets"] == "1234");  // every element: a + b + the secret, set only by the broker
    CHECK(contains(o.report, R"("name":"vadd_secret")"));
    CHECK(contains(o.report, R"("global":[1000003])"));
}

TEST_CASE("a tiled matmul with a 2D range and local memory arguments") {
    Outcome o = brokered("matmul");
    CHECK(o.client_status == 0);
    CHECK(o.out["max_error"] == "0");
    CHECK(contains(o.report, R"("name":"matmul_tiled")"));
    CHECK(contains(o.report, R"("local":[8,8])"));
}

TEST_CASE("profiling times come from the device's event") {
    Outcome o = brokered("profile");
    REQUIRE(o.client_status == 0);
    REQUIRE(o.out.count("start"));
    const auto start = std::stoull(o.out["start"]), end = std::stoull(o.out["end"]);
    CHECK(start > 0);
    CHECK(end >= start);
    CHECK(contains(o.report, "\"start_ns\":" + o.out["start"]));
}

TEST_CASE("map and unmap, for reading and for writing, and USE_HOST_PTR") {
    Outcome o = brokered("map");
    CHECK(o.client_status == 0);
    CHECK(o.out["map_read_ok"] == "1");
    CHECK(o.out["map_write_ok"] == "1");
    CHECK(o.out["use_host_ptr_ok"] == "1");
}

TEST_CASE("only the checker's own sources get the secret, and none of the client's options") {
    Outcome o = brokered("leak");
    CHECK(o.client_status == 0);
    // A kernel of the runner's own is not built where the checker named its sources (it would run
    // in the broker's process): an OpenCL error, and nothing written out.
    CHECK(o.out["own_kernel_err"] != "0");
    CHECK(o.out["own_kernel_value"] == "none");
    // The checker's kernel built with the client's own -Dworkbook_secret=1: the broker's 1234 all the same.
    CHECK(o.out["offset_with_client_define"] == "1234");
}

TEST_CASE("the secret argument is not there for the client: one argument fewer, its index invalid") {
    Outcome o = brokered("hidden");
    CHECK(o.client_status == 0);
    CHECK(o.out["num_args"] == "4");
    CHECK(o.out["set_hidden_err"] == "-49");       // CL_INVALID_ARG_INDEX
    CHECK(o.out["info_hidden_err"] == "-49");
    CHECK(o.out["info_last_name"] == "n");
    CHECK(o.out["set_past_err"] == "-49");
    // Every kernel of the program made at once gets it too; one without the argument is as it was.
    CHECK(o.out["all_kernels_offset"] == "1234");
    CHECK(o.out["scale_num_args"] == "2");
}

TEST_CASE("a launch of the checker's kernel on buffers smaller than it indexes is refused") {
    Outcome o = brokered("bounds");
    CHECK(o.client_status == 0);
    CHECK(o.out["within"] == "0");         // n = 100 on buffers of 100: runs
    CHECK(o.out["past"] == "-52");         // n = 4096 on buffers of 100: CL_INVALID_KERNEL_ARGS
    CHECK(o.out["null_buffer"] == "-52");  // a null pointer for a buffer: refused too
    CHECK(o.out["scale_unbounded"] == "0");  // a kernel without a bound runs as before
}

TEST_CASE("the secret never reaches the client") {
    Outcome o = brokered("secrets");
    CHECK(o.client_status == 0);
    CHECK(o.out["source_has_secret"] == "0");
    CHECK(o.out["build_options"] == "-DCLIENT_OPT=7");
    CHECK(o.out["log_has_secret"] == "0");
    CHECK(o.out["binary_bytes"] == "0");
    CHECK(o.out["binary_program_err"] == "-59");  // CL_INVALID_OPERATION
    CHECK(contains(o.out["kernel_names"], "vadd_secret"));
}

TEST_CASE("a build error comes back with its log, line number and no secret") {
    Outcome o = brokered("buildlog");
    CHECK(o.client_status == 0);
    CHECK(o.out["build_err"] == "-11");  // CL_BUILD_PROGRAM_FAILURE
    CHECK(o.out["log_has_line"] == "1");
    CHECK(o.out["log_has_secret"] == "0");
}

TEST_CASE("without WORKBOOK_BROKER_FD the ICD offers no platform") {
    int out[2];
    REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    const pid_t client = start_client({"noplatform"}, -1, out[1]);
    ::close(out[1]);
    const auto printed = parse(drain(out[0]));
    CHECK(exit_status(client) == 0);
    CHECK(printed.at("platforms") == "0");
}

TEST_CASE("the broker's memory cannot be read by its client") {
    Outcome o = brokered("peek", true);
    CHECK(o.client_status == 0);
    CHECK(o.out["control_open"] == "ok");  // the same check succeeds on a dumpable process
    CHECK(o.out["mem_open"] == "denied");
}
