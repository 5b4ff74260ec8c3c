// Seeds and the splitmix64 generator (see random.hpp).
#include "workbook/random.hpp"

#include "workbook/errors.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <random>

namespace workbook {

std::uint64_t session_seed() {
    static const std::uint64_t seed = [] {
        if (const char* v = std::getenv("WORKBOOK_SEED"); v && *v) {
            char* end = nullptr;
            const auto value = std::strtoull(v, &end, 10);
            if (*end != '\0')
                throw Error(fmt::format("WORKBOOK_SEED=\"{}\" is not a whole number.\nFix: set it to a seed a "
                                        "previous run printed, or unset it for a fresh one.",
                                        v));
            return static_cast<std::uint64_t>(value);
        }
        // 31 bits keep the printed seed short enough to retype.
        return static_cast<std::uint64_t>(std::random_device{}() & 0x7fffffffu);
    }();
    return seed;
}

std::string seed_banner(std::uint64_t seed) { return fmt::format("seed {} (repeat with WORKBOOK_SEED={})", seed, seed); }

Rng Rng::derived(std::uint64_t base, std::string_view purpose, std::uint64_t index) {
    const std::uint64_t h = fnv1a(purpose.data(), purpose.size());  // mixed with base and index
    Rng mix(base ^ h ^ (index * 0x9e3779b97f4a7c15ull));
    return Rng(mix.next_u64());
}

std::uint64_t Rng::next_u64() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float Rng::uniform(float lo, float hi) {
    const float unit = static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    return lo + (hi - lo) * unit;
}

std::vector<float> Rng::uniform_vector(std::size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (auto& x : v) x = uniform(lo, hi);
    return v;
}

std::uint64_t random_u64() {
    std::random_device rd;
    return (std::uint64_t{rd()} << 32) ^ rd();
}

std::string random_hex(int bytes) {
    std::random_device rd;
    std::string out;
    for (int i = 0; i < bytes; ++i) out += fmt::format("{:02x}", rd() & 0xff);
    return out;
}

}  // namespace workbook
