// Unit tests: the checker's side of the runner protocol against runners that lie about their
// reply. A runner is student code: what it announces must not size the checker's memory.
#include "workbook/runner.hpp"

#include <doctest/doctest.h>

#include <string>

#include <sys/resource.h>

using workbook::runner::Client;

namespace {

long peak_rss_kib() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// A runner in Python: reads one request from fd 3 and answers with `reply` (a Python bytes
// expression) on fd 4, then waits to be stopped.
Client fake_runner(const std::string& reply) {
    const std::string script = "import os, struct, time\n"
                               "n = struct.unpack('<Q', os.read(3, 8))[0]\n"
                               "while n > 0: n -= len(os.read(3, min(n, 65536)))\n"
                               "os.write(4, " + reply + ")\n"
                               "time.sleep(30)\n";
    return Client({"python3", "-c", script}, false);
}

}  // namespace

TEST_CASE("runner protocol: a reply announced far past what the call expects is refused before it is allocated") {
    const long before = peak_rss_kib();
    Client liar = fake_runner("struct.pack('<Q', 1 << 30)");  // "1 GiB follows", then nothing
    workbook::runner::Message request;
    request.arrays["a"] = std::vector<float>(1000, 1.0f);
    try {
        liar.call("vector_sum_kernel", std::move(request));
        FAIL("a reply announced at 1 GiB was accepted");
    } catch (const workbook::runner::ProtocolError& e) {
        const std::string what = e.what();
        CHECK(what.find("announced a reply of 1073741824 bytes") != std::string::npos);
        CHECK(what.find("vector_sum_kernel") != std::string::npos);
    }
    // Measured: the refusal costs the checker nothing near the announced size (an allocation of
    // it, touched by the read, would show as 1 GiB here).
    CHECK(peak_rss_kib() - before < 64 * 1024);
}

TEST_CASE("runner protocol: a call that expects a large reply says so, and only that much is allowed") {
    Client liar = fake_runner("struct.pack('<Q', 5 << 20)");
    try {
        liar.call("matmul_timed", {}, std::size_t{4} << 20);
        FAIL("a reply of 5 MiB was accepted where 4 MiB were expected");
    } catch (const workbook::runner::ProtocolError& e) {
        CHECK(std::string(e.what()).find("at most 4194304 are expected") != std::string::npos);
    }
}
