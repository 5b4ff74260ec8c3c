// Grading matmul rungs, the checker's side (see testing.hpp).
#include "workbook/testing.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <map>
#include <memory>

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
    // groups only, near 1024 (the class where no edge test is needed), 1024 itself left out: at a
    // power-of-two row length every row of a naive kernel's work-group falls in the same cache
    // sets, and on a CPU 05's kernel took 3.5 s there against 1.4 s at 1008, for no check the
    // others lack. A rung whose bound is 1024 (08's MAX_N) still meets it: sizes are capped at max_n.
    auto groups_near = [&](int lo, int hi) {
        const int target = draw(lo, hi);
        return std::max(g, target - target % g);
    };
    const int medium = groups_near(65, 160) + draw(0, most), large = groups_near(200, 320) + draw(0, most);
    const int k = draw(0, 3);
    s.large = {medium, large, std::max(g, k == 0 ? 1024 + g : 1024 - g * k)};
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

namespace {
bool values_failed = false;

// A size's inputs (drawn from the seed and N alone, so the same for every shape of exercise 20)
// and their product, started on other threads as soon as the sizes are known: the first request
// spends its time building the kernel on one core, and the product of the largest size (a fifth of
// a second at N = 1024) is then ready when its reply comes.
struct Drawn {
    std::vector<float> a, b;
    std::shared_future<matmul::Expected> expected;  // declared last: destroyed (and waited for) first
};

const Drawn& drawn(int n) {
    static std::map<int, std::unique_ptr<Drawn>> all;
    auto& d = all[n];
    if (!d) {
        d = std::make_unique<Drawn>();
        const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
        auto r = rng("matmul", static_cast<std::uint64_t>(n));
        d->a = r.uniform_vector(elements);
        d->b = r.uniform_vector(elements);
        d->expected = std::async(std::launch::async, [n, p = d.get()] { return matmul::expected(n, p->a, p->b); }).share();
    }
    return *d;
}
}  // namespace

bool matmul_values_failed() { return values_failed; }

bool check_matmul_kernel(const matmul::Rung& rung, const std::string& shape) {
    const bool simulator_options = race_pass() && !rung.race_build_options.empty();
    if (simulator_options)
        MESSAGE(fmt::format("under the race pass the kernel is built with {} as well: {}", rung.race_build_options, rung.race_why));
    const auto sizes = matmul_sizes(rung);
    for (const int n : sizes) drawn(n);
    for (const int n : sizes) {
        const Drawn& inputs = drawn(n);
        Output c(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
        runner::Message request;
        request.numbers["n"] = n;
        request.arrays["a"] = padded(inputs.a);
        request.arrays["b"] = padded(inputs.b);
        request.arrays["c"] = c.initial();
        if (simulator_options) request.text["race_options"] = rung.race_build_options;
        if (!shape.empty()) request.text["shape"] = shape;
        const auto reply = call("matmul", std::move(request));
        const std::string guard = c.take(reply.array("c", c.whole()));
        const matmul::Expected& expected = inputs.expected.get();
        const auto result = compare(expected.c, c.values(), matmul::tolerance(n), expected.magnitude);
        const std::string what = fmt::format("mmul with N = {} ({}{})", n, shape.empty() ? "" : shape + "; ", reply.str("launch"));
        CHECK_MESSAGE(guard.empty(), fmt::format("{}: {} ({})", what, guard, repeat_hint()));
        CHECK_MESSAGE(result.ok(), fmt::format("{}: {} ({})", what, matmul::describe(n, result), repeat_hint()));
        if (!guard.empty() || !result.ok()) {
            values_failed = true;
            return false;  // one clear failure beats a screenful
        }
    }
    return true;
}

}  // namespace workbook::testing
