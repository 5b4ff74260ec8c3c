// Grading matmul rungs, the checker's side (see testing.hpp).
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

namespace workbook::testing {

std::vector<int> matmul_sizes(const matmul::Rung& rung) {
    std::vector<int> sizes;
    // Oclgrind's time grows as N^3 (N = 70 was 85% of a rung's pass). What it looks for (races
    // inside a work-group and between two, unguarded edges, uninitialised reads) needs two
    // work-groups and a partial one along each dimension, no more: the least N that has them.
    const std::vector<int> all = small_sizes_only() ? std::vector<int>{1, 17, 33, rung.group_extent + 1}
                                                    : std::vector<int>{1, 17, 100, 257, 1024};
    for (int n : all)
        sizes.push_back(rung.max_n > 0 ? std::min(n, rung.max_n) : n);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

void check_matmul_kernel(const matmul::Rung& rung) {
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
        const auto reply = call("matmul", std::move(request));
        const std::string guard = c.take(reply.array("c", c.whole()));
        const auto expected = matmul::expected(n, a, b);
        const auto result = compare(expected.c, c.values(), matmul::tolerance(n), expected.magnitude);
        const std::string what = fmt::format("mmul with N = {} ({})", n, reply.str("launch"));
        CHECK_MESSAGE(guard.empty(), fmt::format("{}: {} ({})", what, guard, repeat_hint()));
        CHECK_MESSAGE(result.ok(), fmt::format("{}: {} ({})", what, matmul::describe(n, result), repeat_hint()));
        if (!guard.empty() || !result.ok()) return;  // one clear failure beats a screenful
    }
}

}  // namespace workbook::testing
