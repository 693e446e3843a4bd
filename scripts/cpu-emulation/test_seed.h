// The random seed of an emulation run: fresh each run, as the GPU tests'
// data is, and printed, so that MUBLAS_TEST_SEED=<seed> replays a failure.
#pragma once

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

inline std::uint64_t test_seed(const char *program) {
    std::uint64_t seed;
    if (const char *given = std::getenv("MUBLAS_TEST_SEED"); given && *given) {
        seed = std::strtoull(given, nullptr, 0);
    } else {
        const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
        seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ now;
    }
    std::printf("%s: random data from seed %" PRIu64 " (MUBLAS_TEST_SEED=%" PRIu64 " replays it)\n", program, seed, seed);
    return seed;
}
