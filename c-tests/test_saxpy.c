/*
 * mublasSaxpy through the public header, on a GPU, against a float64 CPU
 * reference. Device memory and streams come from the CUDA driver (dlopen'ed,
 * cuda_driver.h); no CUDA runtime or toolkit is needed.
 *
 * Case matrix: n in {-1, 0, 1, 7, 31, 33, 1000, 4097} x incx, incy in
 * {1, -1, 3, -3} x x and y each at a 256-byte aligned address or one float past
 * it x alpha random or 0 x pointer mode host or device (alpha in device memory)
 * x the legacy default stream or a created one.
 *
 * Every case: fresh random data (never zero); every buffer has guard zones of
 * poison before and after, and poison between strided elements; afterwards x
 * is bitwise unchanged, y is unchanged outside its n elements, and each element
 * is within 4 * 2^-24 * (|alpha*x| + |y|) of the float64 reference (NaN never
 * passes). alpha = 0 and n <= 0 leave y bitwise untouched.
 *
 * Without a GPU it prints why and exits with MUBLAS_TEST_SKIP_CODE, which
 * CTest reports as skipped. MUBLAS_TEST_SEED=<decimal> replays a run's data.
 */
#define _POSIX_C_SOURCE 200809L

#include <mublas.h>

#include "cuda_driver.h"
#include "gpu_test.h"
#include "random.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

static const int sizes[] = {-1, 0, 1, 7, 31, 33, 1000, 4097};
static const int increments[] = {1, -1, 3, -3};
static const int offsets[] = {0, 1};

enum { MAX_N = 4097, MAX_INC = 3 };
/* Floats of poison on each side of a vector: 256 bytes, so that an offset of 0
 * keeps cuMemAlloc's alignment and an offset of 1 breaks it. */
enum { GUARD = 64 };
enum { MAX_LEN = GUARD + 1 + (MAX_N - 1) * MAX_INC + 1 + GUARD };

/* Distinct finite poisons: a stray write of alpha*x_poison + y_poison cannot
 * reproduce y's poison bit for bit. */
static const float X_POISON = 1.0e30f;
static const float Y_POISON = -3.0e29f;

/* ---- helpers ---- */

static uint32_t bits_of(float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

static float *device_floats(CUdeviceptr base, int offset_floats) {
    return (float *)(uintptr_t)(base + (CUdeviceptr)offset_floats * sizeof(float));
}

/* ---- one case ---- */

struct saxpy_case {
    int n, incx, incy, offx, offy;
    int zero_alpha;
    int mode;                 /* MUBLAS_POINTER_MODE_* */
    int created_stream;       /* 0: legacy default stream */
};

struct buffers {
    CUdeviceptr x, y, alpha;  /* device */
    CUstream stream;          /* the created one */
    float x_host[MAX_LEN], y_init[MAX_LEN], x_back[MAX_LEN], y_back[MAX_LEN];
};

static int failed_cases = 0;
enum { MAX_REPORTED = 10 };

static void report(const struct saxpy_case *c, float alpha, const char *what, int at, float got, double want) {
    failed_cases++;
    if (failed_cases > MAX_REPORTED) {
        return;
    }
    printf("  FAILED case n=%d incx=%d incy=%d offx=%d offy=%d alpha=%.9g mode=%s stream=%s: %s at buffer index %d: "
           "got %.9g (0x%08x), want %.9g\n",
           c->n, c->incx, c->incy, c->offx, c->offy, (double)alpha,
           c->mode == MUBLAS_POINTER_MODE_HOST ? "host" : "device", c->created_stream ? "created" : "default", what,
           at, (double)got, (unsigned)bits_of(got), want);
}

static void run_case(mublasHandle_t handle, struct buffers *b, const struct saxpy_case *c) {
    const int n = c->n;
    const int x_len = GUARD + c->offx + span(n, c->incx) + GUARD;
    const int y_len = GUARD + c->offy + span(n, c->incy) + GUARD;
    const int x0 = GUARD + c->offx; /* where the vector's storage starts */
    const int y0 = GUARD + c->offy;

    for (int i = 0; i < x_len; i++) b->x_host[i] = X_POISON;
    for (int i = 0; i < y_len; i++) b->y_init[i] = Y_POISON;
    for (int i = 0; i < n; i++) {
        b->x_host[x0 + element_index(i, n, c->incx)] = random_value();
        b->y_init[y0 + element_index(i, n, c->incy)] = random_value();
    }
    const float alpha = c->zero_alpha ? 0.0f : 2.0f * random_value(); /* in [-2, -1/8] U [1/8, 2] */

    CU_CHECK(cu.cuMemcpyHtoD(b->x, b->x_host, (size_t)x_len * sizeof(float)));
    CU_CHECK(cu.cuMemcpyHtoD(b->y, b->y_init, (size_t)y_len * sizeof(float)));
    const float *alpha_arg = &alpha;
    if (c->mode == MUBLAS_POINTER_MODE_DEVICE) {
        CU_CHECK(cu.cuMemcpyHtoD(b->alpha, &alpha, sizeof alpha));
        alpha_arg = device_floats(b->alpha, 0);
    }
    /* Uploads done before a (possibly non-blocking) stream reads them. */
    CU_CHECK(cu.cuCtxSynchronize());

    mublasStatus_t status = mublasSaxpy(handle, n, alpha_arg, device_floats(b->x, x0), c->incx,
                                        device_floats(b->y, y0), c->incy);
    if (status != MUBLAS_STATUS_SUCCESS) {
        report(c, alpha, mublasGetStatusName(status), -1, 0.0f, 0.0);
        return;
    }
    if (c->created_stream) {
        CU_CHECK(cu.cuStreamSynchronize(b->stream));
    } else {
        CU_CHECK(cu.cuCtxSynchronize());
    }
    CU_CHECK(cu.cuMemcpyDtoH(b->x_back, b->x, (size_t)x_len * sizeof(float)));
    CU_CHECK(cu.cuMemcpyDtoH(b->y_back, b->y, (size_t)y_len * sizeof(float)));

    /* x: read only, guards and gaps included. */
    for (int i = 0; i < x_len; i++) {
        if (bits_of(b->x_back[i]) != bits_of(b->x_host[i])) {
            report(c, alpha, "x changed", i, b->x_back[i], (double)b->x_host[i]);
            return;
        }
    }
    /* y: the n elements against the reference; everything else untouched. */
    const int untouched = n <= 0 || c->zero_alpha;
    static unsigned char is_element[MAX_LEN];
    memset(is_element, 0, (size_t)y_len);
    for (int i = 0; i < n; i++) {
        const int yi = y0 + element_index(i, n, c->incy);
        const int xi = x0 + element_index(i, n, c->incx);
        is_element[yi] = 1;
        const float got = b->y_back[yi];
        if (untouched) {
            if (bits_of(got) != bits_of(b->y_init[yi])) {
                report(c, alpha, "y changed although alpha is 0", yi, got, (double)b->y_init[yi]);
                return;
            }
            continue;
        }
        const double ax = (double)alpha * (double)b->x_host[xi];
        const double want = ax + (double)b->y_init[yi];
        const double tolerance = 4.0 * EPS_F32 * (absolute(ax) + absolute((double)b->y_init[yi]));
        const double error = absolute((double)got - want);
        if (!(error <= tolerance)) { /* NaN fails */
            report(c, alpha, "wrong element", yi, got, want);
            return;
        }
    }
    for (int i = 0; i < y_len; i++) {
        if (!is_element[i] && bits_of(b->y_back[i]) != bits_of(b->y_init[i])) {
            report(c, alpha, i < y0 || i >= y_len - GUARD ? "y guard zone written" : "y gap written", i,
                   b->y_back[i], (double)b->y_init[i]);
            return;
        }
    }
}

int main(void) {
    printf("test_saxpy: mublasSaxpy against a float64 reference, with guard zones\n");
    mublasHandle_t handle = NULL;
    const int started = gpu_test_start("test_saxpy", &handle);
    if (started != 0) {
        return started;
    }

    const uint64_t seed = random_start();

    static struct buffers b;
    CU_CHECK(cu.cuMemAlloc(&b.x, MAX_LEN * sizeof(float)));
    CU_CHECK(cu.cuMemAlloc(&b.y, MAX_LEN * sizeof(float)));
    CU_CHECK(cu.cuMemAlloc(&b.alpha, sizeof(float)));
    CU_CHECK(cu.cuStreamCreate(&b.stream, 1 /* CU_STREAM_NON_BLOCKING: no implicit sync with stream 0 */));

    int cases = 0;
    for (int mode = MUBLAS_POINTER_MODE_HOST; mode <= MUBLAS_POINTER_MODE_DEVICE; mode++) {
        if (mublasSetPointerMode(handle, mode) != MUBLAS_STATUS_SUCCESS) {
            printf("FAIL: test_saxpy: mublasSetPointerMode(%d) failed\n", mode);
            return 1;
        }
        for (int created = 0; created <= 1; created++) {
            if (mublasSetStream(handle, created ? b.stream : NULL) != MUBLAS_STATUS_SUCCESS) {
                printf("FAIL: test_saxpy: mublasSetStream failed\n");
                return 1;
            }
            for (int s = 0; s < COUNT(sizes); s++)
                for (int ix = 0; ix < COUNT(increments); ix++)
                    for (int iy = 0; iy < COUNT(increments); iy++)
                        for (int ox = 0; ox < COUNT(offsets); ox++)
                            for (int oy = 0; oy < COUNT(offsets); oy++)
                                for (int zero_alpha = 0; zero_alpha <= 1; zero_alpha++) {
                                    const struct saxpy_case c = {sizes[s], increments[ix], increments[iy],
                                                                 offsets[ox], offsets[oy], zero_alpha, mode, created};
                                    run_case(handle, &b, &c);
                                    cases++;
                                }
        }
    }

    CU_CHECK(cu.cuMemFree(b.x));
    CU_CHECK(cu.cuMemFree(b.y));
    CU_CHECK(cu.cuMemFree(b.alpha));
    if (mublasDestroy(handle) != MUBLAS_STATUS_SUCCESS) {
        printf("  FAILED mublasDestroy\n");
        failed_cases++;
    }
    CU_CHECK(cu.cuStreamDestroy(b.stream));

    printf("  %d cases: n in {-1,0,1,7,31,33,1000,4097} x incx,incy in {1,-1,3,-3} x offsets {0,1}^2 "
           "x alpha {random,0} x pointer mode {host,device} x stream {default,created}; %d failed\n",
           cases, failed_cases);
    if (failed_cases != 0) {
        printf("FAIL: test_saxpy: %d of %d cases failed (replay with MUBLAS_TEST_SEED=%llu)\n", failed_cases, cases,
               (unsigned long long)seed);
        return 1;
    }
    printf("PASS: test_saxpy: %d cases\n", cases);
    return 0;
}
