// Grading matmul rungs, the checker's side (see testing.hpp).
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

namespace workbook::testing {

MatmulSizes matmul_size_classes(const matmul::Rung& rung) {
    // Drawn from the run's seed (the grader's is secret), so no size is known before the run.
    const int g = std::max(3, rung.group_extent);
    auto r = rng("matmul sizes");
    auto draw = [&](int lo, int hi) { return lo + static_cast<int>(r.next_u64() % static_cast<std::uint64_t>(hi - lo + 1)); };
    // Remainders modulo g the simulator can afford (Oclgrind's time grows as N^3).
    const int most = std::min(g - 1, 40);
    MatmulSizes s;
    s.small = {1, draw(2, most), g <= 32 ? g + 1 + 2 * draw(0, std::min(8, (g - 2) / 2)) : g + 1};
    // Large: a whole number of groups near 65..160 and 200..320, plus a remainder; then whole
    // groups only, near 1024 (the class where no edge test is needed).
    auto groups_near = [&](int lo, int hi) {
        const int target = draw(lo, hi);
        return std::max(g, target - target % g);
    };
    const int medium = groups_near(65, 160) + draw(0, most), large = groups_near(200, 320) + draw(0, most);
    s.large = {medium, large, std::max(g, 1024 - g * draw(0, 3))};
    // The race pass's stand-in for each large size: the same remainder modulo g (one whole group
    // more when that is 0 or 1), so every test of N against the tile, a vector width or a power of
    // two up to the group goes the way it goes at the large size.
    for (const int n : s.large) s.mirrors.push_back(n % g >= 2 ? n % g : g + n % g);
    return s;
}

std::vector<int> matmul_sizes(const matmul::Rung& rung) {
    const MatmulSizes c = matmul_size_classes(rung);
    // Oclgrind's time grows as N^3 (N = 70 was 85% of a rung's pass): the simulator runs the small
    // sizes and the mirrors, none past one group and a half. The device runs them too, and the
    // large sizes: every size the race pass checks is also graded, so a kernel cannot tell the
    // two passes apart by N below the large sizes.
    std::vector<int> all = c.small;
    all.insert(all.end(), c.mirrors.begin(), c.mirrors.end());
    if (!small_sizes_only()) all.insert(all.end(), c.large.begin(), c.large.end());
    std::vector<int> sizes;
    for (int n : all) sizes.push_back(rung.max_n > 0 ? std::min(n, rung.max_n) : n);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

bool check_matmul_kernel(const matmul::Rung& rung, const std::string& shape) {
    const bool simulator_options = race_pass() && !rung.race_build_options.empty();
    if (simulator_options)
        MESSAGE(fmt::format("under the race pass the kernel is built with {} as well: {}", rung.race_build_options, rung.race_why));
    for (const int n : matmul_sizes(rung)) {
        const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
        auto r = rng("matmul", static_cast<std::uint64_t>(n));
        const auto a = r.uniform_vector(elements), b = r.uniform_vector(elements);
        Output c(elements);
        runner::Message request;
        request.numbers["n"] = n;
        request.arrays["a"] = padded(a);
        request.arrays["b"] = padded(b);
        request.arrays["c"] = c.initial();
        if (simulator_options) request.text["race_options"] = rung.race_build_options;
        if (!shape.empty()) request.text["shape"] = shape;
        const auto reply = call("matmul", std::move(request));
        const std::string guard = c.take(reply.array("c", c.whole()));
        const auto expected = matmul::expected(n, a, b);
        const auto result = compare(expected.c, c.values(), matmul::tolerance(n), expected.magnitude);
        const std::string what = fmt::format("mmul with N = {} ({}{})", n, shape.empty() ? "" : shape + "; ", reply.str("launch"));
        CHECK_MESSAGE(guard.empty(), fmt::format("{}: {} ({})", what, guard, repeat_hint()));
        CHECK_MESSAGE(result.ok(), fmt::format("{}: {} ({})", what, matmul::describe(n, result), repeat_hint()));
        if (!guard.empty() || !result.ok()) return false;  // one clear failure beats a screenful
    }
    return true;
}

}  // namespace workbook::testing
