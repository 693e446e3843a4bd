/*
 * An ordinary cuBLAS program (links libcublas and libcudart, knows nothing of
 * mublas), used to test interposition: run it as is and under
 * LD_PRELOAD=libmublas.so; it must pass its float64 checks both ways, and under
 * the preload mublasInterposedCalls (looked up at run time) must count its calls.
 *
 * Prints one line per routine, then "served by mublas: N calls" and PASS/FAIL.
 */
/* RTLD_DEFAULT (dlfcn.h) and clock_gettime (random.h) under -std=c99. */
#define _GNU_SOURCE
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("FAIL: %s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
#define CHECK_CU(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { printf("FAIL: %s: CUresult %d\n", #x, (int)r); exit(1); } } while (0)
#define CHECK_CUBLAS(x) do { cublasStatus_t s = (x); if (s != CUBLAS_STATUS_SUCCESS) { printf("FAIL: %s: status %d\n", #x, (int)s); exit(1); } } while (0)

/* Fresh data each run (the seed printed; MUBLAS_TEST_SEED replays it), as the C tests'. */
#include "../random.h"

static int check(const char *what, const float *got, const double *expected, const double *magnitude, int n, double ulps) {
    for (int i = 0; i < n; ++i) {
        double bound = ulps * 5.96e-8 * magnitude[i] + 1e-30;
        if (!(fabs((double)got[i] - expected[i]) <= bound)) {
            printf("FAIL: %s element %d: got %.9g expected %.9g\n", what, i, got[i], expected[i]);
            return 1;
        }
    }
    printf("ok: %s (%d elements)\n", what, n);
    return 0;
}

static int test_saxpy(cublasHandle_t h, cudaStream_t stream) {
    const int n = 100003;
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    double *expected = malloc(n * sizeof(double)), *magnitude = malloc(n * sizeof(double));
    for (int i = 0; i < n; ++i) { x[i] = random_value(); y[i] = random_value(); }
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc((void **)&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&dy, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice));
    const float alpha = 1.75f;
    for (int rep = 0; rep < 3; ++rep) {
        CHECK_CUBLAS(cublasSaxpy(h, n, &alpha, dx, 1, dy, 1));
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(out, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        expected[i] = (double)y[i] + 3.0 * alpha * (double)x[i];
        magnitude[i] = fabs((double)y[i]) + 3.0 * fabs(alpha * (double)x[i]);
    }
    int failed = check("cublasSaxpy x3 on a created stream", out, expected, magnitude, n, 8.0);
    cudaFree(dx); cudaFree(dy);
    free(x); free(y); free(out); free(expected); free(magnitude);
    return failed;
}

/* y = 1.5·op(A)·x + 0.5·y for op N and T, then x = L·x (lower, non-unit), m = 1000, n = 777. */
static int test_sgemv_strmv(cublasHandle_t h, cudaStream_t stream) {
    const int m = 1000, n = 777, lda = m + 3;
    float *a = malloc((size_t)lda * n * sizeof(float)), *x = malloc(m * sizeof(float)), *y = malloc(m * sizeof(float));
    float *out = malloc(m * sizeof(float));
    double *expected = malloc(m * sizeof(double)), *magnitude = malloc(m * sizeof(double));
    for (int i = 0; i < lda * n; ++i) a[i] = random_value();
    for (int i = 0; i < m; ++i) { x[i] = random_value(); y[i] = random_value(); }
    float *da, *dx, *dy;
    CHECK_CUDA(cudaMalloc((void **)&da, (size_t)lda * n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&dx, m * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&dy, m * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(da, a, (size_t)lda * n * sizeof(float), cudaMemcpyHostToDevice));
    const float alpha = 1.5f, beta = 0.5f;
    int failed = 0;
    for (int t = 0; t < 2; ++t) {
        cublasOperation_t op = t == 0 ? CUBLAS_OP_N : CUBLAS_OP_T;
        int len_x = t == 0 ? n : m, len_y = t == 0 ? m : n;
        CHECK_CUDA(cudaMemcpy(dx, x, len_x * sizeof(float), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dy, y, len_y * sizeof(float), cudaMemcpyHostToDevice));
        CHECK_CUBLAS(cublasSgemv(h, op, m, n, &alpha, da, lda, dx, 1, &beta, dy, 1));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(out, dy, len_y * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < len_y; ++i) {
            double sum = 0, mag = 0;
            for (int j = 0; j < len_x; ++j) {
                double aij = t == 0 ? a[i + (size_t)j * lda] : a[j + (size_t)i * lda];
                sum += aij * x[j]; mag += fabs(aij * x[j]);
            }
            expected[i] = alpha * sum + beta * (double)y[i];
            magnitude[i] = fabs(alpha) * mag + fabs(beta * (double)y[i]);
        }
        failed |= check(t == 0 ? "cublasSgemv N" : "cublasSgemv T", out, expected, magnitude, len_y, 2.0 * (len_x + 2));
    }
    /* x = L·x with L the lower triangle of A's leading n×n block, lda = m + 3. */
    CHECK_CUDA(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUBLAS(cublasStrmv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, da, lda, dx, 1));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(out, dx, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        double sum = 0, mag = 0;
        for (int j = 0; j <= i; ++j) { sum += (double)a[i + (size_t)j * lda] * x[j]; mag += fabs((double)a[i + (size_t)j * lda] * x[j]); }
        expected[i] = sum; magnitude[i] = mag;
    }
    failed |= check("cublasStrmv LNN", out, expected, magnitude, n, 2.0 * (n + 2));
    cudaFree(da); cudaFree(dx); cudaFree(dy);
    free(a); free(x); free(y); free(out); free(expected); free(magnitude);
    return failed;
}

/* C = A·B, 300×200 by 200×100, lda = 300: checks the SGEMM path. */
static int test_sgemm(cublasHandle_t h, cudaStream_t stream) {
    const int m = 300, n = 100, k = 200;
    float *a = malloc(m * k * sizeof(float)), *b = malloc(k * n * sizeof(float)), *c = malloc(m * n * sizeof(float));
    double *expected = malloc(m * n * sizeof(double)), *magnitude = malloc(m * n * sizeof(double));
    for (int i = 0; i < m * k; ++i) a[i] = random_value();
    for (int i = 0; i < k * n; ++i) b[i] = random_value();
    float *da, *db, *dc;
    CHECK_CUDA(cudaMalloc((void **)&da, m * k * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&db, k * n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&dc, m * n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(da, a, m * k * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(db, b, k * n * sizeof(float), cudaMemcpyHostToDevice));
    const float one = 1.0f, zero = 0.0f;
    CHECK_CUBLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, m, db, k, &zero, dc, m));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(c, dc, m * n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double sum = 0, mag = 0;
            for (int l = 0; l < k; ++l) { sum += (double)a[i + l * m] * b[l + j * k]; mag += fabs((double)a[i + l * m] * b[l + j * k]); }
            expected[i + j * m] = sum; magnitude[i + j * m] = mag;
        }
    int failed = check("cublasSgemm NN", c, expected, magnitude, m * n, 2.0 * (k + 2));
    cudaFree(da); cudaFree(db); cudaFree(dc);
    free(a); free(b); free(c); free(expected); free(magnitude);
    return failed;
}

/* The 64-bit entry points (cublasSaxpy_v2_64 …), each against a float64
   reference: SAXPY with incy = 0 (every term into y[0], as reference BLAS),
   SGEMV T, STRMV upper transposed, SGEMM TN, with padded leading dimensions. */
static int test_64bit_entry_points(cublasHandle_t h, cudaStream_t stream) {
    const int64_t m = 301, n = 203, k = 157, lda = 305;
    const int64_t words = lda * (m > k ? m : k) + m + n + k;
    float *host = malloc(words * sizeof(float)), *out = malloc(words * sizeof(float));
    double *expected = malloc(words * sizeof(double)), *magnitude = malloc(words * sizeof(double));
    for (int64_t i = 0; i < words; ++i) host[i] = random_value();
    float *da, *dv, *dw;
    CHECK_CUDA(cudaMalloc((void **)&da, words * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&dv, words * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&dw, words * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(da, host, words * sizeof(float), cudaMemcpyHostToDevice));
    const float alpha = 0.75f, beta = -0.5f, zero = 0.0f;
    int failed = 0;

    /* y[0] += alpha * (x_0 + … + x_{N-1}), x read backwards with stride 2 (N terms span 2 N - 1 < words floats). */
    const int64_t N = 40000;
    float y0 = 0.25f;
    CHECK_CUDA(cudaMemcpy(dw, &y0, sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUBLAS(cublasSaxpy_64(h, N, &alpha, da, -2, dw, 0));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(out, dw, sizeof(float), cudaMemcpyDeviceToHost));
    expected[0] = y0; magnitude[0] = fabs(y0);
    for (int64_t i = 0; i < N; ++i) { expected[0] += alpha * (double)host[2 * i]; magnitude[0] += fabs(alpha * (double)host[2 * i]); }
    failed |= check("cublasSaxpy_64 incx -2, incy 0", out, expected, magnitude, 1, 64.0);

    /* y = alpha·Aᵀ·x + beta·y: A m×n (lda), x m, y n. */
    CHECK_CUDA(cudaMemcpy(dv, host + 7, m * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dw, host + 11, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUBLAS(cublasSgemv_64(h, CUBLAS_OP_T, m, n, &alpha, da, lda, dv, 1, &beta, dw, 1));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(out, dw, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int64_t j = 0; j < n; ++j) {
        double sum = 0, mag = 0;
        for (int64_t i = 0; i < m; ++i) { double t = (double)host[i + j * lda] * host[7 + i]; sum += t; mag += fabs(t); }
        expected[j] = alpha * sum + beta * (double)host[11 + j];
        magnitude[j] = fabs(alpha) * mag + fabs(beta * (double)host[11 + j]);
    }
    failed |= check("cublasSgemv_64 T", out, expected, magnitude, n, 2.0 * (m + 2));

    /* x = Uᵀ·x, U the upper triangle of A's leading n×n block, x with stride 3. */
    for (int64_t i = 0; i < 3 * n; ++i) out[i] = host[5 + i];
    CHECK_CUDA(cudaMemcpy(dv, out, 3 * n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUBLAS(cublasStrmv_64(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, da, lda, dv, 3));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(out, dv, 3 * n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int64_t j = 0; j < n; ++j) {
        double sum = 0, mag = 0;
        for (int64_t i = 0; i <= j; ++i) { double t = (double)host[i + j * lda] * host[5 + 3 * i]; sum += t; mag += fabs(t); }
        expected[j] = sum; magnitude[j] = mag;
        out[j] = out[3 * j];
    }
    failed |= check("cublasStrmv_64 UTN, incx 3", out, expected, magnitude, n, 2.0 * (n + 2));

    /* C = alpha·Aᵀ·B: A k×m (lda), B k×n (ldb = lda), C m×n (ldc = m + 1), beta = 0 over NaN. */
    const int64_t ldc = m + 1;
    for (int64_t i = 0; i < ldc * n; ++i) out[i] = NAN;
    CHECK_CUDA(cudaMemcpy(dw, out, ldc * n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUBLAS(cublasSgemm_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da, lda, da + 3, lda, &zero, dw, ldc));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(out, dw, ldc * n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double sum = 0, mag = 0;
            for (int64_t l = 0; l < k; ++l) { double t = (double)host[l + i * lda] * host[3 + l + j * lda]; sum += t; mag += fabs(t); }
            expected[i + j * m] = alpha * sum; magnitude[i + j * m] = fabs(alpha) * mag;
            out[i + j * m] = out[i + j * ldc];
        }
    failed |= check("cublasSgemm_64 TN", out, expected, magnitude, (int)(m * n), 2.0 * (k + 2));
    cudaFree(da); cudaFree(dv); cudaFree(dw);
    free(host); free(out); free(expected); free(magnitude);
    return failed;
}

/* A stream per task, destroyed once the task is done, as many programs do;
 * the handle then moves to the next task's stream (STRMV's partial sums share
 * the work buffer from task to task). Under the preload the previous stream is
 * gone when the next call moves the shadow handle: nothing may ask it anything. */
static int test_streams_destroyed_between_tasks(cublasHandle_t h, cudaStream_t stream) {
    int failed = 0;
    cudaStream_t own;
    CHECK_CUDA(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    for (int task = 0; task < 3; ++task) {
        CHECK_CUBLAS(cublasSetStream(h, own));
        failed |= test_sgemv_strmv(h, own);
        /* The next task's stream is made before this one goes, so that it is not at the same address. */
        cudaStream_t next;
        CHECK_CUDA(cudaStreamCreateWithFlags(&next, cudaStreamNonBlocking));
        CHECK_CUDA(cudaStreamDestroy(own));
        own = next;
    }
    CHECK_CUDA(cudaStreamDestroy(own));
    CHECK_CUBLAS(cublasSetStream(h, stream));
    failed |= test_saxpy(h, stream);
    return failed;
}

/* Host threads calling at once, as a server or a data-loading program does:
 * THREADS_OWN threads with a handle and a non-blocking stream each, and two
 * threads sharing one handle (and its stream), which cuBLAS allows. Each runs
 * ROUNDS of SGEMV N (2000 × 3000) and SGEMM NN (128 × 128 × 4096: few tiles
 * on a long k, the split through the work buffer) into its own outputs, NaN
 * before every call (beta = 0). Every result must match the float64 reference
 * and be, bit for bit, thread 0's first one: under the preload each handle has
 * a shadow with its own work buffer, the shared one a single shadow. */
#define THREADS_OWN 3
#define THREADS_SHARED 2
#define THREADS (THREADS_OWN + THREADS_SHARED)
#define ROUNDS 40
enum { TM = 2000, TN = 3000, GM = 128, GN = 128, GK = 4096 };

struct thread_task {
    cublasHandle_t handle; /* the shared handle for the last THREADS_SHARED tasks, else made by the thread */
    cudaStream_t stream;
    const float *a, *x, *b; /* device inputs, shared and read-only */
    float *y_first, *c_first; /* host: this thread's first results */
    int failed;
};

static void *run_thread_task(void *argument) {
    struct thread_task *task = argument;
    const int own = task->handle == NULL;
    if (own) {
        if (cudaStreamCreateWithFlags(&task->stream, cudaStreamNonBlocking) != cudaSuccess ||
            cublasCreate(&task->handle) != CUBLAS_STATUS_SUCCESS ||
            cublasSetStream(task->handle, task->stream) != CUBLAS_STATUS_SUCCESS) {
            printf("FAIL: thread setup\n");
            task->failed = 1;
            return NULL;
        }
    }
    float *dy, *dc;
    float *y = malloc(TM * sizeof(float)), *c = malloc(GM * GN * sizeof(float));
    if (cudaMalloc((void **)&dy, TM * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&dc, GM * GN * sizeof(float)) != cudaSuccess) {
        printf("FAIL: thread cudaMalloc\n");
        task->failed = 1;
        return NULL;
    }
    const float alpha = 1.25f, zero = 0.0f;
    for (int round = 0; round < ROUNDS && !task->failed; ++round) {
        int status = cudaMemsetAsync(dy, 0xff, TM * sizeof(float), task->stream) != cudaSuccess ||
                     cudaMemsetAsync(dc, 0xff, GM * GN * sizeof(float), task->stream) != cudaSuccess;
        status |= cublasSgemv(task->handle, CUBLAS_OP_N, TM, TN, &alpha, task->a, TM, task->x, 1, &zero, dy, 1) !=
                  CUBLAS_STATUS_SUCCESS;
        status |= cublasSgemm(task->handle, CUBLAS_OP_N, CUBLAS_OP_N, GM, GN, GK, &alpha, task->a, GM, task->b, GK,
                              &zero, dc, GM) != CUBLAS_STATUS_SUCCESS;
        status |= cudaStreamSynchronize(task->stream) != cudaSuccess;
        status |= cudaMemcpy(y, dy, TM * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess;
        status |= cudaMemcpy(c, dc, GM * GN * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess;
        if (status) {
            printf("FAIL: thread round %d: a call failed\n", round);
            task->failed = 1;
        } else if (round == 0) {
            memcpy(task->y_first, y, TM * sizeof(float));
            memcpy(task->c_first, c, GM * GN * sizeof(float));
        } else if (memcmp(y, task->y_first, TM * sizeof(float)) != 0 ||
                   memcmp(c, task->c_first, GM * GN * sizeof(float)) != 0) {
            printf("FAIL: thread round %d: not the bits of its first round\n", round);
            task->failed = 1;
        }
    }
    cudaFree(dy); cudaFree(dc);
    free(y); free(c);
    if (own) {
        task->failed |= cublasDestroy(task->handle) != CUBLAS_STATUS_SUCCESS;
        task->failed |= cudaStreamDestroy(task->stream) != cudaSuccess;
    }
    return NULL;
}

static int test_threads_at_once(void) {
    long long (*shadows)(void) = (long long (*)(void))dlsym(RTLD_DEFAULT, "mublasInterposedShadows");
    const long long shadows_before = shadows ? shadows() : -1;
    const size_t a_len = (size_t)TM * TN, b_len = (size_t)GK * GN;
    float *a = malloc(a_len * sizeof(float)), *x = malloc(TN * sizeof(float)), *b = malloc(b_len * sizeof(float));
    for (size_t i = 0; i < a_len; ++i) a[i] = random_value();
    for (int i = 0; i < TN; ++i) x[i] = random_value();
    for (size_t i = 0; i < b_len; ++i) b[i] = random_value();
    float *da, *dx, *db;
    CHECK_CUDA(cudaMalloc((void **)&da, a_len * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&dx, TN * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&db, b_len * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(da, a, a_len * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dx, x, TN * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(db, b, b_len * sizeof(float), cudaMemcpyHostToDevice));
    cublasHandle_t shared;
    cudaStream_t shared_stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&shared_stream, cudaStreamNonBlocking));
    CHECK_CUBLAS(cublasCreate(&shared));
    CHECK_CUBLAS(cublasSetStream(shared, shared_stream));
    struct thread_task tasks[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; ++t) {
        tasks[t] = (struct thread_task){.a = da, .x = dx, .b = db};
        tasks[t].y_first = malloc(TM * sizeof(float));
        tasks[t].c_first = malloc(GM * GN * sizeof(float));
        if (t >= THREADS_OWN) { tasks[t].handle = shared; tasks[t].stream = shared_stream; }
    }
    for (int t = 0; t < THREADS; ++t)
        if (pthread_create(&threads[t], NULL, run_thread_task, &tasks[t]) != 0) { printf("FAIL: pthread_create\n"); exit(1); }
    for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
    CHECK_CUBLAS(cublasDestroy(shared));
    CHECK_CUDA(cudaStreamDestroy(shared_stream));
    int failed = 0;
    for (int t = 0; t < THREADS; ++t) failed |= tasks[t].failed;
    for (int t = 1; t < THREADS && !failed; ++t)
        if (memcmp(tasks[t].y_first, tasks[0].y_first, TM * sizeof(float)) != 0 ||
            memcmp(tasks[t].c_first, tasks[0].c_first, GM * GN * sizeof(float)) != 0) {
            printf("FAIL: thread %d's results are not thread 0's bits\n", t);
            failed = 1;
        }
    if (!failed) {
        /* Thread 0's first results against float64: y = 1.25·A·x (A 2000 × 3000), C = 1.25·A'·B with A' the
           first 128 × 4096 floats of A as a 128-row matrix. */
        double *expected = malloc(GM * GN * sizeof(double)), *magnitude = malloc(GM * GN * sizeof(double));
        for (int i = 0; i < TM; ++i) {
            double sum = 0, mag = 0;
            for (int j = 0; j < TN; ++j) { double p = (double)a[i + (size_t)j * TM] * x[j]; sum += p; mag += fabs(p); }
            expected[i] = 1.25 * sum; magnitude[i] = 1.25 * mag;
        }
        failed |= check("cublasSgemv N from threads at once (3 handles, 1 shared by 2), every round the same bits", tasks[0].y_first,
                        expected, magnitude, TM, 2.0 * (TN + 2));
        for (int j = 0; j < GN; ++j)
            for (int i = 0; i < GM; ++i) {
                double sum = 0, mag = 0;
                for (int l = 0; l < GK; ++l) { double p = (double)a[i + (size_t)l * GM] * b[l + (size_t)j * GK]; sum += p; mag += fabs(p); }
                expected[i + j * GM] = 1.25 * sum; magnitude[i + j * GM] = 1.25 * mag;
            }
        failed |= check("cublasSgemm NN from threads at once (3 handles, 1 shared by 2), every round the same bits", tasks[0].c_first,
                        expected, magnitude, GM * GN, 2.0 * (GK + 2));
        free(expected); free(magnitude);
    }
    const long long shadows_after = shadows ? shadows() : -1;
    if (shadows_after != shadows_before) {
        printf("FAIL: %lld shadow handles before the threads, %lld after their handles were destroyed\n", shadows_before,
               shadows_after);
        failed = 1;
    }
    for (int t = 0; t < THREADS; ++t) { free(tasks[t].y_first); free(tasks[t].c_first); }
    cudaFree(da); cudaFree(dx); cudaFree(db);
    free(a); free(x); free(b);
    return failed;
}

/* A context the program made itself (cuCtxCreate, as PyCUDA does), current
 * while it creates its cuBLAS handle and memory: mublas runs in the primary
 * context, whose kernels cannot use that memory, so the calls must reach the
 * real cuBLAS (the served counts do not move) and be right. */
static int test_own_context(void) {
    CUdevice device;
    CUcontext own, primary;
    CHECK_CU(cuCtxGetCurrent(&primary));
    CHECK_CU(cuCtxGetDevice(&device));
#if CUDA_VERSION >= 13000
    CHECK_CU(cuCtxCreate(&own, NULL, 0, device));
#else
    CHECK_CU(cuCtxCreate(&own, 0, device));
#endif
    long long (*interposed_calls)(const char *) = (long long (*)(const char *))dlsym(RTLD_DEFAULT, "mublasInterposedCalls");
    long long before = interposed_calls ? interposed_calls("cublasSgemv_v2") + interposed_calls("cublasStrmv_v2") : 0;
    cublasHandle_t h;
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreate(&stream));
    CHECK_CUBLAS(cublasCreate(&h));
    CHECK_CUBLAS(cublasSetStream(h, stream));
    int failed = test_sgemv_strmv(h, stream);
    CHECK_CUBLAS(cublasDestroy(h));
    CHECK_CUDA(cudaStreamDestroy(stream));
    long long after = interposed_calls ? interposed_calls("cublasSgemv_v2") + interposed_calls("cublasStrmv_v2") : 0;
    if (after != before) {
        printf("FAIL: calls in a context of the program's own were served by mublas (%lld)\n", after - before);
        failed = 1;
    }
    CHECK_CU(cuCtxSetCurrent(primary));
    CHECK_CU(cuCtxDestroy(own));
    return failed;
}

/* Four handles alive at once, each served once, then destroyed: under the
   preload each gets a shadow mublas handle (with its own work buffer), and
   cublasDestroy must release it. Present only under the preload. */
static int test_handles_release_their_shadows(void) {
    long long (*shadows)(void) = (long long (*)(void))dlsym(RTLD_DEFAULT, "mublasInterposedShadows");
    const int n = 1000;
    float *x, *y;
    CHECK_CUDA(cudaMalloc((void **)&x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&y, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(x, 0, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(y, 0, n * sizeof(float)));
    const long long before = shadows ? shadows() : -1;
    cublasHandle_t handles[4];
    const float alpha = 2.0f;
    for (int i = 0; i < 4; ++i) {
        CHECK_CUBLAS(cublasCreate(&handles[i]));
        CHECK_CUBLAS(cublasSaxpy(handles[i], n, &alpha, x, 1, y, 1));
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    const long long during = shadows ? shadows() : -1;
    for (int i = 0; i < 4; ++i) CHECK_CUBLAS(cublasDestroy(handles[i]));
    const long long after = shadows ? shadows() : -1;
    cudaFree(x); cudaFree(y);
    printf("shadow handles: %lld before, %lld with four handles, %lld after destroying them\n", before, during, after);
    const char *expect = getenv("EXPECT_MUBLAS");
    const int served = expect && atoi(expect) != 0;
    if (shadows && served && !(during == before + 4 && after == before)) {
        printf("FAIL: cublasDestroy did not release the shadow handles\n");
        return 1;
    }
    if (shadows && !served && !(during == before && after == before)) {
        printf("FAIL: shadow handles made for calls that were forwarded\n");
        return 1;
    }
    return 0;
}

int main(void) {
    random_start();
    cublasHandle_t h;
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreate(&stream));
    CHECK_CUBLAS(cublasCreate(&h));
    CHECK_CUBLAS(cublasSetStream(h, stream));
    int failed = test_saxpy(h, stream);
    failed |= test_sgemv_strmv(h, stream);
    failed |= test_sgemm(h, stream);
    failed |= test_64bit_entry_points(h, stream);
    failed |= test_streams_destroyed_between_tasks(h, stream);
    CHECK_CUBLAS(cublasDestroy(h));
    CHECK_CUDA(cudaStreamDestroy(stream));
    failed |= test_threads_at_once();
    failed |= test_handles_release_their_shadows();
    failed |= test_own_context();

    /* Present only under the preload (or when linked with mublas). */
    long long (*interposed_calls)(const char *) = (long long (*)(const char *))dlsym(RTLD_DEFAULT, "mublasInterposedCalls");
    long long served = interposed_calls ? interposed_calls("cublasSaxpy_v2") : -1;
    long long served_gemv = interposed_calls ? interposed_calls("cublasSgemv_v2") : -1;
    long long served_trmv = interposed_calls ? interposed_calls("cublasStrmv_v2") : -1;
    long long served_gemm = interposed_calls ? interposed_calls("cublasSgemm_v2") : -1;
    printf("served by mublas: %lld calls (saxpy), %lld (sgemv), %lld (strmv), %lld (sgemm)\n", served, served_gemv, served_trmv, served_gemm);
    long long served_64[4];
    const char *names_64[4] = {"cublasSaxpy_v2_64", "cublasSgemv_v2_64", "cublasStrmv_v2_64", "cublasSgemm_v2_64"};
    for (int i = 0; i < 4; ++i) served_64[i] = interposed_calls ? interposed_calls(names_64[i]) : -1;
    printf("64-bit entry points served by mublas: %lld (saxpy), %lld (sgemv), %lld (strmv), %lld (sgemm)\n",
           served_64[0], served_64[1], served_64[2], served_64[3]);
    /* Every call above: SAXPY 3 + 3 (after the destroyed streams) + 4 (the four handles), SGEMV 2 + 3 × 2 and
       STRMV 1 + 3 × 1 (the destroyed streams' tasks) and THREADS × ROUNDS (the threads), SGEMM 1 + THREADS ×
       ROUNDS; the own-context calls are forwarded. */
    const long long threads_calls = THREADS * ROUNDS;
    int all_served = served == 10 && served_gemv == 8 + threads_calls && served_trmv == 4 &&
                     served_gemm == 1 + threads_calls && served_64[0] == 1 &&
                     served_64[1] == 1 && served_64[2] == 1 && served_64[3] == 1;
    int none_served = served <= 0 && served_gemv <= 0 && served_trmv <= 0 && served_gemm <= 0 && served_64[0] <= 0 &&
                      served_64[1] <= 0 && served_64[2] <= 0 && served_64[3] <= 0;
    /* 2: no work buffer beyond the split counters (MUBLAS_WORKSPACE_LIMIT_BYTES): STRMV,
       which cannot run without one, goes to the real cuBLAS; the others run unsplit (SAXPY
       with incy = 0 in one block). */
    int served_but_strmv = served == 10 && served_gemv == 8 + threads_calls && served_trmv == 0 &&
                           served_gemm == 1 + threads_calls &&
                           served_64[0] == 1 && served_64[1] == 1 && served_64[2] == 0 && served_64[3] == 1;
    const char *expect = getenv("EXPECT_MUBLAS");
    if (expect && atoi(expect) == 1 && !all_served) { printf("FAIL: mublas did not serve every call\n"); failed = 1; }
    if (expect && atoi(expect) == 2 && !served_but_strmv) { printf("FAIL: expected every call but STRMV served\n"); failed = 1; }
    if (expect && atoi(expect) == 0 && !none_served) { printf("FAIL: mublas served calls it should have forwarded\n"); failed = 1; }
    printf("%s\n", failed ? "FAIL" : "PASS");
    return failed;
}
