// Unit tests: seeded generators.
#include "workbook/random.hpp"

#include <doctest/doctest.h>

TEST_CASE("the same seed gives the same numbers, another seed others") {
    workbook::Rng a(42), b(42), c(43);
    const auto x = a.uniform_vector(100), y = b.uniform_vector(100), z = c.uniform_vector(100);
    CHECK(x == y);
    CHECK(x != z);
}

TEST_CASE("uniform stays in [lo, hi) and covers it") {
    workbook::Rng r(7);
    float lo = 1.0f, hi = -1.0f;
    for (int i = 0; i < 10000; ++i) {
        const float v = r.uniform(-1.0f, 1.0f);
        REQUIRE(v >= -1.0f);
        REQUIRE(v < 1.0f);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    CHECK(lo < -0.99f);
    CHECK(hi > 0.99f);
}

TEST_CASE("derived generators differ by purpose and index, and repeat") {
    const auto a = workbook::Rng::derived(1, "vadd", 13).next_u64();
    CHECK(a == workbook::Rng::derived(1, "vadd", 13).next_u64());
    CHECK(a != workbook::Rng::derived(1, "vadd", 14).next_u64());
    CHECK(a != workbook::Rng::derived(1, "vadd_abc", 13).next_u64());
    CHECK(a != workbook::Rng::derived(2, "vadd", 13).next_u64());
}

TEST_CASE("the seed banner says how to repeat the run") {
    CHECK(workbook::seed_banner(99) == "seed 99 (repeat with WORKBOOK_SEED=99)");
}
