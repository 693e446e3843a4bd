// SGEMV: y = alpha * op(A) * x + beta * y, A column-major (m rows, n columns, lda).
//
// Four kernels, the routine (src/routines/gemv.rs) picks one per call:
//  - gemv_n_f32 / gemv_n_f32_scalar: op N. Block (Tx, Ty); the block owns
//    GEMV_N_ROWS * Tx rows, each thread GEMV_N_ROWS of them; the Ty thread rows
//    split the block's columns in groups of GEMV_N_COLS (the loads of a group are
//    all issued before its multiply-adds); x is staged in shared memory,
//    GEMV_N_XCHUNK elements at a time; the Ty partial sums of a row are added
//    through shared memory in the order ty = 0, 1, ..., Ty-1.
//    gemv_n_f32 needs A 16-byte aligned and lda % 4 == 0: a thread's rows are
//    4 consecutive ones, read as one float4 per column. gemv_n_f32_scalar takes
//    any A and lda: a thread's rows are tx, tx + Tx, tx + 2 Tx, tx + 3 Tx of the
//    block, so each scalar load of a warp is coalesced.
//  - gemv_t_f32 / gemv_t_f32_scalar: op T. 1-D block of Tx threads (a multiple
//    of 32): one warp per column of A, Tx / 32 columns per block; x staged in
//    shared memory GEMV_T_XCHUNK elements at a time; a warp-shuffle reduction.
//    The float4 variant needs A 16-byte aligned and lda % 4 == 0.
//
// Split (gridDim.y > 1): the reduction dimension (columns for N, rows for T) is
// cut into gridDim.y ranges of `per_split` each, one block per range and tile.
// Each block writes its partial vector to `partials[split_index * len_y + i]`,
// then counts itself in `counters[blockIdx.x]`; the last block of a tile to
// arrive adds the partials in the fixed order 0, 1, ..., split-1, applies alpha
// and beta, writes y and resets the counter to 0 for the next call. One launch,
// and the same bits whichever block happens to finish last. The counters must
// be 0 before the first call (the routine sees to it).
//
// Every result is a fixed-order sum for a given (kernel, Tx, Ty, split), so
// repeated calls give the same bits. Scalars come as (value, device address or
// null) pairs, read with load_scalar. alpha == 0: A and x are not read;
// beta == 0: y is not read (NaN there is overwritten).
#include "common.cuh"

#define GEMV_N_ROWS 4
#define GEMV_N_COLS 4
#define GEMV_N_XCHUNK 1024
#define GEMV_T_XCHUNK 1024
#define GEMV_T_UNROLL 4

// alpha * dot + beta * y, not reading y when beta == 0.
__device__ __forceinline__ float gemv_result(float alpha, float dot, float beta, const float *y) {
    const float r = alpha * dot;
    return beta == 0.0f ? r : fmaf(beta, *y, r);
}

// alpha == 0: y = beta * y (0 when beta == 0, untouched when beta == 1).
__device__ __forceinline__ void gemv_scale_only(float beta, float *y) {
    if (beta == 1.0f) return;
    *y = beta == 0.0f ? 0.0f : beta * *y;
}

// Called by every thread of the block after its partials are written: true in
// the one block of this tile that arrives last, which may then read every
// block's partials.
__device__ __forceinline__ bool gemv_arrive_last(unsigned *counter, unsigned blocks) {
    __shared__ bool last;
    __threadfence();  // this thread's partials are visible device-wide before the count
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        last = atomicAdd(counter, 1u) == blocks - 1;
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}

// The 4 rows of one thread in column `col`: rows r, r+1, r+2, r+3 (VEC) or
// r, r+step, r+2 step, r+3 step; rows at or past m read as 0.
template <bool VEC>
__device__ __forceinline__ float4 gemv_n_load(const float *__restrict__ col, i64 r, int step, i64 m, bool full) {
    if (VEC && full) return __ldg(reinterpret_cast<const float4 *>(col + r));
    if (!VEC && full) {
        return make_float4(__ldg(col + r), __ldg(col + r + step), __ldg(col + r + 2 * step), __ldg(col + r + 3 * step));
    }
    const int s = VEC ? 1 : step;
    float4 v;
    v.x = r < m ? __ldg(col + r) : 0.0f;
    v.y = r + s < m ? __ldg(col + r + s) : 0.0f;
    v.z = r + 2 * s < m ? __ldg(col + r + 2 * s) : 0.0f;
    v.w = r + 3 * s < m ? __ldg(col + r + 3 * s) : 0.0f;
    return v;
}

__device__ __forceinline__ void fma4(float4 &acc, const float4 a, float x) {
    acc.x = fmaf(a.x, x, acc.x);
    acc.y = fmaf(a.y, x, acc.y);
    acc.z = fmaf(a.z, x, acc.z);
    acc.w = fmaf(a.w, x, acc.w);
}

__device__ __forceinline__ float component(const float4 &v, int k) {
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

template <bool VEC>
__device__ __forceinline__ void gemv_n(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                       const float *__restrict__ A, i64 lda, const float *__restrict__ x, i64 incx,
                                       float beta_value, const float *beta_ptr, float *y, i64 incy,
                                       i64 per_split, unsigned *counters, float *partials) {
    __shared__ __align__(16) float xs[GEMV_N_XCHUNK];
    // (Ty - 1) * GEMV_N_ROWS * Tx floats: the partial sums of thread rows 1..Ty-1.
    extern __shared__ __align__(16) float reduce[];

    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    const int tx = threadIdx.x, ty = threadIdx.y, Tx = blockDim.x, Ty = blockDim.y;
    const int tid = ty * Tx + tx, threads = Tx * Ty;
    const i64 tile_rows = static_cast<i64>(GEMV_N_ROWS) * Tx;
    const i64 row0 = static_cast<i64>(blockIdx.x) * tile_rows;
    const unsigned split = gridDim.y;

    if (alpha == 0.0f) {
        // Device pointer mode: the host could not see alpha. A and x are not read.
        if (blockIdx.y != 0) return;
        for (i64 lr = tid; lr < tile_rows; lr += threads) {
            const i64 r = row0 + lr;
            if (r < m) gemv_scale_only(beta, y + r * incy);
        }
        return;
    }

    // This thread's rows: r0 + k * step, k = 0..3; its position in the tile: l0 + k * step.
    const int step = VEC ? 1 : Tx;
    const int l0 = VEC ? GEMV_N_ROWS * tx : tx;
    const i64 r0 = row0 + l0;
    const bool full = r0 + 3 * step < m;
    const bool any = r0 < m;

    const i64 c_begin = static_cast<i64>(blockIdx.y) * per_split;
    const i64 c_end = min(n, c_begin + per_split);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (i64 c = c_begin; c < c_end; c += GEMV_N_XCHUNK) {
        const int len = static_cast<int>(min(static_cast<i64>(GEMV_N_XCHUNK), c_end - c));
        __syncthreads();  // the previous chunk is no longer read
        for (int i = tid; i < len; i += threads) xs[i] = x[(c + i) * incx];
        __syncthreads();
        if (!any) continue;
        const float *Ac = A + c * lda;
        int g = GEMV_N_COLS * ty;
        for (; g + GEMV_N_COLS <= len; g += GEMV_N_COLS * Ty) {
            const float *col = Ac + g * lda;
            const float4 a0 = gemv_n_load<VEC>(col, r0, step, m, full);
            const float4 a1 = gemv_n_load<VEC>(col + lda, r0, step, m, full);
            const float4 a2 = gemv_n_load<VEC>(col + 2 * lda, r0, step, m, full);
            const float4 a3 = gemv_n_load<VEC>(col + 3 * lda, r0, step, m, full);
            const float4 xv = *reinterpret_cast<const float4 *>(xs + g);
            fma4(acc, a0, xv.x);
            fma4(acc, a1, xv.y);
            fma4(acc, a2, xv.z);
            fma4(acc, a3, xv.w);
        }
        // At most one thread row holds a group cut short by the end of the chunk.
        for (; g < len; ++g) fma4(acc, gemv_n_load<VEC>(Ac + g * lda, r0, step, m, full), xs[g]);
    }

    if (Ty > 1) {
        if (ty > 0) {
            float *mine = reduce + (ty - 1) * tile_rows;
            if (VEC) {
                *reinterpret_cast<float4 *>(mine + l0) = acc;
            } else {
#pragma unroll
                for (int k = 0; k < GEMV_N_ROWS; ++k) mine[l0 + k * step] = component(acc, k);
            }
        }
        __syncthreads();
        if (ty == 0) {
            for (int t = 1; t < Ty; ++t) {
                const float *theirs = reduce + (t - 1) * tile_rows;
                if (VEC) {
                    const float4 v = *reinterpret_cast<const float4 *>(theirs + l0);
                    acc.x += v.x;
                    acc.y += v.y;
                    acc.z += v.z;
                    acc.w += v.w;
                } else {
                    acc.x += theirs[l0];
                    acc.y += theirs[l0 + step];
                    acc.z += theirs[l0 + 2 * step];
                    acc.w += theirs[l0 + 3 * step];
                }
            }
        }
    }

    if (split == 1) {
        if (ty != 0) return;
#pragma unroll
        for (int k = 0; k < GEMV_N_ROWS; ++k) {
            const i64 r = r0 + k * step;
            if (r < m) {
                float *yr = y + r * incy;
                *yr = gemv_result(alpha, component(acc, k), beta, yr);
            }
        }
        return;
    }

    if (ty == 0) {
        float *mine = partials + static_cast<i64>(blockIdx.y) * m;
#pragma unroll
        for (int k = 0; k < GEMV_N_ROWS; ++k) {
            const i64 r = r0 + k * step;
            if (r < m) mine[r] = component(acc, k);
        }
    }
    if (!gemv_arrive_last(counters + blockIdx.x, split)) return;
    for (i64 lr = tid; lr < tile_rows; lr += threads) {
        const i64 r = row0 + lr;
        if (r >= m) break;
        float sum = __ldcg(partials + r);
        for (unsigned s = 1; s < split; ++s) sum += __ldcg(partials + static_cast<i64>(s) * m + r);
        float *yr = y + r * incy;
        *yr = gemv_result(alpha, sum, beta, yr);
    }
    if (tid == 0) counters[blockIdx.x] = 0;
}

template <bool VEC>
__device__ __forceinline__ void gemv_t(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                       const float *__restrict__ A, i64 lda, const float *__restrict__ x, i64 incx,
                                       float beta_value, const float *beta_ptr, float *y, i64 incy,
                                       i64 per_split, unsigned *counters, float *partials) {
    __shared__ __align__(16) float xs[GEMV_T_XCHUNK];

    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const i64 col = static_cast<i64>(blockIdx.x) * warps + warp;
    const bool has_col = col < n;
    const unsigned split = gridDim.y;

    if (alpha == 0.0f) {
        if (blockIdx.y == 0 && has_col && lane == 0) gemv_scale_only(beta, y + col * incy);
        return;
    }

    const i64 r_begin = static_cast<i64>(blockIdx.y) * per_split;
    const i64 r_end = min(m, r_begin + per_split);
    const float *Acol = A + (has_col ? col : 0) * lda;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (i64 c = r_begin; c < r_end; c += GEMV_T_XCHUNK) {
        const int len = static_cast<int>(min(static_cast<i64>(GEMV_T_XCHUNK), r_end - c));
        __syncthreads();  // the previous chunk is no longer read
        for (int i = threadIdx.x; i < len; i += blockDim.x) xs[i] = x[(c + i) * incx];
        __syncthreads();
        if (!has_col) continue;
        const float *a = Acol + c;
        if (VEC) {
            // Lane l reads rows 4l..4l+3 of each 128-row stretch.
            int i = 4 * lane;
            for (; i + 128 * (GEMV_T_UNROLL - 1) + 4 <= len; i += 128 * GEMV_T_UNROLL) {
                float4 av[GEMV_T_UNROLL];
#pragma unroll
                for (int u = 0; u < GEMV_T_UNROLL; ++u) av[u] = __ldg(reinterpret_cast<const float4 *>(a + i + 128 * u));
#pragma unroll
                for (int u = 0; u < GEMV_T_UNROLL; ++u) {
                    const float4 xv = *reinterpret_cast<const float4 *>(xs + i + 128 * u);
                    acc.x = fmaf(av[u].x, xv.x, acc.x);
                    acc.y = fmaf(av[u].y, xv.y, acc.y);
                    acc.z = fmaf(av[u].z, xv.z, acc.z);
                    acc.w = fmaf(av[u].w, xv.w, acc.w);
                }
            }
            for (; i + 4 <= len; i += 128) {
                const float4 av = __ldg(reinterpret_cast<const float4 *>(a + i));
                const float4 xv = *reinterpret_cast<const float4 *>(xs + i);
                acc.x = fmaf(av.x, xv.x, acc.x);
                acc.y = fmaf(av.y, xv.y, acc.y);
                acc.z = fmaf(av.z, xv.z, acc.z);
                acc.w = fmaf(av.w, xv.w, acc.w);
            }
            // At most one lane holds a group of 4 cut short by the end of the chunk.
            if (i < len) acc.x = fmaf(__ldg(a + i), xs[i], acc.x);
            if (i + 1 < len) acc.y = fmaf(__ldg(a + i + 1), xs[i + 1], acc.y);
            if (i + 2 < len) acc.z = fmaf(__ldg(a + i + 2), xs[i + 2], acc.z);
        } else {
            // Lane l reads rows l, l + 32, ...: each load of the warp is coalesced.
            int i = lane;
            for (; i + 32 * 7 < len; i += 32 * 8) {
                float av[8];
#pragma unroll
                for (int u = 0; u < 8; ++u) av[u] = __ldg(a + i + 32 * u);
                acc.x = fmaf(av[0], xs[i], acc.x);
                acc.y = fmaf(av[1], xs[i + 32], acc.y);
                acc.z = fmaf(av[2], xs[i + 64], acc.z);
                acc.w = fmaf(av[3], xs[i + 96], acc.w);
                acc.x = fmaf(av[4], xs[i + 128], acc.x);
                acc.y = fmaf(av[5], xs[i + 160], acc.y);
                acc.z = fmaf(av[6], xs[i + 192], acc.z);
                acc.w = fmaf(av[7], xs[i + 224], acc.w);
            }
            for (; i < len; i += 32) acc.x = fmaf(__ldg(a + i), xs[i], acc.x);
        }
    }

    float sum = (acc.x + acc.y) + (acc.z + acc.w);
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);

    if (split == 1) {
        if (has_col && lane == 0) {
            float *yc = y + col * incy;
            *yc = gemv_result(alpha, sum, beta, yc);
        }
        return;
    }

    if (has_col && lane == 0) partials[static_cast<i64>(blockIdx.y) * n + col] = sum;
    if (!gemv_arrive_last(counters + blockIdx.x, split)) return;
    for (int w = threadIdx.x; w < warps; w += blockDim.x) {
        const i64 c = static_cast<i64>(blockIdx.x) * warps + w;
        if (c >= n) break;
        float total = __ldcg(partials + c);
        for (unsigned s = 1; s < split; ++s) total += __ldcg(partials + static_cast<i64>(s) * n + c);
        float *yc = y + c * incy;
        *yc = gemv_result(alpha, total, beta, yc);
    }
    if (threadIdx.x == 0) counters[blockIdx.x] = 0;
}

#define GEMV_PARAMS                                                                                        \
    i64 m, i64 n, float alpha_value, const float *alpha_ptr, const float *__restrict__ A, i64 lda,        \
        const float *__restrict__ x, i64 incx, float beta_value, const float *beta_ptr, float *y, i64 incy, \
        i64 per_split, unsigned *counters, float *partials
#define GEMV_ARGS \
    m, n, alpha_value, alpha_ptr, A, lda, x, incx, beta_value, beta_ptr, y, incy, per_split, counters, partials

extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32(GEMV_PARAMS) { gemv_n<true>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32_scalar(GEMV_PARAMS) { gemv_n<false>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(1024) gemv_t_f32(GEMV_PARAMS) { gemv_t<true>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(1024) gemv_t_f32_scalar(GEMV_PARAMS) { gemv_t<false>(GEMV_ARGS); }
