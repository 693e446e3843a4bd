/*
 * A handle that outlives a device reset. cudaDeviceReset resets the primary
 * context (cuDevicePrimaryCtxReset): every allocation, module and event in it
 * is gone, and the next runtime call retains it again. cuBLAS asks programs to
 * destroy their handles first; cuBLAS 13.1's own handle crashed in
 * cublasDestroy after a reset (H200, driver 580), and so did mublas's in 4
 * runs of 20, unloading its stale modules. mublas's must not crash: a call on
 * the old handle returns MUBLAS_STATUS_EXECUTION_FAILED and writes nothing,
 * mublasDestroy succeeds, and a handle created afterwards (while the old one
 * still lives, and after it is gone) computes on the new memory. ROUNDS
 * rounds, as the crash was intermittent.
 *
 * SAXPY on n = 4099 fresh random elements, checked against a float64
 * reference within 4 * 2^-24 * (|alpha*x| + |y|). Without a GPU (or a driver
 * without cuDevicePrimaryCtxReset_v2) it prints why and exits with
 * MUBLAS_TEST_SKIP_CODE.
 */
#define _POSIX_C_SOURCE 200809L

#include <mublas.h>

#include "cuda_driver.h"
#include "gpu_test.h"
#include "random.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { N = 4099, ROUNDS = 16 };

static const char *const TEST = "test_reset";
static float x_host[N], y_host[N], y_back[N];

/* x and y of N floats in the current context, holding x_host and y_host. */
static void upload(CUdeviceptr *x, CUdeviceptr *y) {
    CU_CHECK(cu.cuMemAlloc(x, sizeof x_host));
    CU_CHECK(cu.cuMemAlloc(y, sizeof y_host));
    CU_CHECK(cu.cuMemcpyHtoD(*x, x_host, sizeof x_host));
    CU_CHECK(cu.cuMemcpyHtoD(*y, y_host, sizeof y_host));
}

static float *as_floats(CUdeviceptr p) { return (float *)(uintptr_t)p; }

/* y = alpha * x + y on `handle`, expected to succeed and match the reference. */
static int saxpy_matches(mublasHandle_t handle, CUdeviceptr x, CUdeviceptr y, float alpha, const char *what) {
    const mublasStatus_t status = mublasSaxpy(handle, N, &alpha, as_floats(x), 1, as_floats(y), 1);
    if (status != MUBLAS_STATUS_SUCCESS) {
        printf("FAIL: %s: SAXPY %s returned %s\n", TEST, what, mublasGetStatusName(status));
        return 0;
    }
    CU_CHECK(cu.cuCtxSynchronize());
    CU_CHECK(cu.cuMemcpyDtoH(y_back, y, sizeof y_back));
    for (int i = 0; i < N; ++i) {
        const double want = (double)alpha * x_host[i] + y_host[i];
        const double bound = 4 * EPS_F32 * (absolute((double)alpha * x_host[i]) + absolute(y_host[i]));
        if (!(absolute(y_back[i] - want) <= bound)) {
            printf("FAIL: %s: SAXPY %s: y[%d] = %.9g, expected %.9g\n", TEST, what, i, y_back[i], want);
            return 0;
        }
    }
    return 1;
}

/* One round on `old`, a handle made before the reset; 1 when it passed. */
static int round_passes(mublasHandle_t old, int round) {
    for (int i = 0; i < N; ++i) {
        x_host[i] = random_value();
        y_host[i] = random_value();
    }
    const float alpha = random_value();
    CUdeviceptr x = 0, y = 0;
    upload(&x, &y);
    if (!saxpy_matches(old, x, y, alpha, "before the reset")) {
        return 0;
    }

    CUdevice device = 0;
    CU_CHECK(cu.cuDeviceGet(&device, 0));
    CU_CHECK(cu.cuDevicePrimaryCtxReset(device));
    /* What the runtime does at its next call: the primary context again, current. */
    char why[512];
    if (cuda_driver_use_device(0, why, sizeof why) != 0) {
        printf("FAIL: %s: round %d: after the reset: %s\n", TEST, round, why);
        return 0;
    }
    CUdeviceptr x2 = 0, y2 = 0;
    upload(&x2, &y2);

    const mublasStatus_t stale = mublasSaxpy(old, N, &alpha, as_floats(x2), 1, as_floats(y2), 1);
    if (stale != MUBLAS_STATUS_EXECUTION_FAILED) {
        printf("FAIL: %s: round %d: SAXPY on the handle made before the reset returned %s, expected "
               "MUBLAS_STATUS_EXECUTION_FAILED\n",
               TEST, round, mublasGetStatusName(stale));
        return 0;
    }
    CU_CHECK(cu.cuCtxSynchronize());
    CU_CHECK(cu.cuMemcpyDtoH(y_back, y2, sizeof y_back));
    if (memcmp(y_back, y_host, sizeof y_back) != 0) {
        printf("FAIL: %s: round %d: the failed SAXPY wrote y\n", TEST, round);
        return 0;
    }
    /* A new handle while the old one lives, then one after it is gone. */
    mublasHandle_t beside = NULL;
    mublasStatus_t status = mublasCreate(&beside);
    if (status != MUBLAS_STATUS_SUCCESS) {
        printf("FAIL: %s: round %d: mublasCreate after the reset returned %s\n", TEST, round, mublasGetStatusName(status));
        return 0;
    }
    if (!saxpy_matches(beside, x2, y2, alpha, "on a handle made after the reset")) {
        return 0;
    }
    status = mublasDestroy(old);
    if (status != MUBLAS_STATUS_SUCCESS) {
        printf("FAIL: %s: round %d: mublasDestroy of the handle made before the reset returned %s\n", TEST, round,
               mublasGetStatusName(status));
        return 0;
    }
    CU_CHECK(cu.cuMemcpyHtoD(y2, y_host, sizeof y_host));
    if (!saxpy_matches(beside, x2, y2, alpha, "on that handle once the old one is gone") ||
        mublasDestroy(beside) != MUBLAS_STATUS_SUCCESS) {
        return 0;
    }
    CU_CHECK(cu.cuMemFree(x2));
    CU_CHECK(cu.cuMemFree(y2));
    return 1;
}

int main(void) {
    mublasHandle_t old = NULL;
    const int start = gpu_test_start(TEST, &old);
    if (start != 0) {
        return start;
    }
    if (cu.cuDevicePrimaryCtxReset == NULL) {
        printf("SKIPPED: %s: the driver has no cuDevicePrimaryCtxReset_v2\n", TEST);
        mublasDestroy(old);
        return MUBLAS_TEST_SKIP_CODE;
    }
    random_start();
    for (int round = 0; round < ROUNDS; ++round) {
        if (round > 0 && mublasCreate(&old) != MUBLAS_STATUS_SUCCESS) {
            printf("FAIL: %s: round %d: mublasCreate failed\n", TEST, round);
            return 1;
        }
        if (!round_passes(old, round)) {
            return 1;
        }
    }
    printf("PASS: %s: %d rounds: the old handle's call failed cleanly, its destroy succeeded, new handles compute\n", TEST,
           ROUNDS);
    return 0;
}
