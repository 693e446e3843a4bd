/*
 * What the C tests that need a GPU share: their start (the CUDA driver,
 * device 0 made current and a mublas handle on it), and the indexing and
 * rounding unit of their float64 checks.
 */
#ifndef MUBLAS_C_TESTS_GPU_TEST_H
#define MUBLAS_C_TESTS_GPU_TEST_H

#include <mublas.h>
#include <stdio.h>

#include "cuda_driver.h"

#ifndef MUBLAS_TEST_SKIP_CODE
#define MUBLAS_TEST_SKIP_CODE 77
#endif

/* Loads the driver, makes device 0's primary context current (as the CUDA
 * runtime does on first use; mublasCreate binds to that device) and creates a
 * handle. Returns 0 when all that worked; otherwise the test's exit code,
 * after printing why: MUBLAS_TEST_SKIP_CODE without a GPU, 1 on a failure. */
static int gpu_test_start(const char *test, mublasHandle_t *handle) {
    char why[512];
    if (cuda_driver_open(why, sizeof why) != 0) {
        printf("SKIPPED: %s: no CUDA device (%s)\n", test, why);
        return MUBLAS_TEST_SKIP_CODE;
    }
    if (cuda_driver_use_device(0, why, sizeof why) != 0) {
        printf("FAIL: %s: %s\n", test, why);
        return 1;
    }
    *handle = NULL;
    mublasStatus_t status = mublasCreate(handle);
    if (status != MUBLAS_STATUS_SUCCESS || *handle == NULL) {
        printf("FAIL: %s: mublasCreate returned %s on a machine with a GPU\n", test, mublasGetStatusName(status));
        return 1;
    }
    return 0;
}

static const double EPS_F32 = 5.9604644775390625e-08; /* 2^-24 */

static inline double absolute(double v) { return v < 0 ? -v : v; }

/* Storage index of element i of a vector of n elements with increment inc, reference-BLAS style. */
static inline int element_index(int i, int n, int inc) { return inc >= 0 ? i * inc : (i - (n - 1)) * inc; }

/* Floats of storage that n elements with increment inc span. */
static inline int span(int n, int inc) { return n <= 0 ? 0 : (n - 1) * (inc < 0 ? -inc : inc) + 1; }

#endif /* MUBLAS_C_TESTS_GPU_TEST_H */
