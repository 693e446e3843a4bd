// Runs every SGEMM tile kernel of kernels/gemm.cu on the CPU (cuda_on_cpu.h)
// against a float64 reference, over transposes, edges, alignments, scalars
// and split-K with the host's reduction (and a few cases a kernel drawn afresh
// each run from the printed seed), the stream-K kernels over several
// shares of k, the A^T copy against A, C = beta·C alone, and the skinny
// kernels over both layouts, every NB, strides, splits and scalars: the kernels' logic checked without a GPU. Build and run with scripts/cpu-emulation/gemm-check.sh.
#include "cuda_on_cpu.h"
#include "../../kernels/gemm.cu"
#include "fenced.h"
#include "test_seed.h"

#include <array>
#include <cfloat>
#include <cinttypes>
#include <cstring>
#include <cstdio>
#include <random>
#include <string>

typedef void (*GemmKernel)(i64, i64, i64, float, const float *, const float *, i64, const float *, i64, float, const float *,
                           float *, i64, i64, int);
typedef void (*StreamKKernel)(i64, i64, i64, float, const float *, const float *, i64, const float *, i64, float, const float *,
                              float *, i64, i64, int, unsigned, unsigned *, float *);

struct KernelInfo {
    const char *name;
    GemmKernel fn;
    int bm, bn, threads;
    bool ta, tb, vec;
    StreamKKernel sk = nullptr;
};

#define TILE_ROW(prefix, BM, BN, THREADS)                                                        \
    {#prefix "_nn", prefix##_nn, BM, BN, THREADS, false, false, false},                          \
        {#prefix "_nn_vec", prefix##_nn_vec, BM, BN, THREADS, false, false, true},               \
        {#prefix "_nt", prefix##_nt, BM, BN, THREADS, false, true, false},                       \
        {#prefix "_nt_vec", prefix##_nt_vec, BM, BN, THREADS, false, true, true},                \
        {#prefix "_tn", prefix##_tn, BM, BN, THREADS, true, false, false},                       \
        {#prefix "_tn_vec", prefix##_tn_vec, BM, BN, THREADS, true, false, true},                \
        {#prefix "_tt", prefix##_tt, BM, BN, THREADS, true, true, false},                        \
        {#prefix "_tt_vec", prefix##_tt_vec, BM, BN, THREADS, true, true, true}

static const KernelInfo KERNELS[] = {
    TILE_ROW(gemm_f32_128x128, 128, 128, 256),
    TILE_ROW(gemm_f32_64x64, 64, 64, 64),
    TILE_ROW(gemm_f32_256x128, 256, 128, 256),
    TILE_ROW(gemm_f32_128x128_t128, 128, 128, 128),
    TILE_ROW(gemm_f32_64x64_t128, 64, 64, 128),
    TILE_ROW(gemm_f32_128x64, 128, 64, 64),
    TILE_ROW(gemm_f32_256x64, 256, 64, 128),
};

// The stream-K twins (gemm_stream_k) of three 256x128 _vec kernels, with the plain kernel.
struct StreamKInfo {
    const char *name;
    StreamKKernel fn;
    GemmKernel plain;
    bool ta, tb;
};
static const StreamKInfo STREAM_K_KERNELS[] = {
    {"gemm_f32_256x128_nn_vec_sk", gemm_f32_256x128_nn_vec_sk, gemm_f32_256x128_nn_vec, false, false},
    {"gemm_f32_256x128_nt_vec_sk", gemm_f32_256x128_nt_vec_sk, gemm_f32_256x128_nt_vec, false, true},
    {"gemm_f32_256x128_tn_vec_sk", gemm_f32_256x128_tn_vec_sk, gemm_f32_256x128_tn_vec, true, false},
};

struct Case {
    i64 m, n, k;
    int split;  // > 1: split-K; < 0: stream-K with -split blocks after `dp` whole tiles
    unsigned dp;
    i64 pad;     // extra rows in every leading dimension (vec: a multiple of 4)
    int offset;  // floats past 16-byte alignment (generic kernels only)
    float alpha, beta;
    bool device_scalars, nan_c, c_vec;
    // A untransposed as the host's copy of it leaves it (routines/gemm/copied_a.rs):
    // lda and the rows read rounded up to 4, zeros past m; the _vec kernels at an odd m.
    bool a_padded = false;
};

static std::mt19937_64 rng(test_seed("gemm_check"));
static float random_value() {
    // ±[1/16, 1], as mublas's harness.
    std::uniform_real_distribution<float> mag(1.0f / 16, 1.0f);
    return (rng() & 1 ? -1.0f : 1.0f) * mag(rng);
}

static std::string describe(const KernelInfo &kinfo, const Case &c) {
    char s[256];
    std::snprintf(s, sizeof s, "%s m=%lld n=%lld k=%lld split=%d dp=%u pad=%lld offset=%d alpha=%g beta=%g dev=%d nan_c=%d c_vec=%d",
                  kinfo.name, c.m, c.n, c.k, c.split, c.dp, c.pad, c.offset, c.alpha, c.beta, c.device_scalars, c.nan_c, c.c_vec);
    return s;
}

// Returns the number of failures (printing the first few).
static int run_case(const KernelInfo &kinfo, const Case &c) {
    const i64 a_rows = kinfo.ta ? c.k : c.m, a_cols = kinfo.ta ? c.m : c.k;
    const i64 b_rows = kinfo.tb ? c.n : c.k, b_cols = kinfo.tb ? c.k : c.n;
    const i64 a_rows_read = c.a_padded ? (a_rows + 3) / 4 * 4 : a_rows;
    const i64 lda = std::max<i64>(a_rows_read, 1) + c.pad, ldb = std::max<i64>(b_rows, 1) + c.pad, ldc = std::max<i64>(c.m, 1) + c.pad;
    const i64 guard = 64;
    // With alpha 0, A and B hold NaN: the kernels must not use them (a multiply by 0 would carry NaN into C).
    auto make = [&](i64 floats, bool unread) {
        std::vector<float> v(floats + 2 * guard + 4);
        for (auto &x : v) x = unread ? NAN : random_value();
        return v;
    };
    const bool unread = c.alpha == 0.0f;
    std::vector<float> a = make(lda * a_cols, unread), b = make(ldb * b_cols, unread), c0 = make(ldc * c.n, false);
    if (c.nan_c) std::fill(c0.begin() + guard + c.offset, c0.begin() + guard + c.offset + ldc * c.n, NAN);
    // Every fourth element of C -0, which alpha 0 with beta 1 must leave as it is (-0 + 0 is +0).
    else for (i64 i = guard + c.offset; i < guard + c.offset + ldc * c.n; i += 4) c0[i] = -0.0f;
    // 16-byte aligned starts plus the case's offset (vectors are 16-byte aligned by the allocator).
    const float *A = a.data() + guard + c.offset;
    for (i64 col = 0; col < a_cols; ++col)
        for (i64 row = a_rows; row < a_rows_read; ++row) a[guard + c.offset + row + col * lda] = 0.0f;
    const float *B = b.data() + guard + c.offset;
    std::vector<float> cv = c0;
    float *C = cv.data() + guard + c.offset;
    float scalars[2] = {c.alpha, c.beta};
    const float *alpha_ptr = c.device_scalars ? &scalars[0] : nullptr;
    const float *beta_ptr = c.device_scalars ? &scalars[1] : nullptr;
    const i64 tiles = ((c.m + kinfo.bm - 1) / kinfo.bm) * ((c.n + kinfo.bn - 1) / kinfo.bn);
    // A and B: no read may leave them (cuda_on_cpu.h: a fence page cannot see a 16-byte-aligned over-read).
    auto matrix = [](const float *p, i64 rows, i64 cols, i64 ld) {
        return emu::Span{p, p + (rows > 0 && cols > 0 ? ld * (cols - 1) + rows : 0)};
    };
    emu::read_spans = {matrix(A, a_rows_read, a_cols, lda), matrix(B, b_rows, b_cols, ldb)};
    // alpha = 0: A and B are not read at all, on any path (the split's tile kernels included).
    if (unread) emu::unread_spans = emu::read_spans;

    if (c.split < 0) {
        // The host's stream-K: counters at 0, a piece slot per stream-K tile and block.
        const unsigned blocks = static_cast<unsigned>(-c.split);
        std::vector<unsigned> counters(tiles + 8, 0);
        std::vector<float> pieces((tiles + blocks) * 128 * kinfo.threads, NAN);
        // The first dp tiles whole (the plain kernel), then the stream-K blocks.
        if (c.dp > 0) {
            emu::launch({c.dp, 1, 1}, kinfo.threads, [&] {
                kinfo.fn(c.m, c.n, c.k, c.alpha, alpha_ptr, A, lda, B, ldb, c.beta, beta_ptr, C, ldc, 0, c.c_vec);
            });
        }
        emu::launch({blocks, 1, 1}, kinfo.threads, [&] {
            kinfo.sk(c.m, c.n, c.k, c.alpha, alpha_ptr, A, lda, B, ldb, c.beta, beta_ptr, C, ldc, 0, c.c_vec, c.dp, counters.data(), pieces.data());
        });
        for (unsigned v : counters)
            if (v) {
                std::printf("FAIL %s: a counter left at %u\n", describe(kinfo, c).c_str(), v);
                return 1;
            }
    } else if (c.split <= 1) {
        emu::launch({static_cast<unsigned>(tiles), 1, 1}, kinfo.threads, [&] {
            kinfo.fn(c.m, c.n, c.k, c.alpha, alpha_ptr, A, lda, B, ldb, c.beta, beta_ptr, C, ldc, 0, c.c_vec);
        });
    } else {
        // The host's split-K (routines/gemm/launch.rs): partial sums scaled by alpha (beta 0), then the
        // reduction adds them and beta·C (alpha 0: the sums unread, and C untouched with beta 1).
        const i64 ldp = (c.m + 3) / 4 * 4, stride = ldp * c.n;
        std::vector<float> work(stride * c.split + 4, NAN);
        float *W = work.data();
        emu::launch({static_cast<unsigned>(tiles), 1, static_cast<unsigned>(c.split)}, kinfo.threads, [&] {
            kinfo.fn(c.m, c.n, c.k, c.alpha, alpha_ptr, A, lda, B, ldb, 0.0f, nullptr, W, ldp, stride, 1);
        });
        // Both reductions, taken in turn: one row a thread, or four (float4 over whole groups).
        const int rows = (c.m + c.n + c.split) % 2 ? 4 : 1;
        const auto reduce = rows == 4 ? gemm_splitk_reduce4_f32 : gemm_splitk_reduce_f32;
        emu::launch({static_cast<unsigned>((c.m + 128 * rows - 1) / (128 * rows)), static_cast<unsigned>(std::min<i64>(c.n, 65535)), 1}, 128, [&] {
            reduce(c.m, c.n, c.split, W, ldp, stride, c.alpha, alpha_ptr, c.beta, beta_ptr, C, ldc);
        });
    }
    emu::read_spans.clear();
    emu::unread_spans.clear();

    int failures = 0;
    auto fail = [&](const char *what, i64 row, i64 col, double got, double want) {
        if (failures++ < 3) std::printf("FAIL %s: %s at (%lld, %lld): got %g want %g\n", describe(kinfo, c).c_str(), what, row, col, got, want);
    };
    // Guards and A, B untouched.
    for (i64 i = 0; i < guard + c.offset; ++i)
        if (std::memcmp(&cv[i], &c0[i], 4)) fail("guard before C", i, -1, cv[i], c0[i]);
    for (i64 i = guard + c.offset + ldc * c.n; i < static_cast<i64>(cv.size()); ++i)
        if (std::memcmp(&cv[i], &c0[i], 4)) fail("guard after C", i, -1, cv[i], c0[i]);
    const float *C0 = c0.data() + guard + c.offset;
    for (i64 j = 0; j < c.n; ++j) {
        for (i64 i = 0; i < ldc; ++i) {
            const float got = C[i + j * ldc];
            if (i >= c.m) {
                if (std::memcmp(&got, &C0[i + j * ldc], 4)) fail("storage past m", i, j, got, C0[i + j * ldc]);
                continue;
            }
            if (c.alpha == 0.0f && c.beta == 1.0f) {
                if (std::memcmp(&got, &C0[i + j * ldc], 4)) fail("C changed (alpha 0, beta 1)", i, j, got, C0[i + j * ldc]);
                continue;
            }
            double sum = 0, size = 0;
            if (c.alpha != 0.0f) {
                for (i64 l = 0; l < c.k; ++l) {
                    const double x = kinfo.ta ? A[l + i * lda] : A[i + l * lda];
                    const double y = kinfo.tb ? B[j + l * ldb] : B[l + j * ldb];
                    sum += x * y;
                    size += std::fabs(x * y);
                }
            }
            double want = c.alpha * sum, mag = std::fabs(c.alpha) * size;
            if (c.beta != 0.0f) {
                want += static_cast<double>(c.beta) * C0[i + j * ldc];
                mag += std::fabs(static_cast<double>(c.beta) * C0[i + j * ldc]);
            }
            const double bound = 2.0 * (c.k + 2.0) * 0x1p-24 * mag + 1e-38;
            if (!std::isfinite(got) || std::fabs(got - want) > bound) fail("value", i, j, got, want);
        }
    }
    return failures;
}

// gemm_transpose_a_f32 and gemm_copy_a_f32 (routines/gemm/copied_a.rs): At
// must be A^T (or A) exactly, zeros in its rows up to a whole float4, and
// nothing written past those or k;
// device alpha = 0 writes nothing. The grid is the host's
// transpose_geometry, or `grid_y` rows of blocks along k when given (the
// kernels' stride past 65535).
static int check_copy(bool transposed, i64 k, i64 rows, i64 lda, i64 ldt, bool alpha_zero, unsigned grid_y = 0) {
    std::vector<float> a(transposed ? lda * rows + k : lda * k + rows);
    for (auto &x : a) x = random_value();
    const i64 guard = 64;
    std::vector<float> at(ldt * k + 2 * guard, NAN);
    float *At = at.data() + guard;
    const float alpha = alpha_zero ? 0.0f : 1.0f;
    const unsigned gy = grid_y ? grid_y : static_cast<unsigned>(std::min<i64>((k + 31) / 32, 65535));
    const uint3 grid{static_cast<unsigned>((rows + 63) / 64), gy, 1};
    const char *name = transposed ? "gemm_transpose_a_f32" : "gemm_copy_a_f32";
    emu::launch(grid, uint3{32, 8, 1}, [&] {
        if (transposed) gemm_transpose_a_f32(k, rows, 0.0f, &alpha, a.data(), lda, At, ldt);
        else gemm_copy_a_f32(k, rows, 0.0f, &alpha, a.data(), lda, At, ldt);
    });
    int failures = 0;
    for (i64 i = 0; i < static_cast<i64>(at.size()); ++i) {
        const i64 j = i - guard, kk = j / ldt, r = j % ldt;
        const bool written = j >= 0 && kk < k && r < (rows + 3) / 4 * 4 && !alpha_zero;
        const float want = !written ? NAN : r >= rows ? 0.0f : transposed ? a[r * lda + kk] : a[kk * lda + r];
        const bool ok = written ? at[i] == want : std::isnan(at[i]);
        if (!ok && failures++ < 3)
            std::printf("FAIL %s k=%lld rows=%lld lda=%lld ldt=%lld grid.y=%u alpha0=%d at float %lld\n", name, k, rows, lda, ldt, gy,
                        alpha_zero, j);
    }
    return failures;
}

// gemm_scale_f32 (k = 0 or alpha = 0: C = beta·C): every element of the m
// rows of each column scaled, beta = 0 writing zeros over NaN (C unread),
// beta = 1 writing nothing, nothing written in the rows past m up to ldc or
// around C; the scalar from memory or by value; `grid_y` rows of blocks
// fewer than n (the kernel's stride over the columns).
static int check_scale(i64 m, i64 n, i64 ldc, unsigned threads, unsigned grid_y, float beta, bool beta_from_memory) {
    const i64 guard = 64;
    std::vector<float> c(ldc * n + 2 * guard);
    for (auto &x : c) x = beta == 0.0f ? NAN : random_value();
    const std::vector<float> before = c;
    float *C = c.data() + guard;
    const uint3 grid{static_cast<unsigned>((m + threads - 1) / threads), grid_y, 1};
    emu::launch(grid, threads, [&] { gemm_scale_f32(m, n, beta_from_memory ? 0.0f : beta, beta_from_memory ? &beta : nullptr, C, ldc); });
    int failures = 0;
    for (i64 i = 0; i < static_cast<i64>(c.size()); ++i) {
        const i64 j = i - guard, col = j / ldc, row = j % ldc;
        const bool inside = j >= 0 && col < n && row < m;
        const float want = !inside || beta == 1.0f ? before[i] : beta == 0.0f ? 0.0f : beta * before[i];
        const bool ok = std::isnan(want) ? std::isnan(c[i]) : c[i] == want;
        if (!ok && failures++ < 3)
            std::printf("FAIL gemm_scale_f32 m=%lld n=%lld ldc=%lld grid=(%u,%u)x%u beta=%g%s at float %lld: %g, want %g\n", m, n, ldc, grid.x,
                        grid_y, threads, beta, beta_from_memory ? " (memory)" : "", j, c[i], want);
    }
    return failures;
}

// The skinny kernels (routines/gemm/skinny.rs): D = alpha·P·Q + beta·D,
// M × N, with P along k or along m, Q and D at the given strides (D's
// "transposed" when dsi > 1), `splits` ranges of k with the arrival counters
// and partial sums, each operand between inaccessible pages (P ending at one).
typedef void (*SkinnyKernel)(i64, int, i64, i64, float, const float *, const float *, i64, const float *, i64, i64, float,
                             const float *, float *, i64, i64, unsigned *, float *);
struct SkinnyCase {
    i64 M;
    int N;
    i64 K;
    int splits;
    bool along_k, q_k_contiguous, d_transposed;
    i64 pad;
    float alpha, beta;
    bool scalars_from_memory, nan_d;
};

struct SkinnyInfo {
    const char *name;
    SkinnyKernel fn;
    int nb;
    bool along_k, vec;
};
static const SkinnyInfo SKINNY[] = {
    {"gemm_f32_skinny_k4", gemm_f32_skinny_k4, 4, true, false},       {"gemm_f32_skinny_k4_vec", gemm_f32_skinny_k4_vec, 4, true, true},
    {"gemm_f32_skinny_m4", gemm_f32_skinny_m4, 4, false, false},      {"gemm_f32_skinny_m4_vec", gemm_f32_skinny_m4_vec, 4, false, true},
    {"gemm_f32_skinny_k8", gemm_f32_skinny_k8, 8, true, false},       {"gemm_f32_skinny_k8_vec", gemm_f32_skinny_k8_vec, 8, true, true},
    {"gemm_f32_skinny_m8", gemm_f32_skinny_m8, 8, false, false},      {"gemm_f32_skinny_m8_vec", gemm_f32_skinny_m8_vec, 8, false, true},
    {"gemm_f32_skinny_k16", gemm_f32_skinny_k16, 16, true, false},    {"gemm_f32_skinny_k16_vec", gemm_f32_skinny_k16_vec, 16, true, true},
    {"gemm_f32_skinny_m16", gemm_f32_skinny_m16, 16, false, false},   {"gemm_f32_skinny_m16_vec", gemm_f32_skinny_m16_vec, 16, false, true},
    {"gemm_f32_skinny_k32", gemm_f32_skinny_k32, 32, true, false},    {"gemm_f32_skinny_k32_vec", gemm_f32_skinny_k32_vec, 32, true, true},
    {"gemm_f32_skinny_m32", gemm_f32_skinny_m32, 32, false, false},   {"gemm_f32_skinny_m32_vec", gemm_f32_skinny_m32_vec, 32, false, true},
};

static int check_skinny(const SkinnyInfo &sk, const SkinnyCase &c) {
    const char *name = sk.name;
    const bool vec = sk.vec;
    // _vec: the host's rule, ldp % 4 == 0 (and P aligned).
    const i64 extent = c.along_k ? c.K : c.M;
    const i64 ldp = vec ? (extent + 3) / 4 * 4 + 4 * c.pad : extent + c.pad;
    const i64 p_len = ldp * ((c.along_k ? c.M : c.K) - 1) + (c.along_k ? c.K : c.M);
    const i64 qld = (c.q_k_contiguous ? c.K : c.N) + c.pad;
    const i64 qsl = c.q_k_contiguous ? 1 : qld, qsj = c.q_k_contiguous ? qld : 1;
    const i64 q_len = (c.q_k_contiguous ? qld * (c.N - 1) + c.K : qld * (c.K - 1) + c.N);
    const i64 ldd = (c.d_transposed ? c.N : c.M) + c.pad;
    const i64 dsi = c.d_transposed ? ldd : 1, dsj = c.d_transposed ? 1 : ldd;
    const i64 d_len = c.d_transposed ? ldd * (c.M - 1) + c.N : ldd * (c.N - 1) + c.M;
    Fenced P(p_len, 0, !vec), Q(q_len, 1, false), D(d_len, 0, true);
    std::vector<float> d0(d_len);
    for (i64 i = 0; i < p_len; ++i) P.data[i] = c.alpha == 0.0f ? NAN : random_value();
    for (i64 i = 0; i < q_len; ++i) Q.data[i] = c.alpha == 0.0f ? NAN : random_value();
    for (i64 i = 0; i < d_len; ++i) D.data[i] = d0[i] = c.nan_d ? NAN : random_value();
    // alpha 0, beta 1: D untouched, checked bit for bit. A rewrite as 1·D would
    // keep -0 but quiet a signaling NaN (0x7f800001), so both are planted.
    const bool untouched = c.alpha == 0.0f && c.beta == 1.0f;
    if (untouched) {
        const unsigned signaling_nan = 0x7f800001u;
        for (i64 i = 0; i < d_len; i += 3) {
            if (i % 2) D.data[i] = d0[i] = -0.0f;
            else std::memcpy(&d0[i], &signaling_nan, 4), std::memcpy(&D.data[i], &signaling_nan, 4);
        }
    }
    if (vec && reinterpret_cast<unsigned long long>(P.data) % 16) return std::printf("FAIL %s: P unaligned for _vec\n", name), 1;
    // Rows per block and the block (kernels/gemm.cu): 256 threads, 32 × 8 along m below NB 32.
    const bool block_2d = !c.along_k && sk.nb < 32;
    const i64 rows = sk.nb == 32 ? 64 : c.along_k ? 32 : 128, blocks = (c.M + rows - 1) / rows;
    const i64 chunks = (c.K + 255) / 256, per = (chunks + c.splits - 1) / c.splits * 256;
    const unsigned splits = static_cast<unsigned>((c.K + per - 1) / per);
    std::vector<unsigned> counters(blocks, 0);
    std::vector<float> partials(static_cast<size_t>(splits) * c.M * c.N, NAN);
    float scalars[2] = {c.alpha, c.beta};
    const uint3 block = block_2d ? uint3{32, 8, 1} : uint3{256, 1, 1};
    // A and B (P and Q): no read may leave them (cuda_on_cpu.h: a fence page cannot see a 16-byte-aligned over-read).
    emu::read_spans = {{P.data, P.data + p_len}, {Q.data, Q.data + q_len}};
    if (c.alpha == 0.0f) emu::unread_spans = emu::read_spans;
    emu::launch({static_cast<unsigned>(blocks), splits, 1}, block, [&] {
        sk.fn(c.M, c.N, c.K, per, c.alpha, c.scalars_from_memory ? scalars : nullptr, P.data, ldp, Q.data, qsl, qsj, c.beta,
           c.scalars_from_memory ? scalars + 1 : nullptr, D.data, dsi, dsj, counters.data(), partials.data());
    });
    emu::read_spans.clear();
    emu::unread_spans.clear();
    int bad = 0;
    for (unsigned v : counters) bad += v != 0;
    for (i64 t = 0; t < d_len; ++t) {
        const i64 i = c.d_transposed ? t / ldd : t % ldd, j = c.d_transposed ? t % ldd : t / ldd;
        const float got = D.data[t];
        if (i >= c.M || j >= c.N || untouched) {
            if (std::memcmp(&got, &d0[t], 4)) ++bad;
            continue;
        }
        double want = 0, mag = 0;
        if (c.alpha != 0.0f) {
            for (i64 l = 0; l < c.K; ++l) {
                const double p = c.along_k ? P.data[l + i * ldp] : P.data[i + l * ldp];
                const double prod = p * Q.data[l * qsl + j * qsj];
                want += prod;
                mag += std::fabs(prod);
            }
            want *= c.alpha;
            mag *= std::fabs(c.alpha);
        }
        if (c.beta != 0.0f) {
            want += static_cast<double>(c.beta) * d0[t];
            mag += std::fabs(static_cast<double>(c.beta) * d0[t]);
        }
        const double bound = 2.0 * (c.K + 2) * 0.5 * FLT_EPSILON * mag + FLT_MIN;
        if (!(std::fabs(got - want) <= bound)) ++bad;
    }
    if (bad) {
        std::printf("FAIL %s: M %lld N %d K %lld splits %u along_k %d q_k %d d_T %d pad %lld alpha %g beta %g: %d bad\n", name,
                    static_cast<long long>(c.M), c.N, static_cast<long long>(c.K), splits, c.along_k, c.q_k_contiguous,
                    c.d_transposed, static_cast<long long>(c.pad), c.alpha, c.beta, bad);
    }
    return bad ? 1 : 0;
}


constexpr int DRAWN_CASES_PER_KERNEL = 8;

// A case drawn afresh (from the run's seed) that the kernel takes: m and n up to two tiles, k up to a dozen k
// tiles, a split along k, padding, offset and scalars; the _vec kernels' extents along their operands' vectors,
// padding and offset as the host's vec rule leaves them.
static Case drawn_case(const KernelInfo &kinfo) {
    auto extent = [&](i64 high, bool along_vector) {
        const i64 e = draw_between(rng, 1, high);
        return kinfo.vec && along_vector ? (e + 3) / 4 * 4 : e;
    };
    const i64 m = extent(2 * kinfo.bm, !kinfo.ta), n = extent(2 * kinfo.bn, kinfo.tb);
    const int split = draw(rng, {1, 1, 2, 3});
    const i64 k = extent(split > 1 ? 600 : 200, kinfo.ta || !kinfo.tb);
    const i64 pad = kinfo.vec ? 4 * draw_between(rng, 0, 1) : draw_between(rng, 0, 3);
    const int offset = kinfo.vec ? 0 : static_cast<int>(draw_between(rng, 0, 3));
    const float alpha = draw(rng, {1.25f, -0.75f, 1.25f, -0.75f, 0.0f}), beta = draw(rng, {-0.5f, 0.0f, 1.0f});
    const bool c_vec = m % 4 == 0 && pad % 4 == 0 && offset == 0 && draw(rng, {false, true});
    return Case{m, n, k, split, 0, pad, offset, alpha, beta, draw(rng, {false, true}), beta == 0.0f && draw(rng, {false, true}), c_vec};
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : "";
    const char *mode = std::getenv("EMU_COPY_MODE");
    emu::copy_mode = (mode && std::string(mode) == "eager") ? emu::CopyMode::Eager : emu::CopyMode::Deferred;
    int cases = 0, failed = 0;
    for (const auto &kinfo : KERNELS) {
        if (!std::strstr(kinfo.name, only)) continue;
        std::vector<Case> list;
        // Edges and odd sizes (generic kernels also at an unaligned start).
        const int offset = kinfo.vec ? 0 : 1;
        const i64 pad = kinfo.vec ? 4 : 3;
        list.push_back({1, 1, 1, 1, 0, 0, offset, 1.25f, -0.5f, false, false, false});
        list.push_back({7, 33, 9, 1, 0, pad, offset, 1.25f, -0.5f, true, false, false});
        list.push_back({kinfo.bm + 1, kinfo.bn - 1, 20, 1, 0, pad, offset, 1.25f, 0.0f, false, true, false});
        list.push_back({2 * kinfo.bm + 36, kinfo.bn + 4, 44, 1, 0, 0, 0, -0.75f, 0.5f, false, false, true});
        // Whole tiles, a k of many tiles (the pipeline's steady state), a split.
        list.push_back({kinfo.bm, kinfo.bn, 200, 1, 0, 0, 0, 1.0f, 0.0f, false, true, true});
        list.push_back({100, 72, 2052, 3, 0, 0, offset, 1.25f, -0.5f, true, false, false});
        list.push_back({kinfo.bm + 4, 36, 64, 8, 0, pad, offset, 1.25f, -0.5f, false, false, false});
        // k shorter than the pipeline, k = 1 tile + residue; alpha 0 (A, B unread); alpha 0, beta 1 (k a
        // multiple of 4, so that the _vec kernels of every pair run them too).
        list.push_back({40, 40, 12, 1, 0, 0, offset, 1.25f, -0.5f, false, false, true});
        list.push_back({40, 40, 4, 1, 0, 0, offset, 1.25f, -0.5f, false, false, false});
        list.push_back({40, 40, 36, 1, 0, 0, offset, 0.0f, 0.5f, true, false, false});
        list.push_back({40, 40, 36, 1, 0, 0, offset, 0.0f, 1.0f, true, false, false});
        // alpha 0 from the device on a split along k (beta over NaN-free C, beta 1, then beta 0 over NaN).
        list.push_back({100, 72, 2052, 3, 0, pad, offset, 0.0f, 0.5f, true, false, false});
        list.push_back({kinfo.bm + 4, 36, 64, 8, 0, pad, offset, 0.0f, 1.0f, true, false, false});
        list.push_back({kinfo.bm + 4, 36, 64, 8, 0, 0, offset, 0.0f, 0.0f, true, true, false});
        // _vec NN and NT at an odd m on a padded copy of A: edges, a long k, a split, device scalars over NaN in C.
        if (kinfo.vec && !kinfo.ta) {
            for (Case c : {Case{7, 36, 44, 1, 0, 4, 0, 1.25f, -0.5f, true, false, false},
                           Case{kinfo.bm + 1, kinfo.bn + 4, 200, 1, 0, 0, 0, 1.25f, 0.0f, false, true, false},
                           Case{2 * kinfo.bm + 37, 40, 2052, 3, 0, 0, 0, -0.75f, 0.5f, false, false, false},
                           Case{kinfo.bm - 3, 8, 12, 1, 0, 4, 0, 0.0f, 0.0f, true, true, false}}) {
                c.a_padded = true;
                list.push_back(c);
            }
        }
        // And cases drawn afresh each run (the seed printed first replays them).
        for (int i = 0; i < DRAWN_CASES_PER_KERNEL; ++i) list.push_back(drawn_case(kinfo));
        for (auto c : list) {
            if (kinfo.vec && !c.a_padded) {
                // The host's vec rule: extents along each operand's vector a multiple of 4.
                const i64 a_extent = kinfo.ta ? c.k : c.m, b_extent = kinfo.tb ? c.n : c.k;
                if (a_extent % 4 || b_extent % 4) continue;
            }
            ++cases;
            failed += run_case(kinfo, c) ? 1 : 0;
        }
    }
    for (const auto &sinfo : STREAM_K_KERNELS) {
        if (!std::strstr(sinfo.name, only)) continue;
        const KernelInfo kinfo{sinfo.name, sinfo.plain, 256, 128, 256, sinfo.ta, sinfo.tb, true, sinfo.fn};
        // (m, n, k, -blocks, dp): pieces of 2–3 blocks per tile, a share
        // across three tiles, one k tile per block, whole tiles first, the k
        // residue, a lone tile (one k tile per block for TN); scalars as above (multiples of 4 where _vec needs them).
        const std::vector<Case> list = {
            {300, 200, 204, -7, 0, 0, 0, 1.25f, -0.5f, false, false, true},
            {300, 200, 204, -5, 1, 4, 0, 1.25f, 0.0f, true, true, false},
            {520, 260, 16, -5, 0, 0, 0, 1.0f, 0.5f, false, false, true},
            {256, 128, 80, -5, 0, 0, 0, -0.75f, 0.5f, false, false, true},
            {512, 256, 36, -3, 2, 0, 0, 1.25f, -0.5f, false, false, true},
            {260, 132, 100, -6, 0, 4, 0, 0.0f, 0.5f, true, false, false},
            {260, 132, 100, -6, 0, 4, 0, 0.0f, 1.0f, true, false, false},
            {768, 384, 64, -16, 3, 0, 0, 1.25f, -0.5f, true, false, true},
        };
        for (const auto &c : list) {
            ++cases;
            failed += run_case(kinfo, c) ? 1 : 0;
        }
        if (!kinfo.ta) {  // an odd m on a padded copy of A, as the plain kernels above
            Case c{301, 200, 204, -7, 1, 0, 0, 1.25f, 0.0f, false, true, false};
            c.a_padded = true;
            ++cases;
            failed += run_case(kinfo, c) ? 1 : 0;
        }
    }
    for (bool transposed : {true, false}) {
        if (!std::strstr(transposed ? "gemm_transpose_a_f32" : "gemm_copy_a_f32", only)) continue;
        // Edges on both sides, padded leading dimensions (lda is A's: along k
        // for A^T, along the rows for A); the kernels' fixed 32 × 8 block.
        for (auto [k, rows, lda, ldt] : {std::array<i64, 4>{1, 1, 1, 4}, {33, 70, 35, 72}, {64, 64, 64, 64}, {100, 31, 101, 32}, {7, 129, 9, 132}, {37, 127, 131, 128}}) {
            const i64 a_ld = transposed ? std::max(lda, k) : std::max(lda, rows);
            ++cases;
            failed += check_copy(transposed, k, rows, a_ld, ldt, false) ? 1 : 0;
        }
        ++cases;
        failed += check_copy(transposed, 33, 70, transposed ? 35 : 71, 72, true) ? 1 : 0;
        ++cases;
        failed += check_copy(transposed, 200, 65, transposed ? 201 : 67, 68, false, 2) ? 1 : 0;
    }
    if (std::strstr("gemm_scale_f32", only)) {
        // (m, n, ldc, threads, grid.y): one element; edges of a block; fewer
        // block rows than columns; padded ldc; each scalar, by value and from memory.
        for (auto [m, n, ldc, threads, gy] : {std::array<i64, 5>{1, 1, 1, 32, 1}, {33, 7, 33, 32, 7}, {100, 9, 103, 64, 4}, {513, 3, 520, 512, 1}, {70, 40, 72, 96, 3}}) {
            for (float beta : {0.0f, 1.0f, 0.5f, -1.25f}) {
                for (bool from_memory : {false, true}) {
                    ++cases;
                    failed += check_scale(m, n, ldc, static_cast<unsigned>(threads), static_cast<unsigned>(gy), beta, from_memory) ? 1 : 0;
                }
            }
        }
    }
    for (const auto &sk : SKINNY) {
        if (!std::strstr(sk.name, only)) continue;
        // N at, and below, NB; K over chunk edges (1, 255, 257, 600); row blocks
        // whole and partial; splits 1, 2, 3 (the last range short); Q along k
        // or along j; D as C or C^T; scalars from memory; alpha 0 (P, Q NaN,
        // unread); beta 0 over NaN; beta 1.
        const int n_low = sk.nb == 4 ? 2 : sk.nb / 2 + 1;
        const std::vector<SkinnyCase> list = {
            {37, sk.nb, 257, 1, sk.along_k, true, false, 0, 1.25f, -0.5f, false, false},
            {130, n_low, 600, 3, sk.along_k, false, true, 1, 1.25f, 0.0f, true, true},
            {1, sk.nb, 1, 1, sk.along_k, true, true, 0, -0.75f, 0.5f, false, false},
            {33, n_low, 255, 2, sk.along_k, false, false, 2, 1.0f, 1.0f, false, false},
            {129, sk.nb, 513, 2, sk.along_k, true, false, 1, 1.25f, 0.0f, false, true},
            {40, n_low, 300, 2, sk.along_k, true, false, 0, 0.0f, 0.5f, true, false},
            {40, n_low, 300, 2, sk.along_k, true, false, 0, 0.0f, 1.0f, true, false},
        };
        for (const auto &c : list) {
            ++cases;
            failed += check_skinny(sk, c);
        }
    }
    std::printf("%d cases, %d failed, %ld copies never waited for (%s copies)\n", cases, failed, emu::unwaited_copies.load(),
                emu::copy_mode == emu::CopyMode::Eager ? "eager" : "deferred");
    return failed ? 1 : 0;
}
