/*
 * Random test data for the C tests: SplitMix64, as the Rust tests' harness,
 * seeded from MUBLAS_TEST_SEED (decimal) when set, else from the clock.
 */
#ifndef MUBLAS_C_TESTS_RANDOM_H
#define MUBLAS_C_TESTS_RANDOM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng_state;

static uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [-1, -1/16] U [1/16, 1]: signed, never zero, never tiny. */
static float random_value(void) {
    uint64_t bits = next_u64();
    double magnitude = 0.0625 + 0.9375 * ((double)(bits >> 11) / 9007199254740992.0);
    return (float)((bits & 1) == 0 ? magnitude : -magnitude);
}

static uint64_t seed_from_env(void) {
    const char *text = getenv("MUBLAS_TEST_SEED");
    if (text != NULL && *text != '\0') {
        char *end = NULL;
        unsigned long long seed = strtoull(text, &end, 10);
        if (end != NULL && *end == '\0') {
            return (uint64_t)seed;
        }
        printf("  MUBLAS_TEST_SEED=%s is not a decimal number: ignored\n", text);
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

/* Seeds the generator (seed_from_env) and prints the seed, which replays the run. */
static uint64_t random_start(void) {
    const uint64_t seed = seed_from_env();
    rng_state = seed;
    printf("  MUBLAS_TEST_SEED=%llu\n", (unsigned long long)seed);
    return seed;
}

#endif /* MUBLAS_C_TESTS_RANDOM_H */
