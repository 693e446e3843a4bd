// SGEMM: C = alpha * op(A) * op(B) + beta * C, column-major, FP32 FFMA only.
//
// Tile kernels, stamped out per (tile, transposes, alignment) by GEMM_KERNEL:
//   gemm_f32_<BM>x<BN>_<ta><tb>[_vec]
//  - 128x128: 256 threads (8 warps as 4 along m × 2 along n), 2 blocks per SM.
//  - 64x64:   64 threads (2 warps along m), 8 blocks per SM; small or skinny problems.
// Every thread owns 8×8 outputs, as 2×2 sub-blocks of 4×4 spread over the warp
// tile (32 rows × 64 columns: rows tm*4 + {0..3} + {0, 16}, columns
// tn*4 + {0..3} + {0, 32}), so that each k step is 4 conflict-free LDS.128
// (A: 4 distinct float4 per warp, broadcast; B: 8 distinct float4 = 128 bytes)
// feeding 64 FFMA.
//
// Pipeline: k tiles of 8, two shared-memory stages and a register stage. While
// the block computes on stage s, each thread has already issued the global
// loads of the next k tile into registers; after the compute it stores them
// into stage s^1; one __syncthreads per k tile.
//
// Shared layout: both operands k-major, As[k][m] and Bs[k][n], rows padded by 4
// floats. Whatever the transpose, a tile is stored this way, so the inner loop
// is the same for NN, NT, TN, TT; only the global→shared mapping differs:
//  - "along d" operands (A not transposed, B transposed: the tile's m or n
//    direction is contiguous in memory): a thread loads (float4 or scalar)
//    along d and stores along a shared row — STS.128 or consecutive floats.
//  - "along k" operands (A transposed, B not transposed): a thread loads along
//    k and stores down a shared column; with rows of 132 (or 68) floats a
//    warp's 32 stores hit 32 different banks (row stride ≡ 4 banks, and the
//    lanes of one k cover 16 or 4 consecutive d).
//
// Edges: the k residue (k % 8, or 8) is the *first* k tile, loaded with k
// guards (zero fill); every later tile is whole and unguarded. Rows/columns
// beyond m or n are skipped by a per-thread mask (zero fill) and never stored.
// _vec kernels use 16-byte global loads: the host checks the pointer, the
// leading dimension and the extent along the vector (m or n along d, k along k)
// are multiples of 4 floats, so a float4 is wholly inside or wholly outside.
//
// Split-K: blockIdx.z takes k tiles [z*per, (z+1)*per) of the per-split share,
// and C advances by z * c_split_stride; the host points C at the work buffer
// with alpha = 1, beta = 0, and gemm_splitk_reduce_f32 then sums the splits in
// fixed order (deterministic: no atomics anywhere).
//
// Scalars: alpha == 0 skips the k loop (A and B are not read); beta == 0
// never reads C; alpha == 0 with beta == 1 returns at once (device pointer
// mode, where the host could not see the values).
#include "common.cuh"

#define GEMM_BK 8
#define GEMM_PAD 4

// One operand's share of a k tile: which elements this thread loads, the
// registers that carry them from global to shared memory, and where they go.
// D is the tile's extent along m (for A) or n (for B).
template <int D, int THREADS, bool ALONG_K, bool VEC>
struct TileLoader {
    static constexpr int ELEMS = D * GEMM_BK / THREADS;
    static constexpr int LOADS = VEC ? ELEMS / 4 : ELEMS;
    // along d: threads per shared row (k); along k: threads per shared column (d).
    static constexpr int PER_LINE = ALONG_K ? (VEC ? GEMM_BK / 4 : GEMM_BK) : (VEC ? D / 4 : D);
    // Between this thread's consecutive loads: k rows (along d) or d columns (along k).
    static constexpr int LINE_STEP = THREADS / PER_LINE;
    static_assert(THREADS % PER_LINE == 0, "a thread's loads stay on one line position");
    static_assert(ELEMS % (VEC ? 4 : 1) == 0, "whole float4 per thread");

    const float *p;   // this thread's load 0 of the next k tile
    i64 stride;       // floats between this thread's loads
    unsigned mask;    // bit i: load i is inside the matrix along d
    int kk0;          // k of load 0 within the tile
    int dd0;          // d of load 0 within the tile
    float r[ELEMS];

    // k0: the k of the tile's first row (the first tile may start before the
    // split's range; its rows there are masked by the first load).
    __device__ __forceinline__ void init(const float *base, i64 ld, i64 d_total, i64 d0, i64 k0, int t) {
        if (!ALONG_K) {
            // element (d, k) at base[d + k * ld]
            dd0 = (t % PER_LINE) * (VEC ? 4 : 1);
            kk0 = t / PER_LINE;
            stride = static_cast<i64>(LINE_STEP) * ld;
            mask = (d0 + dd0 < d_total) ? ~0u : 0u;
            p = base + (d0 + dd0) + (k0 + kk0) * ld;
        } else {
            // element (d, k) at base[k + d * ld]
            kk0 = (t % PER_LINE) * (VEC ? 4 : 1);
            dd0 = t / PER_LINE;
            stride = static_cast<i64>(LINE_STEP) * ld;
            mask = 0;
#pragma unroll
            for (int i = 0; i < LOADS; ++i) {
                if (d0 + dd0 + i * LINE_STEP < d_total) mask |= 1u << i;
            }
            p = base + (k0 + kk0) + (d0 + dd0) * ld;
        }
    }

    // Loads the tile at p; with GUARD_K only rows k >= k_skip (relative to the
    // tile) are read, the others are zero.
    template <bool GUARD_K>
    __device__ __forceinline__ void load(int k_skip) {
        // The stride passes through an empty asm so that it is opaque here: the
        // compiler would otherwise strength-reduce every load's 64-bit address
        // into a pointer of its own, live across the whole k loop (registers
        // the 64 accumulators need). Recomputing p + i * stride costs an IMAD.
        i64 step = stride;
        asm volatile("" : "+l"(step));
        const float *q = p;
#pragma unroll
        for (int i = 0; i < LOADS; ++i, q += step) {
            bool ok = (mask >> i) & 1u;
            if (GUARD_K) ok = ok && (ALONG_K ? kk0 : kk0 + i * LINE_STEP) >= k_skip;
            if (VEC) {
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (ok) v = __ldg(reinterpret_cast<const float4 *>(q));
                r[4 * i + 0] = v.x;
                r[4 * i + 1] = v.y;
                r[4 * i + 2] = v.z;
                r[4 * i + 3] = v.w;
            } else {
                r[i] = ok ? __ldg(q) : 0.f;
            }
        }
    }

    // Moves on to the next k tile: 8 k rows, a multiple of `stride` along d.
    __device__ __forceinline__ void advance() {
        if (ALONG_K) {
            p += GEMM_BK;
        } else {
            p += (GEMM_BK / LINE_STEP) * stride;
        }
    }

    __device__ __forceinline__ void store(float (*s)[D + GEMM_PAD]) const {
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            if (!ALONG_K) {
                const int kk = kk0 + i * LINE_STEP;
                if (VEC) {
                    *reinterpret_cast<float4 *>(&s[kk][dd0]) = make_float4(r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
                } else {
                    s[kk][dd0] = r[i];
                }
            } else {
                const int dd = dd0 + i * LINE_STEP;
                if (VEC) {
#pragma unroll
                    for (int j = 0; j < 4; ++j) s[kk0 + j][dd] = r[4 * i + j];
                } else {
                    s[kk0][dd] = r[i];
                }
            }
        }
    }
};

// acc += the 8 k steps of one shared stage (the thread's 8×8 outer products).
template <int BM, int BN>
__device__ __forceinline__ void multiply_tile(const float (*As)[BM + GEMM_PAD], const float (*Bs)[BN + GEMM_PAD], int am, int bn,
                                              float (&acc)[8][8]) {
#pragma unroll
    for (int kk = 0; kk < GEMM_BK; ++kk) {
        const float4 a0 = *reinterpret_cast<const float4 *>(&As[kk][am]);
        const float4 a1 = *reinterpret_cast<const float4 *>(&As[kk][am + 16]);
        const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[kk][bn]);
        const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[kk][bn + 32]);
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

template <int BM, int BN, int THREADS, bool TRANS_A, bool TRANS_B, bool VEC>
__device__ __forceinline__ void gemm_tile(i64 m, i64 n, i64 k, float alpha_value, const float *alpha_ptr,
                                          const float *__restrict__ A, i64 lda, const float *__restrict__ B, i64 ldb,
                                          float beta_value, const float *beta_ptr, float *__restrict__ C, i64 ldc,
                                          i64 c_split_stride, int c_vec) {
    static_assert(BM % 32 == 0 && BN % 64 == 0 && (BM / 32) * (BN / 64) * 32 == THREADS, "warp tiles of 32x64");
    __shared__ __align__(16) float As[2][GEMM_BK][BM + GEMM_PAD];
    __shared__ __align__(16) float Bs[2][GEMM_BK][BN + GEMM_PAD];

    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    if (alpha == 0.0f && beta == 1.0f) return;

    const int t = threadIdx.x;
    const int lane = t & 31, warp = t >> 5;
    const int wm = warp % (BM / 32), wn = warp / (BM / 32);
    const int tm = lane & 3, tn = lane >> 2;
    const int am = wm * 32 + tm * 4;  // + {0..3} + {0, 16}
    const int bn = wn * 64 + tn * 4;  // + {0..3} + {0, 32}

    // Tiles are numbered m fastest in x (no 65535 limit on either dimension).
    const unsigned tiles_m = static_cast<unsigned>((m + BM - 1) / BM);
    const i64 m0 = static_cast<i64>(blockIdx.x % tiles_m) * BM;
    const i64 n0 = static_cast<i64>(blockIdx.x / tiles_m) * BN;

    // This split's k range, in whole k tiles except for the end of k.
    const i64 k_tiles = (k + GEMM_BK - 1) / GEMM_BK;
    const i64 per = (k_tiles + gridDim.z - 1) / gridDim.z * GEMM_BK;
    const i64 kbeg = static_cast<i64>(blockIdx.z) * per;
    const i64 kend = min(k, kbeg + per);
    const int tiles = (alpha == 0.0f || kend <= kbeg) ? 0 : static_cast<int>((kend - kbeg + GEMM_BK - 1) / GEMM_BK);

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

    if (tiles > 0) {
        TileLoader<BM, THREADS, TRANS_A, VEC> la;
        TileLoader<BN, THREADS, !TRANS_B, VEC> lb;
        // The first tile holds the residue, `first` ∈ 1..8 k values: it is read
        // as a whole tile that ends where the second begins, its first 8 - first
        // rows masked, so that every tile after it is one constant step on.
        const int first = static_cast<int>(kend - kbeg) - (tiles - 1) * GEMM_BK;
        const i64 k0 = kbeg + first - GEMM_BK;
        la.init(A, lda, m, m0, k0, t);
        lb.init(B, ldb, n, n0, k0, t);
        la.template load<true>(GEMM_BK - first);
        lb.template load<true>(GEMM_BK - first);
        la.store(As[0]);
        lb.store(Bs[0]);
        __syncthreads();

        int cur = 0;
        for (int tile = 1; tile < tiles; ++tile) {
            la.advance();
            lb.advance();
            la.template load<false>(0);
            lb.template load<false>(0);
            multiply_tile<BM, BN>(As[cur], Bs[cur], am, bn, acc);
            cur ^= 1;
            la.store(As[cur]);
            lb.store(Bs[cur]);
            __syncthreads();
        }
        multiply_tile<BM, BN>(As[cur], Bs[cur], am, bn, acc);
    }

    // Epilogue: C = alpha * acc + beta * C; float4 where C allows it.
    C += static_cast<i64>(blockIdx.z) * c_split_stride;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        const i64 col = n0 + bn + (j & 3) + (j >> 2) * 32;
        if (col >= n) continue;
        float *c_col = C + col * ldc;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const i64 row = m0 + am + h * 16;
            float v[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) v[r] = alpha * acc[h * 4 + r][j];
            if (c_vec && row + 3 < m) {
                float4 *c4 = reinterpret_cast<float4 *>(c_col + row);
                if (beta != 0.0f) {
                    const float4 old = *c4;
                    v[0] = fmaf(beta, old.x, v[0]);
                    v[1] = fmaf(beta, old.y, v[1]);
                    v[2] = fmaf(beta, old.z, v[2]);
                    v[3] = fmaf(beta, old.w, v[3]);
                }
                *c4 = make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    if (row + r < m) {
                        float out = v[r];
                        if (beta != 0.0f) out = fmaf(beta, c_col[row + r], out);
                        c_col[row + r] = out;
                    }
                }
            }
        }
    }
}

#define GEMM_PARAMS                                                                                         \
    i64 m, i64 n, i64 k, float alpha_value, const float *alpha_ptr, const float *A, i64 lda, const float *B, \
        i64 ldb, float beta_value, const float *beta_ptr, float *C, i64 ldc, i64 c_split_stride, int c_vec
#define GEMM_ARGS m, n, k, alpha_value, alpha_ptr, A, lda, B, ldb, beta_value, beta_ptr, C, ldc, c_split_stride, c_vec

#define GEMM_KERNEL(BM, BN, THREADS, MIN_BLOCKS, ta, tb, TA, TB, suffix, VEC)                                     \
    extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)                                             \
        gemm_f32_##BM##x##BN##_##ta##tb##suffix(GEMM_PARAMS) {                                                    \
        gemm_tile<BM, BN, THREADS, TA, TB, VEC>(GEMM_ARGS);                                                       \
    }

#define GEMM_TRANSPOSES(BM, BN, THREADS, MIN_BLOCKS, suffix, VEC)         \
    GEMM_KERNEL(BM, BN, THREADS, MIN_BLOCKS, n, n, false, false, suffix, VEC) \
    GEMM_KERNEL(BM, BN, THREADS, MIN_BLOCKS, n, t, false, true, suffix, VEC)  \
    GEMM_KERNEL(BM, BN, THREADS, MIN_BLOCKS, t, n, true, false, suffix, VEC)  \
    GEMM_KERNEL(BM, BN, THREADS, MIN_BLOCKS, t, t, true, true, suffix, VEC)

// 128 registers per thread at most: two 256-thread blocks (16 warps) per SM.
GEMM_TRANSPOSES(128, 128, 256, 2, , false)
GEMM_TRANSPOSES(128, 128, 256, 2, _vec, true)
// At most 168 registers per thread (no spills; six 64-thread blocks per SM): small problems
// have few blocks per SM anyway.
GEMM_TRANSPOSES(64, 64, 64, 6, , false)
GEMM_TRANSPOSES(64, 64, 64, 6, _vec, true)

// C = beta * C over m × n (k == 0 or alpha == 0). beta == 0 writes zeros
// without reading C; beta == 1 writes nothing. Grid: x over rows in blocks of
// blockDim.x, y strides over columns.
extern "C" __global__ void gemm_scale_f32(i64 m, i64 n, float beta_value, const float *beta_ptr, float *C, i64 ldc) {
    const float beta = load_scalar(beta_value, beta_ptr);
    if (beta == 1.0f) return;
    const i64 row = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= m) return;
    for (i64 col = blockIdx.y; col < n; col += gridDim.y) {
        float *c = C + col * ldc + row;
        *c = beta == 0.0f ? 0.0f : beta * *c;
    }
}

// Split-K finish: C = alpha * Σ_z partial[z] + beta * C, the splits summed in
// order z = 0, 1, … so the result does not depend on timing. alpha == 0 ignores
// the partial sums (A and B are then as good as unread); beta == 0 never reads C.
extern "C" __global__ void gemm_splitk_reduce_f32(i64 m, i64 n, int splits, const float *partial, i64 ldp,
                                                  i64 split_stride, float alpha_value, const float *alpha_ptr,
                                                  float beta_value, const float *beta_ptr, float *C, i64 ldc) {
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    if (alpha == 0.0f && beta == 1.0f) return;
    const i64 row = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= m) return;
    for (i64 col = blockIdx.y; col < n; col += gridDim.y) {
        float sum = 0.0f;
        if (alpha != 0.0f) {
            const float *p = partial + col * ldp + row;
            for (int z = 0; z < splits; ++z) sum += p[z * split_stride];
        }
        float out = alpha * sum;
        float *c = C + col * ldc + row;
        if (beta != 0.0f) out = fmaf(beta, *c, out);
        *c = out;
    }
}
