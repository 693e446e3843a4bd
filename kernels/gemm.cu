// SGEMM: C = alpha * op(A) * op(B) + beta * C, column-major, FP32 FFMA only.
//
// Three families of tile kernels, each stamped out per (tile, transposes,
// alignment): gemm_f32_<tile>_<ta><tb>[_vec].
//
// Register-staged kernels (gemm_tile), every thread 8×8 outputs:
//  - 128x128: 256 threads (8 warps as 4 along m × 2 along n), 2 blocks per SM.
//  - 64x64:   64 threads (2 warps along m), several blocks per SM; small or skinny problems.
// The 8×8 are 2×2 sub-blocks of 4×4 spread over the warp tile (32 rows × 64
// columns: rows tm*4 + {0..3} + {0, 16}, columns tn*4 + {0..3} + {0, 32}), so
// that each k step is 4 conflict-free LDS.128 (A: 4 distinct float4 per warp,
// broadcast; B: 8 distinct float4 = 128 bytes) feeding 64 FFMA. Pipeline: k
// tiles of 8, two shared-memory stages and a register stage. While the block
// computes on stage s, each thread has already issued the global loads of the
// next k tile into registers; after the compute it stores them into stage s^1;
// one __syncthreads per k tile.
//
// Asynchronous-copy kernels (gemm_tile_async), every thread 16×8 outputs:
//  - 256x128:      256 threads (8 warps as 4 along m × 2 along n), 1 block per SM.
//  - 128x128_t128: 128 threads (4 warps as 2 × 2), 2 blocks per SM.
//  - 128x64:       64 threads (2 warps along m), 4 blocks per SM.
//  - 256x64:       128 threads (4 warps along m), 2 blocks per SM.
// A warp computes 64×64; lane (ty, tx), ty = 0..3 along m, tx = 0..7 along n,
// owns rows ty*4 + {0..3} + 16·{0..3} and columns tx*4 + {0..3} + 32·{0, 1}:
// a k step is 6 LDS.128 (4 of A, 2 of B) feeding 128 FFMA, a quarter fewer
// shared loads per FFMA than 8×8. Lanes are numbered in z order (ty = lane
// bits 4 and 0, tx = bits 3..1), so that a quarter warp reads 2 float4 of A
// and 4 of B rather than 4 and 2 (the split YHs's public Ampere SGEMM found
// faster for LDS.128); the fragments are double-buffered (a k step's shared
// loads are issued under the previous step's FFMA). Global → shared goes
// through cp.async (sm_80+: no registers, no stores to issue), STAGES deep:
// while tile t is computed, tiles t+1 … t+STAGES-1 are in flight; before the
// last k step of tile t one __syncthreads frees tile t's stage, which then
// receives tile t+STAGES (issued there, or over tile t+1's first steps: the
// copy schedule, chosen per kernel, see accumulate_async). Operands along d
// are copied 16 bytes at a time in the _vec kernels; operands along k 4
// bytes at a time, transposed into the k-major layout by the copies
// themselves, except B in TN _vec, which goes 16 bytes at a time through a
// staging area (StagedTranspose). The compute_70
// PTX (pre-Ampere GPUs) copies synchronously instead: correct, not fast; the
// host prefers the register-staged kernels there.
//
// Small tile (gemm_tile_small), every thread 4×8 outputs:
//  - 64x64_t128: 128 threads, cp.async into static shared memory, k tiles of
//    8 in four stages (NN, NT) or of 16 in three (TN, TT); it takes the
//    64-thread 64x64 tile's place from sm_80 on.
//
// Shared layout (every family): both operands k-major, As[k][m] and Bs[k][n],
// rows padded by 4 floats (B of the 256×128 TN _vec kernel: in k rows 8..15,
// column n at n ^ 8, see StagedTranspose). Whatever the transpose, a tile is
// stored this way, so the inner loop is the same for NN, NT, TN, TT; only the
// global→shared mapping differs (TileMap):
//  - "along d" operands (A not transposed, B transposed: the tile's m or n
//    direction is contiguous in memory): a thread loads (float4 or scalar)
//    along d and stores along a shared row.
//  - "along k" operands (A transposed, B not transposed): a thread loads along
//    k and stores down a shared column; with rows of D + 4 floats (D a
//    multiple of 32: a row stride ≡ 4 banks) and k tiles of 8, the 8 k of a
//    warp's stores hit 8 bank groups and its d their 4 consecutive banks: 32
//    different banks (with k tiles of 16 a warp's 16 k × 2 d put rows k and
//    k + 8 on the same banks: 2-way).
//
// Edges: the k residue (k % BK, or BK) is the *first* k tile, loaded with k
// guards (zero fill); every later tile is whole and unguarded. Rows/columns
// beyond m or n are skipped by a per-thread mask (zero fill) and never stored.
// _vec kernels use 16-byte global loads: the host checks the pointer, the
// leading dimension and the extent along the vector (m or n along d, k along k)
// are multiples of 4 floats, so a float4 is wholly inside or wholly outside.
//
// Split-K: blockIdx.z takes k tiles [z*per, (z+1)*per) of the per-split share,
// and C advances by z * c_split_stride; the host points C at the work buffer
// with the call's alpha and beta = 0 (partial sums alpha·op(A)·op(B) of each
// range of k), and gemm_splitk_reduce_f32 (or its four-row twin,
// gemm_splitk_reduce4_f32) then sums the splits and adds the
// call's beta·C, in fixed order (deterministic: no atomics on data).
//
// Stream-K (gemm_f32_256x128_{nn,nt,tn}_vec_sk, gemm_stream_k): one round
// of blocks shares the k of a grid's last tiles; partial tiles meet in the
// work buffer and are added in fixed order (the same bits every call).
//
// Scalars: alpha == 0 skips the k loop (A and B are not read), on every path,
// a split's tile kernels included (their partial sums are then zeros); beta
// == 0 never reads C; alpha == 0 with beta == 1 returns at once (device
// pointer mode, where the host could not see the values).
#include "common.cuh"

#define GEMM_BK 8
#define GEMM_PAD 4

// The device side of the primitives that scripts/cpu-emulation replaces with
// host versions (so that the kernels' index and pipeline logic can be tested
// without a GPU).
#ifndef MUBLAS_CPU_EMULATION
// The value, opaque to the optimizer (it cannot strength-reduce through it).
__device__ __forceinline__ i64 opaque(i64 v) {
    asm volatile("" : "+l"(v));
    return v;
}

// Copies BYTES (4 or 16) from global to shared memory; when !full the
// destination is zero-filled and nothing is read. sm_80+: cp.async, which
// completes at copy_async_wait; before that, a plain copy.
template <int BYTES>
__device__ __forceinline__ void copy_async(float *shared, const float *global, bool full) {
#if __CUDA_ARCH__ >= 800
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    const int src_bytes = full ? BYTES : 0;
    if (BYTES == 16) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global), "r"(src_bytes) : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(global), "r"(src_bytes) : "memory");
    }
#else
    if (BYTES == 16) {
        *reinterpret_cast<float4 *>(shared) = full ? *reinterpret_cast<const float4 *>(global) : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
        *shared = full ? *global : 0.f;
    }
#endif
}

// Closes the group of copies issued since the last commit.
__device__ __forceinline__ void copy_async_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void copy_async_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}
#endif

// Which elements of one operand's k tile this thread moves to shared memory.
// D is the tile's extent along m (for A) or n (for B); WIDE: float4 along d
// (along d) or along k (along k).
template <int D, int THREADS, bool ALONG_K, bool WIDE, int BK = GEMM_BK>
struct TileMap {
    static constexpr int ELEMS = D * BK / THREADS;
    static constexpr int LOADS = WIDE ? ELEMS / 4 : ELEMS;
    // along d: threads per shared row (k); along k: threads per shared column (d).
    static constexpr int PER_LINE = ALONG_K ? (WIDE ? BK / 4 : BK) : (WIDE ? D / 4 : D);
    // Between this thread's consecutive loads: k rows (along d) or d columns (along k).
    static constexpr int LINE_STEP = THREADS / PER_LINE;
    static_assert(THREADS % PER_LINE == 0, "a thread's loads stay on one line position");
    static_assert(ELEMS % (WIDE ? 4 : 1) == 0, "whole float4 per thread");

    const float *p;   // this thread's load 0 of the next k tile
    i64 stride;       // floats between this thread's loads
    unsigned mask;    // bit i: load i is inside the matrix along d
    int kk0;          // k of load 0 within the tile
    int dd0;          // d of load 0 within the tile

    // k0: the k of the tile's first row (the first tile may start before the
    // split's range; its rows there are masked by the first load).
    __device__ __forceinline__ void init(const float *base, i64 ld, i64 d_total, i64 d0, i64 k0, int t) {
        if (!ALONG_K) {
            // element (d, k) at base[d + k * ld]
            dd0 = (t % PER_LINE) * (WIDE ? 4 : 1);
            kk0 = t / PER_LINE;
            stride = static_cast<i64>(LINE_STEP) * ld;
            mask = (d0 + dd0 < d_total) ? ~0u : 0u;
            p = base + (d0 + dd0) + (k0 + kk0) * ld;
        } else {
            // element (d, k) at base[k + d * ld]
            kk0 = (t % PER_LINE) * (WIDE ? 4 : 1);
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

    // Whether load i is read (else zero): inside along d and, with GUARD_K,
    // at a k row >= k_skip of the tile.
    template <bool GUARD_K>
    __device__ __forceinline__ bool inside(int i, int k_skip) const {
        bool ok = (mask >> i) & 1u;
        if (GUARD_K) ok = ok && (ALONG_K ? kk0 : kk0 + i * LINE_STEP) >= k_skip;
        return ok;
    }

    // Moves on to the next k tile: BK k rows, a multiple of `stride` along d.
    __device__ __forceinline__ void advance() {
        if (ALONG_K) {
            p += BK;
        } else {
            p += (BK / LINE_STEP) * stride;
        }
    }
};

// The register-staged path: the loads of a k tile into registers, then their
// stores into a shared stage.
template <int D, int THREADS, bool ALONG_K, bool VEC>
struct TileLoader : TileMap<D, THREADS, ALONG_K, VEC> {
    using Map = TileMap<D, THREADS, ALONG_K, VEC>;
    float r[Map::ELEMS];

    // Loads the tile at p; with GUARD_K only rows k >= k_skip (relative to the
    // tile) are read, the others are zero.
    template <bool GUARD_K>
    __device__ __forceinline__ void load(int k_skip) {
        // The stride is opaque here: the compiler would otherwise
        // strength-reduce every load's 64-bit address into a pointer of its
        // own, live across the whole k loop (registers the 64 accumulators
        // need). Recomputing p + i * stride costs an IMAD.
        const i64 step = opaque(this->stride);
        const float *q = this->p;
#pragma unroll
        for (int i = 0; i < Map::LOADS; ++i, q += step) {
            const bool ok = this->template inside<GUARD_K>(i, k_skip);
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

    __device__ __forceinline__ void store(float (*s)[D + GEMM_PAD]) const {
#pragma unroll
        for (int i = 0; i < Map::LOADS; ++i) {
            if (!ALONG_K) {
                const int kk = this->kk0 + i * Map::LINE_STEP;
                if (VEC) {
                    *reinterpret_cast<float4 *>(&s[kk][this->dd0]) = make_float4(r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
                } else {
                    s[kk][this->dd0] = r[i];
                }
            } else {
                const int dd = this->dd0 + i * Map::LINE_STEP;
                if (VEC) {
#pragma unroll
                    for (int j = 0; j < 4; ++j) s[this->kk0 + j][dd] = r[4 * i + j];
                } else {
                    s[this->kk0][dd] = r[i];
                }
            }
        }
    }
};

// The asynchronous path: copies of a k tile straight into a shared stage.
// Along k a copy cannot transpose a float4, so those are 4 bytes each even in
// the _vec kernels (a warp's copies still read whole 32-byte sectors: with k
// tiles of 8, 8 k of 4 columns; with 16, 16 k of 2 columns).
template <int D, int THREADS, bool ALONG_K, bool VEC, int BK>
struct TileCopier : TileMap<D, THREADS, ALONG_K, VEC && !ALONG_K, BK> {
    using Map = TileMap<D, THREADS, ALONG_K, VEC && !ALONG_K, BK>;

    // Only loads first … first + count - 1 (compile-time constants once the
    // callers' loops are unrolled). live == false zero-fills instead of
    // reading (past the last k tile): a predicate rather than a branch, so
    // that the copies can be scheduled among the FFMA.
    template <bool GUARD_K>
    __device__ __forceinline__ void copy(float (*s)[D + GEMM_PAD], int k_skip, bool live = true, int first = 0,
                                         int count = Map::LOADS) const {
        const i64 step = opaque(this->stride);  // as in TileLoader::load
        const float *q = this->p;
#pragma unroll
        for (int i = 0; i < Map::LOADS; ++i, q += step) {
            if (i < first || i >= first + count) continue;
            const bool ok = this->template inside<GUARD_K>(i, k_skip) && live;
            if (ALONG_K) {
                copy_async<4>(&s[this->kk0][this->dd0 + i * Map::LINE_STEP], q, ok);
            } else {
                copy_async<VEC ? 16 : 4>(&s[this->kk0 + i * Map::LINE_STEP][this->dd0], q, ok);
            }
        }
    }
};

// This block's share of k: `tiles` k tiles of BK, the first of them holding
// the residue, `first` ∈ 1..BK k values, read as a whole tile that ends where
// the second begins (its first BK - first rows masked) so that every tile after it
// is one constant step on; it starts at k0.
struct KRange {
    int tiles;
    int first;
    i64 k0;
};

template <int BK = GEMM_BK>
__device__ __forceinline__ KRange k_range(i64 k, bool skip) {
    const i64 k_tiles = (k + BK - 1) / BK;
    const i64 per = (k_tiles + gridDim.z - 1) / gridDim.z * BK;
    const i64 kbeg = static_cast<i64>(blockIdx.z) * per;
    const i64 kend = min(k, kbeg + per);
    KRange r;
    r.tiles = (skip || kend <= kbeg) ? 0 : static_cast<int>((kend - kbeg + BK - 1) / BK);
    r.first = r.tiles > 0 ? static_cast<int>(kend - kbeg) - (r.tiles - 1) * BK : 0;
    r.k0 = kbeg + r.first - BK;
    return r;
}

// A block tile's first row m0 and column n0. Tiles are numbered m fastest,
// as blockIdx.x (no 65535 limit on either dimension).
struct TileOrigin {
    i64 m0, n0;
};

template <int BM, int BN>
__device__ __forceinline__ TileOrigin tile_origin(i64 m, unsigned tile) {
    const unsigned tiles_m = static_cast<unsigned>((m + BM - 1) / BM);
    TileOrigin o;
    o.m0 = static_cast<i64>(tile % tiles_m) * BM;
    o.n0 = static_cast<i64>(tile / tiles_m) * BN;
    return o;
}

// c[0..3] = v + beta * c[0..3] in one float4 store (c 16-byte aligned);
// beta == 0 never reads C.
__device__ __forceinline__ void store_c4(float *c, const float (&v)[4], float beta) {
    float4 out = make_float4(v[0], v[1], v[2], v[3]);
    if (beta != 0.0f) {
        const float4 old = *reinterpret_cast<const float4 *>(c);
        out.x = fmaf(beta, old.x, out.x);
        out.y = fmaf(beta, old.y, out.y);
        out.z = fmaf(beta, old.z, out.z);
        out.w = fmaf(beta, old.w, out.w);
    }
    *reinterpret_cast<float4 *>(c) = out;
}

// Epilogue: C = alpha * acc + beta * C for a thread's ROWS×8 outputs (rows
// am + (i & 3) + 16 * (i >> 2), columns bn + (j & 3) + 32 * (j >> 2) of the
// block's tile at (m0, n0)); float4 where C allows it.
template <int ROWS>
__device__ __forceinline__ void store_c(const float (&acc)[ROWS][8], float alpha, float beta, float *__restrict__ C, i64 ldc,
                                        i64 m, i64 n, i64 m0, i64 n0, int am, int bn, int c_vec) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        const i64 col = n0 + bn + (j & 3) + (j >> 2) * 32;
        if (col >= n) continue;
        float *c_col = C + col * ldc;
#pragma unroll
        for (int h = 0; h < ROWS / 4; ++h) {
            const i64 row = m0 + am + h * 16;
            float v[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) v[r] = alpha * acc[h * 4 + r][j];
            if (c_vec && row + 3 < m) {
                store_c4(c_col + row, v, beta);
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

// The epilogue where C takes no float4 (C or ldc not 16-byte aligned), for
// the kernels whose shared memory is free once the k loop is done (the
// non-_vec ones: see gemm_tile_async). store_c would write a thread's 4 rows
// of a column as 4 scalar stores, so that one store instruction of a warp
// touched 8 columns: 16 sectors for 32 floats, each sector written four
// times. Here each column the warp owns goes through shared memory and out
// 32 consecutive rows per instruction (16 rows of 2 columns for the small
// tile), 4 or 5 sectors. `slots`: this warp's staged_c_floats<ROWS>()
// floats of shared memory, which the caller has made free (a barrier after
// the k loop). Rows am + (i & 3) + 16 * (i >> 2),
// columns bn + (j & 3) + 32 * (j >> 2), as store_c; a warp covers WARP_ROWS
// rows (64 for 16×8 threads, 32 for gemm_tile's 8×8, 16 for the small tile's
// 4×8) and its lanes 8 values of bn % 32, one slot each.
template <int ROWS>
__host__ __device__ constexpr int staged_c_stride() {
    // Slot strides that keep the float4 writes (8 lanes a phase) and the
    // reads (32 consecutive floats) free of bank conflicts.
    return ROWS == 16 ? 72 : ROWS == 8 ? 48 : 16;
}
template <int ROWS>
__host__ __device__ constexpr int staged_c_floats() {
    return 8 * staged_c_stride<ROWS>();
}
template <int ROWS>
__device__ __forceinline__ void store_c_staged(const float (&acc)[ROWS][8], float alpha, float beta, float *__restrict__ C,
                                               i64 ldc, i64 m, i64 n, i64 m0, i64 n0, int am, int bn, float *slots) {
    constexpr int WARP_ROWS = ROWS * 4;
    static_assert(WARP_ROWS == 64 || WARP_ROWS == 32 || WARP_ROWS == 16, "the tiles' thread layouts");
    constexpr int STRIDE = staged_c_stride<ROWS>();
    const int lane = threadIdx.x & 31;
    const int row_in_warp = am % WARP_ROWS, slot = (bn % 32) / 4;
    const i64 warp_row0 = m0 + am - row_in_warp, warp_col0 = n0 + bn - bn % 32;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        __syncwarp();  // the last column's slots have been read
#pragma unroll
        for (int h = 0; h < ROWS / 4; ++h)
            *reinterpret_cast<float4 *>(&slots[slot * STRIDE + row_in_warp + 16 * h]) =
                make_float4(alpha * acc[4 * h][j], alpha * acc[4 * h + 1][j], alpha * acc[4 * h + 2][j], alpha * acc[4 * h + 3][j]);
        __syncwarp();
#pragma unroll
        for (int it = 0; it < WARP_ROWS / 4; ++it) {
            const int e = it * 32 + lane, q = e / WARP_ROWS, r = e % WARP_ROWS;
            const i64 row = warp_row0 + r, col = warp_col0 + q * 4 + (j & 3) + (j >> 2) * 32;
            if (row < m && col < n) {
                float *c = C + col * ldc + row;
                float out = slots[q * STRIDE + r];
                if (beta != 0.0f) out = fmaf(beta, *c, out);
                *c = out;
            }
        }
    }
}

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

    const TileOrigin origin = tile_origin<BM, BN>(m, blockIdx.x);
    const i64 m0 = origin.m0, n0 = origin.n0;
    const KRange kr = k_range(k, alpha == 0.0f);

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

    if (kr.tiles > 0) {
        TileLoader<BM, THREADS, TRANS_A, VEC> la;
        TileLoader<BN, THREADS, !TRANS_B, VEC> lb;
        la.init(A, lda, m, m0, kr.k0, t);
        lb.init(B, ldb, n, n0, kr.k0, t);
        la.template load<true>(GEMM_BK - kr.first);
        lb.template load<true>(GEMM_BK - kr.first);
        la.store(As[0]);
        lb.store(Bs[0]);
        __syncthreads();

        int cur = 0;
        for (int tile = 1; tile < kr.tiles; ++tile) {
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

    float *const c_block = C + static_cast<i64>(blockIdx.z) * c_split_stride;
    if (VEC || c_vec) {  // as in gemm_tile_async
        store_c<8>(acc, alpha, beta, c_block, ldc, m, n, m0, n0, am, bn, c_vec);
    } else {
        // The first half of the warps stage C in A's stages, the others in B's
        // (one array for both moved ptxas's register choices in the _vec kernels).
        constexpr int HALF = THREADS / 64;
        static_assert(HALF * staged_c_floats<8>() <= 2 * GEMM_BK * (BM + GEMM_PAD) &&
                          HALF * staged_c_floats<8>() <= 2 * GEMM_BK * (BN + GEMM_PAD),
                      "room for store_c_staged");
        float *const slots = (warp < HALF ? &As[0][0][0] : &Bs[0][0][0]) + (warp % HALF) * staged_c_floats<8>();
        __syncthreads();  // every warp is done with the stages
        store_c_staged<8>(acc, alpha, beta, c_block, ldc, m, n, m0, n0, am, bn, slots);
    }
}

// One k step's operands for a 16×8 thread: A rows am + {0..3} + 16·{0..3}
// and B columns bn + {0..3} + 32·{0, 1} of shared row kk (as, bs point at
// (kk, am) and (kk, bn)).
__device__ __forceinline__ void load_fragments(const float *as, const float *bs, float (&a)[16], float (&b)[8]) {
#pragma unroll
    for (int h = 0; h < 4; ++h) {
        const float4 v = *reinterpret_cast<const float4 *>(as + 16 * h);
        a[4 * h + 0] = v.x;
        a[4 * h + 1] = v.y;
        a[4 * h + 2] = v.z;
        a[4 * h + 3] = v.w;
    }
#pragma unroll
    for (int g = 0; g < 2; ++g) {
        const float4 v = *reinterpret_cast<const float4 *>(bs + 32 * g);
        b[4 * g + 0] = v.x;
        b[4 * g + 1] = v.y;
        b[4 * g + 2] = v.z;
        b[4 * g + 3] = v.w;
    }
}

// The asynchronous-copy kernels' shared memory is dynamic: the stages of all
// but 128x64 (33 KiB) take more than the 48 KiB a static array may (the host passes
// async_shared_bytes, and opts every kernel in to the device's per-block limit).
#ifndef MUBLAS_CPU_EMULATION
#define DYNAMIC_SHARED_FLOATS(name) extern __shared__ __align__(16) float name[]
#endif

// How the asynchronous-copy kernels fill one operand's k-major stage:
//  - DirectCopy: cp.async straight into the stage (16 bytes along d, 4 bytes
//    along k, transposing as it goes).
//  - StagedTranspose (B along k in the TN _vec kernels): cp.async of 16 bytes
//    along k into a staging area laid out as in memory, then, once they have
//    landed, the same thread reads its float4 back and stores it transposed.
//    TN has both operands along k: 24 four-byte copies per thread and k tile
//    spill registers, and this measured 3 % faster than them on the H100
//    (for A, or for B in NN, it was 2-3 % slower than the direct copies).
// Both: copy(stage) issues the copies of the current k tile; transpose(stage)
// finishes that stage once its copies have landed.
template <int D, int THREADS, bool ALONG_K, bool VEC, int BK>
struct DirectCopy {
    TileCopier<D, THREADS, ALONG_K, VEC, BK> copier;
    static constexpr int LOADS = TileCopier<D, THREADS, ALONG_K, VEC, BK>::Map::LOADS;
    float (*stages)[BK][D + GEMM_PAD];

    __device__ __forceinline__ void init(const float *base, i64 ld, i64 d_total, i64 d0, i64 k0, int t, float *stage_area, float *) {
        copier.init(base, ld, d_total, d0, k0, t);
        stages = reinterpret_cast<float (*)[BK][D + GEMM_PAD]>(stage_area);
    }
    template <bool GUARD_K>
    __device__ __forceinline__ void copy(int stage, int k_skip, bool live = true, int first = 0, int count = LOADS) const {
        copier.template copy<GUARD_K>(stages[stage], k_skip, live, first, count);
    }
    __device__ __forceinline__ void advance() { copier.advance(); }
    __device__ __forceinline__ void transpose(int) const {}
    static constexpr bool HIGH_K_COLUMNS_XOR_8 = false;
};

// Along d without float4, a k row of D columns takes D threads' copies; a
// block of fewer (the 128x64 tile's 64 threads for A's 128 rows, 256x64's
// 128 threads for A's 256 rows) makes each
// thread do the copies of two threads, t and t + THREADS, of a block twice
// its size.
template <int D, int THREADS, int BK>
struct PairedCopy {
    using Copier = TileCopier<D, 2 * THREADS, false, false, BK>;
    static constexpr int HALF = Copier::Map::LOADS;
    static constexpr int LOADS = 2 * HALF;
    Copier low, high;
    float (*stages)[BK][D + GEMM_PAD];

    __device__ __forceinline__ void init(const float *base, i64 ld, i64 d_total, i64 d0, i64 k0, int t, float *stage_area, float *) {
        low.init(base, ld, d_total, d0, k0, t);
        high.init(base, ld, d_total, d0, k0, t + THREADS);
        stages = reinterpret_cast<float (*)[BK][D + GEMM_PAD]>(stage_area);
    }
    template <bool GUARD_K>
    __device__ __forceinline__ void copy(int stage, int k_skip, bool live = true, int first = 0, int count = LOADS) const {
        low.template copy<GUARD_K>(stages[stage], k_skip, live, first, count);
        high.template copy<GUARD_K>(stages[stage], k_skip, live, first - HALF, count);
    }
    __device__ __forceinline__ void advance() {
        low.advance();
        high.advance();
    }
    __device__ __forceinline__ void transpose(int) const {}
    static constexpr bool HIGH_K_COLUMNS_XOR_8 = false;
};

// An operand copied straight into its stages: PairedCopy where a k row along
// d has more columns than the block has threads, else DirectCopy.
template <int D, int THREADS, bool ALONG_K, bool VEC, int BK, bool PAIRED = !ALONG_K && !VEC && (D > THREADS)>
struct DirectFill {
    using type = DirectCopy<D, THREADS, ALONG_K, VEC, BK>;
};
template <int D, int THREADS, bool ALONG_K, bool VEC, int BK>
struct DirectFill<D, THREADS, ALONG_K, VEC, BK, true> {
    using type = PairedCopy<D, THREADS, BK>;
};

// XOR_HIGH_K: for one of its four k, a warp's transposed stores cover 8
// columns in k rows j, 4 + j, 8 + j and 12 + j; with rows of D + 4 floats
// (≡ 4 banks) rows j and 8 + j hit the same banks. With XOR_HIGH_K, rows
// 8..15 hold column d at d ^ 8 (a float4 stays whole), on the other banks.
template <int D, int THREADS, int BK, bool XOR_HIGH_K>
struct StagedTranspose {
    using Map = TileMap<D, THREADS, true, true, BK>;
    static constexpr int LOADS = Map::LOADS;
    static_assert(!XOR_HIGH_K || BK == 16, "k tiles of 16");
    static constexpr bool HIGH_K_COLUMNS_XOR_8 = XOR_HIGH_K;
    Map map;
    float (*stages)[BK][D + GEMM_PAD];
    float (*staging)[D][BK];

    __device__ __forceinline__ void init(const float *base, i64 ld, i64 d_total, i64 d0, i64 k0, int t, float *stage_area,
                                         float *staging_area) {
        map.init(base, ld, d_total, d0, k0, t);
        stages = reinterpret_cast<float (*)[BK][D + GEMM_PAD]>(stage_area);
        staging = reinterpret_cast<float (*)[D][BK]>(staging_area);
    }
    template <bool GUARD_K>
    __device__ __forceinline__ void copy(int stage, int k_skip, bool live = true, int first = 0, int count = LOADS) const {
        const i64 step = opaque(map.stride);  // as in TileLoader::load
        const float *q = map.p;
#pragma unroll
        for (int i = 0; i < Map::LOADS; ++i, q += step) {
            if (i < first || i >= first + count) continue;
            copy_async<16>(&staging[stage][map.dd0 + i * Map::LINE_STEP][map.kk0], q,
                           map.template inside<GUARD_K>(i, k_skip) && live);
        }
    }
    __device__ __forceinline__ void advance() { map.advance(); }
    // Only this thread's own copies are read: they are complete after its
    // copy_async_wait, no barrier needed.
    __device__ __forceinline__ void transpose(int stage) const {
#pragma unroll
        for (int i = 0; i < Map::LOADS; ++i) {
            const int dd = map.dd0 + i * Map::LINE_STEP;
            const float4 v = *reinterpret_cast<const float4 *>(&staging[stage][dd][map.kk0]);
            const int column = HIGH_K_COLUMNS_XOR_8 && map.kk0 >= 8 ? dd ^ 8 : dd;
            stages[stage][map.kk0 + 0][column] = v.x;
            stages[stage][map.kk0 + 1][column] = v.y;
            stages[stage][map.kk0 + 2][column] = v.z;
            stages[stage][map.kk0 + 3][column] = v.w;
        }
    }
};

template <bool STAGED, int D, int THREADS, bool ALONG_K, bool VEC, int BK, bool XOR_HIGH_K>
struct OperandFill {
    using type = typename DirectFill<D, THREADS, ALONG_K, VEC, BK>::type;
};
template <int D, int THREADS, bool ALONG_K, bool VEC, int BK, bool XOR_HIGH_K>
struct OperandFill<true, D, THREADS, ALONG_K, VEC, BK, XOR_HIGH_K> {
    using type = StagedTranspose<D, THREADS, BK, XOR_HIGH_K>;
};

// How a staged operand (StagedTranspose) reaches its stage: its transposes
// run LEAD k steps before the tile's barrier step (0: right before the
// barrier), into the plain layout or, XOR_HIGH_K, the one with k rows 8..15
// swizzled. Measured per kernel (the TN lines of GEMM_ASYNC_KERNEL).
template <int LEAD, bool XOR_HIGH_K>
struct Staging {
    static constexpr int lead = LEAD;
    static constexpr bool xor_high_k = XOR_HIGH_K;
};
using AtBarrier = Staging<0, false>;
using EarlySwizzled = Staging<1, true>;

// This thread's place in an asynchronous-copy tile (see the file's header):
// rows am + {0..3} + 16·{0..3}, columns bn + {0..3} + 32·{0, 1}.
struct ThreadPlace {
    int am, bn;
};

template <int BM>
__device__ __forceinline__ ThreadPlace thread_place(int t) {
    constexpr int WARPS_M = BM / 64;
    const int lane = t & 31, warp = t >> 5;
    const int wm = warp % WARPS_M, wn = warp / WARPS_M;
    const int ty = (lane >> 4) * 2 + (lane & 1);  // z order: see the file's header
    const int tx = (lane >> 1) & 7;
    return ThreadPlace{wm * 64 + ty * 4, wn * 64 + tx * 4};
}

// acc += op(A)·op(B) over k tiles kr of the block tile at `origin`, through
// the asynchronous-copy pipeline. Leaves
// copies of zero fills past the last tile unwaited (STAGES > 2) and the
// stages in use: the caller waits and synchronises before reusing them.
// STAGING: see Staging (only the TN _vec kernels have a staged operand).
template <int BM, int BN, int BK, int STAGES, int COPY_STEPS, bool TRANS_A, bool TRANS_B, bool VEC, class STAGING = AtBarrier>
__device__ __forceinline__ void accumulate_async(i64 m, i64 n, const float *__restrict__ A, i64 lda, const float *__restrict__ B,
                                                 i64 ldb, TileOrigin origin, const KRange &kr, ThreadPlace place, float (&acc)[16][8]) {
    static_assert(BM % 64 == 0 && BN % 64 == 0, "warp tiles of 64x64");
    static_assert(STAGES >= 2, "at least one tile in flight");
    constexpr int WARPS_M = BM / 64;
    constexpr int THREADS = WARPS_M * (BN / 64) * 32;
    using FillA = typename DirectFill<BM, THREADS, TRANS_A, VEC, BK>::type;
    using FillB = typename OperandFill<VEC && TRANS_A && !TRANS_B, BN, THREADS, !TRANS_B, VEC, BK, STAGING::xor_high_k>::type;
    // Layout: A's stages, B's stages, B's staging area (TN _vec only; the
    // host reserves it for every kernel of the tile).
    DYNAMIC_SHARED_FLOATS(shared);
    float *const a_stages = shared;
    float *const b_stages = a_stages + STAGES * BK * (BM + GEMM_PAD);
    float *const b_staging = b_stages + STAGES * BK * (BN + GEMM_PAD);
    float(*As)[BK][BM + GEMM_PAD] = reinterpret_cast<float(*)[BK][BM + GEMM_PAD]>(a_stages);
    float(*Bs)[BK][BN + GEMM_PAD] = reinterpret_cast<float(*)[BK][BN + GEMM_PAD]>(b_stages);
    const int t = threadIdx.x;
    const int am = place.am, bn = place.bn;
    // B's fragment columns in k rows 8..15 of a stage (StagedTranspose).
    const int bn_high_k = FillB::HIGH_K_COLUMNS_XOR_8 ? bn ^ 8 : bn;
    FillA fa;
    FillB fb;
    fa.init(A, lda, m, origin.m0, kr.k0, t, a_stages, nullptr);
    fb.init(B, ldb, n, origin.n0, kr.k0, t, b_stages, b_staging);
    // Prologue: the first PROLOGUE tiles, one commit group each (empty
    // past the last tile, so that the counting stays uniform).
    constexpr int PROLOGUE = COPY_STEPS == 0 ? STAGES : STAGES - 1;
    fa.template copy<true>(0, BK - kr.first);
    fb.template copy<true>(0, BK - kr.first);
    copy_async_commit();
#pragma unroll
    for (int s = 1; s < PROLOGUE; ++s) {
        if (s < kr.tiles) {
            fa.advance();
            fb.advance();
            fa.template copy<false>(s, 0);
            fb.template copy<false>(s, 0);
        }
        copy_async_commit();
    }
    copy_async_wait<PROLOGUE - 1>();
    fa.transpose(0);
    fb.transpose(0);
    __syncthreads();

    // Fragments double-buffered: k step kk's FFMA run on the set loaded
    // during step kk - 1, so that no step waits for its shared loads. The
    // barrier comes before the tile's last step (whose operands are
    // already in registers): after it, tile + 1's stage is complete and
    // this tile's stage is free. Either then and there (COPY_STEPS = 0)
    // the copies of tile + STAGES go into it, or the next tile's first
    // COPY_STEPS steps issue those of tile + STAGES - 1 (A's, then B's)
    // among their FFMA, as predicated copies (no branch splits the FFMA
    // stream). Issued in a burst after the barrier, each copy held up
    // the next instruction that reused its address registers until it
    // had left the queue (ncu, 256×128 NN: 6 % of the warps' cycles
    // stalled on the long scoreboard there); spread out, they did not.
    // Which is faster depends on how ptxas allocates the kernel's
    // registers around them: measured per kernel (the GEMM_ASYNC_KERNEL lines).
    constexpr int COPIES = FillA::LOADS + FillB::LOADS;
    constexpr int COPIES_PER_STEP = COPY_STEPS == 0 ? COPIES : (COPIES + COPY_STEPS - 1) / COPY_STEPS;
    static_assert(COPY_STEPS < BK, "copies issued before the tile's barrier");
    // Early, the transposes run while the other warps still compute, off
    // the barrier's path; not before this tile's copies of the next one
    // are issued.
    constexpr int TRANSPOSE_LEAD = STAGING::lead;
    constexpr int TRANSPOSE_STEP = BK - 1 - TRANSPOSE_LEAD;
    static_assert(TRANSPOSE_LEAD >= 0 && TRANSPOSE_STEP >= COPY_STEPS, "the next tile's copies issued before its transposes");
    int stage = 0;
    // COPY_STEPS > 0: the stage receiving tile + STAGES - 1 during this
    // tile, always the one before `stage`. Kept as a counter of its own:
    // derived from `stage` instead, ptxas scheduled NT _vec differently
    // and it ran 0.4 % slower from 4096 on (H100, two runs each).
    int fill = STAGES - 1;
    float a[2][16], b[2][8];
    load_fragments(&As[0][0][am], &Bs[0][0][bn], a[0], b[0]);
    for (int tile = 0; tile < kr.tiles; ++tile) {
        const bool refill = tile + STAGES - 1 < kr.tiles;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            // Written out twice (here and at the barrier) on purpose: folded into
            // one helper, ptxas compiled every async kernel differently (SASS diff).
            if (TRANSPOSE_LEAD > 0 && kk == TRANSPOSE_STEP) {
                copy_async_wait<STAGES - 2>();
                const int next = stage + 1 == STAGES ? 0 : stage + 1;
                if (tile + 1 < kr.tiles) {
                    fa.transpose(next);
                    fb.transpose(next);
                }
            }
            if (kk < BK - 1) {
                load_fragments(&As[stage][kk + 1][am], &Bs[stage][kk + 1][kk + 1 >= 8 ? bn_high_k : bn], a[(kk + 1) & 1], b[(kk + 1) & 1]);
            } else {
                copy_async_wait<STAGES - 2>();
                const int next = stage + 1 == STAGES ? 0 : stage + 1;
                if (TRANSPOSE_LEAD == 0 && tile + 1 < kr.tiles) {
                    fa.transpose(next);
                    fb.transpose(next);
                }
                __syncthreads();
                if (COPY_STEPS == 0) {
                    if (tile + STAGES < kr.tiles) {
                        fa.advance();
                        fb.advance();
                        fa.template copy<false>(stage, 0);
                        fb.template copy<false>(stage, 0);
                    }
                    copy_async_commit();
                }
                stage = next;
                // After the last tile this reads a stage nobody uses:
                // harmless, and it keeps the loop uniform.
                load_fragments(&As[stage][0][am], &Bs[stage][0][bn], a[0], b[0]);
            }
            if (COPY_STEPS > 0) {
                if (kk == 0) {
                    fa.advance();
                    fb.advance();
                }
                const int c0 = kk * COPIES_PER_STEP;
                if (c0 < COPIES) {
                    fa.template copy<false>(fill, 0, refill, c0, COPIES_PER_STEP);
                    fb.template copy<false>(fill, 0, refill, c0 - FillA::LOADS, COPIES_PER_STEP);
                    if (c0 + COPIES_PER_STEP >= COPIES) copy_async_commit();
                }
            }
#pragma unroll
            for (int i = 0; i < 16; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[kk & 1][i], b[kk & 1][j], acc[i][j]);
        }
        fill = fill + 1 == STAGES ? 0 : fill + 1;
    }
}

template <int BM, int BN, int BK, int STAGES, int COPY_STEPS, bool TRANS_A, bool TRANS_B, bool VEC, class STAGING>
__device__ __forceinline__ void gemm_tile_async(i64 m, i64 n, i64 k, float alpha_value, const float *alpha_ptr,
                                                const float *__restrict__ A, i64 lda, const float *__restrict__ B, i64 ldb,
                                                float beta_value, const float *beta_ptr, float *__restrict__ C, i64 ldc,
                                                i64 c_split_stride, int c_vec) {
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    if (alpha == 0.0f && beta == 1.0f) return;

    const ThreadPlace place = thread_place<BM>(threadIdx.x);
    const KRange kr = k_range<BK>(k, alpha == 0.0f);

    float acc[16][8];
#pragma unroll
    for (int i = 0; i < 16; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
    const TileOrigin origin = tile_origin<BM, BN>(m, blockIdx.x);
    if (kr.tiles > 0)
        accumulate_async<BM, BN, BK, STAGES, COPY_STEPS, TRANS_A, TRANS_B, VEC, STAGING>(m, n, A, lda, B, ldb, origin, kr, place, acc);
    float *const c_block = C + static_cast<i64>(blockIdx.z) * c_split_stride;
    // The _vec kernels keep the plain epilogue: with the staged one compiled
    // in, ptxas gave their k loops 30-36 more registers and they ran 2-4 %
    // slower (2048², H200) whatever C was.
    if (VEC || c_vec) {
        store_c<16>(acc, alpha, beta, c_block, ldc, m, n, origin.m0, origin.n0, place.am, place.bn, c_vec);
        // With more than two stages the k loop leaves the last STAGES - 2 groups
        // (zero fills past the last tile) unwaited: none may still be landing
        // when the block's shared memory is handed on.
        if (STAGES > 2) copy_async_wait<0>();
    } else {
        // The stages become the epilogue's slots once every copy has landed
        // and every warp has read its last fragments.
        copy_async_wait<0>();
        __syncthreads();
        DYNAMIC_SHARED_FLOATS(shared);
        store_c_staged<16>(acc, alpha, beta, c_block, ldc, m, n, origin.m0, origin.n0, place.am, place.bn,
                           shared + (threadIdx.x >> 5) * staged_c_floats<16>());
    }
}

// One k step's operands for the small tile's 4×8 thread: A rows am + {0..3}
// and B columns bn + {0..3} + {0, 32} of shared row kk (as, bs point at
// (kk, am) and (kk, bn)).
__device__ __forceinline__ void load_small_fragments(const float *as, const float *bs, float (&a)[4], float (&b)[8]) {
    const float4 v[3] = {*reinterpret_cast<const float4 *>(as), *reinterpret_cast<const float4 *>(bs),
                         *reinterpret_cast<const float4 *>(bs + 32)};
#pragma unroll
    for (int g = 0; g < 3; ++g) {
        float *out = g == 0 ? a : b + 4 * (g - 1);
        out[0] = v[g].x;
        out[1] = v[g].y;
        out[2] = v[g].z;
        out[3] = v[g].w;
    }
}

// The small tile (gemm_f32_64x64_t128_*, sm_80+): 64×64 of 128 threads, each
// 4 rows × 8 columns (rows am + {0..3}, columns bn + {0..3} + {0, 32}: the
// layout store_c<4> writes), k tiles of BK copied asynchronously into static
// shared memory, STAGES of them in flight. It serves multiplies with few k
// tiles per block (split-K over a small C, small products), where the
// register-staged 64×64 kernel, two warps per block and one k tile of
// lookahead, left its SMs waiting on global loads: Nsight Compute at
// 127×129×1023 (split 16) put it at 12.8 µs against 8.4 for cuBLAS's
// 64×64 kernel of 128 threads and five stages on the same grid.
// The pipeline is accumulate_async's with every tile's copies issued at its
// barrier: fragments double-buffered (a k step's FFMA run on the operands
// loaded during the step before), and the barrier placed before the tile's
// last step, whose operands are already in registers. Without either, at
// two blocks per SM (NN 256×4096×512) a third of the warps' cycles were
// stalls on shared loads (ncu: short scoreboard 30 %, issue active 61 %
// against cuBLAS's 81 %).
template <int STAGES, int BK, bool TRANS_A, bool TRANS_B, bool VEC>
__device__ __forceinline__ void gemm_tile_small(i64 m, i64 n, i64 k, float alpha_value, const float *alpha_ptr,
                                                const float *__restrict__ A, i64 lda, const float *__restrict__ B, i64 ldb,
                                                float beta_value, const float *beta_ptr, float *__restrict__ C, i64 ldc,
                                                i64 c_split_stride, int c_vec) {
    constexpr int BM = 64, BN = 64, THREADS = 128;
    static_assert(STAGES >= 2, "at least one tile in flight");
    static_assert(BK % 2 == 0, "a tile's last step uses fragment set 1, the next tile's first set 0");
    __shared__ __align__(16) float As[STAGES][BK][BM + GEMM_PAD];
    __shared__ __align__(16) float Bs[STAGES][BK][BN + GEMM_PAD];

    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    if (alpha == 0.0f && beta == 1.0f) return;

    const int t = threadIdx.x;
    const int lane = t & 31, warp = t >> 5;
    const int am = warp * 16 + (lane & 3) * 4;
    const int bn = (lane >> 2) * 4;
    const TileOrigin origin = tile_origin<BM, BN>(m, blockIdx.x);
    const KRange kr = k_range<BK>(k, alpha == 0.0f);

    float acc[4][8];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

    if (kr.tiles > 0) {
        TileCopier<BM, THREADS, TRANS_A, VEC, BK> ca;
        TileCopier<BN, THREADS, !TRANS_B, VEC, BK> cb;
        ca.init(A, lda, m, origin.m0, kr.k0, t);
        cb.init(B, ldb, n, origin.n0, kr.k0, t);
        // Prologue: tiles 0 … STAGES - 1, one commit group each (empty past
        // the last tile, so that the counting stays uniform).
        ca.template copy<true>(As[0], BK - kr.first);
        cb.template copy<true>(Bs[0], BK - kr.first);
        copy_async_commit();
#pragma unroll
        for (int s = 1; s < STAGES; ++s) {
            if (s < kr.tiles) {
                ca.advance();
                cb.advance();
                ca.template copy<false>(As[s], 0);
                cb.template copy<false>(Bs[s], 0);
            }
            copy_async_commit();
        }
        copy_async_wait<STAGES - 1>();
        __syncthreads();
        int stage = 0;
        float a[2][4], b[2][8];
        load_small_fragments(&As[0][0][am], &Bs[0][0][bn], a[0], b[0]);
        for (int tile = 0; tile < kr.tiles; ++tile) {
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                if (kk < BK - 1) {
                    load_small_fragments(&As[stage][kk + 1][am], &Bs[stage][kk + 1][bn], a[(kk + 1) & 1], b[(kk + 1) & 1]);
                } else {
                    // Tile + 1's group is complete once at most STAGES - 2
                    // are pending; after the barrier every thread has read
                    // this tile's stage, which then receives tile + STAGES.
                    copy_async_wait<STAGES - 2>();
                    __syncthreads();
                    if (tile + STAGES < kr.tiles) {
                        ca.advance();
                        cb.advance();
                        ca.template copy<false>(As[stage], 0);
                        cb.template copy<false>(Bs[stage], 0);
                    }
                    copy_async_commit();
                    stage = stage + 1 == STAGES ? 0 : stage + 1;
                    // After the last tile this reads a stage nobody uses:
                    // harmless, and it keeps the loop uniform.
                    load_small_fragments(&As[stage][0][am], &Bs[stage][0][bn], a[0], b[0]);
                }
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[kk & 1][i], b[kk & 1][j], acc[i][j]);
            }
        }
        // The groups committed past the last tile are empty; none may still
        // be landing when the block's shared memory is handed on.
        copy_async_wait<0>();
    }
    float *const c_block = C + static_cast<i64>(blockIdx.z) * c_split_stride;
    if (VEC || c_vec) {  // as in gemm_tile_async
        store_c<4>(acc, alpha, beta, c_block, ldc, m, n, origin.m0, origin.n0, am, bn, c_vec);
    } else {
        __syncthreads();  // every warp done with the stages, which become the epilogue's slots
        store_c_staged<4>(acc, alpha, beta, c_block, ldc, m, n, origin.m0, origin.n0, am, bn,
                          &As[0][0][0] + (threadIdx.x >> 5) * staged_c_floats<4>());
    }
}

// ld.global.cg that the compiler keeps where it is written (volatile asm):
// issued ahead of their use, loads then overlap.
__device__ __forceinline__ float load_pinned(const float *p) {
#ifdef MUBLAS_CPU_EMULATION
    return __ldcg(p);
#else
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
#endif
}

// A stream-K piece: a thread's 16×8 sums as scalars, its float f at
// f · THREADS (coalesced). Stored as float4 (the first version), the k loop
// ran 4-8 % slower.
template <int THREADS>
__device__ __forceinline__ void store_piece(const float (&acc)[16][8], float *slot) {
#pragma unroll
    for (int i = 0; i < 16; ++i)
#pragma unroll
        for (int c = 0; c < 8; ++c) slot[(i * 8 + c) * THREADS] = acc[i][c];
}

// After the block's pieces are stored: count one more in the tile's counter.
__device__ __forceinline__ void publish_piece(unsigned *counter) {
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(counter, 1u);
}

// Wait until `expected` pieces of the tile are published, then set its
// counter back to 0 for the next launch.
__device__ __forceinline__ void await_pieces(unsigned *counter, unsigned expected) {
    if (threadIdx.x == 0) {
        while (*reinterpret_cast<volatile unsigned *>(counter) < expected) __nanosleep(100);
        __threadfence();
        *counter = 0;
    }
    __syncthreads();
}

// Stream-K (Osama et al., PPoPP 2023), for grids whose last round of tiles
// would leave SMs idle (the host decides, routines/gemm/stream_k.rs). The host runs
// tiles 0 … first_tile - 1 whole first (the plain kernel); the gridDim.x
// blocks of this one (one round) then share the k tiles of the remaining
// tiles equally: block j takes k tiles [j·T/s, (j+1)·T/s) of the T = (tiles -
// first_tile) · k_tiles, in tile order, in pieces cut at tile boundaries,
// last piece first. A piece that does not end its tile goes to the work
// buffer (`pieces`, slot tile + j: no two pieces share one) and is counted in
// the tile's arrival counter; the block of the piece that ends the tile
// waits for the others (all from blocks of lower index, which were
// dispatched earlier and computed those pieces first), sets the counter back
// to 0 (counters are 0 between launches), then adds them in a fixed order —
// the same sum every call — and stores C. The host keeps T ≥ s, so that every
// share is non-empty.
//
// How the final block adds the pieces decides how ptxas assigns the
// accumulators' registers, and with them the k loop's speed: with some forms
// the loop ran 4-11 % slower than the plain kernel's identical source (FFMA
// whose three sources share a register bank; H100, 2048², one whole tile per
// block). Two forms, chosen per kernel by measurement (scripts/kernel-ab.py):
// the sums apart from acc (its own piece stored too, all added in k order;
// NN, TN: loop 1-3 % slower than plain, NN's 4 % since its plain twin's
// copies are spread over six steps) or, WINDOWED_READ, the earlier pieces
// added into acc element by element (NT: loop as fast as plain, 1 % slower
// since its twin's copies are spread over three steps; NN and TN 5 % slower
// that way).
template <int BM, int BN, int BK, int STAGES, int COPY_STEPS, bool TRANS_A, bool TRANS_B, bool VEC, bool WINDOWED_READ>
__device__ __forceinline__ void gemm_stream_k(i64 m, i64 n, i64 k, float alpha_value, const float *alpha_ptr,
                                              const float *__restrict__ A, i64 lda, const float *__restrict__ B, i64 ldb,
                                              float beta_value, const float *beta_ptr, float *__restrict__ C, i64 ldc,
                                              i64 c_split_stride, int c_vec, unsigned first_tile, unsigned *__restrict__ counters,
                                              float *__restrict__ pieces) {
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    if (alpha == 0.0f && beta == 1.0f) return;

    constexpr int THREADS = (BM / 64) * (BN / 64) * 32;
    constexpr int PIECE_FLOATS = 16 * 8;  // a thread's share of a piece
    const int t = threadIdx.x;
    const ThreadPlace place = thread_place<BM>(t);
    const i64 k_tiles = (k + BK - 1) / BK;
    const int first_k_tile = static_cast<int>(k - (k_tiles - 1) * BK);  // the k residue leads, as in k_range
    const i64 tiles = ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
    const i64 total = (tiles - first_tile) * k_tiles;
    const i64 j = blockIdx.x, sk_blocks = gridDim.x;
    const i64 begin = j * total / sk_blocks;

    for (i64 stop = (j + 1) * total / sk_blocks; stop > begin;) {
        const i64 tile = (stop - 1) / k_tiles;  // among the stream-K tiles
        const i64 start = max(begin, tile * k_tiles);
        const i64 kt = start - tile * k_tiles;
        KRange kr;
        kr.tiles = alpha == 0.0f ? 0 : static_cast<int>(stop - start);
        kr.first = kt == 0 ? first_k_tile : BK;
        kr.k0 = (kt == 0 ? 0 : first_k_tile + (kt - 1) * BK) + kr.first - BK;

        float acc[16][8];
#pragma unroll
        for (int i = 0; i < 16; ++i)
#pragma unroll
            for (int c = 0; c < 8; ++c) acc[i][c] = 0.f;
        const TileOrigin origin = tile_origin<BM, BN>(m, static_cast<unsigned>(first_tile + tile));
        if (kr.tiles > 0) accumulate_async<BM, BN, BK, STAGES, COPY_STEPS, TRANS_A, TRANS_B, VEC>(m, n, A, lda, B, ldb, origin, kr, place, acc);
        // The next piece refills the stages.
        copy_async_wait<0>();
        __syncthreads();

        // The block that holds the tile's first k tile: the last b with b·T/s ≤ x.
        const i64 first_block = ((tile * k_tiles + 1) * sk_blocks - 1) / total;
        const bool ends_tile = stop == (tile + 1) * k_tiles;
        float *const slots = pieces + t;  // this thread's float f of slot x: slots[(x * PIECE_FLOATS + f) * THREADS]
        if (WINDOWED_READ) {
            if (!ends_tile) {
                store_piece<THREADS>(acc, slots + (tile + j) * PIECE_FLOATS * THREADS);
                publish_piece(&counters[tile]);
            } else {
                if (first_block < j) {
                    const unsigned expected = static_cast<unsigned>(j - first_block);
                    await_pieces(&counters[tile], expected);
                    // Earlier pieces added into acc element by element, the
                    // first two's loads WINDOW elements ahead of their use.
                    constexpr int WINDOW = 8;
                    const float *earlier = slots + (tile + first_block) * PIECE_FLOATS * THREADS;
                    const bool two = expected > 1;
                    const float *second = two ? earlier + PIECE_FLOATS * THREADS : earlier;
                    float ahead[WINDOW], ahead2[WINDOW];
#pragma unroll
                    for (int e = 0; e < WINDOW; ++e) {
                        ahead[e] = load_pinned(earlier + e * THREADS);
                        ahead2[e] = load_pinned(second + e * THREADS);
                    }
#pragma unroll
                    for (int e = 0; e < PIECE_FLOATS; ++e) {
                        float sum = ahead[e % WINDOW] + (two ? ahead2[e % WINDOW] : 0.0f);
                        if (e + WINDOW < PIECE_FLOATS) {
                            ahead[e % WINDOW] = load_pinned(earlier + (e + WINDOW) * THREADS);
                            ahead2[e % WINDOW] = load_pinned(second + (e + WINDOW) * THREADS);
                        }
                        // Rolled: unrolled, these 128 loops made the kernel 430 KB
                        // of code, whose first fetch cost ~50 µs per block.
#pragma unroll 1
                        for (unsigned b = 2; b < expected; ++b) sum += __ldcg(earlier + (b * PIECE_FLOATS + e) * THREADS);
                        acc[e / 8][e % 8] = sum + acc[e / 8][e % 8];
                    }
                }
                store_c<16>(acc, alpha, beta, C, ldc, m, n, origin.m0, origin.n0, place.am, place.bn, c_vec);
            }
        } else if (ends_tile && first_block == j) {  // the whole tile: straight to C
            store_c<16>(acc, alpha, beta, C, ldc, m, n, origin.m0, origin.n0, place.am, place.bn, c_vec);
        } else {
            store_piece<THREADS>(acc, slots + (tile + j) * PIECE_FLOATS * THREADS);
            if (!ends_tile) {
                publish_piece(&counters[tile]);
            } else {
                const unsigned expected = static_cast<unsigned>(j - first_block);
                await_pieces(&counters[tile], expected);
                // Slots tile + b of the blocks b = first_block … j (this
                // one's, which each thread reads back itself, last), summed
                // apart from acc, in k order.
                const float *piece = slots + (tile + first_block) * PIECE_FLOATS * THREADS;
                float sum[16][8];
#pragma unroll
                for (int i = 0; i < 16; ++i)
#pragma unroll
                    for (int c = 0; c < 8; ++c) sum[i][c] = __ldcg(piece + (i * 8 + c) * THREADS);
                for (unsigned b = 0; b < expected; ++b) {
                    piece += PIECE_FLOATS * THREADS;
#pragma unroll
                    for (int i = 0; i < 16; ++i)
#pragma unroll
                        for (int c = 0; c < 8; ++c) sum[i][c] += __ldcg(piece + (i * 8 + c) * THREADS);
                }
                store_c<16>(sum, alpha, beta, C, ldc, m, n, origin.m0, origin.n0, place.am, place.bn, c_vec);
            }
        }
        stop = start;
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

#define GEMM_SMALL_KERNEL(STAGES, BK, MIN_BLOCKS, ta, tb, TA, TB, suffix, VEC)                   \
    extern "C" __global__ void __launch_bounds__(128, MIN_BLOCKS)                                 \
        gemm_f32_64x64_t128_##ta##tb##suffix(GEMM_PARAMS) {                                       \
        gemm_tile_small<STAGES, BK, TA, TB, VEC>(GEMM_ARGS);                                      \
    }

// NN, NT and TT: at most 80 registers (__launch_bounds__(128, 6)), six
// blocks (24 warps) per SM, the rounds of the 64×64 kernel it succeeds; the
// tuner's rounds count on them. At most 102 registers (five blocks) ran the
// same or up to 2 % slower before the fragments were double-buffered, and
// lost 14 % at 256×256×4096 split 48 (768 blocks, two rounds of five). Per pair, k tiles of 8 in four
// stages or of 16 in three (half the barriers; TN copies both operands 4
// bytes at a time, 16 per thread and tile of 16). Kernel time (CUDA graph
// replay, scripts/gemm-small-ab.py; µs, single buffered → now, cuBLAS),
// _vec kernels:
//  - NN, 8 × 4 (H100): 256×4096×512 37.9 → 33.7 (30.3), 4096×512×512 59.4 →
//    57.4 (49.4), 1000×1536×512 48.6 → 48.9 (42.5; 45.2 on 16 × 3),
//    256×256×4096 split 48 22.4 → 22.1 (23.2; 23.4 on 16 × 3);
//  - NT, 8 × 4 (H100): 256×4096×512 32.2 → 27.8 (29.3), 1000×1536×512 43.1
//    → 40.1 (43.4), 4096×512×512 55.6 → 52.0 (49.5);
//  - TN, 16 × 3 (H200): 256×4096×512 45.3 → 39.1 (34.5), 1000×1536×512 57.1 →
//    51.1 (50.3), 4096×512×512 68.0 → 63.3 (56.0), 512×512×512 split 4 14.6
//    → 13.6 (13.4), 256×256×4096 split 48 24.5 → 25.1 (24.5);
//  - TT, 16 × 3 (H200): 256×4096×512 36.7 → 33.1 (30.7), 1000×1536×512 49.9 →
//    44.3 (48.3), 4096×512×512 60.0 → 57.2 (50.0).
// Before (single buffered), against the register-staged 64×64 kernel
// (H200, the old kernel's splits): 127×129×1023 7.0 µs against 10.4,
// 256×256×256 5.5 against 8.1, 100×100×2000 7.5 against 10.3, 3000×184×3000
// 95.8 against 107.6 (cuBLAS 7.8, 6.8, 9.6, 87.2).
// TN alone runs at most four blocks per SM (__launch_bounds__(128, 4), 128
// registers): at 80 it spilled 28 bytes. H200, kernel time as above, µs, six
// blocks → four (cuBLAS): 256×4096×512 39.2 → 34.8 (34.5), 1000×1536×512 51.3
// → 47.5 (50.4), 4096×512×512 63.4 → 61.2 (56.2), 128×128×8192 split 48 17.2
// → 16.3 (16.2), 512×512×512 split 2 15.4 → 14.4; within 1.5 % at
// 256×256×4096 split 32 and 48, 127×129×1023 split 16 and 2048×256×2048
// split 4; slower where four blocks per SM leave a second round that six did
// not (3000×184×3000 split 4, 564 blocks: 112.9 → 116.9), which the tuner
// sees from the registers. Capped at five blocks (95 registers) it ran 2–10 %
// slower than at four, 4 or 2 stages of 16 at four blocks 1–8 % slower, 4 × 8
// at five blocks slower than before; NN, NT and TT at four blocks (94–95
// registers) gained at some shapes and lost at others (NN 1000×1536×512 48.6
// → 45.1, 256×256×4096 split 48 21.8 → 23.2).
#define GEMM_SMALL_TRANSPOSES(suffix, VEC)                                  \
    GEMM_SMALL_KERNEL(4, 8, 6, n, n, false, false, suffix, VEC)            \
    GEMM_SMALL_KERNEL(4, 8, 6, n, t, false, true, suffix, VEC)             \
    GEMM_SMALL_KERNEL(3, 16, 4, t, n, true, false, suffix, VEC)            \
    GEMM_SMALL_KERNEL(3, 16, 6, t, t, true, true, suffix, VEC)
GEMM_SMALL_TRANSPOSES(, false)
GEMM_SMALL_TRANSPOSES(_vec, true)

// NAME: the tile's part of the kernel name; STEPS: COPY_STEPS (see
// accumulate_async); STAGING: a Staging (accumulate_async).
#define GEMM_ASYNC_KERNEL(NAME, BM, BN, BK, STAGES, MIN_BLOCKS, STEPS, STAGING, ta, tb, TA, TB, suffix, VEC)    \
    extern "C" __global__ void __launch_bounds__((BM / 64) * (BN / 64) * 32, MIN_BLOCKS)                          \
        gemm_f32_##NAME##_##ta##tb##suffix(GEMM_PARAMS) {                                                         \
        gemm_tile_async<BM, BN, BK, STAGES, STEPS, TA, TB, VEC, STAGING>(GEMM_ARGS);                              \
    }

// The stream-K twin of a GEMM_ASYNC_KERNEL (gemm_stream_k): same tile and
// pipeline, name suffixed _sk; its copy schedule (STEPS) and read form
// (WINDOWED) are its own, measured (see the 256×128 lines below).
#define GEMM_STREAM_K_KERNEL(NAME, BM, BN, BK, STAGES, MIN_BLOCKS, STEPS, ta, tb, TA, TB, suffix, VEC, WINDOWED)   \
    extern "C" __global__ void __launch_bounds__((BM / 64) * (BN / 64) * 32, MIN_BLOCKS)                             \
        gemm_f32_##NAME##_##ta##tb##suffix##_sk(GEMM_PARAMS, unsigned first_tile, unsigned *counters, float *pieces) {  \
        gemm_stream_k<BM, BN, BK, STAGES, STEPS, TA, TB, VEC, WINDOWED>(GEMM_ARGS, first_tile, counters, pieces);        \
    }

#define GEMM_ASYNC_TRANSPOSES(NAME, BM, BN, BK, STAGES, MIN_BLOCKS, suffix, VEC)         \
    GEMM_ASYNC_KERNEL(NAME, BM, BN, BK, STAGES, MIN_BLOCKS, 0, AtBarrier, n, n, false, false, suffix, VEC) \
    GEMM_ASYNC_KERNEL(NAME, BM, BN, BK, STAGES, MIN_BLOCKS, 0, AtBarrier, n, t, false, true, suffix, VEC)  \
    GEMM_ASYNC_KERNEL(NAME, BM, BN, BK, STAGES, MIN_BLOCKS, 0, AtBarrier, t, n, true, false, suffix, VEC)  \
    GEMM_ASYNC_KERNEL(NAME, BM, BN, BK, STAGES, MIN_BLOCKS, 0, AtBarrier, t, t, true, true, suffix, VEC)

// 128 accumulators and two fragment sets need ~220 registers: one 256-thread
// block per SM (8 warps), or two of 128 threads. The host reserves
// async_shared_bytes = 32 · (BM + 4 + BN + 4 + BN) · 4 (the last BN for TN's
// staging area): k tiles of 16 in two stages, or of 8 in four. 16 × 2 was on
// the H100 2-3 % faster than 8 × 3 for NN, NT and TT (half the barriers per
// FFMA) while each tile's copies were issued at its barrier, and is kept
// for every kernel but three. 256×128 NN and NT _vec, the kernels of every
// large multiply (TT and most TN through A^T), spread the copies over the
// first steps instead (at first NN in one, NT over two; H100, `mublas bench sgemm`,
// three runs against the burst: NN 1.1-1.8 % faster from 3000 on, NT
// 0.6-1.8 %; each lost in the other's schedule; TT _vec spread either way
// lost 3.5 % at 2048, and three stages of 16 helped none), and with it run k
// tiles of 8 in four stages (two runs: NN 0.5-1.3 % faster again from 4096,
// NT 1.2-1.8 %, both 4 % at 1024; 8 × 4 with the burst was 1-3 % slower than
// 16 × 2). TN _vec issues its 18 copies (16 of A, 2 of B's staging) in its
// first step, in k tiles of 16 (`bench sgemm-transposed`, three runs: its
// time over NN's fell from 1.066-1.089 to 1.031-1.046 at 2048-8192; over
// two steps 1.09-1.10, in 8 × 4 over one or two 1.047-1.083). Later, one
// copy per step: NN's 6 over six steps, NT's 3 over three (scripts/
// kernel-ab.py, two rounds: NN 1.5 % faster at 2048² and 4096², NT 1.3 %;
// three or four steps for NN changed nothing, TN over two or five steps lost
// 6-11 %). Their stream-K twins keep one and two steps: with one copy per
// step their k loops ran 5 % slower (the register assignment again, see
// gemm_stream_k). TN _vec transposes B's next stage one step before the
// barrier (kernel-ab, three runs: 1.3-1.4 % faster at 2048², 3072² and
// 4096²; two or three steps before, 1.0 and 0.4 %), into the swizzled
// layout (another 1.0-1.2 %): EarlySwizzled, 2.3-2.6 % faster in all. Its
// stream-K twin keeps AtBarrier: early, its loop gained nothing (0.2 %
// slower), early and swizzled it lost 10 %. Tried for TN and slower:
// A staged and transposed like B (4-8 %, at any lead), and A kept k-major
// in shared memory (16-byte copies, swizzled; fragments of four k per LDS.128
// held over four steps, 255 registers: 6-16 %), A's copies remapped to 8 k
// × 4 rows per warp (no bank conflicts, but 1.8 %), k tiles of 8 in four
// stages (2-6 %) or of 16 in three (0.7 %).
GEMM_ASYNC_KERNEL(256x128, 256, 128, 8, 4, 1, 6, AtBarrier, n, n, false, false, _vec, true)
GEMM_ASYNC_KERNEL(256x128, 256, 128, 8, 4, 1, 3, AtBarrier, n, t, false, true, _vec, true)
GEMM_ASYNC_KERNEL(256x128, 256, 128, 16, 2, 1, 1, EarlySwizzled, t, n, true, false, _vec, true)
GEMM_STREAM_K_KERNEL(256x128, 256, 128, 8, 4, 1, 1, n, n, false, false, _vec, true, false)
GEMM_STREAM_K_KERNEL(256x128, 256, 128, 8, 4, 1, 2, n, t, false, true, _vec, true, true)
GEMM_STREAM_K_KERNEL(256x128, 256, 128, 16, 2, 1, 1, t, n, true, false, _vec, true, false)
GEMM_ASYNC_KERNEL(256x128, 256, 128, 16, 2, 1, 0, AtBarrier, t, t, true, true, _vec, true)
GEMM_ASYNC_TRANSPOSES(256x128, 256, 128, 16, 2, 1, , false)
GEMM_ASYNC_TRANSPOSES(128x128_t128, 128, 128, 16, 2, 2, , false)
GEMM_ASYNC_TRANSPOSES(128x128_t128, 128, 128, 16, 2, 2, _vec, true)

// 128x64: 64 threads (2 warps along m), four blocks (8 warps) per SM, k tiles
// of 8 in four stages: for multiplies with 33 to 64 columns of C, or few
// 64-column tiles, which the 64×64 tiles ran at 4×8 outputs per thread
// (half the FFMA per shared load of 16×8) and the 128-column tiles half
// empty. Kernel time with the split-K reduction, split as the
// tuner does (H200, scripts/gemm-small-ab.py, graph replay; µs), against the
// 64×64 tile of 128 threads and cuBLAS: 4096×64×4096 NN 55.1 against 64.0
// (cuBLAS 53.9), NT 54.1 / 60.4 (55.8), TN 62.6 / 73.4 (62.0), TT 57.3 /
// 65.8; 11008×64×4096 NN 135 / 179 (130), NT 128 / 166 (132), TN 146 / 201
// (137), TT 139 / 187 (139). Copy schedules as measured there and at one
// full round of 4096×1024×4096 (NN 700 µs against 256×128's 671, NT 673 /
// 651, TN 805 / 693, TT 704 / 716): NN and TN issue their copies in the
// first step, NT and TT over three; k tiles of 16 in two stages ran 10–60 %
// slower with two blocks per SM or fewer (split 8 and below).
GEMM_ASYNC_KERNEL(128x64, 128, 64, 8, 4, 4, 1, AtBarrier, n, n, false, false, _vec, true)
GEMM_ASYNC_KERNEL(128x64, 128, 64, 8, 4, 4, 3, AtBarrier, n, t, false, true, _vec, true)
GEMM_ASYNC_KERNEL(128x64, 128, 64, 8, 4, 4, 1, AtBarrier, t, n, true, false, _vec, true)
GEMM_ASYNC_KERNEL(128x64, 128, 64, 8, 4, 4, 3, AtBarrier, t, t, true, true, _vec, true)
GEMM_ASYNC_TRANSPOSES(128x64, 128, 64, 8, 4, 4, , false)

// 256x64: 128 threads (4 warps along m), two blocks (8 warps) per SM, k tiles
// of 8 in four stages with 128x64's copy schedules: the tile cuBLAS runs for
// 65 to 256 columns of C at long k (split 5 at 4096×192×4096). Against the
// 128x64 tile, the same 16×8 outputs a thread with half of B's copies per
// thread and k tile (20 floats against 24: B's 64 columns shared by 256 rows), and one block's
// four warps fill the four warp schedulers: one block per SM took 0.98–1.05×
// the time of two (H200, scripts/gemm-small-ab.py, 4096×512×2048 split 1
// against split 2 with its reduction).
// Kernel time (H200, graph replay, µs, the split-K reduction included):
// 3000×192×14336 split 7 NN 352 (128x64 split 6: 419; cuBLAS 353), NT 352
// (404; 358), TN 380 (450; 356), TT 361 (421; 360); 4096×192×4096 split 5
// NN 148 (155; 151), TN 161 (166; 152). One round of 4096×1024×4096 against
// 256x128's: NN 686 / 672, NT 686 / 651, TN 755 / 693, TT 715 / 717. Tried
// and slower at every shape: k tiles of 16 in two stages, or of 8 in four,
// with the copies issued at the barrier (2–16 %), and 256x128's schedules
// (TN and TT 13–20 %; NN and NT level). Planned only for one round of
// blocks (routines/gemm/kernels.rs, Tile::one_round): over several it lost to
// 128x64 (NN 14336×256×14336 split 4: 2410 against 2181 µs).
GEMM_ASYNC_KERNEL(256x64, 256, 64, 8, 4, 2, 1, AtBarrier, n, n, false, false, _vec, true)
GEMM_ASYNC_KERNEL(256x64, 256, 64, 8, 4, 2, 3, AtBarrier, n, t, false, true, _vec, true)
GEMM_ASYNC_KERNEL(256x64, 256, 64, 8, 4, 2, 1, AtBarrier, t, n, true, false, _vec, true)
GEMM_ASYNC_KERNEL(256x64, 256, 64, 8, 4, 2, 3, AtBarrier, t, t, true, true, _vec, true)
GEMM_ASYNC_TRANSPOSES(256x64, 256, 64, 8, 4, 2, , false)

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

// Split-K finish: C = Σ_z partial[z] + beta * C, the splits summed in order
// z = 0, 1, … so the result does not depend on timing. The partial sums carry
// the call's alpha already (the tile kernels applied it, above); alpha comes
// here too, as the tile kernels' rule: alpha == 0 leaves the partial sums
// unread (zeros) and, with beta == 1, C untouched (-0 stays -0, as unsplit).
// beta == 0 never reads C.
// ROWS rows a thread: 1, or 4 read as float4 (the partial sums' ldp and
// split_stride are multiples of 4 and the buffer is 256-byte aligned; C as
// float4 where aligned), for fewer, wider loads where C has enough rows and
// columns to keep every SM busy at four (routines/gemm/kernels.rs, `reduce_spec`).
template <int ROWS>
__device__ __forceinline__ void splitk_reduce(i64 m, i64 n, int splits, const float *partial, i64 ldp, i64 split_stride,
                                              float alpha_value, const float *alpha_ptr, float beta_value,
                                              const float *beta_ptr, float *C, i64 ldc) {
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    if (alpha == 0.0f && beta == 1.0f) return;
    const i64 row = (static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x) * ROWS;
    if (row >= m) return;
    for (i64 col = blockIdx.y; col < n; col += gridDim.y) {
        const float *p = partial + col * ldp + row;
        float *c = C + col * ldc + row;
        if constexpr (ROWS == 4) {
            // Rows past m in the last group were never written: only whole groups go as float4.
            if (row + 3 < m) {
                float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                if (alpha != 0.0f) {
#pragma unroll 4
                    for (int z = 0; z < splits; ++z) {
                        const float4 v = *reinterpret_cast<const float4 *>(p + z * split_stride);
                        sum.x += v.x;
                        sum.y += v.y;
                        sum.z += v.z;
                        sum.w += v.w;
                    }
                }
                const float out[4] = {sum.x, sum.y, sum.z, sum.w};
                if ((reinterpret_cast<unsigned long long>(c) & 15) == 0) {
                    store_c4(c, out, beta);
                } else {
#pragma unroll
                    for (int r = 0; r < 4; ++r) c[r] = beta != 0.0f ? fmaf(beta, c[r], out[r]) : out[r];
                }
                continue;
            }
        }
        for (int r = 0; r < ROWS && row + r < m; ++r) {
            float sum = 0.0f;
            if (alpha != 0.0f) {
                for (int z = 0; z < splits; ++z) sum += p[z * split_stride + r];
            }
            float out = sum;
            if (beta != 0.0f) out = fmaf(beta, c[r], out);
            c[r] = out;
        }
    }
}

extern "C" __global__ void gemm_splitk_reduce_f32(i64 m, i64 n, int splits, const float *partial, i64 ldp,
                                                  i64 split_stride, float alpha_value, const float *alpha_ptr,
                                                  float beta_value, const float *beta_ptr, float *C, i64 ldc) {
    splitk_reduce<1>(m, n, splits, partial, ldp, split_stride, alpha_value, alpha_ptr, beta_value, beta_ptr, C, ldc);
}

extern "C" __global__ void gemm_splitk_reduce4_f32(i64 m, i64 n, int splits, const float *partial, i64 ldp,
                                                   i64 split_stride, float alpha_value, const float *alpha_ptr,
                                                   float beta_value, const float *beta_ptr, float *C, i64 ldc) {
    splitk_reduce<4>(m, n, splits, partial, ldp, split_stride, alpha_value, alpha_ptr, beta_value, beta_ptr, C, ldc);
}

// Rows of a copy of op(A) written (routines/gemm/copied_a.rs): its rows and
// zeros up to a whole float4, which the multiply's _vec kernels read whole.
__device__ __forceinline__ i64 padded_rows(i64 rows) { return (rows + 3) / 4 * 4; }

// TN and TT with a large product (routines/gemm/copied_a.rs): rows
// [0, rows) of op(A) = A^T, i.e. A's columns, copied into the work buffer as a
// column-major rows × k matrix At (leading dimension ldt), which the NN or NT
// kernels then multiply: they do not copy A along k. Tiles of 32 k × 64 rows
// through shared memory (33 columns: conflict-free both ways); blockDim
// (32, 8): a warp reads 8 rows of the tile, 128 bytes each, all 8 loads in
// flight at once (8 blocks per SM on sm_80+: 64 KB of loads per SM; 32
// registers without a min-blocks hint, which sm_75's 1024 threads per SM
// would reject), then writes 4 k of the tile, 2 × 128 bytes each. Grid: x
// over rows in 64s, y over k in 32s
// (striding past 65535). alpha == 0 (pointer mode device) copies nothing: the
// multiply then reads no A either.
extern "C" __global__ void __launch_bounds__(256) gemm_transpose_a_f32(i64 k, i64 rows, float alpha_value, const float *alpha_ptr,
                                                                       const float *A, i64 lda, float *At, i64 ldt) {
    if (load_scalar(alpha_value, alpha_ptr) == 0.0f) return;
    __shared__ float tile[64][33];
    const int lane = threadIdx.x, warp = threadIdx.y;
    const i64 r0 = static_cast<i64>(blockIdx.x) * 64;
    const int rows_here = static_cast<int>(min(rows - r0, static_cast<i64>(64)));
    const int padded_here = static_cast<int>(min(padded_rows(rows) - r0, static_cast<i64>(64)));
    for (i64 k0 = static_cast<i64>(blockIdx.y) * 32; k0 < k; k0 += static_cast<i64>(gridDim.y) * 32) {
        const int k_here = static_cast<int>(min(k - k0, static_cast<i64>(32)));
        const float *src = A + (r0 + warp) * lda + k0 + lane;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            if (lane < k_here && warp + 8 * i < rows_here) tile[warp + 8 * i][lane] = src[8 * i * lda];
        }
        __syncthreads();
        float *dst = At + (k0 + warp) * ldt + r0 + lane;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                if (warp + 8 * i < k_here && 32 * h + lane < padded_here)
                    dst[8 * i * ldt + 32 * h] = 32 * h + lane < rows_here ? tile[32 * h + lane][warp + 8 * i] : 0.0f;
            }
        }
        __syncthreads();
    }
}

// NN and NT whose A takes no float4 (an odd m or lda, or A off 16 bytes)
// with a large product (routines/gemm/copied_a.rs): rows [0, rows) of A
// copied as they are into the work buffer, leading dimension ldt (a multiple
// of 4, 256-byte aligned), so that the multiply reads A in float4s. The same
// arguments, block (32, 8) and grid (x over rows in 64s, y over k in 32s,
// striding past 65535) as gemm_transpose_a_f32; no shared memory: a warp
// copies 128 bytes of a column a load, each thread 2 rows of 4 columns, all 8
// loads in flight. alpha == 0 (pointer mode device) copies nothing.
extern "C" __global__ void __launch_bounds__(256) gemm_copy_a_f32(i64 k, i64 rows, float alpha_value, const float *alpha_ptr,
                                                                  const float *A, i64 lda, float *At, i64 ldt) {
    if (load_scalar(alpha_value, alpha_ptr) == 0.0f) return;
    const int lane = threadIdx.x, warp = threadIdx.y;
    const i64 r0 = static_cast<i64>(blockIdx.x) * 64 + lane, padded = padded_rows(rows);
    for (i64 k0 = static_cast<i64>(blockIdx.y) * 32 + warp; k0 < k; k0 += static_cast<i64>(gridDim.y) * 32) {
        float v[4][2] = {};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                if (k0 + 8 * i < k && r0 + 32 * h < rows) v[i][h] = A[(k0 + 8 * i) * lda + r0 + 32 * h];
            }
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                if (k0 + 8 * i < k && r0 + 32 * h < padded) At[(k0 + 8 * i) * ldt + r0 + 32 * h] = v[i][h];
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Skinny multiplies (routines/gemm/skinny.rs): D = alpha·P·Q + beta·D with
// D of M × N, 2 ≤ N ≤ NB ≤ 16, P of M × K, Q of K × N. An SGEMM with few
// columns of C is P = op(A), Q = op(B), D = C; one with few rows is its
// transpose, P = op(B)^T, Q = op(A)^T, D = C^T. Reading P once is the whole
// cost (a tile kernel would compute 64 to 256 columns for the few it
// writes), so each block streams rows of P and keeps its N sums per row in
// registers, with Q staged in shared memory a chunk of SKINNY_KC k at a time.
// Two layouts of P:
//   along k, P(i, l) = P[l + i·ldp] (`gemm_f32_skinny_k*`): blocks of 8 warps,
//     each warp 4 rows of D, its lanes over k, two float4 per row and chunk;
//     the sums are added across lanes at the end.
//   along m, P(i, l) = P[i + l·ldp] (`gemm_f32_skinny_m*`): blocks of 32 × 8,
//     each lane 4 rows of D (a float4 of a column of P), the 8 thread rows
//     over k; their sums are added in thread-row order at the end.
// Q(l, j) = Q[l·qsl + j·qsj] and D(i, j) = D[i·dsi + j·dsj] at any strides.
// `_vec`: P 16-byte aligned with ldp % 4 == 0 (float4 loads); else four floats.
// grid (row blocks, splits): split z takes k in [z·k_per_split, …), a multiple
// of SKINNY_KC; with several, each block's sums go to `partials` ([z][i][j])
// and the last block of a row block to arrive adds them in z order, so every
// result is the same sum on every call. alpha == 0 (from the device) scales D
// by beta and reads neither P nor Q; beta == 0 never reads D.
#define SKINNY_THREADS 256
#define SKINNY_KC 256
#define SKINNY_K_ROWS 32
#define SKINNY_M_ROWS 128
// Columns of P in flight per thread along m: 8, or 4 at NB = 16 (its 64 sums).
#define SKINNY_M_UNROLL(NB) ((NB) == 16 ? 4 : 8)
// Along k at NB = 16 ptxas takes 148 registers (one block per SM, whose
// loads then wait on its own FMA): capped at 128 for two blocks where that
// spills nothing (sm_90; 24-64 bytes on sm_70 and sm_80).
#if __CUDA_ARCH__ >= 900
#define SKINNY_K_MIN_BLOCKS(NB) ((NB) == 16 ? 2 : 1)
#else
#define SKINNY_K_MIN_BLOCKS(NB) 1
#endif

#define SKINNY_PARAMS                                                                                               \
    i64 M, int N, i64 K, i64 k_per_split, float alpha_value, const float *alpha_ptr, const float *__restrict__ P, \
        i64 ldp, const float *__restrict__ Q, i64 qsl, i64 qsj, float beta_value, const float *beta_ptr, float *D, \
        i64 dsi, i64 dsj, unsigned *counters, float *partials
#define SKINNY_ARGS \
    M, N, K, k_per_split, alpha_value, alpha_ptr, P, ldp, Q, qsl, qsj, beta_value, beta_ptr, D, dsi, dsj, counters, partials

// Four consecutive floats of P from `p`, of which `avail` (any int) exist; the rest 0.
template <bool VEC>
__device__ __forceinline__ float4 skinny_load4(const float *p, i64 avail) {
    if (avail >= 4) {
        if (VEC) return load_once4(p);
        return make_float4(load_once(p), load_once(p + 1), load_once(p + 2), load_once(p + 3));
    }
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (avail > 0) v.x = load_once(p);
    if (avail > 1) v.y = load_once(p + 1);
    if (avail > 2) v.z = load_once(p + 2);
    return v;
}

// Q's rows [c, c + len) into qs, zero past len and past N: qs[j][l] (K_MAJOR, the
// layout the along-k kernels read as float4 over l) or qs[l][j]. Threads run
// along whichever of Q's strides is 1, so that a warp's loads are contiguous.
template <int NB, bool K_MAJOR>
__device__ __forceinline__ void skinny_stage_q(float *qs, const float *Q, i64 qsl, i64 qsj, int N, i64 c, int len,
                                               int tid) {
    const bool l_fastest = qsl == 1;
    for (int t = tid; t < NB * SKINNY_KC; t += SKINNY_THREADS) {
        const int l = l_fastest ? t % SKINNY_KC : t / NB;
        const int j = l_fastest ? t / SKINNY_KC : t % NB;
        const float v = (j < N && l < len) ? Q[(c + l) * qsl + j * qsj] : 0.0f;
        qs[K_MAJOR ? j * SKINNY_KC + l : l * NB + j] = v;
    }
}

__device__ __forceinline__ float skinny_result(float alpha, float sum, float beta, const float *d) {
    const float product = alpha * sum;
    return beta == 0.0f ? product : fmaf(beta, *d, product);
}

// D = beta·D over the block's rows (alpha == 0), by the blocks of split 0;
// beta == 1 leaves D untouched, as the tile kernels do.
__device__ __forceinline__ void skinny_scale_only(i64 M, int N, i64 row0, int rows, float beta, float *D, i64 dsi,
                                                  i64 dsj, int tid) {
    if (blockIdx.y != 0 || beta == 1.0f) return;
    for (int t = tid; t < rows * N; t += SKINNY_THREADS) {
        const i64 i = row0 + t / N;
        if (i >= M) continue;
        float *d = D + i * dsi + (t % N) * dsj;
        *d = beta == 0.0f ? 0.0f : beta * *d;
    }
}

// The block's sums `out` ([rows][NB], in shared memory, all threads past a
// barrier) into D; when split, through the partials, by the last block.
template <int NB>
__device__ __forceinline__ void skinny_finish(const float *out, int rows, i64 row0, i64 M, int N, float alpha,
                                              float beta, float *D, i64 dsi, i64 dsj, unsigned *counters,
                                              float *partials, int tid) {
    const int count = rows * N;
    const unsigned splits = gridDim.y;
    const i64 plane = M * N;
    if (splits > 1) {
        float *mine = partials + blockIdx.y * plane;
        for (int t = tid; t < count; t += SKINNY_THREADS) {
            const i64 i = row0 + t / N;
            if (i < M) mine[i * N + t % N] = out[(t / N) * NB + t % N];
        }
        if (!arrive_last(counters + blockIdx.x, splits)) return;
    }
    for (int t = tid; t < count; t += SKINNY_THREADS) {
        const i64 i = row0 + t / N;
        if (i >= M) continue;
        float sum = out[(t / N) * NB + t % N];
        if (splits > 1) {
            const float *p = partials + i * N + t % N;
            sum = 0.0f;
            for (unsigned z = 0; z < splits; ++z) sum += p[z * plane];
        }
        float *d = D + i * dsi + (t % N) * dsj;
        *d = skinny_result(alpha, sum, beta, d);
    }
    if (splits > 1 && tid == 0) counters[blockIdx.x] = 0;
}

// out[i][j0 + c] = the 8 partial sums of row i, column c (of W), added in
// order: sums[y·plane + i·row + c] for y = 0…7, rows i < `rows`.
template <int NB, int W>
__device__ __forceinline__ void skinny_add_eight(const float *sums, int plane, int row, int rows, int j0, float *out,
                                                 int tid) {
    for (int o = tid; o < rows * W; o += SKINNY_THREADS) {
        float sum = 0.0f;
#pragma unroll
        for (int y = 0; y < 8; ++y) sum += sums[y * plane + (o / W) * row + o % W];
        out[(o / W) * NB + j0 + o % W] = sum;
    }
}

template <int NB, bool VEC>
__device__ __forceinline__ void skinny_along_k(SKINNY_PARAMS) {
    __shared__ __align__(16) float qs[NB * SKINNY_KC];
    __shared__ float out[SKINNY_K_ROWS * NB];
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const i64 block_row0 = static_cast<i64>(blockIdx.x) * SKINNY_K_ROWS;
    if (alpha == 0.0f) {
        skinny_scale_only(M, N, block_row0, SKINNY_K_ROWS, beta, D, dsi, dsj, tid);
        return;
    }
    const i64 row0 = block_row0 + warp * 4;
    const i64 k_begin = static_cast<i64>(blockIdx.y) * k_per_split;
    const i64 k_end = min(K, k_begin + k_per_split);
    float acc[4][NB];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
        for (int j = 0; j < NB; ++j) acc[r][j] = 0.0f;
    }
    for (i64 c = k_begin; c < k_end; c += SKINNY_KC) {
        const int len = static_cast<int>(min(static_cast<i64>(SKINNY_KC), k_end - c));
        // P's loads first: they do not wait for Q.
        float4 p[4][2];
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const bool row_in = row0 + r < M;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int o = h * 128 + 4 * lane;
                p[r][h] = skinny_load4<VEC>(P + (row0 + r) * ldp + c + o, row_in ? len - o : 0);
            }
        }
        __syncthreads();  // the previous chunk's Q is no longer read
        skinny_stage_q<NB, true>(qs, Q, qsl, qsj, N, c, len, tid);
        __syncthreads();
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
            for (int j = 0; j < NB; ++j) {
                const float4 q = *reinterpret_cast<const float4 *>(qs + j * SKINNY_KC + h * 128 + 4 * lane);
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    acc[r][j] = fmaf(p[r][h].x, q.x, acc[r][j]);
                    acc[r][j] = fmaf(p[r][h].y, q.y, acc[r][j]);
                    acc[r][j] = fmaf(p[r][h].z, q.z, acc[r][j]);
                    acc[r][j] = fmaf(p[r][h].w, q.w, acc[r][j]);
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
        for (int j = 0; j < NB; ++j) {
            const float v = warp_sum(acc[r][j]);
            if (lane == 0) out[(warp * 4 + r) * NB + j] = v;
        }
    }
    __syncthreads();
    skinny_finish<NB>(out, SKINNY_K_ROWS, block_row0, M, N, alpha, beta, D, dsi, dsj, counters, partials, tid);
}

template <int NB, bool VEC>
__device__ __forceinline__ void skinny_along_m(SKINNY_PARAMS) {
    __shared__ __align__(16) float qs[SKINNY_KC * NB];
    // The thread rows' sums, 4 columns at a time (NB/4 rounds) ([ty][row][4]), then the block's ([row][NB]).
    __shared__ __align__(16) float rows_sums[8 * SKINNY_M_ROWS * 4];
    __shared__ float out[SKINNY_M_ROWS * NB];
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    const int lane = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + lane;
    const i64 block_row0 = static_cast<i64>(blockIdx.x) * SKINNY_M_ROWS;
    if (alpha == 0.0f) {
        skinny_scale_only(M, N, block_row0, SKINNY_M_ROWS, beta, D, dsi, dsj, tid);
        return;
    }
    const i64 i0 = block_row0 + 4 * lane;
    const i64 rows_left = M - i0;
    const i64 k_begin = static_cast<i64>(blockIdx.y) * k_per_split;
    const i64 k_end = min(K, k_begin + k_per_split);
    float acc[4][NB];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
#pragma unroll
        for (int j = 0; j < NB; ++j) acc[e][j] = 0.0f;
    }
    for (i64 c = k_begin; c < k_end; c += SKINNY_KC) {
        const int len = static_cast<int>(min(static_cast<i64>(SKINNY_KC), k_end - c));
        __syncthreads();  // the previous chunk's Q is no longer read
        skinny_stage_q<NB, false>(qs, Q, qsl, qsj, N, c, len, tid);
        __syncthreads();
        constexpr int U = SKINNY_M_UNROLL(NB);
        for (int l = ty; l < len; l += 8 * U) {
            float4 p[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int ll = l + 8 * u;
                p[u] = skinny_load4<VEC>(P + i0 + (c + ll) * ldp, ll < len ? rows_left : 0);
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                // l ≤ SKINNY_KC - 8U + 7, so ll < SKINNY_KC; past len, p[u] and qs's row are 0.
                const int ll = l + 8 * u;
#pragma unroll
                for (int jq = 0; jq < NB / 4; ++jq) {
                    const float4 q = *reinterpret_cast<const float4 *>(qs + ll * NB + 4 * jq);
                    const float pe[4] = {p[u].x, p[u].y, p[u].z, p[u].w};
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        acc[e][4 * jq] = fmaf(pe[e], q.x, acc[e][4 * jq]);
                        acc[e][4 * jq + 1] = fmaf(pe[e], q.y, acc[e][4 * jq + 1]);
                        acc[e][4 * jq + 2] = fmaf(pe[e], q.z, acc[e][4 * jq + 2]);
                        acc[e][4 * jq + 3] = fmaf(pe[e], q.w, acc[e][4 * jq + 3]);
                    }
                }
            }
        }
    }
    // The 8 thread rows' sums, added in ty order, 4 columns at a time.
#pragma unroll
    for (int jq = 0; jq < NB / 4; ++jq) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            *reinterpret_cast<float4 *>(rows_sums + ((ty * SKINNY_M_ROWS) + 4 * lane + e) * 4) =
                make_float4(acc[e][4 * jq], acc[e][4 * jq + 1], acc[e][4 * jq + 2], acc[e][4 * jq + 3]);
        }
        __syncthreads();
        skinny_add_eight<NB, 4>(rows_sums, SKINNY_M_ROWS * 4, 4, SKINNY_M_ROWS, 4 * jq, out, tid);
        __syncthreads();
    }
    skinny_finish<NB>(out, SKINNY_M_ROWS, block_row0, M, N, alpha, beta, D, dsi, dsj, counters, partials, tid);
}

#define SKINNY_KERNELS(NB)                                                                                            \
    extern "C" __global__ void __launch_bounds__(SKINNY_THREADS, SKINNY_K_MIN_BLOCKS(NB))                          \
        gemm_f32_skinny_k##NB(SKINNY_PARAMS) {                                                                       \
        skinny_along_k<NB, false>(SKINNY_ARGS);                                                                      \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(SKINNY_THREADS, SKINNY_K_MIN_BLOCKS(NB))                          \
        gemm_f32_skinny_k##NB##_vec(SKINNY_PARAMS) {                                                                 \
        skinny_along_k<NB, true>(SKINNY_ARGS);                                                                       \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(SKINNY_THREADS, 2) gemm_f32_skinny_m##NB(SKINNY_PARAMS) {              \
        skinny_along_m<NB, false>(SKINNY_ARGS);                                                                      \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(SKINNY_THREADS, 2) gemm_f32_skinny_m##NB##_vec(SKINNY_PARAMS) {        \
        skinny_along_m<NB, true>(SKINNY_ARGS);                                                                       \
    }
SKINNY_KERNELS(4)
SKINNY_KERNELS(8)
SKINNY_KERNELS(16)

// Wide skinny kernels, 17 ≤ N ≤ 32 (`gemm_f32_skinny_{k,m}32[_vec]`): the
// same D = alpha·P·Q + beta·D, arguments, splits and finish as above. With
// 32 columns, sums of 4 rows per thread (128 registers) do not fit, and any
// thread that holds all 32 columns of fewer rows reads Q's values from
// shared memory for too few FMA each: a 128-bit shared load costs a
// wavefront per quarter warp even when broadcast, so 2 rows × 32 columns
// (34 LDS.128 per 4 k, 256 FFMA) ran at half the FFMA rate, 60 µs for TN
// 4096 × 32 × 4096 on an H200. Here a warp computes a 64 × 32 tile as the
// tile kernels do, each lane 8 rows × 8 columns, 8 + 2 × 4 wavefronts for 64
// FFMA per k: lane (tm, tn) = (lane % 8, lane / 8) holds rows tm + 8i and
// columns 4tn + {0..3} + {0, 16}. Both P and Q go through shared memory,
// SKINNY_WIDE_STAGES deep by cp.async (sm_80+); the block's 8 warps take
// KC/8 k each of every stage of SKINNY_WIDE_KC, and their sums are added in
// warp order at the end. The host's skinny::WIDE_SHARED_BYTES is
// SKINNY_WIDE_SHARED_BYTES.
#define SKINNY_WIDE_NB 32
#define SKINNY_WIDE_ROWS 64
#define SKINNY_WIDE_KC 64
#define SKINNY_WIDE_STAGES 3
// Shared stage: P as [row][k] (along k; rows padded by 4 floats, so that a
// warp's 8 rows tm + 8i at one k hit 8 banks) or [k][row] (along m), then Q as
// [k][j] (rows padded to 36 floats: the copies of 8 k × 4 j hit 32 banks).
#define SKINNY_WIDE_P_ROW (SKINNY_WIDE_KC + 4)
#define SKINNY_WIDE_P_FLOATS (SKINNY_WIDE_ROWS * SKINNY_WIDE_P_ROW)
#define SKINNY_WIDE_Q_ROW (SKINNY_WIDE_NB + 4)
#define SKINNY_WIDE_STAGE_FLOATS (SKINNY_WIDE_P_FLOATS + SKINNY_WIDE_KC * SKINNY_WIDE_Q_ROW)
#define SKINNY_WIDE_SHARED_BYTES (SKINNY_WIDE_STAGES * SKINNY_WIDE_STAGE_FLOATS * 4)
// The end's warp sums, 16 columns at a time ([warp][row][16], rows padded to
// 20 floats), and the block's sums ([row][NB]) reuse the stages.
#define SKINNY_WIDE_SUM_ROW 20
static_assert(8 * SKINNY_WIDE_ROWS * SKINNY_WIDE_SUM_ROW + SKINNY_WIDE_ROWS * SKINNY_WIDE_NB <=
                  SKINNY_WIDE_STAGES * SKINNY_WIDE_STAGE_FLOATS,
              "the end's sums fit in the stages");
static_assert(SKINNY_WIDE_KC % 32 == 0 && 8 % (SKINNY_WIDE_KC / 8) == 0,
              "whole float4 of k per warp; Q's 8 k × 4 j blocks tile a stage, warp + 8i");

// Four floats consecutive in memory, `avail` (any int) of which exist, into
// four consecutive floats of shared memory; the rest zero.
template <bool VEC>
__device__ __forceinline__ void skinny_copy4(float *shared, const float *global, i64 avail) {
    if (VEC && avail >= 4) {
        copy_async<16>(shared, global, true);
        return;
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) copy_async<4>(shared + e, global + e, e < avail);
}

// This thread's copies of P's rows [row0, row0 + 64) and of Q, over the k of
// one stage, into shared memory (zero past M, the stage's len and N):
//  - P, 64 rows × KC k: P_COPIES groups of four floats along P's unit
//    stride, P_STEP rows (along k) or k (along m) apart;
//  - Q, KC k × 32 columns: Q_COPIES floats, lanes along Q's unit stride
//    (8 k × 4 columns when that is k, else a row of 32 columns).
// Addresses are set once and moved on by a stage's k, not recomputed.
template <bool ALONG_K, bool VEC>
struct SkinnyWideCopies {
    static constexpr int KC = SKINNY_WIDE_KC, ROWS = SKINNY_WIDE_ROWS;
    static constexpr int P_COPIES = ROWS * KC / 4 / SKINNY_THREADS;
    static constexpr int P_LINE = ALONG_K ? KC / 4 : ROWS / 4;  // groups of four per row (along k) or k (along m)
    static constexpr int P_STEP = SKINNY_THREADS / P_LINE;
    static constexpr int Q_COPIES = KC * SKINNY_WIDE_NB / SKINNY_THREADS;
    static constexpr int Q_K_BLOCKS = KC / 8;        // 8 k × 4 j blocks along k
    static constexpr int Q_J_STEP = 32 / Q_K_BLOCKS;  // columns between copies, k fastest (block warp + 8i)
    const float *p, *q;
    i64 p_step, q_step;        // floats between this thread's copies of P, of Q
    i64 p_advance, q_advance;  // floats per stage of k
    int p_shared, q_shared, q_shared_step;
    int p_k, q_k, q_j;  // the k (P, Q) and column (Q) of the first copies in the stage
    i64 p_rows_left;    // rows of M from the first copy's (first) row

    __device__ __forceinline__ void init(const float *P, i64 ldp, i64 M, i64 row0, const float *Q, i64 qsl, i64 qsj,
                                         i64 k_begin, bool k_fastest, int tid) {
        const int lane = tid & 31, warp = tid >> 5;
        const int r = ALONG_K ? tid / P_LINE : 4 * (tid % P_LINE);
        p_k = ALONG_K ? 4 * (tid % P_LINE) : tid / P_LINE;
        p = P + (ALONG_K ? (row0 + r) * ldp + k_begin + p_k : row0 + r + (k_begin + p_k) * ldp);
        p_step = P_STEP * ldp;
        p_advance = ALONG_K ? KC : KC * ldp;
        p_shared = ALONG_K ? r * SKINNY_WIDE_P_ROW + p_k : p_k * ROWS + r;
        p_rows_left = M - row0 - r;
        // k fastest: the warp's first 8 × 4 block (Q_K_BLOCKS divides 8); else a row of 32 columns, 8 k apart.
        q_k = k_fastest ? 8 * (warp % Q_K_BLOCKS) + lane % 8 : warp;
        q_j = k_fastest ? 4 * (warp / Q_K_BLOCKS) + lane / 8 : lane;
        q = Q + (k_begin + q_k) * qsl + q_j * qsj;
        q_step = k_fastest ? Q_J_STEP * qsj : 8 * qsl;
        q_advance = KC * qsl;
        q_shared = q_k * SKINNY_WIDE_Q_ROW + q_j;
        q_shared_step = k_fastest ? Q_J_STEP : 8 * SKINNY_WIDE_Q_ROW;
    }

    // The stage's copies (len of its k exist), then on to the next stage's k.
    __device__ __forceinline__ void fill(float *stage, int len, int N, bool k_fastest) {
#pragma unroll
        for (int i = 0; i < P_COPIES; ++i) {
            const i64 avail = ALONG_K ? (i * P_STEP < p_rows_left ? len - p_k : 0)
                                      : (p_k + i * P_STEP < len ? p_rows_left : 0);
            skinny_copy4<VEC>(stage + p_shared + i * P_STEP * (ALONG_K ? SKINNY_WIDE_P_ROW : ROWS), p + i * p_step,
                              avail);
        }
        float *const qs = stage + SKINNY_WIDE_P_FLOATS + q_shared;
#pragma unroll
        for (int i = 0; i < Q_COPIES; ++i) {
            const bool in = k_fastest ? q_k < len && q_j + i * Q_J_STEP < N : q_k + 8 * i < len && q_j < N;
            copy_async<4>(qs + i * q_shared_step, q + i * q_step, in);
        }
        p += p_advance;
        q += q_advance;
    }
};

template <bool ALONG_K, bool VEC>
__device__ __forceinline__ void skinny_wide(SKINNY_PARAMS) {
    constexpr int NB = SKINNY_WIDE_NB, ROWS = SKINNY_WIDE_ROWS, KC = SKINNY_WIDE_KC, STAGES = SKINNY_WIDE_STAGES;
    constexpr int KW = KC / 8;  // k per warp and stage
    DYNAMIC_SHARED_FLOATS(shared);
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const i64 row0 = static_cast<i64>(blockIdx.x) * ROWS;
    if (alpha == 0.0f) {
        skinny_scale_only(M, N, row0, ROWS, beta, D, dsi, dsj, tid);
        return;
    }
    const i64 k_begin = static_cast<i64>(blockIdx.y) * k_per_split;
    const i64 k_end = min(K, k_begin + k_per_split);
    const int tiles = static_cast<int>((k_end - k_begin + KC - 1) / KC);
    const bool q_k_fastest = qsl == 1;
    SkinnyWideCopies<ALONG_K, VEC> copies;
    copies.init(P, ldp, M, row0, Q, qsl, qsj, k_begin, q_k_fastest, tid);
    // Tile t's stage; every tile but the last has KC k.
    const auto fill = [&](int t) {
        const int len = t + 1 < tiles ? KC : static_cast<int>(k_end - k_begin - static_cast<i64>(t) * KC);
        copies.fill(shared + (t % STAGES) * SKINNY_WIDE_STAGE_FLOATS, len, N, q_k_fastest);
    };
    // Lane (tm, tn) = (lane % 8, lane / 8): rows tm + 8i, columns 4tn + c % 4 + 16(c / 4).
    const int tm = lane % 8, tn = lane / 8;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[i][c] = 0.0f;
    }
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < tiles) fill(s);
        copy_async_commit();
    }
    for (int t = 0; t < tiles; ++t) {
        copy_async_wait<STAGES - 2>();
        __syncthreads();  // tile t is in for every thread; tile t - 1's stage is no longer read
        if (t + STAGES - 1 < tiles) fill(t + STAGES - 1);
        copy_async_commit();
        const float *ps = shared + (t % STAGES) * SKINNY_WIDE_STAGE_FLOATS;
        const float *qs = ps + SKINNY_WIDE_P_FLOATS + KW * warp * SKINNY_WIDE_Q_ROW;
#pragma unroll
        for (int kk = 0; kk < KW; ++kk) {
            const int k = KW * warp + kk;  // in the stage
            // LDS.32 (1 wavefront each): a float4 of each row over 4 k, 32 more registers, spills.
            float p[8];
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                p[i] = ALONG_K ? ps[(tm + 8 * i) * SKINNY_WIDE_P_ROW + k] : ps[k * ROWS + tm + 8 * i];
            }
            const float4 q0 = *reinterpret_cast<const float4 *>(qs + kk * SKINNY_WIDE_Q_ROW + 4 * tn);
            const float4 q1 = *reinterpret_cast<const float4 *>(qs + kk * SKINNY_WIDE_Q_ROW + 4 * tn + 16);
            const float q[8] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i) {
#pragma unroll
                for (int c = 0; c < 8; ++c) acc[i][c] = fmaf(p[i], q[c], acc[i][c]);
            }
        }
    }
    copy_async_wait<0>();  // only empty groups remain; the stages become the sums
    __syncthreads();
    float *const sums = shared;
    float *const out = shared + 8 * ROWS * SKINNY_WIDE_SUM_ROW;
#pragma unroll
    for (int h = 0; h < NB / 16; ++h) {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            *reinterpret_cast<float4 *>(sums + (warp * ROWS + tm + 8 * i) * SKINNY_WIDE_SUM_ROW + 4 * tn) =
                make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
        }
        __syncthreads();
        skinny_add_eight<NB, 16>(sums, ROWS * SKINNY_WIDE_SUM_ROW, SKINNY_WIDE_SUM_ROW, ROWS, 16 * h, out, tid);
        __syncthreads();
    }
    skinny_finish<NB>(out, ROWS, row0, M, N, alpha, beta, D, dsi, dsj, counters, partials, tid);
}

#define SKINNY_WIDE_KERNEL(NAME, ALONG_K, VEC) \
    extern "C" __global__ void __launch_bounds__(SKINNY_THREADS, 2) NAME(SKINNY_PARAMS) { skinny_wide<ALONG_K, VEC>(SKINNY_ARGS); }
SKINNY_WIDE_KERNEL(gemm_f32_skinny_k32, true, false)
SKINNY_WIDE_KERNEL(gemm_f32_skinny_k32_vec, true, true)
SKINNY_WIDE_KERNEL(gemm_f32_skinny_m32, false, false)
SKINNY_WIDE_KERNEL(gemm_f32_skinny_m32_vec, false, true)
