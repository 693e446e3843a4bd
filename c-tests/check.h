/*
 * Check macros shared by the C tests: count checks and failures, print each
 * failure with its place and the values involved, and never stop at the first.
 */
#ifndef MUBLAS_C_TESTS_CHECK_H
#define MUBLAS_C_TESTS_CHECK_H

#include <mublas.h>
#include <stdio.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        checks++;                                                          \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            printf("  FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
        }                                                                  \
    } while (0)

#define CHECK_STATUS(call, expected)                                                             \
    do {                                                                                         \
        mublasStatus_t got_ = (call);                                                            \
        CHECK(got_ == (expected), "%s returned %d (%s), expected %d (%s)", #call, got_,          \
              mublasGetStatusName(got_), (expected), mublasGetStatusName(expected));             \
    } while (0)

#endif /* MUBLAS_C_TESTS_CHECK_H */
