// Unit tests: the checker's expected C and magnitude in one pass, and the grader's cache of them
// (WORKBOOK_REFERENCE_CACHE): same values as computed, a damaged file ignored, no cache below 128.
#include "workbook/matmul.hpp"
#include "workbook/random.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace workbook;

TEST_CASE("expected: C by hand for a 2x2, magnitude with the signs dropped") {
    const std::vector<float> a{1, -2, 3, 4}, b{5, 6, -7, 8};
    const auto e = matmul::expected(2, a, b);
    CHECK(e.c == std::vector<float>{19, -10, -13, 50});               // 1·5 + (-2)(-7), 1·6 + (-2)·8, ...
    CHECK(e.magnitude == std::vector<float>{19, 22, 43, 50});         // 5 + 14, 6 + 16, 15 + 28, 18 + 32
    CHECK(e.c == matmul::reference(2, a, b));
    CHECK(e.magnitude == matmul::magnitude(2, a, b));
}

TEST_CASE("expected: the blocked, threaded sums equal the plain loops bit for bit at awkward N") {
    // 261: threads on (N >= 256), rows not a multiple of the block of 4, columns past one slice
    // of 256; 5: fewer rows than a block.
    for (const int n : {261, 5}) {
        Rng r(static_cast<std::uint64_t>(n) * 31);
        const auto a = r.uniform_vector(static_cast<std::size_t>(n) * n), b = r.uniform_vector(static_cast<std::size_t>(n) * n);
        const auto e = matmul::expected(n, a, b);
        CHECK(e.c == matmul::reference(n, a, b));
        CHECK(e.magnitude == matmul::magnitude(n, a, b));
    }
}

TEST_CASE("expected: kept in WORKBOOK_REFERENCE_CACHE and read back; a damaged file is recomputed") {
    char folder[] = "/tmp/workbook-expected-test-XXXXXX";
    REQUIRE(mkdtemp(folder));
    ::setenv("WORKBOOK_REFERENCE_CACHE", folder, 1);
    const int n = 130;
    Rng r(4242);
    const auto a = r.uniform_vector(static_cast<std::size_t>(n) * n), b = r.uniform_vector(static_cast<std::size_t>(n) * n);
    const auto first = matmul::expected(n, a, b);
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(folder)) files.push_back(f.path());
    REQUIRE(files.size() == 1);
    CHECK(first.c == matmul::reference(n, a, b));
    // Read back: a file whose C is changed shows the change, so the second call did read it.
    {
        std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
        const float planted = 12345.0f;
        f.write(reinterpret_cast<const char*>(&planted), sizeof planted);
    }
    CHECK(matmul::expected(n, a, b).c[0] == 12345.0f);
    // Cut short: ignored and recomputed, and the whole file written again.
    fs::resize_file(files[0], 100);
    CHECK(matmul::expected(n, a, b).c == first.c);
    CHECK(fs::file_size(files[0]) == 2 * sizeof(float) * n * n);
    // Other inputs, another file; a small N is never kept.
    auto b2 = b;
    b2[0] += 1.0f;
    CHECK(matmul::expected(n, a, b2).c != first.c);
    matmul::expected(17, std::vector<float>(289, 1.0f), std::vector<float>(289, 1.0f));
    CHECK(std::distance(fs::directory_iterator(folder), fs::directory_iterator()) == 2);
    ::unsetenv("WORKBOOK_REFERENCE_CACHE");
    fs::remove_all(folder);
}
