// The random seed of an emulation run: fresh each run, as the GPU tests'
// data is, and printed, so that MUBLAS_TEST_SEED=<seed> replays a failure.
#pragma once

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
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

// A whole number in [low, high], drawn: for the cases drawn afresh each run.
inline long long draw_between(std::mt19937_64 &rng, long long low, long long high) {
    return std::uniform_int_distribution<long long>(low, high)(rng);
}

// One of `choices`, drawn.
template <class T>
T draw(std::mt19937_64 &rng, std::initializer_list<T> choices) {
    return choices.begin()[draw_between(rng, 0, static_cast<long long>(choices.size()) - 1)];
}
