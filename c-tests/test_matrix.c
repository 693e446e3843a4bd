/*
 * mublasSgemv, mublasStrmv and mublasSgemm through the public header, on a
 * GPU, against a float64 CPU reference; then SGEMM (TN) captured into a
 * CUDA graph and launched twice. Device memory, streams and graphs come from
 * the CUDA driver (dlopen'ed, cuda_driver.h); no CUDA runtime is needed.
 *
 * Cases: SGEMV N and T on three shapes (lda past the rows) x incx {1, -2} x
 * incy {1, -3} x A, x and y at an aligned address or one float past it x beta
 * {0.5, 0 over NaN in y}, alternating host and device pointer mode and the
 * default and a created stream; STRMV on n {1, 33, 513} x uplo x trans x diag
 * x incx {1, -2} x offsets {0, 1}; SGEMM on every transpose pair x three
 * shapes x offsets x beta {-0.5, 0 over NaN in C}; alpha = 0 with NaN in A and
 * x (SGEMV, host and device scalars) or A and B (SGEMM), which must not be
 * read, and beta {0.5 or -0.5, 0 over NaN}; bad arguments (nothing
 * written). Every array has poison around it, and between a vector's strided
 * elements, that must be unchanged, and the inputs (A, x, B) must come back as
 * uploaded; each element is within 2·(k + 2)·2^-24
 * of the Σ|terms| of its float64 sum (NaN never passes).
 *
 * Without a GPU it prints why and exits with MUBLAS_TEST_SKIP_CODE, which
 * CTest reports as skipped. MUBLAS_TEST_SEED=<decimal> replays a run's data.
 */
#define _POSIX_C_SOURCE 200809L

#include <mublas.h>

#include "check.h"
#include "cuda_driver.h"
#include "gpu_test.h"
#include "random.h"

#include <math.h> /* NAN */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const float POISON = 1.0e30f;
/* Floats of poison before and after each array: 256 bytes, so that offset 0 keeps cuMemAlloc's alignment. */
enum { GUARD = 64 };


/* ---- device arrays with guard zones ---- */

struct array {
    CUdeviceptr base;
    int offset, len; /* data at GUARD + offset floats */
    float *host;     /* what was uploaded: data, with poison around it */
};

static struct array upload(const float *data, int len, int offset) {
    struct array a = {0, offset, len, NULL};
    const int total = GUARD + offset + len + GUARD;
    a.host = malloc((size_t)total * sizeof(float));
    for (int i = 0; i < total; i++) a.host[i] = POISON;
    memcpy(a.host + GUARD + offset, data, (size_t)len * sizeof(float));
    CU_CHECK(cu.cuMemAlloc(&a.base, (size_t)total * sizeof(float)));
    CU_CHECK(cu.cuMemcpyHtoD(a.base, a.host, (size_t)total * sizeof(float)));
    /* From pageable memory the copy may still be landing when it returns, and a
       kernel on a non-blocking stream (sgemv_case's) would not wait for it. */
    CU_CHECK(cu.cuCtxSynchronize());
    return a;
}

static float *device_address(const struct array *a) {
    return (float *)(uintptr_t)(a->base + (CUdeviceptr)(GUARD + a->offset) * sizeof(float));
}

/* The data after the calls into `out` (len floats); 1 when the poison around it is intact. */
static int download(const struct array *a, float *out) {
    const int total = GUARD + a->offset + a->len + GUARD;
    float *back = malloc((size_t)total * sizeof(float));
    CU_CHECK(cu.cuMemcpyDtoH(back, a->base, (size_t)total * sizeof(float)));
    memcpy(out, back + GUARD + a->offset, (size_t)a->len * sizeof(float));
    int intact = memcmp(back, a->host, (size_t)(GUARD + a->offset) * sizeof(float)) == 0 &&
                 memcmp(back + GUARD + a->offset + a->len, a->host + GUARD + a->offset + a->len,
                        GUARD * sizeof(float)) == 0;
    free(back);
    return intact;
}

/* An input after the calls: the floats as uploaded, the poison around them intact. */
static void check_unchanged(const char *what, const char *name, const struct array *a) {
    float *after = malloc((size_t)(a->len > 0 ? a->len : 1) * sizeof(float));
    const int intact = download(a, after);
    CHECK(intact && memcmp(after, a->host + GUARD + a->offset, (size_t)a->len * sizeof(float)) == 0,
          "%s: %s, or the guard zones around it, written", what, name);
    free(after);
}

static void release(struct array *a) {
    CU_CHECK(cu.cuMemFree(a->base));
    free(a->host);
}

static float *random_floats(int len) {
    float *v = malloc((size_t)(len > 0 ? len : 1) * sizeof(float));
    for (int i = 0; i < len; i++) v[i] = random_value();
    return v;
}


/* Checks one result element; counts and prints failures (the first few of a case). */
static int case_failures;
static void check_element(const char *what, int i, float got, double want, double magnitude, int terms) {
    const double bound = 2.0 * (terms + 2) * EPS_F32 * magnitude + 1e-30;
    const int ok = got == got && absolute((double)got - want) <= bound;
    if (ok || case_failures++ < 3) {
        CHECK(ok, "%s: element %d: got %.9g, want %.9g (bound %.3g)", what, i, got, want, bound);
    } else {
        checks++, failures++; /* counted, not printed */
    }
}

/* A strided vector after the call: its elements against want[], the floats between them unchanged. */
static void check_vector(const char *what, const float *after, const float *before, int n, int inc, const double *want,
                         const double *magnitude, int terms) {
    const int stride = inc < 0 ? -inc : inc;
    int stray = 0;
    for (int s = 0; s < span(n, inc); s++) stray += s % stride != 0 && after[s] != before[s];
    CHECK(stray == 0, "%s: %d floats between the strided elements were written", what, stray);
    for (int i = 0; i < n; i++) check_element(what, i, after[element_index(i, n, inc)], want[i], magnitude[i], terms);
}

/* ---- SGEMV ---- */

static void sgemv_case(mublasHandle_t h, int trans, int m, int n, int lda, int incx, int incy, int offset, float alpha,
                       float beta, int device_mode, CUstream stream) {
    char what[160];
    snprintf(what, sizeof what, "sgemv %c %dx%d lda %d incx %d incy %d offset %d alpha %g beta %g%s%s", trans ? 'T' : 'N',
             m, n, lda, incx, incy, offset, alpha, beta, device_mode ? " device scalars" : "",
             stream ? " created stream" : "");
    const int lx = trans ? m : n, ly = trans ? n : m;
    float *a = random_floats(lda * n), *x = random_floats(span(lx, incx)), *y = random_floats(span(ly, incy));
    if (alpha == 0.0f) { /* NaN: alpha = 0 must read neither A nor x */
        for (int i = 0; i < lda * n; i++) a[i] = NAN;
        for (int i = 0; i < span(lx, incx); i++) x[i] = NAN;
    }
    if (beta == 0.0f)
        for (int i = 0; i < ly; i++) y[element_index(i, ly, incy)] = NAN; /* NaN: beta = 0 must not read it */
    struct array da = upload(a, lda * n, offset), dx = upload(x, span(lx, incx), offset),
                 dy = upload(y, span(ly, incy), offset);
    const float scalars[2] = {alpha, beta};
    struct array ds = upload(scalars, 2, 0);
    CHECK_STATUS(mublasSetPointerMode(h, device_mode ? MUBLAS_POINTER_MODE_DEVICE : MUBLAS_POINTER_MODE_HOST),
                 MUBLAS_STATUS_SUCCESS);
    CHECK_STATUS(mublasSetStream(h, stream), MUBLAS_STATUS_SUCCESS);
    const float *alpha_arg = device_mode ? device_address(&ds) : &scalars[0];
    const float *beta_arg = device_mode ? device_address(&ds) + 1 : &scalars[1];
    CHECK_STATUS(mublasSgemv(h, trans ? MUBLAS_OP_T : MUBLAS_OP_N, m, n, alpha_arg, device_address(&da), lda,
                             device_address(&dx), incx, beta_arg, device_address(&dy), incy),
                 MUBLAS_STATUS_SUCCESS);
    CU_CHECK(stream ? cu.cuStreamSynchronize(stream) : cu.cuCtxSynchronize());
    CHECK_STATUS(mublasSetPointerMode(h, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_SUCCESS);
    double *want = calloc((size_t)ly, sizeof(double)), *magnitude = calloc((size_t)ly, sizeof(double));
    for (int i = 0; i < ly; i++) {
        for (int l = 0; alpha != 0.0f && l < lx; l++) {
            const double term = (double)alpha * (trans ? a[l + i * lda] : a[i + l * lda]) * x[element_index(l, lx, incx)];
            want[i] += term;
            magnitude[i] += absolute(term);
        }
        if (beta != 0.0f) {
            want[i] += (double)beta * y[element_index(i, ly, incy)];
            magnitude[i] += absolute((double)beta * y[element_index(i, ly, incy)]);
        }
    }
    float *after = malloc((size_t)span(ly, incy) * sizeof(float));
    CHECK(download(&dy, after), "%s: the guard zones around y were written", what);
    case_failures = 0;
    check_vector(what, after, y, ly, incy, want, magnitude, lx);
    check_unchanged(what, "A", &da), check_unchanged(what, "x", &dx);
    release(&da), release(&dx), release(&dy), release(&ds);
    free(a), free(x), free(y), free(want), free(magnitude), free(after);
}

/* ---- STRMV ---- */

static void strmv_case(mublasHandle_t h, int n, int uplo, int trans, int unit, int incx, int offset) {
    char what[120];
    snprintf(what, sizeof what, "strmv %c%c%c n %d incx %d offset %d", uplo ? 'U' : 'L', trans ? 'T' : 'N',
             unit ? 'U' : 'N', n, incx, offset);
    const int lda = n + 2;
    float *a = random_floats(lda * n), *x = random_floats(span(n, incx));
    struct array da = upload(a, lda * n, offset), dx = upload(x, span(n, incx), offset);
    CHECK_STATUS(mublasStrmv(h, uplo ? MUBLAS_FILL_MODE_UPPER : MUBLAS_FILL_MODE_LOWER, trans ? MUBLAS_OP_T : MUBLAS_OP_N,
                             unit ? MUBLAS_DIAG_UNIT : MUBLAS_DIAG_NON_UNIT, n, device_address(&da), lda,
                             device_address(&dx), incx),
                 MUBLAS_STATUS_SUCCESS);
    CU_CHECK(cu.cuCtxSynchronize());
    double *want = calloc((size_t)n, sizeof(double)), *magnitude = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++) {
        for (int l = 0; l < n; l++) {
            const int r = trans ? l : i, c = trans ? i : l; /* the element of A that op(A)(i, l) is */
            if (uplo ? r > c : r < c) continue;
            const double entry = r == c && unit ? 1.0 : (double)a[r + c * lda];
            want[i] += entry * x[element_index(l, n, incx)];
            magnitude[i] += absolute(entry * x[element_index(l, n, incx)]);
        }
    }
    float *after = malloc((size_t)span(n, incx) * sizeof(float));
    CHECK(download(&dx, after), "%s: the guard zones around x were written", what);
    case_failures = 0;
    check_vector(what, after, x, n, incx, want, magnitude, n);
    check_unchanged(what, "A", &da);
    release(&da), release(&dx);
    free(a), free(x), free(want), free(magnitude), free(after);
}

/* ---- SGEMM ---- */

struct gemm {
    int ta, tb, m, n, k, lda, ldb, ldc;
    float *a, *b, *c;
    struct array da, db, dc;
};

/* nan_ab: A and B all NaN (for alpha = 0, which must read neither); nan_c: C all NaN (for beta = 0). */
static struct gemm gemm_setup(int ta, int tb, int m, int n, int k, int offset, int nan_ab, int nan_c) {
    struct gemm g = {ta, tb, m, n, k, (ta ? k : m) + 3, (tb ? n : k) + 1, m + 2, NULL, NULL, NULL, {0}, {0}, {0}};
    g.a = random_floats(g.lda * (ta ? m : k));
    g.b = random_floats(g.ldb * (tb ? k : n));
    g.c = random_floats(g.ldc * n);
    if (nan_ab) {
        for (int i = 0; i < g.lda * (ta ? m : k); i++) g.a[i] = NAN;
        for (int i = 0; i < g.ldb * (tb ? k : n); i++) g.b[i] = NAN;
    }
    if (nan_c)
        for (int i = 0; i < g.ldc * n; i++) g.c[i] = NAN;
    g.da = upload(g.a, g.lda * (ta ? m : k), offset);
    g.db = upload(g.b, g.ldb * (tb ? k : n), offset);
    g.dc = upload(g.c, g.ldc * n, offset);
    return g;
}

static mublasStatus_t gemm_call(mublasHandle_t h, const struct gemm *g, float alpha, float beta) {
    return mublasSgemm(h, g->ta ? MUBLAS_OP_T : MUBLAS_OP_N, g->tb ? MUBLAS_OP_T : MUBLAS_OP_N, g->m, g->n, g->k, &alpha,
                       device_address(&g->da), g->lda, device_address(&g->db), g->ldb, &beta, device_address(&g->dc),
                       g->ldc);
}

/* C against alpha·op(A)·op(B) + beta·C0, and the padding rows of C and the guards unchanged. */
static void gemm_check(const char *what, const struct gemm *g, float alpha, float beta) {
    float *after = malloc((size_t)(g->ldc * g->n) * sizeof(float));
    CHECK(download(&g->dc, after), "%s: the guard zones around C were written", what);
    case_failures = 0;
    int stray = 0;
    for (int j = 0; j < g->n; j++) {
        for (int i = 0; i < g->ldc; i++) {
            const float got = after[i + j * g->ldc];
            if (i >= g->m) {
                stray += memcmp(&got, &g->c[i + j * g->ldc], sizeof got) != 0;
                continue;
            }
            double want = 0.0, magnitude = 0.0;
            for (int l = 0; alpha != 0.0f && l < g->k; l++) {
                const double term = (double)alpha * (g->ta ? g->a[l + i * g->lda] : g->a[i + l * g->lda]) *
                                    (g->tb ? g->b[j + l * g->ldb] : g->b[l + j * g->ldb]);
                want += term;
                magnitude += absolute(term);
            }
            if (beta != 0.0f) {
                want += (double)beta * g->c[i + j * g->ldc];
                magnitude += absolute((double)beta * g->c[i + j * g->ldc]);
            }
            check_element(what, i + j * g->m, got, want, magnitude, g->k);
        }
    }
    CHECK(stray == 0, "%s: %d floats of C's padding rows were written", what, stray);
    check_unchanged(what, "A", &g->da), check_unchanged(what, "B", &g->db);
    free(after);
}

static void gemm_release(struct gemm *g) {
    release(&g->da), release(&g->db), release(&g->dc);
    free(g->a), free(g->b), free(g->c);
}

static void sgemm_case(mublasHandle_t h, int ta, int tb, int m, int n, int k, int offset, float alpha, float beta) {
    char what[120];
    snprintf(what, sizeof what, "sgemm %c%c %dx%dx%d offset %d alpha %g beta %g", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n,
             k, offset, alpha, beta);
    struct gemm g = gemm_setup(ta, tb, m, n, k, offset, alpha == 0.0f, beta == 0.0f);
    CHECK_STATUS(gemm_call(h, &g, alpha, beta), MUBLAS_STATUS_SUCCESS);
    CU_CHECK(cu.cuCtxSynchronize());
    gemm_check(what, &g, alpha, beta);
    gemm_release(&g);
}

/* ---- bad arguments: the status of the first bad one in reference-BLAS order, nothing written ---- */

static void bad_arguments(mublasHandle_t h) {
    const float one = 1.0f;
    struct gemm g = gemm_setup(0, 0, 10, 10, 10, 0, 0, 0);
    float *a = device_address(&g.da), *b = device_address(&g.db), *c = device_address(&g.dc);
    CHECK_STATUS(mublasSgemv(h, MUBLAS_OP_N, 10, 10, &one, a, 9, b, 1, &one, c, 1), MUBLAS_STATUS_INVALID_VALUE);
    CHECK_STATUS(mublasSgemv(h, MUBLAS_OP_N, 10, 10, &one, a, 13, b, 0, &one, c, 1), MUBLAS_STATUS_INVALID_VALUE);
    CHECK_STATUS(mublasSgemv(h, (mublasOperation_t)7, -1, 10, &one, a, 13, b, 1, &one, c, 1), MUBLAS_STATUS_INVALID_VALUE);
    CHECK_STATUS(mublasStrmv(h, (mublasFillMode_t)5, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT, 10, a, 13, c, 1),
                 MUBLAS_STATUS_INVALID_VALUE);
    CHECK_STATUS(mublasStrmv(h, MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT, 10, a, 9, c, 1),
                 MUBLAS_STATUS_INVALID_VALUE);
    CHECK_STATUS(mublasSgemm(h, MUBLAS_OP_N, MUBLAS_OP_N, 10, 10, 10, &one, a, 13, b, 11, &one, c, 9),
                 MUBLAS_STATUS_INVALID_VALUE);
    CHECK_STATUS(mublasSgemm(NULL, MUBLAS_OP_N, MUBLAS_OP_N, 10, 10, 10, &one, a, 13, b, 11, &one, c, 12),
                 MUBLAS_STATUS_NOT_INITIALIZED);
    CU_CHECK(cu.cuCtxSynchronize());
    /* C (and the vector calls' y and x, which are C's first floats) must be as uploaded. */
    float *after = malloc((size_t)(g.ldc * g.n) * sizeof(float));
    CHECK(download(&g.dc, after) && memcmp(after, g.c, (size_t)(g.ldc * g.n) * sizeof(float)) == 0,
          "a call with a bad argument wrote");
    free(after);
    gemm_release(&g);
}

/* ---- a CUDA graph: calls captured on a created stream, launched twice ---- */

static void captured(mublasHandle_t h, CUstream stream) {
    if (cu.cuStreamBeginCapture == NULL) {
        printf("  skipped the CUDA graph part: this driver has no stream capture\n");
        return;
    }
    struct gemm g = gemm_setup(1, 0, 129, 127, 255, 1, 0, 1);
    CHECK_STATUS(mublasSetStream(h, stream), MUBLAS_STATUS_SUCCESS);
    CU_CHECK(cu.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK_STATUS(gemm_call(h, &g, 0.75f, 0.0f), MUBLAS_STATUS_SUCCESS);
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    CU_CHECK(cu.cuStreamEndCapture(stream, &graph));
    CU_CHECK(cu.cuGraphInstantiateWithFlags(&exec, graph, 0));
    float *after = malloc((size_t)(g.ldc * g.n) * sizeof(float));
    CHECK(download(&g.dc, after) && after[0] != after[0], "a captured call ran before the graph was launched");
    free(after);
    for (int launch = 1; launch <= 2; launch++) {
        CU_CHECK(cu.cuGraphLaunch(exec, stream));
        CU_CHECK(cu.cuStreamSynchronize(stream));
        gemm_check(launch == 1 ? "sgemm TN from a graph, launch 1" : "sgemm TN from a graph, launch 2", &g, 0.75f, 0.0f);
    }
    CU_CHECK(cu.cuGraphExecDestroy(exec));
    CU_CHECK(cu.cuGraphDestroy(graph));
    CHECK_STATUS(mublasSetStream(h, NULL), MUBLAS_STATUS_SUCCESS);
    gemm_release(&g);
}

int main(void) {
    printf("test_matrix: mublasSgemv, mublasStrmv, mublasSgemm against a float64 reference, with guard zones\n");
    mublasHandle_t h = NULL;
    const int started = gpu_test_start("test_matrix", &h);
    if (started != 0) {
        return started;
    }
    const uint64_t seed = random_start();
    CUstream stream = NULL;
    CU_CHECK(cu.cuStreamCreate(&stream, 1 /* CU_STREAM_NON_BLOCKING */));

    static const int shapes[3][3] = {{1001, 777, 1003}, {33, 4097, 40}, {4097, 7, 4100}};
    int cases = 0;
    for (int trans = 0; trans <= 1; trans++)
        for (int s = 0; s < 3; s++)
            for (int incx = 1; incx >= -2; incx -= 3)
                for (int incy = 1; incy >= -3; incy -= 4)
                    for (int offset = 0; offset <= 1; offset++)
                        for (int zero_beta = 0; zero_beta <= 1; zero_beta++, cases++)
                            sgemv_case(h, trans, shapes[s][0], shapes[s][1], shapes[s][2], incx, incy, offset, 1.5f,
                                       zero_beta ? 0.0f : 0.5f, cases % 3 == 0, cases % 2 ? stream : NULL);
    /* alpha = 0 (A and x NaN, never read): y = beta·y, or 0 over NaN; from host and device memory. */
    for (int trans = 0; trans <= 1; trans++)
        for (int device_mode = 0; device_mode <= 1; device_mode++)
            for (int zero_beta = 0; zero_beta <= 1; zero_beta++, cases++)
                sgemv_case(h, trans, shapes[0][0], shapes[0][1], shapes[0][2], -2, 1, 1, 0.0f, zero_beta ? 0.0f : 0.5f,
                           device_mode, cases % 2 ? stream : NULL);
    static const int trmv_sizes[3] = {1, 33, 513};
    for (int s = 0; s < 3; s++)
        for (int uplo = 0; uplo <= 1; uplo++)
            for (int trans = 0; trans <= 1; trans++)
                for (int unit = 0; unit <= 1; unit++)
                    for (int incx = 1; incx >= -2; incx -= 3)
                        for (int offset = 0; offset <= 1; offset++, cases++)
                            strmv_case(h, trmv_sizes[s], uplo, trans, unit, incx, offset);
    static const int gemm_shapes[3][3] = {{1, 1, 1}, {129, 127, 255}, {33, 65, 1023}};
    for (int ta = 0; ta <= 1; ta++)
        for (int tb = 0; tb <= 1; tb++)
            for (int s = 0; s < 3; s++)
                for (int offset = 0; offset <= 1; offset++)
                    for (int zero_beta = 0; zero_beta <= 1; zero_beta++, cases++)
                        sgemm_case(h, ta, tb, gemm_shapes[s][0], gemm_shapes[s][1], gemm_shapes[s][2], offset, 0.75f,
                                   zero_beta ? 0.0f : -0.5f);
    /* alpha = 0 (A and B NaN, never read): C = beta·C, or 0 over NaN. */
    for (int ta = 0; ta <= 1; ta++)
        for (int zero_beta = 0; zero_beta <= 1; zero_beta++, cases++)
            sgemm_case(h, ta, !ta, gemm_shapes[1][0], gemm_shapes[1][1], gemm_shapes[1][2], 1, 0.0f,
                       zero_beta ? 0.0f : -0.5f);
    bad_arguments(h);
    captured(h, stream);

    CHECK_STATUS(mublasDestroy(h), MUBLAS_STATUS_SUCCESS);
    CU_CHECK(cu.cuStreamDestroy(stream));
    if (failures != 0) {
        printf("FAIL: test_matrix: %d of %d checks failed (replay with MUBLAS_TEST_SEED=%llu)\n", failures, checks,
               (unsigned long long)seed);
        return 1;
    }
    printf("PASS: test_matrix: %d cases, %d checks\n", cases, checks);
    return 0;
}
