// Seeded random inputs. One session seed (WORKBOOK_SEED, or drawn fresh and printed) derives
// every stream, so a failure can be repeated exactly. The generator is our own (splitmix64), so
// the same seed gives the same numbers with every compiler and standard library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace workbook {

// WORKBOOK_SEED when set (an error if it is not a number), else a fresh random seed; the same
// value for the whole process.
std::uint64_t session_seed();

// "seed 1234 (repeat with WORKBOOK_SEED=1234)"
std::string seed_banner(std::uint64_t seed);

// `bytes` bytes from the system's random device, as hex: names and nonces no one can guess.
std::string random_hex(int bytes);
// 64 bits from the system's random device (a fresh seed).
std::uint64_t random_u64();

class Rng {
public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}
    // A generator for one named purpose ("vadd", size 1000) derived from a base seed: changing
    // one test's sizes doesn't change another's inputs.
    static Rng derived(std::uint64_t base, std::string_view purpose, std::uint64_t index = 0);

    std::uint64_t next_u64();
    // Uniform in [lo, hi), with 24 random bits, so every value is exactly a float.
    float uniform(float lo, float hi);
    std::vector<float> uniform_vector(std::size_t n, float lo = -1.0f, float hi = 1.0f);

private:
    std::uint64_t state_;
};

}  // namespace workbook
