// STRMV: x := op(A) x, A triangular n × n (column-major, leading dimension lda),
// op(A) = A or Aᵀ, lower or upper, unit or non-unit diagonal.
//
// In place and memory-bound (the triangle is n²/2 floats, x only n), so two passes:
//
//  1. trmv_{n,t}_f32_{vec4,scalar}: the triangle is cut into balanced work items;
//     each block reads one item of A and the matching stretch of the ORIGINAL x,
//     and writes one partial result per output of its tile into the work buffer.
//     x is only read here.
//  2. trmv_sum_f32: adds each output's partials in a fixed order (chunk 0, 1, …),
//     adds x_i for a unit diagonal, and writes x_i. Deterministic, no atomics.
//
// Work items (src/routines/trmv.rs `Layout` mirrors this and is unit-tested):
// "outputs" are rows for op N and columns for op T; "reduction" is the other
// index. Outputs come in tiles of P (N: P = 4·blockDim.x rows; T: P = 4·blockDim.y
// columns). Tile t reduces over a range that is a prefix [0, min(tP + P, n))
// (lower-N, upper-T) or a suffix [tP, n) (upper-N, lower-T), cut into chunks of
// W = q·P. Ranking tiles u = t (prefix) or u = tiles-1-t (suffix), tile u has
// exactly u/q + 1 chunks, so the items before rank u have a closed form and a
// block finds its (tile, chunk) without a table. Blocks take items largest
// first (block 0 gets the last item), so the short ones fill the tail of the
// last wave. Chunk k of a tile writes partial[k·n + output].
//
// Inside an item: the part of the reduction range outside the tile's P×P
// diagonal square is entirely inside the referenced triangle, so it runs a fast
// loop with 16-byte loads (vec4) or four coalesced scalar loads (scalar layout,
// any lda and alignment), no per-element test. For op N the diagonal square
// runs the same loads (every element of the n × n square is inside the lda × n
// array the API describes) and adds the referenced elements only, by a select.
// Ragged ends, the rows/columns beyond n and op T's (4-column) diagonal square
// run a checked loop that tests each element and never loads one outside the
// referenced triangle (nor the diagonal when it is unit); op N's rectangle of
// a thread whose rows run past n (trmv_n_rect_partial) only leaves out the
// rows past n, with no triangle test, as it lies wholly inside it.
//
// Thread layout. vec4: thread tx owns outputs (N) or reduction rows (T)
// base + 4·tx + e; scalar: base + tx + e·blockDim.x (e = 0..3). Either way a
// warp reads 4 × 128 contiguous bytes of one column per load instruction.
//  - N: thread (tx, ty) owns 4 rows and walks the item's columns in groups of 4,
//    ty-interleaved; the blockDim.y partial rows are added in shared memory.
//  - T: thread (tx, ty) owns 4 columns (p0 + 4·ty + c) and walks the item's rows
//    in steps of 4·blockDim.x; a warp shuffle and shared memory add over tx.
#include "common.cuh"

// ---------------------------------------------------------------------------
// Work-item enumeration (mirrors Layout in src/routines/trmv.rs).

// Items before rank u: u = a·q + r → q·a(a+1)/2 + r·(a+1).
__device__ __forceinline__ i64 trmv_items_before(i64 u, i64 q) {
    const i64 a = u / q, r = u % q;
    return q * (a * (a + 1) / 2) + r * (a + 1);
}

struct TrmvItem {
    i64 p0;        // first output of the tile
    i64 chunk;     // k: which partial vector
    i64 rect_lo, rect_hi;  // reduction indices wholly inside the triangle
    i64 diag_lo, diag_hi;  // reduction indices that meet the diagonal square
};

// The item of block `b` (already reversed to largest-first by the caller).
__device__ __forceinline__ TrmvItem trmv_locate(i64 b, i64 n, i64 P, i64 q, i64 tiles, bool suffix) {
    // Rank group a: ranks a·q … a·q+q-1, each with a+1 chunks; q·a(a+1)/2 items before it.
    i64 a = static_cast<i64>((sqrt(1.0 + 8.0 * static_cast<double>(b) / static_cast<double>(q)) - 1.0) * 0.5);
    if (a < 0) a = 0;
    while (a > 0 && q * (a * (a + 1) / 2) > b) --a;
    while (q * ((a + 1) * (a + 2) / 2) <= b) ++a;
    const i64 rem = b - q * (a * (a + 1) / 2);
    const i64 u = a * q + rem / (a + 1);
    const i64 k = rem % (a + 1);
    const i64 t = suffix ? tiles - 1 - u : u;
    const i64 p0 = t * P;
    const i64 W = q * P;
    TrmvItem item;
    item.p0 = p0;
    item.chunk = k;
    if (suffix) {
        const i64 lo = p0 + k * W;
        const i64 hi = min(lo + W, n);
        item.diag_lo = lo;
        item.diag_hi = min(hi, p0 + P);
        item.rect_lo = max(lo, p0 + P);
        item.rect_hi = hi;
    } else {
        const i64 lo = k * W;
        const i64 hi = min(lo + W, min(p0 + P, n));
        item.rect_lo = lo;
        item.rect_hi = min(hi, p0);
        item.diag_lo = max(lo, p0);
        item.diag_hi = hi;
    }
    return item;
}

// Whether A[i, j] (row i, column j) is referenced.
__device__ __forceinline__ bool trmv_referenced(i64 i, i64 j, bool lower, bool unit) {
    return lower ? (unit ? i > j : i >= j) : (unit ? i < j : i <= j);
}

// ---------------------------------------------------------------------------
// Pass 1, op N: partial[k·n + i] = Σ_{j in item} A[i, j] · x[j].

// One step of op N: the thread's 4 rows of 4 consecutive columns starting at
// `col` (row0 of the first column), and the 4 x values they meet; with X4 (unit
// stride, x 16-byte aligned; column groups start at multiples of 4) x is one
// float4, a warp-wide broadcast, instead of four loads.
template <bool VEC4, bool X4>
__device__ __forceinline__ void trmv_n_load_group(const float *col, i64 lda, i64 estride, const float *xp, i64 incx,
                                                  float (&a)[4][4], float (&xv)[4]) {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        if (VEC4) {
            const float4 v = __ldg(reinterpret_cast<const float4 *>(col + c * lda));
            a[c][0] = v.x; a[c][1] = v.y; a[c][2] = v.z; a[c][3] = v.w;
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) a[c][e] = __ldg(col + c * lda + e * estride);
        }
    }
    if (X4) {
        const float4 v = __ldg(reinterpret_cast<const float4 *>(xp));
        xv[0] = v.x; xv[1] = v.y; xv[2] = v.z; xv[3] = v.w;
    } else {
#pragma unroll
        for (int c = 0; c < 4; ++c) xv[c] = __ldg(xp + c * incx);
    }
}

// Op N's unchecked loops, for a thread whose 4 rows are all < n: the item's
// rectangle from column j, then the whole column groups of its diagonal square
// from column jd; both advance past what they did. A template per X4, so that
// each loop keeps only its own addresses in registers.
template <bool VEC4, bool X4>
__device__ __forceinline__ void trmv_n_fast(const TrmvItem &item, i64 row0, i64 estride, int Ty, bool lower, bool unit,
                                            const float *__restrict__ A, i64 lda, const float *__restrict__ x, i64 incx,
                                            i64 &j, i64 &jd, float (&acc)[4]) {
    // The rectangle: 4 columns per step, all referenced.
    const float *col = A + j * lda + row0;
    const float *xp = x + j * incx;
    const i64 col_step = 4 * static_cast<i64>(Ty) * lda;
    const i64 x_step = 4 * static_cast<i64>(Ty) * incx;
    for (; j + 3 < item.rect_hi; j += 4 * Ty, col += col_step, xp += x_step) {
        float a[4][4], xv[4];
        trmv_n_load_group<VEC4, X4>(col, lda, estride, xp, incx, a, xv);
#pragma unroll
        for (int c = 0; c < 4; ++c) {
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[e] = fmaf(a[c][e], xv[c], acc[e]);
        }
    }
    // The diagonal square: the same loads, and the multiply-adds of the
    // referenced elements only, by a select (an unreferenced element, or the x it
    // would meet, may be NaN or Inf). Checked, the square was the slow part of
    // every item at large tiles. Element (e, c) is referenced when
    // sign·(i - j) ≥ need: sign = 1 and i ≥ j (lower), sign = -1 and i ≤ j
    // (upper); need = 1 without the diagonal (unit). i - j is small: both lie in
    // the tile's square.
    const int sign = lower ? 1 : -1, need = unit ? 1 : 0;
    const int sign_estride = sign * static_cast<int>(estride);
    for (; jd + 3 < item.diag_hi; jd += 4 * Ty) {
        float a[4][4], xv[4];
        trmv_n_load_group<VEC4, X4>(A + jd * lda + row0, lda, estride, x + jd * incx, incx, a, xv);
        const int sd = sign * static_cast<int>(row0 - jd);
#pragma unroll
        for (int c = 0; c < 4; ++c) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const bool referenced = sd + e * sign_estride - c * sign >= need;
                const float sum = fmaf(a[c][e], xv[c], acc[e]);
                acc[e] = referenced ? sum : acc[e];
            }
        }
    }
}

// A thread of the last tile whose rows run past n: the item's rectangle with
// the loads of rows ≥ n left out (scalar loads, whatever the kernel), and no
// per-element triangle test, which the rectangle does not need. Checked, this
// thread walked the longest reduction range of all at the pace of the diagonal.
__device__ __forceinline__ void trmv_n_rect_partial(const TrmvItem &item, i64 row0, i64 estride, i64 n, int Ty,
                                                    const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                                    i64 incx, i64 &j, float (&acc)[4]) {
    bool has[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) has[e] = row0 + e * estride < n;
    for (; j + 3 < item.rect_hi; j += 4 * Ty) {
        float a[4][4], xv[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            xv[c] = __ldg(x + (j + c) * incx);
#pragma unroll
            for (int e = 0; e < 4; ++e) a[c][e] = has[e] ? __ldg(A + (j + c) * lda + row0 + e * estride) : 0.0f;
        }
#pragma unroll
        for (int c = 0; c < 4; ++c) {
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[e] = fmaf(a[c][e], xv[c], acc[e]);
        }
    }
}

template <bool VEC4>
__device__ __forceinline__ void trmv_n_body(i64 n, i64 P, i64 q, i64 tiles, int lower, int unit,
                                            const float *__restrict__ A, i64 lda,
                                            const float *__restrict__ x, i64 incx,
                                            float *__restrict__ partial) {
    extern __shared__ float reduce[];
    const i64 items = trmv_items_before(tiles, q);
    const TrmvItem item = trmv_locate(items - 1 - static_cast<i64>(blockIdx.x), n, P, q, tiles, !lower);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int Tx = blockDim.x, Ty = blockDim.y;
    const i64 row0 = item.p0 + (VEC4 ? 4 * tx : tx);
    const i64 estride = VEC4 ? 1 : Tx;
    const bool rows_full = row0 + 3 * estride < n;

    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};

    i64 j = item.rect_lo + 4 * ty;
    i64 jd = item.diag_lo + 4 * ty;
    if (rows_full) {
        if (VEC4 && incx == 1 && aligned16(x)) {
            trmv_n_fast<VEC4, true>(item, row0, estride, Ty, lower, unit, A, lda, x, incx, j, jd, acc);
        } else {
            trmv_n_fast<VEC4, false>(item, row0, estride, Ty, lower, unit, A, lda, x, incx, j, jd, acc);
        }
    } else if (row0 < n) {
        trmv_n_rect_partial(item, row0, estride, n, Ty, A, lda, x, incx, j, acc);
    } else {
        // No row of this thread exists (the last tile): skip the checked loop,
        // which would walk the whole reduction range loading x for nothing. In the
        // prefix layout (lower) that tile has the longest range of all.
        j = item.rect_hi;
        jd = item.diag_hi;
    }
    // Checked: what the fast loops left of the rectangle and of the diagonal
    // square (a ragged group, or all of them when some rows are past n).
    for (int part = 0; part < 2; ++part) {
        const i64 hi = part == 0 ? item.rect_hi : item.diag_hi;
        if (part == 1) j = jd;
        for (; j < hi; j += 4 * Ty) {
            // Every load of the step is issued before any FMA (predicated, never
            // touching an unreferenced element): one memory round trip per step,
            // not sixteen, which made the diagonal square dominate small n.
            float a[4][4], xv[4];
            bool ok[4][4];
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const i64 jc = j + c;
                const bool in = jc < hi;
                xv[c] = in ? __ldg(x + jc * incx) : 0.0f;
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const i64 i = row0 + e * estride;
                    ok[c][e] = in && i < n && trmv_referenced(i, jc, lower, unit);
                    a[c][e] = ok[c][e] ? __ldg(A + jc * lda + i) : 0.0f;
                }
            }
#pragma unroll
            for (int c = 0; c < 4; ++c) {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    if (ok[c][e]) acc[e] = fmaf(a[c][e], xv[c], acc[e]);
                }
            }
        }
    }

    float *out = partial + item.chunk * n;
    if (Ty == 1) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const i64 i = row0 + e * estride;
            if (i < n) out[i] = acc[e];
        }
        return;
    }
    // Add the Ty partial rows in shared memory, in order ty = 0, 1, ….
    const int local0 = VEC4 ? 4 * tx : tx;
#pragma unroll
    for (int e = 0; e < 4; ++e) reduce[ty * P + local0 + e * estride] = acc[e];
    __syncthreads();
    for (int r = tx + ty * Tx; r < P; r += Tx * Ty) {
        float s = reduce[r];
        for (int y = 1; y < Ty; ++y) s += reduce[y * P + r];
        const i64 i = item.p0 + r;
        if (i < n) out[i] = s;
    }
}

// ---------------------------------------------------------------------------
// Pass 1, op T: partial[k·n + j] = Σ_{i in item} A[i, j] · x[i].

template <bool VEC4>
__device__ __forceinline__ void trmv_t_body(i64 n, i64 P, i64 q, i64 tiles, int lower, int unit,
                                            const float *__restrict__ A, i64 lda,
                                            const float *__restrict__ x, i64 incx,
                                            float *__restrict__ partial) {
    extern __shared__ float reduce[];
    const i64 items = trmv_items_before(tiles, q);
    const TrmvItem item = trmv_locate(items - 1 - static_cast<i64>(blockIdx.x), n, P, q, tiles, lower != 0);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int Tx = blockDim.x;
    const i64 col0 = item.p0 + 4 * ty;
    const bool cols_full = col0 + 3 < n;
    const i64 offset = VEC4 ? 4 * tx : tx;
    const i64 estride = VEC4 ? 1 : Tx;
    const i64 step = 4 * static_cast<i64>(Tx);
    // x as float4 only for unit stride and a 16-byte aligned x (row groups start at multiples of 4).
    const bool x4 = VEC4 && incx == 1 && aligned16(x);

    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};

    i64 i = item.rect_lo + offset;
    if (cols_full) {
        const float *cell = A + col0 * lda + i;
        for (; i + 3 * estride < item.rect_hi; i += step, cell += step) {
            float xv[4];
            if (x4) {
                const float4 v = __ldg(reinterpret_cast<const float4 *>(x + i));
                xv[0] = v.x; xv[1] = v.y; xv[2] = v.z; xv[3] = v.w;
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) xv[e] = __ldg(x + (i + e * estride) * incx);
            }
            float a[4][4];
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                if (VEC4) {
                    const float4 v = __ldg(reinterpret_cast<const float4 *>(cell + c * lda));
                    a[c][0] = v.x; a[c][1] = v.y; a[c][2] = v.z; a[c][3] = v.w;
                } else {
#pragma unroll
                    for (int e = 0; e < 4; ++e) a[c][e] = __ldg(cell + c * lda + e * estride);
                }
            }
#pragma unroll
            for (int c = 0; c < 4; ++c) {
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[c] = fmaf(a[c][e], xv[e], acc[c]);
            }
        }
    }
    // Checked: the ragged end of the rectangle (or all of it when some columns
    // are past n), then the diagonal square.
    for (int part = 0; part < 2; ++part) {
        const i64 hi = part == 0 ? item.rect_hi : item.diag_hi;
        if (part == 1) i = item.diag_lo + offset;
        for (; i < hi; i += step) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const i64 ie = i + e * estride;
                if (ie < hi) {
                    const float xi = __ldg(x + ie * incx);
#pragma unroll
                    for (int c = 0; c < 4; ++c) {
                        const i64 jc = col0 + c;
                        if (jc < n && trmv_referenced(ie, jc, lower, unit))
                            acc[c] = fmaf(__ldg(A + jc * lda + ie), xi, acc[c]);
                    }
                }
            }
        }
    }

    // Add over tx: a shuffle tree within each warp, then the warps of a row in order.
#pragma unroll
    for (int c = 0; c < 4; ++c) {
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) acc[c] += __shfl_down_sync(0xffffffffu, acc[c], d);
    }
    float *out = partial + item.chunk * n;
    const int warps = Tx / 32;
    const int lane = tx & 31, warp = tx >> 5;
    if (warps == 1) {
        if (lane == 0) {
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (col0 + c < n) out[col0 + c] = acc[c];
        }
        return;
    }
    if (lane == 0) {
#pragma unroll
        for (int c = 0; c < 4; ++c) reduce[(4 * ty + c) * warps + warp] = acc[c];
    }
    __syncthreads();
    const int tid = tx + ty * Tx;
    if (tid < P) {
        float s = reduce[tid * warps];
        for (int w = 1; w < warps; ++w) s += reduce[tid * warps + w];
        const i64 j = item.p0 + tid;
        if (j < n) out[j] = s;
    }
}

// The entry points. Arguments (all kernels of pass 1):
//   n, P (outputs per tile), q (chunk = q·P reduction indices), tiles = ceil(n / P),
//   lower, unit (0/1), A, lda, x (element 0; negative incx walks backwards), incx,
//   partial (the work buffer: (tiles-1)/q + 1 vectors of n floats).
// Registers capped at 64: at most 32 warps per SM then, enough to keep the
// loads in flight, and no spills (ptxas -v).
#define TRMV_PASS1(name, body, vec4)                                                                      \
    extern "C" __global__ void __maxnreg__(64)                                                          \
        name(i64 n, i64 P, i64 q, i64 tiles, int lower, int unit, const float *A, i64 lda, const float *x, \
             i64 incx, float *partial) {                                                                  \
        body<vec4>(n, P, q, tiles, lower, unit, A, lda, x, incx, partial);                                \
    }

TRMV_PASS1(trmv_n_f32_vec4, trmv_n_body, true)
TRMV_PASS1(trmv_n_f32_scalar, trmv_n_body, false)
TRMV_PASS1(trmv_t_f32_vec4, trmv_t_body, true)
TRMV_PASS1(trmv_t_f32_scalar, trmv_t_body, false)

// Pass 2: x[i] = Σ_k partial[k·n + i] (k = 0, 1, … in order) (+ x[i] for a unit diagonal).
// suffix: whether tiles reduce over suffixes (upper-N, lower-T), which ranks them backwards.
extern "C" __global__ void __maxnreg__(32) trmv_sum_f32(i64 n, i64 P, i64 q, i64 tiles, int suffix, int unit,
                                                       const float *partial, float *x, i64 incx) {
    const i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const i64 t = i / P;
    const i64 u = suffix ? tiles - 1 - t : t;
    const i64 chunks = u / q + 1;
    float s = partial[i];
    for (i64 k = 1; k < chunks; ++k) s += partial[k * n + i];
    float *xi = x + i * incx;
    if (unit) s += *xi;
    *xi = s;
}
