// SGEMV: y = alpha * op(A) * x + beta * y, A column-major (m rows, n columns, lda).
//
// Forty-one kernels; the routine (src/routines/gemv/) picks one of forty per call (the last,
// gemv_read_floor_f32, is `mublas bench floor`'s):
//  - gemv_n_f32 / gemv_n_f32_scalar: op N. Block (Tx, Ty); the block owns
//    GEMV_N_ROWS * Tx rows, each thread GEMV_N_ROWS of them; the Ty thread rows
//    split the block's columns in groups of GEMV_N_COLS (the loads of a group are
//    all issued before its multiply-adds, the first group of a chunk before x is
//    staged); x is staged in shared memory, GEMV_N_XCHUNK elements at a time; the
//    Ty partial sums of a row are folded pairwise through shared memory in a
//    fixed order.
//    gemv_n_f32 needs A 16-byte aligned and lda % 4 == 0: a thread's rows are
//    4 consecutive ones, read as one float4 per column. gemv_n_f32_scalar takes
//    any A and lda: a thread's rows are tx, tx + Tx, tx + 2 Tx, tx + 3 Tx of the
//    block, so each scalar load of a warp is coalesced.
//    gemv_n_f32_narrow / gemv_n_f32_scalar_narrow: the same, launched with
//    row tiles of 32 to 128 rows, unsplit or (few rows on many columns, on
//    fast DRAM) split.
//    gemv_n_f32_scalar_long: gemv_n_f32_scalar launched unsplit in one wave
//    of one block per SM, 768 threads, row tiles of 256 to 512 rows;
//    gemv_n_f32_scalar_thin: the same launched with at most 8 thread rows.
//    gemv_n_f32_wide / gemv_n_f32_scalar_wide: the same with groups of 8
//    columns and x read through the read-only path instead of staged,
//    unsplit, in one wave of row tiles of 32 to 256 rows;
//    gemv_n_f32_wide_staged: the same with x staged, for wider matrices.
//    gemv_n_f32_few / gemv_n_f32_scalar_few: the wide kernels on 32-row
//    tiles with as many thread rows as the columns keep busy, for matrices
//    of few columns.
//    gemv_n_f32_wide_any: the float4 wide kernel for any A and lda
//    (gemv_n_any_columns), which the routine launches on GPUs with fast DRAM
//    from 2000 to 6336 rows, 12672 on wide matrices (`wide_any_serves`).
//  - gemv_n_f32_scalar_lanes: op N, any alignment and lda, one wave of row
//    tiles of 32 rows: block (32, Ty), a row per lane, so that each load of a
//    warp is 128 contiguous bytes of one column (gemv_n_lanes).
//  - gemv_n_f32_sweep: op N, any alignment and lda, one wave of row tiles of
//    Tx rows on blocks of up to 1024 threads: a row per thread, each thread
//    row sweeping a contiguous range of columns (gemv_n_sweep), for GPUs
//    whose DRAM outpaces the wide kernels.
//  - gemv_n_f32_short / gemv_n_f32_short_scalar: op N with m <= GEMV_SHORT_ROWS,
//    where a tile of 4 * 32 rows would leave most lanes idle. 1-D block; L lanes
//    share a column (gemv_lanes_per_column: the fewest that give each 4 rows), so
//    a warp reads 32 / L columns per load; x is read directly (L lanes ask for
//    the same element). The column sums are folded over the lanes of a warp by
//    shuffles, then over the warps through shared memory. (On sm_90 the
//    cluster kernels take their calls of more than 512 columns, but 1 to 8
//    rows past 16384 columns: cluster_serves.)
//  - gemv_n_f32_cluster16 / _cluster32 / _cluster64 and their _scalar_ twins:
//    op N on few rows (up to 1024) on more than 512 columns, sm_90 on: the
//    short kernels' layout on row tiles of 16, 32 or 64 rows, each split
//    over the columns among the GEMV_CLUSTER blocks of a thread-block
//    cluster, whose sums are added through distributed shared memory
//    (gemv_n_cluster). On more columns several clusters share a tile (grid.y
//    a multiple of GEMV_CLUSTER): each cluster's sum goes to a partial
//    vector, and the last cluster to arrive adds them in order.
//  - gemv_t_f32 / gemv_t_f32_scalar: op T with m > 64. 1-D block of Tx threads
//    (a multiple of 32). A warp per column, Tx / 32 columns per block (when
//    fewer columns are left, warps share a column, each taking every ways-th
//    round of its rows, added in slice order); x staged in shared memory
//    GEMV_T_XCHUNK elements at a time, the first loads of A of a chunk issued
//    before it is staged; a shuffle reduction.
//    gemv_t_f32_lean / gemv_t_f32_scalar_lean: the same with half the loads
//    in flight and at most 48 registers, for more warps per SM;
//    gemv_t_f32_lean_l1: the float4 one with x read through the read-only
//    path instead of staged (x 16-byte aligned, unit stride).
//    gemv_t_f32_l1_any: any A and lda, x unit stride: each column read as
//    float4 from its first 16-byte boundary, x through L1 as floats.
//    gemv_t_f32_paired: float4 A, x 16-byte aligned with unit stride; a
//    warp per column, unsplit, each round's loads of A and of x requested
//    together (gemv_t_paired). gemv_t_f32_paired_split: the same split over
//    rows, with an arrival counter per column instead of per block
//    (gemv_t_paired_split). gemv_t_f32_stacked: the same, unsplit, on
//    blocks (32, Ty): Ty warps share a column, each a range of its rows,
//    their sums added through shared memory (gemv_t_stacked).
//    gemv_t_f32_paired_any, gemv_t_f32_paired_split_any and
//    gemv_t_f32_stacked_any: the same three for any A and lda, x of unit
//    stride at any alignment (ANY in gemv_t_paired_sum: x's float4s shifted
//    into place by shuffles).
//  - gemv_t_f32_short / gemv_t_f32_short_scalar: op T with m <= 64: L lanes per
//    column, GEMV_T_SMALL_COLUMNS columns per lane, 4 * Tx / L columns per block,
//    no split. The float4 variants need A 16-byte aligned and lda % 4 == 0.
//    gemv_t_f32_groups4 / _groups6 and their _scalar twins: the same for 65 to
//    384 rows (512 for the _scalar ones), R = 4 or 6 groups of 4 rows a lane
//    (L lanes for ceil(m / R) rows), 2 columns per lane, 2 * Tx / L columns
//    per block.
//
// Split (gridDim.y > 1): the reduction dimension (columns for N, rows for T) is
// cut into gridDim.y ranges of `per_split` each, one block per range and tile.
// Each block takes a ticket from `counters[blockIdx.x]` (the short and
// cluster N kernels as they start, the others once their slots are written:
// gemv_split_last_late) and writes its partial vector to the slots `slots[split_index * len_y + i]`
// (common.cuh: a sum and a flag in 8 bytes); the block of a tile with the last
// ticket takes the slots as they fill and adds them in a fixed order
// (gemv_split_gather), applies alpha and beta, writes y, and leaves the
// counter and the slots at 0 for the next call. One launch, no fence, and the
// same bits whichever block adds (gemv_t_f32_paired_split: each warp takes its
// ticket from `counters[column]`, and the column's last warp adds). The
// counters and slots must be 0 before the first call (the routine sees to it).
//
// Most kernels read the elements of y a thread writes before its sums are
// done (gemv_y_early; gemv_n after its columns, before the fold); the
// cluster, split paired, stacked, lanes and sweep kernels, and a split's
// gathering block for the outputs other than its own, read them at the final
// write. Every result is a fixed-order sum for a given
// (kernel, Tx, Ty, split), so repeated calls give the same bits. Scalars come
// as (value, device address or null) pairs, read with load_scalar. alpha ==
// 0: A and x are not read; beta == 0: y is not read (NaN there is overwritten).
#include "common.cuh"

#define GEMV_N_ROWS 4
#define GEMV_N_COLS 4
#define GEMV_N_XCHUNK 2048
#define GEMV_T_XCHUNK 2048
// Loads in flight per lane in the T kernels: float4 and scalar.
#define GEMV_T_UNROLL 8
#define GEMV_T_UNROLL_SCALAR 16
// The T kernels with m <= 64 (fewer than 32 lanes per column): columns per lane.
#define GEMV_T_SMALL_COLUMNS 4
// The short N kernels: at most this many rows, and columns in flight per lane.
#define GEMV_SHORT_ROWS 64
#define GEMV_SHORT_UNROLL 4
// The cluster N kernels: blocks a cluster (the split), columns in flight per
// lane, and the most threads a block (the launch bounds and the size of the
// sums; blocks of 128 run too).
#define GEMV_CLUSTER 8
#define GEMV_CLUSTER_UNROLL 8
#define GEMV_CLUSTER_THREADS 256
// The rank of the block that adds a cluster's sums (gemv_cluster_total): the
// first, or in the CPU emulation, which runs a cluster's blocks one after
// another, the last.
#if defined(MUBLAS_CPU_EMULATION)
#define GEMV_CLUSTER_WRITER (GEMV_CLUSTER - 1)
#else
#define GEMV_CLUSTER_WRITER 0
#endif

// The element of y at yp, for beta * y: read before the sums are done, not
// after, so that its round trip overlaps others instead of adding one at the
// end. Not read when beta == 0 (0 then: gemv_result ignores it).
__device__ __forceinline__ float gemv_y_early(float beta, const float *yp) { return beta == 0.0f ? 0.0f : *yp; }

// alpha * dot + beta * y_early (alpha * dot alone when beta == 0: NaN in y is overwritten).
__device__ __forceinline__ float gemv_result(float alpha, float dot, float beta, float y_early) {
    const float r = alpha * dot;
    return beta == 0.0f ? r : fmaf(beta, y_early, r);
}

// alpha == 0: y = beta * y (0 when beta == 0, untouched when beta == 1).
__device__ __forceinline__ void gemv_scale_only(float beta, float *y) {
    if (beta == 1.0f) return;
    *y = beta == 0.0f ? 0.0f : beta * *y;
}

// Lanes that share a column in the T and short N kernels: the fewest (a power of
// two, at most a warp) that give each lane 4 of the m rows. The routine computes
// the same (lanes_per_column in src/routines/gemv/geometry.rs).
__device__ __forceinline__ int gemv_lanes_per_column(i64 m) {
    int lanes = 1;
    while (lanes < 32 && 4 * static_cast<i64>(lanes) < m) lanes *= 2;
    return lanes;
}

// Adds `count` vectors of `len` floats, `stride` floats apart in shared memory,
// into the first: the upper half onto the lower half, then again, in an order
// fixed by (count, len). Every thread of the block calls it.
__device__ __forceinline__ void gemv_fold(float *buf, int count, int stride, int len, int tid, int threads) {
    while (count > 1) {
        const int half = (count + 1) / 2;  // vectors half..count-1 go onto 0..count-half-1
        for (int t = tid; t < (count - half) * len; t += threads) {
            const int v = t / len, e = t - v * len;
            buf[v * stride + e] += buf[(v + half) * stride + e];
        }
        __syncthreads();
        count = half;
    }
}

// Split launches: as a block starts (after alpha), its thread 0 takes a ticket
// from its tile's counter; the block with the last (splits - 1) adds the
// tile's partial sums, taking each slot as it fills (split_slot_take). It
// cannot wait forever: every other block of the tile took its ticket before,
// so it has started, and it fills its slots without waiting for anything.
// The ticket's round trip overlaps the block's loads, and no block waits for
// a fence or a count before it ends. (gemv_t_f32_paired_split: lane 0 of
// each warp, a counter per column.)
__device__ __forceinline__ unsigned gemv_split_ticket(unsigned *counters, bool taker) {
    return taker ? split_ticket(counters + blockIdx.x) : 0u;
}

// Every thread of the block, after its slots are written: true in the block
// that holds the tile's last ticket (thread 0's `ticket`), which also resets
// the counter (every block of the tile has counted itself).
__device__ __forceinline__ bool gemv_split_last(unsigned *counters, unsigned ticket, unsigned splits, int tid) {
    __shared__ bool last;
    if (tid == 0) {
        last = ticket == splits - 1;
        if (last) counters[blockIdx.x] = 0;
    }
    __syncthreads();
    return last;
}

// The same with the ticket taken here, after the block's slots are written:
// for the kernels where a ticket held from the start costs registers. A
// round trip more than gemv_split_last, still none for a fence.
__device__ __forceinline__ bool gemv_split_last_late(unsigned *counters, unsigned splits, int tid) {
    __syncthreads();  // every slot of the block is written before its ticket
    return gemv_split_last(counters, gemv_split_ticket(counters, tid == 0), splits, tid);
}

// sum plus the slots column[k * stride] for the N values k = s, s + step, ...
// that lie below count: requested at once under predicates, then taken in
// order (split_slot_take).
template <int N>
__device__ __forceinline__ float gemv_split_take_some(SplitSlot *column, i64 stride, unsigned s, unsigned step,
                                                      unsigned count, float sum) {
    SplitSlot v[N];
#pragma unroll
    for (int u = 0; u < N; ++u) {
        const unsigned k = s + u * step;
        v[u] = k < count ? split_slot_load(column + static_cast<i64>(k) * stride) : 0;
    }
#pragma unroll
    for (int u = 0; u < N; ++u) {
        const unsigned k = s + u * step;
        if (k < count) sum += split_slot_take(column + static_cast<i64>(k) * stride, v[u]);
    }
    return sum;
}

// The sum, in order, of the slots column[s * stride] for s = first, first +
// step, ... < count, each taken as it fills: four requested at once, so
// that their round trips overlap, and the last one to three together under
// predicates. H200, kernel time, µs: with a loop for the tail (a round trip
// a slot), 3 x 100000 on 196 ranges took 5.04 against 4.73 with every four
// under predicates; that in turn lost up to 4 % where no tail is left (8 x
// 262144 6.39 -> 6.63), and this way took 4.62 and 6.51. Where some lanes
// of a warp take the loop and others only the tail, the two paths diverge
// (5 x 50000: 4.89 against 4.52 with every four under predicates). Not
// eight: that made the short N kernel slower (1 x 65536 4.35 -> 4.58).
__device__ __forceinline__ float gemv_split_sum(SplitSlot *column, i64 stride, unsigned first, unsigned count,
                                                unsigned step) {
    float sum = 0.0f;
    unsigned s = first;
    for (; s + 3 * step < count; s += 4 * step) {
        SplitSlot v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = split_slot_load(column + static_cast<i64>(s + u * step) * stride);
#pragma unroll
        for (int u = 0; u < 4; ++u) sum += split_slot_take(column + static_cast<i64>(s + u * step) * stride, v[u]);
    }
    return s < count ? gemv_split_take_some<3>(column, stride, s, step, count, sum) : sum;
}

// gemv_split_sum for the lanes of a warp (the split paired kernel): the
// same order, four slots a lane under predicates and no loop for the tail.
// With a loop for the tail the kernel was slower where a lane holds one
// slot or two (T 200000 x 8 6.65 us against 5.95 this way, 6.05 before the
// slots; H200), and with gemv_split_sum's fours ahead of its tail it
// spilled 12 bytes on sm_90.
__device__ __forceinline__ float gemv_split_sum_lanes(SplitSlot *column, i64 stride, unsigned lane, unsigned count) {
    float sum = 0.0f;
    for (unsigned s = lane; s < count; s += 4 * 32) sum = gemv_split_take_some<4>(column, stride, s, 32, count, sum);
    return sum;
}

// In the tile's last block: scratch[o] = sum over s < splits of the slot
// slots[s * stride + o], for o < outputs, each cleared as it is taken. G
// groups of threads (G the largest power of two with G * outputs <= the
// block's threads and G <= splits, at least 1)
// each add the splits s = g, g + G, ... in order (gemv_split_sum), then the G
// sums of an output are folded (gemv_fold): the order depends only on
// (outputs, splits, block size). scratch holds at least max(outputs,
// threads) floats. Every thread calls it.
__device__ __forceinline__ void gemv_split_gather(SplitSlot *slots, i64 stride, int outputs, unsigned splits,
                                                  float *scratch, int tid, int threads) {
    int groups = 1;
    while (2 * groups * outputs <= threads && 2u * groups <= splits) groups *= 2;
    for (int t = tid; t < groups * outputs; t += threads) {
        const int g = t / outputs, o = t - g * outputs;
        scratch[t] = gemv_split_sum(slots + o, stride, g, splits, groups);
    }
    __syncthreads();
    gemv_fold(scratch, groups, outputs, outputs, tid, threads);
}

// The 4 rows of one thread in one column, p pointing at its first: rows
// p[0], p[1], p[2], p[3] (VEC) or p[0], p[step], p[2 step], p[3 step]; `left`
// rows of A from p on (m - r), rows past them read as 0 (unless `full`).
template <bool VEC>
__device__ __forceinline__ float4 gemv_n_load(const float *__restrict__ p, int step, bool full, i64 left) {
    if (VEC && full) return load_once4(p);
    if (!VEC && full) return make_float4(load_once(p), load_once(p + step), load_once(p + 2 * step), load_once(p + 3 * step));
    const int s = VEC ? 1 : step;
    float4 v;
    v.x = 0 < left ? load_once(p) : 0.0f;
    v.y = s < left ? load_once(p + s) : 0.0f;
    v.z = 2 * s < left ? load_once(p + 2 * s) : 0.0f;
    v.w = 3 * s < left ? load_once(p + 3 * s) : 0.0f;
    return v;
}

__device__ __forceinline__ void fma4(float4 &acc, const float4 a, float x) {
    acc.x = fmaf(a.x, x, acc.x);
    acc.y = fmaf(a.y, x, acc.y);
    acc.z = fmaf(a.z, x, acc.z);
    acc.w = fmaf(a.w, x, acc.w);
}

__device__ __forceinline__ void add4(float4 &acc, const float4 v) {
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
}

__device__ __forceinline__ float component(const float4 &v, int k) {
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

// The columns [c_begin, c_end) of one thread's 4 rows r0 + k * step in the N
// kernels: x staged a chunk at a time in xs (or, X_FROM_L1, read where it is
// used through the read-only path, with no barrier in the loop), this thread
// row's groups of COLS columns (g = COLS * ty, then every COLS * Ty) with
// their loads issued together. FULL: every row of the block is inside A.
// SCALAR_LOADS: VEC's layout with each row read on its own (A at any alignment).
template <bool VEC, bool FULL, int COLS, bool X_FROM_L1, bool SCALAR_LOADS = false>
__device__ __forceinline__ float4 gemv_n_columns(const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                                 i64 incx, i64 m, i64 r0, int step, i64 c_begin, i64 c_end, float *xs,
                                                 int ty, int Ty, int tid, int threads) {
    const bool full = !SCALAR_LOADS && (FULL || r0 + 3 * step < m);
    const bool any = FULL || r0 < m;
    const i64 left = m - r0;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (i64 c = c_begin; c < c_end; c += GEMV_N_XCHUNK) {
        const int len = static_cast<int>(min(static_cast<i64>(GEMV_N_XCHUNK), c_end - c));
        const float *Ac = A + c * lda + r0;
        int g = COLS * ty;
        bool more = any && g + COLS <= len;
        float4 a[COLS];
        // A does not depend on x: this thread row's first group is requested before x is staged.
        if (more) {
            const float *p = Ac + g * lda;
#pragma unroll
            for (int k = 0; k < COLS; ++k, p += lda) a[k] = gemv_n_load<VEC>(p, step, full, left);
        }
        if (!X_FROM_L1) {
            __syncthreads();  // the previous chunk is no longer read
            for (int i = tid; i < len; i += threads) xs[i] = x[(c + i) * incx];
            __syncthreads();
        }
        while (more) {
#pragma unroll
            for (int k = 0; k < COLS; k += 4) {
                const float4 xv = X_FROM_L1
                    ? make_float4(__ldg(x + (c + g + k) * incx), __ldg(x + (c + g + k + 1) * incx),
                                  __ldg(x + (c + g + k + 2) * incx), __ldg(x + (c + g + k + 3) * incx))
                    : *reinterpret_cast<const float4 *>(xs + g + k);
                fma4(acc, a[k], xv.x);
                fma4(acc, a[k + 1], xv.y);
                fma4(acc, a[k + 2], xv.z);
                fma4(acc, a[k + 3], xv.w);
            }
            g += COLS * Ty;
            more = g + COLS <= len;
            if (more) {
                const float *p = Ac + g * lda;
#pragma unroll
                for (int k = 0; k < COLS; ++k, p += lda) a[k] = gemv_n_load<VEC>(p, step, full, left);
            }
        }
        // At most one thread row holds a group cut short by the end of the chunk.
        if (any) {
            for (; g < len; ++g)
                fma4(acc, gemv_n_load<VEC>(Ac + g * lda, step, full, left), X_FROM_L1 ? __ldg(x + (c + g) * incx) : xs[g]);
        }
    }
    return acc;
}

// The N kernel for any A (gemv_n_f32_wide_any): VEC's layout (a thread's 4
// rows r0..r0+3 consecutive) with float4 loads at any alignment of A and lda.
// In column c, with s = the float offset of (A + c lda + row0) past a 16-byte
// boundary, each thread reads the aligned float4 that starts s rows below its
// own: its first s floats are rows of the thread below (`below`, handed down
// at the end), the other 4 - s its own first rows; the tile's last thread
// reads its own last s rows one by one. s of column c is (s1 + (c - 1) lda)
// mod 4, so over a group of 8 columns starting at c ≡ 1 (mod 8) the pattern
// depends only on (s1, lda mod 4): compile-time here (S1, L), the sweep
// instantiated for each of the 16. Column 0 is read row by row (its float4
// could start before A); every other read lies inside A's span (lda >= 4).

// Component k of v, to write (k a constant once unrolled).
__device__ __forceinline__ float &component_ref(float4 &v, int k) {
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

// One column at offset S: v is the aligned float4, rows r0 - S + k: the thread
// below's last rows for k < S, this thread's row k - S after; e its rows
// 4 - S .. 3 read one by one (0 but in the tile's last thread).
template <int S>
__device__ __forceinline__ void gemv_n_any_fma(float4 &own, float4 &below, const float4 v, const float (&e)[3],
                                               float xv) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        float &acc = k < S ? component_ref(below, 4 - S + k) : component_ref(own, k - S);
        acc = fmaf(component(v, k), xv, acc);
    }
#pragma unroll
    for (int i = 0; i < S; ++i) component_ref(own, 4 - S + i) = fmaf(e[i], xv, component(own, 4 - S + i));
}

// The loads of column `col` (A + col lda + row0 at `p`) at offset S; none where !active (zeros instead).
template <int S>
__device__ __forceinline__ void gemv_n_any_load(float4 &v, float (&e)[3], const float *p, int tx, bool last_thread,
                                                int tile_rows, bool active = true) {
    v = active ? load_once4(p + 4 * tx - S) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int i = 0; i < 3; ++i) e[i] = active && i < S && last_thread ? load_once(p + tile_rows - S + i) : 0.0f;
}

// The first `count` columns of a group (all 8 in the sweep, fewer in its last
// group): loads issued together, then the multiply-adds.
template <int S1, int L, int K = 0>
__device__ __forceinline__ void gemv_n_any_group_loads(float4 (&v)[8], float (&e)[8][3], const float *p, i64 lda,
                                                       int tx, bool last_thread, int tile_rows, int count) {
    if constexpr (K < 8) {
        gemv_n_any_load<(S1 + K * L) & 3>(v[K], e[K], p + K * lda, tx, last_thread, tile_rows, K < count);
        gemv_n_any_group_loads<S1, L, K + 1>(v, e, p, lda, tx, last_thread, tile_rows, count);
    }
}
template <int S1, int L, int K = 0>
__device__ __forceinline__ void gemv_n_any_group_fma(float4 &own, float4 &below, const float4 (&v)[8],
                                                     const float (&e)[8][3], const float (&xv)[8], int count) {
    if constexpr (K < 8) {
        if (K < count) gemv_n_any_fma<(S1 + K * L) & 3>(own, below, v[K], e[K], xv[K]);
        gemv_n_any_group_fma<S1, L, K + 1>(own, below, v, e, xv, count);
    }
}

// The group of columns g .. g + count - 1 (count <= 8): its loads, then its multiply-adds.
template <int S1, int L>
__device__ __forceinline__ void gemv_n_any_group(float4 &own, float4 &below, const float *__restrict__ A, i64 lda,
                                                 const float *__restrict__ x, i64 incx, i64 row0, i64 g, int count,
                                                 int tx, int tile_rows, bool last_thread) {
    float4 v[8];
    float e[8][3];
    gemv_n_any_group_loads<S1, L>(v, e, A + g * lda + row0, lda, tx, last_thread, tile_rows, count);
    float xv[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) xv[k] = k < count ? __ldg(x + (g + k) * incx) : 0.0f;
    gemv_n_any_group_fma<S1, L>(own, below, v, e, xv, count);
}

// Columns 1 .. n-1 of a whole row tile for this thread row: groups of 8 from
// column 1 + 8 ty, every 8 Ty. The group cut short by the last column is the
// last thread row's, which has a whole group fewer than the first rows unless
// the groups divide evenly. It starts at a column ≡ 1 (mod 8) like the others,
// so its offsets follow the same pattern and its loads go out together too,
// predicated on its count. (Column by column, each load waited for the one
// before, and at n ≡ 5..7 (mod 8) that row held its block back.) Predicating
// every group the same way instead slowed the loop by up to 10 %.
// Not the next thread row's in turn, as it was: a warp holds several thread
// rows (4 on Tx = 8), and where that row shared its warp with one of a whole
// group more, the warp ran the short group after that row's last whole one, a
// trip to DRAM more than any other warp (H100, kernel time, 3000 x 2000 on 8 x
// 64: 11.6 µs, 10.9 with the short group left out). The last warp's rows all
// have the fewer whole groups unless nearly every row has one more. Given to
// the last row, 3001 x 2000 at lda 3001 ran 11.02 µs (11.72 before; cuBLAS
// 10.66) and 4096² at lda 4097 24.60 on 8 x 48 (25.42; cuBLAS 24.19)
// (docs/runs/2026-12-07-h100-gemv-any-a-short-group-last-row.txt).
template <int S1, int L>
__device__ __forceinline__ void gemv_n_any_sweep(float4 &own, float4 &below, const float *__restrict__ A, i64 lda,
                                                 const float *__restrict__ x, i64 incx, i64 n, i64 row0, int tx,
                                                 int tile_rows, bool last_thread, int ty, int Ty) {
    for (i64 g = 1 + 8 * static_cast<i64>(ty); g + 8 <= n; g += 8 * static_cast<i64>(Ty))
        gemv_n_any_group<S1, L>(own, below, A, lda, x, incx, row0, g, 8, tx, tile_rows, last_thread);
    const i64 short_group = 1 + 8 * ((n - 1) / 8);
    if (ty == Ty - 1 && short_group < n)
        gemv_n_any_group<S1, L>(own, below, A, lda, x, incx, row0, short_group, static_cast<int>(n - short_group), tx,
                                tile_rows, last_thread);
}

// A whole row tile (row0 + 4 Tx <= m) of the any-A kernel, unsplit: this
// thread's sums of its 4 rows over its thread row's columns. Every thread of
// the block calls it (barriers); xs holds at least 4 Tx Ty floats.
__device__ __forceinline__ float4 gemv_n_any_columns(const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                                     i64 incx, i64 n, i64 row0, float *xs, int tx, int Tx, int ty,
                                                     int Ty) {
    const int tile_rows = GEMV_N_ROWS * Tx;
    const i64 r0 = row0 + GEMV_N_ROWS * tx;
    float4 own = make_float4(0.0f, 0.0f, 0.0f, 0.0f), below = own;
    // Column 0 row by row (its aligned float4 may start before A), by the first thread row.
    if (ty == 0) {
        const float xv = __ldg(x);
        fma4(own, make_float4(load_once(A + r0), load_once(A + r0 + 1), load_once(A + r0 + 2), load_once(A + r0 + 3)),
             xv);
    }
    if (n > 1) {
        const bool last_thread = tx == Tx - 1;
        const int s1 = static_cast<int>((reinterpret_cast<u64>(A + lda + row0) >> 2) & 3);
        const int L = static_cast<int>(lda & 3);
#define GEMV_N_ANY_CASE(S1, L_)                                                                                    case 4 * S1 + L_:                                                                                                  gemv_n_any_sweep<S1, L_>(own, below, A, lda, x, incx, n, row0, tx, tile_rows, last_thread, ty, Ty);         break;
        switch (4 * s1 + L) {
            GEMV_N_ANY_CASE(0, 0) GEMV_N_ANY_CASE(0, 1) GEMV_N_ANY_CASE(0, 2) GEMV_N_ANY_CASE(0, 3)
            GEMV_N_ANY_CASE(1, 0) GEMV_N_ANY_CASE(1, 1) GEMV_N_ANY_CASE(1, 2) GEMV_N_ANY_CASE(1, 3)
            GEMV_N_ANY_CASE(2, 0) GEMV_N_ANY_CASE(2, 1) GEMV_N_ANY_CASE(2, 2) GEMV_N_ANY_CASE(2, 3)
            GEMV_N_ANY_CASE(3, 0) GEMV_N_ANY_CASE(3, 1) GEMV_N_ANY_CASE(3, 2) GEMV_N_ANY_CASE(3, 3)
        }
#undef GEMV_N_ANY_CASE
    }
    // Each thread's `below` rows are the next lower thread's own last rows: handed down through shared memory
    // (thread 0's belong to the tile below, which reads them itself).
    float4 *handoff = reinterpret_cast<float4 *>(xs);
    handoff[ty * Tx + tx] = below;
    __syncthreads();
    if (tx + 1 < Tx) add4(own, handoff[ty * Tx + tx + 1]);
    __syncthreads();  // xs is free for the fold
    return own;
}

template <bool VEC, int COLS = GEMV_N_COLS, bool X_FROM_L1 = false, bool ANY_A = false>
__device__ __forceinline__ void gemv_n(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                       const float *__restrict__ A, i64 lda, const float *__restrict__ x, i64 incx,
                                       float beta_value, const float *beta_ptr, float *y, i64 incy,
                                       i64 per_split, unsigned *counters, SplitSlot *slots) {
    // A chunk of x; after the columns, the fold of the Ty partial sums and the split's final sum.
    __shared__ __align__(16) float xs[GEMV_N_XCHUNK];

    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    const int tx = threadIdx.x, ty = threadIdx.y, Tx = blockDim.x, Ty = blockDim.y;
    const int tid = ty * Tx + tx, threads = Tx * Ty;
    const int tile_rows = GEMV_N_ROWS * Tx;
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

    // ANY_A, unsplit: a part-filled last tile, where there is more than one, is read as the whole tile that ends
    // at row m, its rows below row0 left to the tile before (they are its rows): float4 loads, as in the others.
    // Row by row its block took longer than the whole tiles from about 10 rows on (8 x 64, 4097..4126 rows:
    // 19.3 -> 23.5 us, the time of the last tile's rows, H200).
    const bool shifted = ANY_A && split == 1 && row0 + tile_rows > m && m >= tile_rows && lda >= 4;
    const i64 tile0 = shifted ? m - tile_rows : row0;

    // This thread's rows: r0 + k * step, k = 0..3; its position in the tile: l0 + k * step. It writes those
    // from row0 on (below row0 only in a shifted tile).
    const int step = VEC ? 1 : Tx;
    const int l0 = VEC ? GEMV_N_ROWS * tx : tx;
    const i64 r0 = tile0 + l0;

    const i64 c_begin = static_cast<i64>(blockIdx.y) * per_split;
    const i64 c_end = min(n, c_begin + per_split);
    // Only the last row tile may hold rows past m; the choice is the whole block's, so its barriers match.
    // ANY_A: whole tiles (and a shifted last one) through gemv_n_any_columns where lda >= 4, else row by row.
    static_assert(!ANY_A || (VEC && X_FROM_L1), "ANY_A: VEC's layout, x through L1");
    float4 acc;
    if ((row0 + tile_rows <= m || shifted) && (!ANY_A || lda >= 4)) {
        acc = ANY_A ? gemv_n_any_columns(A, lda, x, incx, n, tile0, xs, tx, Tx, ty, Ty)
                    : gemv_n_columns<VEC, true, COLS, X_FROM_L1>(A, lda, x, incx, m, r0, step, c_begin, c_end, xs, ty,
                                                                  Ty, tid, threads);
    } else {
        acc = gemv_n_columns<VEC, false, COLS, X_FROM_L1, ANY_A>(A, lda, x, incx, m, r0, step, c_begin, c_end, xs, ty,
                                                                  Ty, tid, threads);
    }

    // The elements of y this thread writes: its rows (unsplit, thread row 0), or with a split the first it would
    // write if its block adds the tile's partial sums (every block reads it; only that one uses it). Read after the
    // columns, not at the start: with a[] no longer live they cost no registers in the loop, and their round trip
    // still overlaps the fold's barriers.
    const int rows = static_cast<int>(min(static_cast<i64>(tile_rows), m - row0));
    float y_early[GEMV_N_ROWS] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (split == 1 && ty == 0) {
#pragma unroll
        for (int k = 0; k < GEMV_N_ROWS; ++k) {
            const i64 r = r0 + k * step;
            if (r < m && (!ANY_A || r >= row0)) y_early[k] = gemv_y_early(beta, y + r * incy);
        }
    } else if (split > 1 && tid < rows) {
        y_early[0] = gemv_y_early(beta, y + (row0 + tid) * incy);
    }

    // Fold the Ty thread rows: with h half of Ty rounded up to a power of two,
    // rows h..Ty-1 hand their sums to rows 0..Ty-h-1 through xs, then h halves.
    // At most Ty / 2 slots of tile_rows floats: 2 * Tx * Ty <= GEMV_N_XCHUNK.
    if (Ty > 1) {
        int h = 1;
        while (2 * h < Ty) h *= 2;
        for (int active = Ty; h >= 1; active = h, h /= 2) {
            __syncthreads();  // xs is no longer read
            if (ty >= h && ty < active) {
                float *slot = xs + (ty - h) * tile_rows;
                if (VEC) {
                    *reinterpret_cast<float4 *>(slot + l0) = acc;
                } else {
#pragma unroll
                    for (int k = 0; k < GEMV_N_ROWS; ++k) slot[l0 + k * step] = component(acc, k);
                }
            }
            __syncthreads();
            if (ty + h < active) {
                const float *slot = xs + ty * tile_rows;
                if (VEC) {
                    add4(acc, *reinterpret_cast<const float4 *>(slot + l0));
                } else {
                    add4(acc, make_float4(slot[l0], slot[l0 + step], slot[l0 + 2 * step], slot[l0 + 3 * step]));
                }
            }
        }
    }

    if (split == 1) {
        if (ty != 0) return;
#pragma unroll
        for (int k = 0; k < GEMV_N_ROWS; ++k) {
            const i64 r = r0 + k * step;
            if (r < m && (!ANY_A || r >= row0)) {
                y[r * incy] = gemv_result(alpha, component(acc, k), beta, y_early[k]);
            }
        }
        return;
    }

    if (ty == 0) {
        SplitSlot *mine = slots + static_cast<i64>(blockIdx.y) * m;
#pragma unroll
        for (int k = 0; k < GEMV_N_ROWS; ++k) {
            const i64 r = r0 + k * step;
            if (r < m) split_slot_put(mine + r, component(acc, k));
        }
    }
    if (!gemv_split_last_late(counters, split, tid)) return;
    gemv_split_gather(slots + row0, m, rows, split, xs, tid, threads);
    for (int lr = tid; lr < rows; lr += threads) {
        float *yr = y + (row0 + lr) * incy;
        *yr = gemv_result(alpha, xs[lr], beta, lr == tid ? y_early[0] : gemv_y_early(beta, yr));
    }
}

// The columns first, first + block_step, ... < c_end of one lane in the short N
// and cluster N kernels, U at a time, J apart; Ar points at the lane's first row.
template <bool VEC, bool FULL, int U = GEMV_SHORT_UNROLL>
__device__ __forceinline__ float4 gemv_n_short_columns(const float *__restrict__ Ar, i64 lda, const float *__restrict__ x,
                                                       i64 incx, i64 left, int step, i64 first, i64 c_end,
                                                       i64 block_step, int J) {
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (i64 base = first; base < c_end; base += block_step) {
        float4 a[U];
        float xv[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const i64 c = base + u * J;
            const bool in = c < c_end;
            a[u] = in ? gemv_n_load<VEC>(Ar + c * lda, step, FULL, left) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            xv[u] = in ? __ldg(x + c * incx) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) fma4(acc, a[u], xv[u]);
    }
    return acc;
}

// Lanes L apart in a warp (the short and cluster N kernels' lanes with the
// same rows) hold sums over different columns: folds them, so that every lane
// holds its rows' sums over the warp's columns, in an order fixed by L.
__device__ __forceinline__ void gemv_n_fold_lanes(float4 &acc, int L) {
    for (int offset = L; offset < 32; offset <<= 1) {
        acc.x += __shfl_xor_sync(0xffffffffu, acc.x, offset);
        acc.y += __shfl_xor_sync(0xffffffffu, acc.y, offset);
        acc.z += __shfl_xor_sync(0xffffffffu, acc.z, offset);
        acc.w += __shfl_xor_sync(0xffffffffu, acc.w, offset);
    }
}

template <bool VEC>
__device__ __forceinline__ void gemv_n_short(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                             const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                             i64 incx, float beta_value, const float *beta_ptr, float *y, i64 incy,
                                             i64 per_split, unsigned *counters, SplitSlot *slots) {
    // The row sums of each warp (GEMV_SHORT_ROWS apart), then the split's final sum.
    __shared__ __align__(16) float sums[32 * GEMV_SHORT_ROWS];

    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    const int tid = threadIdx.x, threads = blockDim.x;
    const int lane = tid & 31, warp = tid >> 5, warps = threads >> 5;
    const unsigned split = gridDim.y;

    if (alpha == 0.0f) {
        if (blockIdx.y != 0) return;
        for (int r = tid; r < m; r += threads) gemv_scale_only(beta, y + r * incy);
        return;
    }

    const unsigned ticket = gemv_split_ticket(counters, split > 1 && tid == 0);
    // Lane = q + L * j: rows 4q..4q+3 (VEC) or q, q + L, q + 2L, q + 3L, of column j of each group of 32 / L.
    const int L = gemv_lanes_per_column(m), J = 32 / L;
    const int q = lane & (L - 1), j = lane / L;
    const int step = VEC ? 1 : L;
    const int r0 = VEC ? 4 * q : q;
    const bool full = r0 + 3 * step < m;
    const bool any = r0 < m;
    // The first element of y this thread writes.
    const float y_first = tid < m ? gemv_y_early(beta, y + tid * incy) : 0.0f;

    // A warp's load u covers J consecutive columns; its GEMV_SHORT_UNROLL loads, J * GEMV_SHORT_UNROLL.
    const i64 c_begin = static_cast<i64>(blockIdx.y) * per_split;
    const i64 c_end = min(n, c_begin + per_split);
    const i64 block_step = static_cast<i64>(warps) * J * GEMV_SHORT_UNROLL;
    const i64 first = c_begin + static_cast<i64>(warp) * J * GEMV_SHORT_UNROLL + j;
    const float *Ar = A + r0;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (full) {
        acc = gemv_n_short_columns<VEC, true>(Ar, lda, x, incx, m - r0, step, first, c_end, block_step, J);
    } else if (any) {
        acc = gemv_n_short_columns<VEC, false>(Ar, lda, x, incx, m - r0, step, first, c_end, block_step, J);
    }

    gemv_n_fold_lanes(acc, L);
    if (lane < L) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int r = r0 + k * step;
            if (r < m) sums[warp * GEMV_SHORT_ROWS + r] = component(acc, k);
        }
    }
    __syncthreads();
    gemv_fold(sums, warps, GEMV_SHORT_ROWS, static_cast<int>(m), tid, threads);

    if (split == 1) {
        for (int r = tid; r < m; r += threads) {
            float *yr = y + r * incy;
            *yr = gemv_result(alpha, sums[r], beta, r == tid ? y_first : gemv_y_early(beta, yr));
        }
        return;
    }

    for (int r = tid; r < m; r += threads) split_slot_put(slots + static_cast<i64>(blockIdx.y) * m + r, sums[r]);
    if (!gemv_split_last(counters, ticket, split, tid)) return;
    gemv_split_gather(slots, m, static_cast<int>(m), split, sums, tid, threads);
    for (int r = tid; r < m; r += threads) {
        float *yr = y + r * incy;
        *yr = gemv_result(alpha, sums[r], beta, r == tid ? y_first : gemv_y_early(beta, yr));
    }
}

// Every thread of the cluster waits here for all the others: what each wrote
// to its shared memory before is visible to the cluster's reads after. In the
// CPU emulation, which runs blocks one after another, it does nothing.
__device__ __forceinline__ void gemv_cluster_barrier() {
#if !defined(MUBLAS_CPU_EMULATION) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

// The cluster N kernels' blocks of a row tile (a cluster along grid.y: rank
// blockIdx.y % GEMV_CLUSTER) add their sums over the rows of the tile in rank
// order through distributed shared memory. Returns true in the one block of
// the cluster whose threads tid < TILE then hold their row's total; the
// cluster's shared memory must stay until that block has read it, so every
// thread calls gemv_cluster_barrier again afterwards. The CPU emulation runs
// blocks one after another: there each block leaves its sums in `held`, and
// the cluster's last rank adds them.
template <int TILE>
__device__ __forceinline__ bool gemv_cluster_total(const float *sums, int tid, float &total) {
    total = 0.0f;
#if defined(MUBLAS_CPU_EMULATION)
    static std::vector<float> held;
    if (tid == 0 && blockIdx.x == 0 && blockIdx.y == 0) held.assign(size_t{gridDim.x} * gridDim.y * TILE, 0.0f);
    __syncthreads();
    const unsigned rank = blockIdx.y % GEMV_CLUSTER;
    float *tile = held.data() + (size_t{blockIdx.x} * gridDim.y + blockIdx.y - rank) * TILE;
    if (tid < TILE) tile[rank * TILE + tid] = sums[tid];
    const bool writer = rank == GEMV_CLUSTER_WRITER;
    if (writer && tid < TILE) {
        for (int s = 0; s < GEMV_CLUSTER; ++s) total += tile[s * TILE + tid];
    }
    return writer;
#elif __CUDA_ARCH__ >= 900
    gemv_cluster_barrier();
    const bool writer = blockIdx.y % GEMV_CLUSTER == GEMV_CLUSTER_WRITER;
    if (writer && tid < TILE) {
        const unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(sums + tid));
#pragma unroll
        for (int s = 0; s < GEMV_CLUSTER; ++s) {
            unsigned remote;
            float v;
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(s));
            asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
            total += v;
        }
    }
    return writer;
#else
    return false;
#endif
}

// gemv_n_f32_cluster16/32/64 and _scalar twins: op N, row tiles of TILE rows
// (blockIdx.x), each split over the columns among the blocks of one or more
// clusters of GEMV_CLUSTER (blockIdx.y a range of per_split columns), 1-D
// blocks. The short kernel's layout on a tile: L = TILE / 4 lanes share a
// column, GEMV_CLUSTER_UNROLL columns of loads in flight a lane; the lanes'
// sums are folded by shuffles, the warps' through shared memory, and the
// blocks' in the cluster, so that one cluster serves few rows on many columns
// without partial sums in memory or an arrival counter. Where several
// clusters share a tile (more columns), their sums go through slots, a vector
// a cluster, which the cluster with the last ticket adds in order. TILE rows
// are TILE * 4 bytes of a column: 64, 128 or 256.
template <bool VEC, int TILE>
__device__ __forceinline__ void gemv_n_cluster(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                               const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                               i64 incx, float beta_value, const float *beta_ptr, float *y, i64 incy,
                                               i64 per_split, unsigned *counters, SplitSlot *slots) {
    constexpr int L = TILE / 4, J = 32 / L, U = GEMV_CLUSTER_UNROLL;
    // The warps' row sums, then the scratch of the clusters' final sum (gemv_split_gather: a float a thread).
    constexpr int SUMS = GEMV_CLUSTER_THREADS / 32 * TILE;
    __shared__ __align__(16) float sums[SUMS > GEMV_CLUSTER_THREADS ? SUMS : GEMV_CLUSTER_THREADS];
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const int tid = threadIdx.x, threads = blockDim.x;
    const int lane = tid & 31, warp = tid >> 5, warps = threads >> 5;
    const i64 row0 = static_cast<i64>(blockIdx.x) * TILE;
    const i64 rows = min(static_cast<i64>(TILE), m - row0);
    if (alpha == 0.0f) {
        const float beta = load_scalar(beta_value, beta_ptr);
        if (blockIdx.y == 0 && tid < rows) gemv_scale_only(beta, y + (row0 + tid) * incy);
        return;
    }

    // Several clusters a tile: the block that writes its cluster's sums takes the cluster's ticket.
    const unsigned clusters = gridDim.y / GEMV_CLUSTER;
    const unsigned ticket =
        gemv_split_ticket(counters, clusters > 1 && tid == 0 && blockIdx.y % GEMV_CLUSTER == GEMV_CLUSTER_WRITER);
    // Lane = q + L * j: rows 4q..4q+3 (VEC) or q, q + L, q + 2L, q + 3L of the tile, in column j of each group of J.
    const int q = lane & (L - 1), j = lane / L;
    const int step = VEC ? 1 : L;
    const int r0 = VEC ? 4 * q : q;
    const i64 left = rows - r0;  // rows of A from the lane's first on, in this tile
    const i64 c_begin = static_cast<i64>(blockIdx.y) * per_split;
    const i64 c_end = min(n, c_begin + per_split);
    const i64 block_step = static_cast<i64>(warps) * J * U;
    const i64 first = c_begin + static_cast<i64>(warp) * J * U + j;
    const float *Ar = A + row0 + r0;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (left > 3 * step) {
        acc = gemv_n_short_columns<VEC, true, U>(Ar, lda, x, incx, left, step, first, c_end, block_step, J);
    } else if (left > 0) {
        acc = gemv_n_short_columns<VEC, false, U>(Ar, lda, x, incx, left, step, first, c_end, block_step, J);
    }
    gemv_n_fold_lanes(acc, L);
    // Every row of the tile gets a sum (0 past m), so the fold below runs on constant lengths.
    if (lane < L) {
#pragma unroll
        for (int k = 0; k < 4; ++k) sums[warp * TILE + r0 + k * step] = component(acc, k);
    }
    __syncthreads();
    gemv_fold(sums, warps, TILE, TILE, tid, threads);

    float total;
    const bool writer = gemv_cluster_total<TILE>(sums, tid, total);
    gemv_cluster_barrier();  // the other blocks' sums stay until the writer has read them
    if (!writer) return;
    if (clusters > 1) {
        if (tid < rows) split_slot_put(slots + static_cast<i64>(blockIdx.y / GEMV_CLUSTER) * m + row0 + tid, total);
        if (!gemv_split_last(counters, ticket, clusters, tid)) return;
        gemv_split_gather(slots + row0, m, static_cast<int>(rows), clusters, sums, tid, threads);
        total = sums[tid < rows ? tid : 0];
    }
    if (tid < rows) {
        // beta and y are read here, after the columns: held over them they cost registers.
        const float beta = load_scalar(beta_value, beta_ptr);
        float *yr = y + (row0 + tid) * incy;
        *yr = gemv_result(alpha, total, beta, gemv_y_early(beta, yr));
    }
}

// One round of a lane's loads in the T kernels: rows i + stretch * u of the
// chunk `a`, u < U (float4s for VEC, 4 floats each in av), 0 past `last`.
// Plain read-only loads, not load_once: with it these kernels ran 3-4 %
// faster alone (scripts/gemv-ab.py) but level or slower in `mublas bench
// sgemv` (T 5000² 4 % slower, 20000² 0.6 %).
template <bool VEC, int U>
__device__ __forceinline__ void gemv_t_load_round(float (&av)[VEC ? 4 * U : U], const float *__restrict__ a, int i,
                                                  int stretch, int last) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const int r = i + stretch * u;
        if constexpr (VEC) {
            const float4 v = r <= last ? __ldg(reinterpret_cast<const float4 *>(a + r)) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            av[4 * u] = v.x;
            av[4 * u + 1] = v.y;
            av[4 * u + 2] = v.z;
            av[4 * u + 3] = v.w;
        } else {
            av[u] = r <= last ? __ldg(a + r) : 0.0f;
        }
    }
}

// The dot product of 4 rows of A with x's, as the short T kernel adds them.
__device__ __forceinline__ float gemv_dot4(const float4 a, const float4 x) {
    return fmaf(a.w, x.w, fmaf(a.z, x.z, fmaf(a.y, x.y, a.x * x.x)));
}

// op T with m <= GEMV_SHORT_ROWS (L < 32 lanes per column): no split; each lane
// holds one group of 4 rows of GEMV_T_SMALL_COLUMNS columns, the block's
// threads / L column slots apart, all loaded before x is staged (the loads do
// not depend on it) and before the sums. Its own kernel, not a branch of gemv_t:
// without gemv_t's unrolled loads and x chunk it needs fewer registers and 256
// bytes of shared memory, so more blocks share an SM; a block lives about one
// memory round trip, and with one 1024-thread block per SM (gemv_t's 64
// registers) those round trips ran one after another.
// R > 1 (m <= 128 R; the groups kernels below): R groups of 4 rows a lane,
// 4 L rows apart, so that a column of up to 128 R rows takes L <= 32 lanes
// and each lane has R * C loads in flight where a warp per column (the paired
// kernel) had one to four float4s a lane and five shuffle steps a column.
template <bool VEC, int R = 1, int C = GEMV_T_SMALL_COLUMNS>
__device__ __forceinline__ void gemv_t_short(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                             const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                             i64 incx, float beta_value, const float *beta_ptr, float *y, i64 incy) {
    __shared__ float xs[R == 1 ? GEMV_SHORT_ROWS : 128 * R];
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    const int L = gemv_lanes_per_column((m + R - 1) / R);
    const int tid = threadIdx.x, threads = blockDim.x;
    const int q = tid & (L - 1);
    const int slots = threads / L;
    const i64 col = static_cast<i64>(blockIdx.x) * slots * C + tid / L;
    if (alpha == 0.0f) {
        if (q != 0) return;
#pragma unroll
        for (int k = 0; k < C; ++k) {
            const i64 c = col + static_cast<i64>(k) * slots;
            if (c < n) gemv_scale_only(beta, y + c * incy);
        }
        return;
    }
    const int step = VEC ? 1 : L;
    const int r0 = VEC ? 4 * q : q;
    float y_early[C];
#pragma unroll
    for (int k = 0; k < C; ++k) {
        const i64 c = col + static_cast<i64>(k) * slots;
        y_early[k] = q == 0 && c < n ? gemv_y_early(beta, y + c * incy) : 0.0f;
    }
    float4 a[C][R];
#pragma unroll
    for (int k = 0; k < C; ++k) {
        const i64 c = col + static_cast<i64>(k) * slots;
#pragma unroll
        for (int j = 0; j < R; ++j) {
            const int r = r0 + 4 * L * j;
            a[k][j] = r < m && c < n ? gemv_n_load<VEC>(A + c * lda + r, step, r + 3 * step < m, m - r)
                                     : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
    }
    for (int i = tid; i < m; i += threads) xs[i] = x[i * incx];
    __syncthreads();
    float4 xv[R];
#pragma unroll
    for (int j = 0; j < R; ++j) {
        const int r = r0 + 4 * L * j;
        xv[j].x = r < m ? xs[r] : 0.0f;
        xv[j].y = r + step < m ? xs[r + step] : 0.0f;
        xv[j].z = r + 2 * step < m ? xs[r + 2 * step] : 0.0f;
        xv[j].w = r + 3 * step < m ? xs[r + 3 * step] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < C; ++k) {
        float sum = gemv_dot4(a[k][0], xv[0]);
#pragma unroll
        for (int j = 1; j < R; ++j) sum += gemv_dot4(a[k][j], xv[j]);
        for (int offset = L >> 1; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        const i64 c = col + static_cast<i64>(k) * slots;
        if (q == 0 && c < n) y[c * incy] = gemv_result(alpha, sum, beta, y_early[k]);
    }
}

// X_FROM_L1 (VEC only; x 16-byte aligned, incx == 1, but at any alignment
// with ANY_A): x read as float4
// through the read-only path where it is used instead of staged, with no
// barrier in the row loop.
template <bool VEC, int U, bool X_FROM_L1 = false, bool ANY_A = false>
__device__ __forceinline__ void gemv_t(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                       const float *__restrict__ A, i64 lda, const float *__restrict__ x, i64 incx,
                                       float beta_value, const float *beta_ptr, float *y, i64 incy,
                                       i64 per_split, unsigned *counters, SplitSlot *slots) {
    static_assert(VEC || !X_FROM_L1, "x through L1 is read as float4");
    static_assert(!ANY_A || (VEC && X_FROM_L1), "ANY_A: float4 loads of A, x through L1");
    // A chunk of x; at the end, the slices' sums and the split's final sum.
    __shared__ __align__(16) float xs[GEMV_T_XCHUNK];

    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);

    // m > GEMV_SHORT_ROWS (gemv_t_short takes the rest). One warp per column; when the block has more warps than columns left (the
    // last tile, or a matrix narrower than the block), `ways` warps share a
    // column, each taking every ways-th round of its rows.
    const int tid = threadIdx.x, threads = blockDim.x;
    const int lane = tid & 31, warp = tid >> 5, warps = threads >> 5;
    const i64 col0 = static_cast<i64>(blockIdx.x) * warps;
    const int columns = static_cast<int>(min(static_cast<i64>(warps), n - col0));
    const int ways = warps / columns;
    const int slice = warp / columns;
    const bool active = slice < ways;
    const i64 col = col0 + (warp - slice * columns);
    const unsigned split = gridDim.y;

    if (alpha == 0.0f) {
        if (blockIdx.y == 0 && slice == 0 && lane == 0) gemv_scale_only(beta, y + col * incy);
        return;
    }

    // The element of y this thread writes: its column's (unsplit, lane 0 of slice 0), or with a split the first it
    // would write if its block adds the tile's partial sums (every block reads it; only that one uses it).
    float y_early = 0.0f;
    if (split == 1 ? slice == 0 && lane == 0 : tid < columns) {
        y_early = gemv_y_early(beta, y + (split == 1 ? col : col0 + tid) * incy);
    }

    const i64 r_begin = static_cast<i64>(blockIdx.y) * per_split;
    const i64 r_end = min(m, r_begin + per_split);
    const float *Acol = A + col * lda;
    // Lane l reads rows 4l..4l+3 (VEC) or l of each stretch; a round is U stretches.
    const int stretch = VEC ? 128 : 32;
    const int round = stretch * U;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (i64 c = r_begin; c < r_end; c += GEMV_T_XCHUNK) {
        const int chunk_len = static_cast<int>(min(static_cast<i64>(GEMV_T_XCHUNK), r_end - c));
        // ANY_A: the chunk's first `head` rows (0-3) lie before the column's first 16-byte boundary; lanes of
        // slice 0 read them one by one, and the float4 rounds below start at that boundary.
        const int head = ANY_A ? min(chunk_len, static_cast<int>((0u - static_cast<unsigned>(reinterpret_cast<u64>(Acol + c) >> 2)) & 3u)) : 0;
        if (ANY_A && active && slice == 0 && lane < head) acc.y = fmaf(__ldg(Acol + c + lane), __ldg(x + c + lane), acc.y);
        const int len = chunk_len - head;
        const float *xc = x + c + head;  // X_FROM_L1: x of the chunk's rows from `a` on (unit stride)
        // Rows (of the chunk) a lane reads: i + stretch * u; whole float4s only (VEC).
        const int last = VEC ? len - 4 : len - 1;
        const float *a = Acol + c + head;
        int i = (VEC ? 4 * lane : lane) + round * slice;
        bool more = active && i <= last;
        float av[VEC ? 4 * U : U];
        // A does not depend on x: the first round is requested before x is staged.
        if (more) gemv_t_load_round<VEC, U>(av, a, i, stretch, last);
        if (!X_FROM_L1) {
            __syncthreads();  // the previous chunk is no longer read
            for (int k = tid; k < len; k += threads) xs[k] = x[(c + k) * incx];
            __syncthreads();
        }
        while (more) {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int r = i + stretch * u;
                if (r <= last) {
                    if constexpr (VEC) {
                        // ANY_A: x's rows sit at any alignment, so four floats.
                        const float4 xv = ANY_A       ? make_float4(__ldg(xc + r), __ldg(xc + r + 1), __ldg(xc + r + 2), __ldg(xc + r + 3))
                                          : X_FROM_L1 ? __ldg(reinterpret_cast<const float4 *>(xc + r))
                                                      : *reinterpret_cast<const float4 *>(xs + r);
                        acc.x = fmaf(av[4 * u], xv.x, acc.x);
                        acc.y = fmaf(av[4 * u + 1], xv.y, acc.y);
                        acc.z = fmaf(av[4 * u + 2], xv.z, acc.z);
                        acc.w = fmaf(av[4 * u + 3], xv.w, acc.w);
                    } else {
                        float &s = (u & 3) == 0 ? acc.x : (u & 3) == 1 ? acc.y : (u & 3) == 2 ? acc.z : acc.w;
                        s = fmaf(av[u], xs[r], s);
                    }
                }
            }
            i += round * ways;
            more = i <= last;
            if (more) gemv_t_load_round<VEC, U>(av, a, i, stretch, last);
        }
        // VEC: a group of fewer than 4 rows at the end of the chunk (only at the end of A's rows, but with
        // ANY_A at the end of every chunk whose head is not 0),
        // read by the lane (and slice) whose float4 would start there.
        if (VEC && active) {
            const int tail = len & ~3;
            if (tail < len && ((tail >> 2) & 31) == lane && (tail / round) % ways == slice) {
                for (int r = tail; r < len; ++r) acc.x = fmaf(__ldg(a + r), X_FROM_L1 ? __ldg(xc + r) : xs[r], acc.x);
            }
        }
    }

    float sum = warp_sum((acc.x + acc.y) + (acc.z + acc.w));
    if (ways > 1) {
        // The slices of a column, added in the order 0, 1, ..., ways-1 by slice 0.
        __syncthreads();  // xs is no longer read
        if (active && lane == 0) xs[slice * columns + (warp - slice * columns)] = sum;
        __syncthreads();
        if (slice == 0) {
            for (int t = 1; t < ways; ++t) sum += xs[t * columns + warp];
        }
    }

    if (split == 1) {
        if (slice == 0 && lane == 0) y[col * incy] = gemv_result(alpha, sum, beta, y_early);
        return;
    }

    if (slice == 0 && lane == 0) split_slot_put(slots + static_cast<i64>(blockIdx.y) * n + col, sum);
    if (!gemv_split_last_late(counters, split, tid)) return;
    gemv_split_gather(slots + col0, n, columns, split, xs, tid, threads);
    for (int o = tid; o < columns; o += threads) {
        float *yc = y + (col0 + o) * incy;
        *yc = gemv_result(alpha, xs[o], beta, o == tid ? y_early : gemv_y_early(beta, yc));
    }
}

// op T, float4 A, x 16-byte aligned with unit stride: a warp per column,
// and each round requests its U float4s of the column together with the
// float4s of x they meet, before the round's sums. In gemv_t (x through L1)
// x's loads are issued after A's arrive, a second round trip per round.
// Q (1-3): x lies Q floats past the 16-byte boundary where a's float4s start, so x is read from `xb` = x - Q,
// the boundary below it: the float4 at xb + r holds the lane's first 4 - Q floats of x, the next lane's
// float4 the other Q, handed over by shuffles (lane 31 takes them from lane 0's next float4, xw[u + 1];
// xw[U] is the next round's first). Four floats of x a float4 of a, each its own load, cost 4 times the L1
// wavefronts of one float4: T 12001 x 8 3.87 us on the stacked kernel, 3.42 shuffled, 3.20 with one
// aligned load and wrong sums (H200, kernel time). With Q, the float4 of x at r is read up to r = last + 4
// (the lane below needs it), and none where there are no rows; gemv_t_paired_sum keeps them inside the rows.
template <int U, int Q>
__device__ __forceinline__ void gemv_t_paired_round(float4 (&av)[U], float4 (&xw)[U + (Q != 0)], const float *__restrict__ a,
                                                    const float *__restrict__ xb, int i, int last) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const int r = i + 128 * u;
        const bool inside = r <= last;
        av[u] = inside ? __ldg(reinterpret_cast<const float4 *>(a + r)) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        xw[u] = (Q != 0 ? r <= last + 4 && last >= 0 : inside) ? __ldg(reinterpret_cast<const float4 *>(xb + r))
                                                               : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    if constexpr (Q != 0) {
        const int r = i + 128 * U;
        xw[U] = r <= last + 4 && last >= 0 ? __ldg(reinterpret_cast<const float4 *>(xb + r)) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
}
// The float4 rows 0..last + 3 of a (16-byte aligned) against x at xb + Q: lane l's sums of rows 4l..4l+3 of
// each stretch of 128. With Q the warp stays in the loop together (shuffles) until no lane has rows left.
// The any-A kernels' sm_90 code for x 1 float off A's float4s (ShiftOne); MUBLAS_EMULATE_SM90 takes it on the
// CPU (scripts/cpu-emulation/gemv-check.sh), where holding a value in place does nothing.
#if __CUDA_ARCH__ >= 900 || defined(MUBLAS_EMULATE_SM90)
#define GEMV_SM90_SHIFT_ONE 1
#else
#define GEMV_SM90_SHIFT_ONE 0
#endif
// The value as it is, here: no copy of it made earlier stands in for it.
__device__ __forceinline__ void hold_in_place(float &v) {
#ifdef __CUDA_ARCH__
    asm("" : "+f"(v));
#else
    (void)v;
#endif
}
template <int U, int Q, bool HOLD_SHIFT_ONE = false>
__device__ __forceinline__ float4 gemv_t_paired_rows(const float *__restrict__ a, const float *__restrict__ xb, int last,
                                                     int lane) {
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    // The next round is requested after this one's sums, outside the loop's
    // test: loads of a round issued within its iteration were interleaved with
    // the sums by the compiler (40 registers, not 80).
    int i = 4 * lane;
    float4 av[U], xw[U + (Q != 0)];
    gemv_t_paired_round<U, Q>(av, xw, a, xb, i, last);
    while (Q != 0 ? __any_sync(0xffffffffu, i <= last) : i <= last) {
#if GEMV_SM90_SHIFT_ONE
        // With Q = 1 only the first float of each x float4 is shuffled, and ptxas for sm_90 carried it round the
        // loop as a copy made where the next round's loads are issued, which waits for them there (ptxas for
        // sm_80 does not): 100000 x 2001 ran 248.8 us with x 1 float off, 188.6 with 2 (H200, kernel time).
        // Taken as it is here (HOLD_SHIFT_ONE), it is not (ShiftOne has the rest of the fix).
        if constexpr (Q == 1 && HOLD_SHIFT_ONE) {
#pragma unroll
            for (int u = 0; u <= U; ++u) hold_in_place(xw[u].x);
        }
#endif
#pragma unroll
        for (int u = 0; u < U; ++u) {
            float4 xv = xw[u];
            if constexpr (Q != 0) {
                const float4 given = lane == 0 ? xw[u + 1] : xw[u];
                const int from = (lane + 1) & 31;
                const float w0 = __shfl_sync(0xffffffffu, given.x, from);
                const float w1 = Q >= 2 ? __shfl_sync(0xffffffffu, given.y, from) : 0.0f;
                const float w2 = Q >= 3 ? __shfl_sync(0xffffffffu, given.z, from) : 0.0f;
                xv = Q == 1 ? make_float4(xv.y, xv.z, xv.w, w0)
                     : Q == 2 ? make_float4(xv.z, xv.w, w0, w1)
                              : make_float4(xv.w, w0, w1, w2);
            }
            acc.x = fmaf(av[u].x, xv.x, acc.x);
            acc.y = fmaf(av[u].y, xv.y, acc.y);
            acc.z = fmaf(av[u].z, xv.z, acc.z);
            acc.w = fmaf(av[u].w, xv.w, acc.w);
        }
        i += 128 * U;
        if (Q != 0 ? __any_sync(0xffffffffu, i <= last) : i <= last) gemv_t_paired_round<U, Q>(av, xw, a, xb, i, last);
    }
    return acc;
}
// gemv_t_paired_rows as a function of its own, for the switch on Q: with all four inlined, ptxas held the
// any-A kernels at 128 registers and spilled (sm_90: 24-28 bytes, sm_80: 150), one at a time they fit.
template <int U, int Q, bool HOLD_SHIFT_ONE = false>
__device__ __noinline__ float4 gemv_t_paired_rows_apart(const float *__restrict__ a, const float *__restrict__ xb, int last,
                                                     int lane) {
    return gemv_t_paired_rows<U, Q, HOLD_SHIFT_ONE>(a, xb, last, lane);
}
// How an any-A kernel runs its loop for x 1 float off A's float4s (Q = 1) on sm_90 (below sm_90, as written:
// ptxas for sm_80 makes no early copy, and inlined the loop spilled). HELD keeps the loop's x in place
// (gemv_t_paired_rows); apart, that let ptxas give all four loops fewer registers (the paired any kernel 122
// -> 108) and Q = 2 and 3 ran up to 4 % slower (H200, kernel time, x 3 floats off, 4096 x 4096 18.83 / 19.52
// us). HELD_INLINE: held and inlined, where no loop of the unsplit paired kernel was slower.
enum ShiftOne : int { SHIFT_ONE_AS_WRITTEN, SHIFT_ONE_HELD, SHIFT_ONE_HELD_INLINE };
// The sum over `rows` rows (< 2^31) of a[r] * x[r], for the whole warp: lane l reads rows 4l..4l+3 of each
// stretch of 128, whole float4s only, then the last rows % 4 rows. Row indices in 32 bits (86 registers with
// 64, two blocks per SM instead of three): the routine takes these kernels for m < 2^31 only.
// ANY: a and x at any alignment (x of unit stride). The float4s of a start at its first 16-byte boundary, x
// shuffled into place (gemv_t_paired_round). Read one a lane with the first round, not after the loop, and
// added last: the 0-3 rows before that boundary (lanes 0-2), the 0-3 after the last whole float4 (lanes 4-6)
// and, where x is not aligned with a, the first and last 4 rows of whole float4s (lanes 8-15), so that no
// float4 of x reaches past the rows.
template <int U, bool ANY = false, int ONE = SHIFT_ONE_AS_WRITTEN>
__device__ __forceinline__ float gemv_t_paired_sum(const float *__restrict__ a, const float *__restrict__ x, int rows, int lane) {
    float4 acc;
    if constexpr (!ANY) {
        acc = gemv_t_paired_rows<U, 0>(a, x, rows - 4, lane);
        const int tail = rows & ~3;
        if (tail < rows && ((tail >> 2) & 31) == lane) {
            for (int r = tail; r < rows; ++r) acc.x = fmaf(__ldg(a + r), __ldg(x + r), acc.x);
        }
    } else {
        const int head = min(rows, static_cast<int>((0u - static_cast<unsigned>(reinterpret_cast<u64>(a) >> 2)) & 3u));
        const int body = (rows - head) & ~3;  // rows in whole float4s of a
        const int q = static_cast<int>((reinterpret_cast<u64>(x + head) >> 2) & 3);
        // Of the body, the first and last 4 rows go one a lane too where q != 0 (all of it up to 8 rows).
        const int peel = q == 0 ? 0 : min(body, 4);
        const int peel_end = q == 0 ? 0 : body <= 8 ? body - peel : 4;
        int r = -1;
        if (lane < 4) r = lane < head ? lane : -1;
        else if (lane < 8) r = head + body + lane - 4 < rows ? head + body + lane - 4 : -1;
        else if (lane < 12) r = lane - 8 < peel ? head + lane - 8 : -1;
        else if (lane < 16) r = lane - 12 < peel_end ? head + body - 4 + lane - 12 : -1;
        const float a_odd = r >= 0 ? __ldg(a + r) : 0.0f, x_odd = r >= 0 ? __ldg(x + r) : 0.0f;
        const int begin = head + peel;
        const float *ab = a + begin, *xb = x + begin - q;
        const int last = body - peel - peel_end - 4;
        switch (q) {
            case 0: acc = gemv_t_paired_rows_apart<U, 0>(ab, xb, last, lane); break;
#if GEMV_SM90_SHIFT_ONE
            case 1:
                if constexpr (ONE == SHIFT_ONE_HELD_INLINE) acc = gemv_t_paired_rows<U, 1, true>(ab, xb, last, lane);
                else acc = gemv_t_paired_rows_apart<U, 1, ONE == SHIFT_ONE_HELD>(ab, xb, last, lane);
                break;
#else
            case 1: acc = gemv_t_paired_rows_apart<U, 1>(ab, xb, last, lane); break;
#endif
            case 2: acc = gemv_t_paired_rows_apart<U, 2>(ab, xb, last, lane); break;
            default: acc = gemv_t_paired_rows_apart<U, 3>(ab, xb, last, lane); break;
        }
        acc.x = fmaf(a_odd, x_odd, acc.x);
    }
    return warp_sum((acc.x + acc.y) + (acc.z + acc.w));
}
template <int U, bool ANY = false, int ONE = SHIFT_ONE_AS_WRITTEN>
__device__ __forceinline__ void gemv_t_paired(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                              const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                              float beta_value, const float *beta_ptr, float *y, i64 incy) {
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    const float beta = load_scalar(beta_value, beta_ptr);
    const int lane = threadIdx.x & 31;
    const i64 col = static_cast<i64>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
    // Whole warps leave past the last column (the shuffles are the warp's alone; keeping them
    // with no rows to read took 90 registers instead of 80).
    if (col >= n) return;
    float *yc = y + col * incy;
    if (alpha == 0.0f) {
        if (lane == 0) gemv_scale_only(beta, yc);
        return;
    }
    const float y_early = lane == 0 ? gemv_y_early(beta, yc) : 0.0f;
    const float sum = gemv_t_paired_sum<U, ANY, ONE>(A + col * lda, x, static_cast<int>(m), lane);
    if (lane == 0) *yc = gemv_result(alpha, sum, beta, y_early);
}
// The same, split: block (bx, by) reads rows [by * per_split, (by + 1) * per_split) of its columns
// (per_split a multiple of 4 unless ANY). Each warp counts itself in its column's counter (counters[col]: n of them,
// where gemv_t counts blocks) and the last warp of a column to arrive adds the column's partial sums in a
// fixed order, so that warps past the last column can leave as above (no block barrier).
template <int U, bool ANY = false, int ONE = SHIFT_ONE_AS_WRITTEN>
__device__ __forceinline__ void gemv_t_paired_split(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                                    const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                                    float beta_value, const float *beta_ptr, float *y, i64 incy,
                                                    i64 per_split, unsigned *counters, SplitSlot *slots) {
    const int lane = threadIdx.x & 31;
    const i64 col = static_cast<i64>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (col >= n) return;
    if (load_scalar(alpha_value, alpha_ptr) == 0.0f) {
        if (blockIdx.y == 0 && lane == 0) gemv_scale_only(load_scalar(beta_value, beta_ptr), y + col * incy);
        return;
    }
    const unsigned split = gridDim.y;
    const int r_begin = static_cast<int>(blockIdx.y * per_split);
    const int rows = static_cast<int>(min(m - r_begin, per_split));
    const float sum = gemv_t_paired_sum<U, ANY, ONE>(A + col * lda + r_begin, x + r_begin, rows, lane);
    // Unsplit (the routine's fallback without a work buffer, and forced shapes on few rows), the warp's
    // sum is the column's.
    float total = sum;
    if (split > 1) {
        int last = 0;
        if (lane == 0) {
            // The ticket after the slot (gemv_split_last_late): held over the rows' loop, it cost spills.
            split_slot_put(slots + static_cast<i64>(blockIdx.y) * n + col, sum);
            last = split_ticket(counters + col) == split - 1;
            if (last) counters[col] = 0;  // every warp of the column has counted itself
        }
        if (!__shfl_sync(0xffffffffu, last, 0)) return;
        // Lane l adds the splits l, l + 32, ... in order, then the lanes' sums are folded pairwise.
        total = warp_sum(gemv_split_sum_lanes(slots + col, n, lane, split));
    }
    if (lane == 0) {
        // The scalars and y are read here, by the column's last warp only: held over the rows' loop they
        // cost registers.
        const float alpha = load_scalar(alpha_value, alpha_ptr), beta = load_scalar(beta_value, beta_ptr);
        float *yc = y + col * incy;
        *yc = gemv_result(alpha, total, beta, gemv_y_early(beta, yc));
    }
}

// The paired sums on blocks (32 * C, Ty): C columns a block, the Ty warps of a column each taking one
// contiguous range of whole 128-row stretches, their sums added in warp order through shared memory by the
// column's first warp. A split over rows inside the block: no partial vectors, counters or second pass.
template <int U, bool ANY = false, int ONE = SHIFT_ONE_AS_WRITTEN>
__device__ __forceinline__ void gemv_t_stacked(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                               const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                               float beta_value, const float *beta_ptr, float *y, i64 incy) {
    __shared__ float sums[32];  // [warp row][column of the block]: at most 1024 threads, one per warp
    const int lane = threadIdx.x & 31, column = threadIdx.x >> 5, columns = blockDim.x >> 5;
    const i64 col = static_cast<i64>(blockIdx.x) * columns + column;
    const bool inside = col < n;
    const bool writer = inside && threadIdx.y == 0 && lane == 0;
    float *yc = y + col * incy;
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    if (alpha == 0.0f) {
        if (writer) gemv_scale_only(load_scalar(beta_value, beta_ptr), yc);
        return;  // every thread of the block: alpha is the same for all
    }
    // Warps past the last column stay for the barrier, with no rows.
    const i64 per_warp = ((m + blockDim.y - 1) / blockDim.y + 127) / 128 * 128;
    const i64 r_begin = threadIdx.y * per_warp;
    const int rows = inside ? static_cast<int>(max(i64(0), min(m - r_begin, per_warp))) : 0;
    const float sum = gemv_t_paired_sum<U, ANY, ONE>(A + (inside ? col : 0) * lda + r_begin, x + r_begin, rows, lane);
    float total = sum;
    if (blockDim.y > 1) {
        if (lane == 0) sums[threadIdx.y * columns + column] = sum;
        __syncthreads();
        if (!writer) return;
        total = 0.0f;
        for (int w = 0; w < static_cast<int>(blockDim.y); ++w) total += sums[w * columns + column];
    }
    if (writer) {
        // beta and y are read here, after the rows (as in gemv_t_paired_split): held over them they cost registers.
        const float beta = load_scalar(beta_value, beta_ptr);
        *yc = gemv_result(alpha, total, beta, gemv_y_early(beta, yc));
    }
}

// The start of the row-per-thread N kernels (lanes, sweep), whose blocks
// own `tile_rows` rows: alpha, beta, this thread's row r and whether it is
// inside A. Returns false where alpha = 0, after scaling y by beta (device
// pointer mode: the host could not see alpha; A and x are not read).
struct GemvRow {
    float alpha, beta;
    i64 r;
    bool live;
};
__device__ __forceinline__ bool gemv_n_row_start(i64 m, int tile_rows, float alpha_value, const float *alpha_ptr,
                                                 float beta_value, const float *beta_ptr, float *y, i64 incy,
                                                 GemvRow &row) {
    row.alpha = load_scalar(alpha_value, alpha_ptr);
    row.beta = load_scalar(beta_value, beta_ptr);
    row.r = static_cast<i64>(blockIdx.x) * tile_rows + threadIdx.x;
    row.live = row.r < m;
    if (row.alpha == 0.0f) {
        if (threadIdx.y == 0 && row.live) gemv_scale_only(row.beta, y + row.r * incy);
        return false;
    }
    return true;
}

// The end of the row-per-thread N kernels (lanes, sweep): the Ty partial
// sums of row r, one per thread row, go through shared memory (sums: [ty][tx],
// `pitch` floats a thread row) and are added in thread-row order; y is read
// here, not before the columns: 1-2 % faster (the lanes kernel, 4097² to
// 4223²).
__device__ __forceinline__ void gemv_n_rows_to_y(float *sums, int pitch, float dot, bool live, float alpha, float beta,
                                                 float *y_row) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    sums[ty * pitch + tx] = dot;
    __syncthreads();
    if (ty == 0 && live) {
        float sum = 0.0f;
        for (int t = 0; t < static_cast<int>(blockDim.y); ++t) sum += sums[t * pitch + tx];
        *y_row = gemv_result(alpha, sum, beta, gemv_y_early(beta, y_row));
    }
}

// gemv_n_f32_scalar_lanes: a row per lane, block (GEMV_N_LANES, Ty), unsplit.
// Lane tx owns row GEMV_N_LANES * blockIdx.x + tx, so a warp's load is 128
// contiguous bytes of one column at any alignment of A and lda, where the
// scalar kernels' 4-row layout reads 32-byte pieces on the wide kernels'
// 8-row tiles, which straddle sectors when lda is odd. Thread row ty takes
// the groups of GEMV_N_LANES_COLS columns ty, ty + Ty, ..., their loads
// issued together; x is read through L1 (one address per warp); the Ty sums
// of a row are added in thread-row order through shared memory. H100, kernel
// time (`scripts/gemv-ab.py`, µs), against the scalar wide kernel on 8 x 64
// and cuBLAS: 2001² 8.94 / 9.30 / 8.97, 3001² 15.14 / 16.76 / 16.43, 4097²
// 24.88 / 26.17 / 25.82, 4127² 25.94 / 31.39 / 28.23, 4223² 26.69 / 31.25 /
// 29.66 (on another H100 4097² 26.2 and 4223² 28.1, cuBLAS 25.8 and 29.6);
// 4, 16 or 32 columns per group, 512 threads, plain or L2::128B loads were slower.
#define GEMV_N_LANES 32
#define GEMV_N_LANES_COLS 8
__device__ __forceinline__ void gemv_n_lanes(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                             const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                             i64 incx, float beta_value, const float *beta_ptr, float *y, i64 incy) {
    __shared__ float sums[GEMV_N_LANES * (GEMV_N_LANES + 1)];  // [ty][tx], Ty <= 32, padded against bank conflicts
    GemvRow row;
    if (!gemv_n_row_start(m, GEMV_N_LANES, alpha_value, alpha_ptr, beta_value, beta_ptr, y, incy, row)) return;
    const int ty = threadIdx.y, Ty = blockDim.y;
    const i64 r = row.r;
    const bool live = row.live;

    const float *Ar = A + (live ? r : 0);
    float dot = 0.0f;
    i64 g = static_cast<i64>(GEMV_N_LANES_COLS) * ty;
    const i64 stride = static_cast<i64>(GEMV_N_LANES_COLS) * Ty;
    for (; g + GEMV_N_LANES_COLS <= n; g += stride) {
        float a[GEMV_N_LANES_COLS], xv[GEMV_N_LANES_COLS];
        const float *p = Ar + g * lda;
#pragma unroll
        for (int k = 0; k < GEMV_N_LANES_COLS; ++k, p += lda) a[k] = live ? load_once(p) : 0.0f;
#pragma unroll
        for (int k = 0; k < GEMV_N_LANES_COLS; ++k) xv[k] = __ldg(x + (g + k) * incx);
#pragma unroll
        for (int k = 0; k < GEMV_N_LANES_COLS; ++k) dot = fmaf(a[k], xv[k], dot);
    }
    // The one group cut short by the last column (if any) is this thread row's alone.
    for (; g < n; ++g) dot = fmaf(live ? load_once(Ar + g * lda) : 0.0f, __ldg(x + g * incx), dot);

    gemv_n_rows_to_y(sums, GEMV_N_LANES + 1, dot, live, row.alpha, row.beta, y + r * incy);
}

// gemv_n_f32_sweep: a row per thread, block (Tx, Ty) with Tx a multiple of
// 32, unsplit, so that a warp's load is 128 contiguous bytes of one column at
// any alignment of A and lda, and a block of Tx rows and up to 1024 threads
// holds an SM alone. Thread row ty sweeps one contiguous range of columns (a
// whole number of groups of GEMV_N_SWEEP_COLS), each group's loads issued
// before its multiply-adds; x is read through L1 (one address per warp); the
// Ty sums of a row are added in thread-row order. cuBLAS's SGEMV-N kernel
// (gemvx, 128 x 4 threads) reads A the same way. On an H200 it reads long
// columns faster than the float4 wide kernels (kernel time, `scripts/gemv-ab.py`,
// µs, against the wide kernel on the tuner's shape and cuBLAS): 16384² 235.4 /
// 257.2 / 239.6, 32768² 932.4 / 1039.0 / 976.3, 20000² 353.6 / 383.0 / 378.0,
// 65536 x 1024 62.3 / 67.9 / 64.5, 4223² (lda odd) 19.9 / 22.6 (the lanes
// kernel) / 22.4; on an H100 it was 1–6 % slower than the wide kernels, so
// the routine takes it only where DRAM is fast for the SMs it feeds
// (src/routines/gemv/, Twin::Sweep). 16 columns in flight were as fast,
// 24 and 64 (512 threads, 128 registers) no faster, and the same loads with
// an evict-first hint 3 % slower.
#define GEMV_N_SWEEP_COLS 32
#define GEMV_N_SWEEP_THREADS 1024
// A plain read-only load, as asm so that the compiler keeps a group's loads
// ahead of its multiply-adds (all 32 were in flight in the SASS).
__device__ __forceinline__ float load_column_element(const float *p) {
#ifdef __CUDA_ARCH__
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
#else
    return __ldg(p);
#endif
}
__device__ __forceinline__ void gemv_n_sweep(i64 m, i64 n, float alpha_value, const float *alpha_ptr,
                                             const float *__restrict__ A, i64 lda, const float *__restrict__ x,
                                             i64 incx, float beta_value, const float *beta_ptr, float *y, i64 incy) {
    // [ty][tx], each thread row padded by one float against bank conflicts; Tx * Ty <= GEMV_N_SWEEP_THREADS.
    __shared__ float sums[GEMV_N_SWEEP_THREADS + 32];
    GemvRow row;
    if (!gemv_n_row_start(m, blockDim.x, alpha_value, alpha_ptr, beta_value, beta_ptr, y, incy, row)) return;
    const int ty = threadIdx.y, Tx = blockDim.x, Ty = blockDim.y;
    const i64 r = row.r;
    const bool live = row.live;

    // Rows past m read row 0's columns (inside A) and discard them: no branch around the loads.
    const float *Ar = A + (live ? r : 0);
    // Each thread row's range is whole groups, so only the last range can end in a part group.
    const i64 per = ((n + Ty - 1) / Ty + GEMV_N_SWEEP_COLS - 1) / GEMV_N_SWEEP_COLS * GEMV_N_SWEEP_COLS;
    i64 g = per * ty;
    const i64 end = g + per < n ? g + per : n;
    float dot_even = 0.0f, dot_odd = 0.0f;
    for (; g + GEMV_N_SWEEP_COLS <= end; g += GEMV_N_SWEEP_COLS) {
        float a[GEMV_N_SWEEP_COLS];
        const float *p = Ar + g * lda;
#pragma unroll
        for (int k = 0; k < GEMV_N_SWEEP_COLS; ++k) a[k] = load_column_element(p + k * lda);
#pragma unroll
        for (int k = 0; k < GEMV_N_SWEEP_COLS; k += 2) {
            dot_even = fmaf(a[k], __ldg(x + (g + k) * incx), dot_even);
            dot_odd = fmaf(a[k + 1], __ldg(x + (g + k + 1) * incx), dot_odd);
        }
    }
    for (; g < end; ++g) dot_even = fmaf(load_column_element(Ar + g * lda), __ldg(x + g * incx), dot_even);

    gemv_n_rows_to_y(sums, Tx + 1, dot_even + dot_odd, live, row.alpha, row.beta, y + r * incy);
}

#define GEMV_PARAMS                                                                                        \
    i64 m, i64 n, float alpha_value, const float *alpha_ptr, const float *__restrict__ A, i64 lda,        \
        const float *__restrict__ x, i64 incx, float beta_value, const float *beta_ptr, float *y, i64 incy, \
        i64 per_split, unsigned *counters, SplitSlot *slots
#define GEMV_ARGS \
    m, n, alpha_value, alpha_ptr, A, lda, x, incx, beta_value, beta_ptr, y, incy, per_split, counters, slots
// For kernels whose x has unit stride.
#define GEMV_ARGS_NO_INCX \
    m, n, alpha_value, alpha_ptr, A, lda, x, beta_value, beta_ptr, y, incy, per_split, counters, slots

extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32(GEMV_PARAMS) { gemv_n<true>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32_scalar(GEMV_PARAMS) { gemv_n<false>(GEMV_ARGS); }
// The same N kernels under names of their own: the tuner keys launch spaces,
// recipes and plans by name, and these get small row tiles (src/routines/gemv/,
// NARROW_SPACE) for the unsplit problems whose 128-row tiles leave SMs idle,
// and for few rows on many columns, split.
extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32_narrow(GEMV_PARAMS) { gemv_n<true>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32_scalar_narrow(GEMV_PARAMS) { gemv_n<false>(GEMV_ARGS); }
// With 8 columns in flight per thread instead of 4 (about 100 registers, so
// at most 512 threads), launched unsplit in one wave of long row tiles
// (src/routines/gemv/, wide_plan): no partial sums, and loads enough in
// flight for a grid of one block per SM or fewer. Up to 16384 columns x is
// read through the read-only path where it is used, not staged: with every
// block sweeping all the columns, the staging's barriers cost more than the
// L1 reads (H100, kernel time: 2000² 8.90 -> 8.09 µs, 4096² 25.53 -> 24.33,
// 5000² 37.04 -> 35.01). Past that, x no longer stays in L1 beside the
// stream of A (20000²: 533.8 µs against 532.1 staged), and the _staged
// kernel runs. The default kernels keep the staging: their split blocks
// each read a range of x, and there the reads gained 1-2 % as kernels and
// were mixed in the library.
extern "C" __global__ void __launch_bounds__(512) gemv_n_f32_wide(GEMV_PARAMS) { gemv_n<true, 8, true>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(512) gemv_n_f32_scalar_wide(GEMV_PARAMS) { gemv_n<false, 8, true>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(512) gemv_n_f32_wide_staged(GEMV_PARAMS) { gemv_n<true, 8>(GEMV_ARGS); }
// The wide kernel's float4 loads for any A with lda >= 4 (gemv_n_any_columns), unsplit.
extern "C" __global__ void __launch_bounds__(512) gemv_n_f32_wide_any(GEMV_PARAMS) {
    gemv_n<true, 8, true, true>(GEMV_ARGS);
}
// The float4 wide kernel under a name of its own, for matrices of few columns
// (src/routines/gemv/, Twin::Few): 32-row tiles, as many thread rows as
// the columns keep busy and one wave allows, so that every load of A is in
// flight at once and the fold of the thread rows is short. The same code,
// so the same __launch_bounds__ and registers as gemv_n_f32_wide.
extern "C" __global__ void __launch_bounds__(512) gemv_n_f32_few(GEMV_PARAMS) { gemv_n<true, 8, true>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(512) gemv_n_f32_scalar_few(GEMV_PARAMS) { gemv_n<false, 8, true>(GEMV_ARGS); }
// The scalar N kernel under a name of its own, for one wave of one block per SM
// on long columns (src/routines/gemv/, Twin::Long): the same code, so the same
// __launch_bounds__ and registers as gemv_n_f32_scalar.
extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32_scalar_long(GEMV_PARAMS) { gemv_n<false>(GEMV_ARGS); }
// And for grids that put two blocks on an SM, with at most 8 thread rows (Twin::Thin).
extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32_scalar_thin(GEMV_PARAMS) { gemv_n<false>(GEMV_ARGS); }
// One wave of 32-row tiles (src/routines/gemv/, Twin::Lanes); the split's arguments are unused.
extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32_scalar_lanes(GEMV_PARAMS) {
    gemv_n_lanes(m, n, alpha_value, alpha_ptr, A, lda, x, incx, beta_value, beta_ptr, y, incy);
}
// One wave of row tiles on fast DRAM (src/routines/gemv/, Twin::Sweep); the split's arguments are unused.
extern "C" __global__ void __launch_bounds__(GEMV_N_SWEEP_THREADS, 1) gemv_n_f32_sweep(GEMV_PARAMS) {
    gemv_n_sweep(m, n, alpha_value, alpha_ptr, A, lda, x, incx, beta_value, beta_ptr, y, incy);
}
extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32_short(GEMV_PARAMS) { gemv_n_short<true>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(1024) gemv_n_f32_short_scalar(GEMV_PARAMS) { gemv_n_short<false>(GEMV_ARGS); }
// The cluster kernels need sm_90 (thread-block clusters); below it they trap,
// and the routine never launches them there.
#if __CUDA_ARCH__ >= 900 || defined(MUBLAS_CPU_EMULATION)
#define GEMV_CLUSTER_KERNEL(name, VEC, TILE)                                                                 \
    extern "C" __global__ void __cluster_dims__(1, GEMV_CLUSTER, 1) __launch_bounds__(GEMV_CLUSTER_THREADS) \
        name(GEMV_PARAMS) {                                                                                   \
        gemv_n_cluster<VEC, TILE>(GEMV_ARGS);                                                                \
    }
#else
#define GEMV_CLUSTER_KERNEL(name, VEC, TILE) \
    extern "C" __global__ void name(GEMV_PARAMS) { __trap(); }
#endif
GEMV_CLUSTER_KERNEL(gemv_n_f32_cluster16, true, 16)
GEMV_CLUSTER_KERNEL(gemv_n_f32_cluster32, true, 32)
GEMV_CLUSTER_KERNEL(gemv_n_f32_scalar_cluster16, false, 16)
GEMV_CLUSTER_KERNEL(gemv_n_f32_scalar_cluster32, false, 32)
GEMV_CLUSTER_KERNEL(gemv_n_f32_cluster64, true, 64)
GEMV_CLUSTER_KERNEL(gemv_n_f32_scalar_cluster64, false, 64)
extern "C" __global__ void __launch_bounds__(1024) gemv_t_f32(GEMV_PARAMS) { gemv_t<true, GEMV_T_UNROLL>(GEMV_ARGS); }
extern "C" __global__ void __launch_bounds__(1024) gemv_t_f32_scalar(GEMV_PARAMS) { gemv_t<false, GEMV_T_UNROLL_SCALAR>(GEMV_ARGS); }
// The lean T kernels: half the loads in flight and at most 48 registers
// (64 above), so that an SM holds 40 warps, not 32, and 5280 columns fit one
// wave of an H100 instead of 4224 (the routine takes them only where that
// saves a wave). __maxnreg__ excludes __launch_bounds__; 1024 threads is the
// limit either way.
extern "C" __global__ void __maxnreg__(48) gemv_t_f32_lean(GEMV_PARAMS) { gemv_t<true, GEMV_T_UNROLL / 2>(GEMV_ARGS); }
extern "C" __global__ void __maxnreg__(48) gemv_t_f32_scalar_lean(GEMV_PARAMS) { gemv_t<false, GEMV_T_UNROLL_SCALAR / 2>(GEMV_ARGS); }
// The float4 lean kernel reading x through L1, for x 16-byte aligned with
// unit stride, where it runs unsplit in one wave: without the staging's two
// barriers per chunk (H100, kernel time on the optimizer's shapes, µs,
// against the routine's choice before: 256² 2.08 / 2.57, 2000² 8.35 / 9.08,
// 3000² 15.42 / 16.50, 4096² 25.95 / 26.50, 5000² 36.08 / 37.75 lean). The
// scalar one lost 20-35 % (4 to 16 loads of x per lane and round instead of
// one), and gemv_t_f32 itself with x through L1 was 3 % slower at 4096² and
// 8 % at 8192².
extern "C" __global__ void __maxnreg__(48) gemv_t_f32_lean_l1(GEMV_PARAMS) { gemv_t<true, GEMV_T_UNROLL / 2, true>(GEMV_ARGS); }
// The T kernel for any A and lda, x with unit stride at any alignment: each
// column read as float4 from its first 16-byte boundary (the 0-3 rows before
// it one by one), x through L1 as four floats. Against the scalar kernel on
// lda % 4 != 0 (H100, kernel time, `OP=T BETA=0.5 scripts/gemv-ab.py`, µs,
// on 256 threads against the scalar kernel's optimizer shape): 2001² 8.32 /
// 9.48, 3001² 15.21 / 16.81, 4097² 26.20 / 28.16, 4223² 28.20 / 29.55,
// 8191² 93.19 / 95.82, 10001² 140.97 / 145.91, 1023 × 65536 88.85 / 99.74;
// on float4 A against the routine's choice before: 3000² 14.79 / 15.54
// (gemv_t_f32_lean_l1), 4096² 25.00 / 25.91, 1024 × 65536 87.57 / 90.55
// (gemv_t_f32), 16384² 352.0 / 350.1. At 48 registers it spilled; at 64 none.
extern "C" __global__ void __maxnreg__(64) gemv_t_f32_l1_any(GEMV_PARAMS) { gemv_t<true, GEMV_T_UNROLL / 2, true, true>(GEMV_ARGS); }
// The paired T kernel (gemv_t_paired): against the kernels it replaces (H200,
// kernel time, `OP=T scripts/gemv-ab.py` with the matrices rotated past the
// L2, µs, on 256 threads): 1000² 3.17 / 3.47 (gemv_t_f32_lean_l1), 2048²
// 6.13 / 6.89 and 4000 × 1000 6.45 / 8.18 (gemv_t_f32_l1_any), 5000² 24.50 /
// 25.44 (lean_l1 on 608 threads), 10000² 90.5 / 98.9 and 20000² 353.2 / 363.8
// (gemv_t_f32 on 1024), 65536 × 1024 68.5 / 70.6 (gemv_t_f32 split 4). With
// half the loads a round it was 1-11 % slower from 1024² on (2048² 6.60);
// with x read after A, as in gemv_t, 16-38 % slower. 80 registers on sm_70
// to sm_90, no spills: three blocks of 256 per SM.
extern "C" __global__ void __launch_bounds__(256) gemv_t_f32_paired(GEMV_PARAMS) {
    gemv_t_paired<GEMV_T_UNROLL>(m, n, alpha_value, alpha_ptr, A, lda, x, beta_value, beta_ptr, y, incy);
}
// The split paired kernel: held to three blocks of 256 per SM (80 registers
// on sm_90 and sm_70, 79 on sm_80; ptxas spills 44 bytes on sm_70, none on
// the others), where its own 88 would give two. (Timed below with a second
// copy of the final write, since merged: 4 bytes of spill on sm_90 then.) Against the unsplit kernel (H200, kernel time, µs,
// split 2 / 3 / 4 and 2 at 88 registers): 100000 × 1024 97.1 / 97.2 / 101.0
// and 96.0 (unsplit 104.6), 200000 × 768 149.4 / 149.5 / 141.6 and 175.1 at
// 3 (unsplit 168.0); `plan` in src/routines/gemv/ has the rest.
extern "C" __global__ void __launch_bounds__(256, 3) gemv_t_f32_paired_split(GEMV_PARAMS) {
    gemv_t_paired_split<GEMV_T_UNROLL>(GEMV_ARGS_NO_INCX);
}
// The stacked T kernel (gemv_t_stacked), for T matrices of few columns,
// where a warp per column leaves most SMs idle and a split over blocks pays
// its partial sums' round trips (about 1.4 us at 1024 x 32): against those
// (H200, kernel time, `OP=T scripts/gemv-ab.py`, µs, stacked (32, Ty) /
// paired on blocks of 64 / split paired, best of 2 to 33 ranges / cuBLAS):
// 4096 x 32 (Ty 4) 2.62 / 3.92 / 3.63 / 3.42, 8192 x 32 (8) 2.84 / 6.31 /
// 3.73 / 3.95, 16384 x 128 (16) 4.73 / 11.39 / 5.84 / 7.71. The full
// paired round (8 float4s a lane) and 512 threads at most.
extern "C" __global__ void __launch_bounds__(512) gemv_t_f32_stacked(GEMV_PARAMS) {
    gemv_t_stacked<GEMV_T_UNROLL>(m, n, alpha_value, alpha_ptr, A, lda, x, beta_value, beta_ptr, y, incy);
}
// The paired kernels for any A and lda, x of unit stride at any alignment (ANY in gemv_t_paired_sum), the
// float4 ones' twins on the same rules. Against the kernels the routine ran before (H200, kernel time through
// the library, odd lda, µs, before / after / cuBLAS): stacked 4093 x 32 3.14 / 2.56 / 3.69 (before, gemv_t
// with its ways each on a range of rows, x read after A: a second round trip a round), split 32767 x 8 6.02 /
// 3.70 / 4.03 and unsplit 2049 x 600 8.06 / 4.29 / 4.04 (before, the scalar default). With the shuffles they
// hold 119-128 registers (sm_70 to sm_90, no spills), so the split one is held to two blocks of 256 per SM
// (at three it spilled 400 bytes) and the unsplit one runs blocks of 64 (src/routines/gemv/ says why).
// Their Q = 1 loops (ShiftOne), each kernel's fastest (H200, kernel time, µs, as written / held / held and
// inlined): unsplit 4096 x 4096 x 3 floats off 18.83 / 19.52 / 18.69, 100000 x 2001 x 1 float off 248.5 /
// 189.0 / 190.8; split 65536 x 4000 x 1 float off 299.3 / 246.9 / 253.5, 131073 x 1001 odd lda 135.2 /
// 135.5 / 139.8; stacked 4096 x 256 x 1 float off 3.72 / 3.69 / 3.42, 3001 x 512 odd lda 4.07 / 4.07 / 4.13.
extern "C" __global__ void __launch_bounds__(256) gemv_t_f32_paired_any(GEMV_PARAMS) {
    gemv_t_paired<GEMV_T_UNROLL, true, SHIFT_ONE_HELD_INLINE>(m, n, alpha_value, alpha_ptr, A, lda, x, beta_value, beta_ptr, y, incy);
}
extern "C" __global__ void __launch_bounds__(256, 2) gemv_t_f32_paired_split_any(GEMV_PARAMS) {
    gemv_t_paired_split<GEMV_T_UNROLL, true, SHIFT_ONE_HELD>(GEMV_ARGS_NO_INCX);
}
extern "C" __global__ void __launch_bounds__(512) gemv_t_f32_stacked_any(GEMV_PARAMS) {
    gemv_t_stacked<GEMV_T_UNROLL, true, SHIFT_ONE_HELD_INLINE>(m, n, alpha_value, alpha_ptr, A, lda, x, beta_value, beta_ptr, y, incy);
}
#define GEMV_T_SHORT_ARGS m, n, alpha_value, alpha_ptr, A, lda, x, incx, beta_value, beta_ptr, y, incy
extern "C" __global__ void __launch_bounds__(1024) gemv_t_f32_short(GEMV_PARAMS) { gemv_t_short<true>(GEMV_T_SHORT_ARGS); }
extern "C" __global__ void __launch_bounds__(1024) gemv_t_f32_short_scalar(GEMV_PARAMS) { gemv_t_short<false>(GEMV_T_SHORT_ARGS); }
// op T on 65 to 384 rows (512 for A not float4) and many columns (src/routines/gemv/, Twin::Groups): gemv_t_short with R groups of
// 4 rows a lane and 2 columns a lane, R = 4 or 6, whichever covers the rows with fewer lanes' rows to spare
// (4 L R >= m). H200, kernel time, scripts/gemv-ab.py, 262144 columns, µs, this / the paired kernel / cuBLAS:
// 65 rows (R 6, L 4) 20.1 / 111.1 / 27.0, 128 (R 4, L 8) 33.7 / 102.3 / 40.2, 192 (6, 8) 50.1 / 105.5 / 57.4,
// 256 (4, 16) 64.8 / 108.2 / 65.7, 300 (6, 16) 76.7 / 111.5 / 93.7. Two columns a lane beat one and four
// (R * C loads in flight; four columns of 6 groups spilled), and a runtime R up to 6 in one kernel held
// 90 registers and ran 1.5x (128 rows) to 1.8x (448) slower than these.
#define GEMV_T_GROUPS_COLUMNS 2
extern "C" __global__ void __launch_bounds__(256) gemv_t_f32_groups4(GEMV_PARAMS) {
    gemv_t_short<true, 4, GEMV_T_GROUPS_COLUMNS>(GEMV_T_SHORT_ARGS);
}
extern "C" __global__ void __launch_bounds__(256) gemv_t_f32_groups6(GEMV_PARAMS) {
    gemv_t_short<true, 6, GEMV_T_GROUPS_COLUMNS>(GEMV_T_SHORT_ARGS);
}
extern "C" __global__ void __launch_bounds__(256) gemv_t_f32_scalar_groups4(GEMV_PARAMS) {
    gemv_t_short<false, 4, GEMV_T_GROUPS_COLUMNS>(GEMV_T_SHORT_ARGS);
}
extern "C" __global__ void __launch_bounds__(256) gemv_t_f32_scalar_groups6(GEMV_PARAMS) {
    gemv_t_short<false, 6, GEMV_T_GROUPS_COLUMNS>(GEMV_T_SHORT_ARGS);
}

// Not a BLAS routine: the bandwidth floor a GEMV of n4 float4s of A cannot
// beat, for `mublas bench floor`. Reads A as the N kernels do (load_once4;
// grid-stride, 4 float4 in flight per thread) and nothing else; the sum goes
// to `sink` only for a bit pattern (a NaN) that random data never give, so
// the loads stay.
extern "C" __global__ void __launch_bounds__(1024) gemv_read_floor_f32(i64 n4, const float4 *__restrict__ a, float *sink) {
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    float s = 0.f;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = load_once4(reinterpret_cast<const float *>(a + i + u * stride));
#pragma unroll
        for (int u = 0; u < 4; ++u) s += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += stride) {
        const float4 v = load_once4(reinterpret_cast<const float *>(a + i));
        s += (v.x + v.y) + (v.z + v.w);
    }
    if (__float_as_uint(s) == 0xffffffffu) *sink = s;
}
