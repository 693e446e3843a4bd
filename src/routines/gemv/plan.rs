//! The kernel and launch shape a call runs ([`plan`]): the default kernel, or
//! the first of its twins (`Twin`) that the rules of its family take.

use super::clusters::{cluster_plan, cluster_rows_of_kernel, cluster_serves, cluster_tile_rows, runs_clusters};
use super::few_and_narrow::{few_pays, few_plan, few_serves, narrow_split_plan, narrow_split_serves};
use super::geometry::N_SPLIT_MIN_COLUMNS;
use super::groups::{groups_of_kernel, groups_of_rows, groups_plan, groups_serves};
use super::kernels::{GEMV_T, GEMV_T_L1_ANY, GEMV_T_PAIRED, GEMV_T_SCALAR, XReads, select_kernel, twins};
use super::paired::{
    PAIRED_ANY_OVER_L1_ANY_MIN_ROWS, l1_any_serves, lean_l1_pays, paired_any_over_l1_any, paired_serves,
};
use super::paired_split::{
    long_any_split_plan, long_any_split_serves, paired_split_pays, paired_split_plan, paired_split_serves,
    paired_tail_split_plan, paired_tail_split_serves, x_off_a_by_odd_floats,
};
use super::short::{is_short_n, short_plan};
use super::stacked::{stacked_pays, stacked_plan, stacked_serves};
use super::wide::{
    LONG_MIN_COLUMNS, doubles_up, fast_dram, long_pays, long_serves, long_thread_rows, sweep_pays, sweep_serves,
    sweep_thread_rows, wide_any_plan, wide_fine_plan, wide_fine_serves, wide_kind_serves, wide_pays, wide_plan,
    wide_thread_rows,
};
use super::{Op, problem};
use crate::handle::Handle;
use crate::status::Result;
use crate::tuner::optimizer;
use crate::tuner::plan_cache::DecisionCache;
use crate::tuner::{KernelModel, KernelSpec, LaunchPlan, Problem};

/// A kernel besides the default that can serve a call, and when `plan` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Twin {
    /// The cluster N kernels: [`cluster_serves`], the one of [`cluster_tile_rows`], shaped by [`cluster_plan`].
    Cluster,
    /// The groups T kernels: [`groups_serves`], the one of [`groups_of_rows`], shaped by [`groups_plan`].
    Groups,
    /// The stacked T kernel (x as float4 only): [`stacked_serves`], shaped by [`stacked_plan`].
    Stacked,
    /// Its twin for any A (x of unit stride): the same rules.
    StackedAny,
    /// The paired T kernel split over rows (x as float4 only): [`paired_split_serves`], in one wave; or
    /// for the tail of the unsplit grid's last wave ([`paired_tail_split_serves`]), in 4 ranges.
    PairedSplit,
    /// Its twin for any A (x of unit stride): the same rules, and on long
    /// columns with x an odd number of floats off A's float4s
    /// [`long_any_split_serves`], shaped by [`long_any_split_plan`].
    PairedSplitAny,
    /// The paired T kernel (x as float4 only): [`paired_serves`].
    Paired,
    /// Its twin for any A (x of unit stride): [`paired_serves`] where the kernel
    /// for any A with x through L1 does not serve, or, for A not float4 on at
    /// least PAIRED_ANY_OVER_L1_ANY_MIN_ROWS rows, where
    /// [`paired_any_over_l1_any`].
    PairedAny,
    /// The lean T kernel with x through L1 (x as float4 only): where it runs unsplit in one wave.
    LeanL1,
    /// The lean T kernels: where they run in one wave what the default needs more for.
    Lean,
    /// The T kernel for any A with x of unit stride: [`l1_any_serves`].
    L1Any,
    /// The narrow N kernels: where the default's unsplit row tiles leave SMs
    /// idle, and split where [`narrow_split_serves`] (shaped by [`narrow_split_plan`]).
    Narrow,
    /// The wide N kernels: one wave of long row tiles, unsplit (x through L1).
    Wide,
    /// The same past WIDE_L1_MAX_COLUMNS columns, x staged.
    WideStaged,
    /// The float4 wide kernel's twin for any A: [`wide_any_serves`](super::wide::wide_any_serves), shaped by
    /// [`wide_any_plan`].
    WideAny,
    /// The few-columns N kernels, for float4 and scalar A: [`few_serves`], shaped by [`few_plan`].
    Few,
    /// The scalar lanes kernel: where it runs in one wave what the scalar wide kernel would.
    Lanes,
    /// The sweep kernel, for float4 and scalar A: [`sweep_serves`], [`sweep_pays`].
    Sweep,
    /// The scalar long kernel: [`long_serves`], in one wave.
    Long,
    /// The scalar thin kernel: where the default's grid [`doubles_up`], on at
    /// least LONG_MIN_COLUMNS columns (not on fast DRAM).
    Thin,
}

/// What a call's plan reads: op, the sizes, A's offset within 16 bytes and
/// its leading dimension, and how x can be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallKey {
    op: Op,
    sizes: (i64, i64),
    a_offset: u8,
    lda: i64,
    x: XReads,
}

/// Calls' plans, per handle ([`Tuner::decide_with`](crate::tuner::Tuner::decide_with)): [`plan`] weighs the
/// default kernel's twins, each a tuner plan (cached) and the rules that say
/// whether it serves and pays; a repeated call costs one lookup instead.
pub type SgemvPlans = DecisionCache<CallKey, (&'static KernelSpec, LaunchPlan)>;

/// [`SgemvPlans`]' entries; each is about 100 bytes.
pub const SGEMV_PLANS_CAPACITY: usize = 4096;

/// The kernel and the tuner's plan for a call (what `sgemv` launches; the
/// benchmark reports it): the default kernel, unless its twin does better by
/// a rule the occupancies cannot see, or a shape is forced on the default.
///  - Cluster N, for any A and x, where the gemv image is sm_90 machine code
///    ([`runs_clusters`]): wherever `cluster_serves` (1 to 1024 rows on 513
///    to 16384 columns, past 1536 from 256 rows on; 9 to 128 rows past 16384
///    columns), the kernel of [`cluster_tile_rows`] on 256 threads in
///    [`clusters_per_tile`](super::clusters_per_tile) clusters a tile. Each tile of 16, 32 or 64 rows is split
///    over the columns among the 8 blocks of a cluster, which add their sums
///    through distributed shared memory: the split without the chain of
///    partial sums in memory, an arrival counter and the last block's pass,
///    which cost more than cuBLAS's whole kernel there. H200, kernel time
///    (`scripts/sgemv-builds.py`, µs, before / after / cuBLAS; 51 shapes
///    moved, 1.39x faster by geometric mean, none slower, 0.84x to 1.17x
///    cuBLAS's speed): 128 x 600 4.52 / 2.88 / 2.85, 128 x 2048 4.66 / 3.02 /
///    3.32, 128 x 8192 7.12 / 4.75 / 9.23, 512 x 2048 5.99 / 4.13 / 4.08,
///    1024 x 4096 10.07 / 7.31 / 9.46, odd lda 512 x 2048 6.54 / 4.93 / 4.29;
///    on 64 rows or fewer, where the short kernels split through partial
///    sums, 30 shapes 2.01x faster (33 x 2048 12.75 / 2.98 / 4.01, 64 x 4096
///    8.55 / 3.20 / 5.70); past 16384 columns, several clusters a tile, 96
///    shapes 1.27x faster (odd lda 65 x 262144 94.8 / 27.5 / 28.6).
///  - Groups T, for any A and x: wherever `groups_serves` (65 to 384 rows,
///    512 for A that is not float4, on 4096 columns or more), the kernel of `groups_of_rows`, on
///    `groups_plan`'s blocks. A warp per column of so few rows gives each
///    lane one to four float4s to load and five shuffle steps; the groups
///    kernels give a column 4 to 32 lanes of 4 or 6 groups of 4 rows, two
///    columns a lane (H200, kernel time, `scripts/sgemv-builds.py`, µs, the
///    routine before / after / cuBLAS; over 54 shapes 1.79x faster by
///    geometric mean, 0.65x to 1.17x cuBLAS's speed): 65 x 262144 111.1 /
///    20.2 / 27.6, 128 x 16384 8.18 / 4.22 / 5.13, 192 x 65536 28.1 / 14.7 /
///    17.6, 320 x 262144 112.0 / 82.2 / 91.1, odd lda 128 x 65536 38.0 /
///    11.7 / 12.7; 384 x 16384 9.72 / 10.17 / 10.46 slower.
///  - Stacked T, for float4 A and x as float4: wherever `stacked_serves`
///    and `stacked_pays` (1025 to 32768 rows, at most 512 columns), on
///    `stacked_plan`'s warps a column. Few columns give a warp per column
///    few SMs, and the split over blocks pays two round trips through L2
///    for its partial sums; Ty warps of one block on a column share its rows
///    and add their sums through shared memory (H200, kernel time,
///    `scripts/sgemv-builds.py`, µs, the routine before / this kernel /
///    cuBLAS; over 51 shapes 1.49x faster by geometric mean): 3000 x 32
///    7.12 / 2.17 / 3.61, 8192 x 32 3.58 / 2.47 / 3.94, 8192 x 1 5.03 /
///    2.10 / 10.17, 2048 x 128 3.74 / 2.30 / 4.61, 16384 x 256 7.45 / 6.24 /
///    9.79, 8192 x 512 7.82 / 6.52 / 8.60. Its twin for any A (x of unit
///    stride, at any alignment) on the same rules, after it.
///  - The paired kernels' twins for any A (`gemv_t_f32_stacked_any`,
///    `gemv_t_f32_paired_split_any`, `gemv_t_f32_paired_any`), each after
///    its float4 twin on the same rules, the unsplit one where
///    `gemv_t_f32_l1_any` does not serve or, for odd lda,
///    `paired_any_over_l1_any` (before the lean twins), the split one
///    also where x lies an odd number of floats off A's float4s on columns
///    of more than PAIRED_ANY_LONG_MIN_ROWS rows, in ranges of at most
///    PAIRED_ANY_MAX_RANGE_ROWS for odd lda (even lda keeps a split that
///    `paired_split_pays` for), in as many waves as it takes: x's float4s
///    shifted into place by shuffles, not read as four floats (a quarter of
///    the L1 wavefronts). Odd
///    lda, against the build before (H200, kernel time,
///    `scripts/sgemv-builds.py`, µs, before / after / cuBLAS; 164 shapes from
///    1025 to 1048577 rows on 1 to 1999 columns, 1.30x faster by geometric
///    mean, none slower, 1.06x to 1.38x cuBLAS's speed): 4093 x 32 3.12 /
///    2.54 / 3.70, 16383 x 8 4.45 / 3.49 / 3.69, 2049 x 512 4.59 / 3.88 /
///    3.76, 32767 x 8 6.02 / 3.70 / 4.03, 40001 x 32 9.64 / 5.60 / 6.26,
///    65537 x 16 8.49 / 5.19 / 5.92, 32771 x 768 37.82 / 29.64 / 31.29, 2049
///    x 600 8.06 / 4.29 / 4.04 (unsplit).
///  - Paired T split over rows, for float4 A and x as float4: wherever
///    `paired_split_serves` and `paired_split_pays` (in one wave, on a quarter of
///    the SMs or more), on `paired_split_plan`'s split. Unsplit, a block of
///    8 columns per SM leaves most of each SM's loads unissued on long
///    columns, and fewer than 8 × SMs columns leave SMs idle; split, the
///    SMs hold two or three blocks each (one, on small matrices). H200, kernel time
///    (`scripts/sgemv-builds.py`, µs, the routine before / this kernel /
///    cuBLAS): 200000 × 768 170.8 / 143.6 / 159.2, 100000 × 1024 107.0 /
///    98.7 / 107.2, 1000000 × 1024 990.8 / 933.4 / 972.8; on fewer than 768
///    columns (`scripts/gemv-ab.py`, this kernel / the routine's /
///    cuBLAS): 8192 × 512 7.84 / 10.45 / 8.40, 20000 × 512 13.72 / 16.86 /
///    14.80, 100000 × 512 51.6 / 58.7 / 55.6, 16384 × 256 7.72 / 10.30 /
///    9.70, 1000000 × 128 121.8 / 129.4 / 127.2, 50000 × 384 23.2 / 28.3 /
///    26.1, 300000 × 64 22.2 / 26.7 / 28.1, 1048576 × 16 20.8 / 24.6 / 24.3.
///    Where a split of 2 does not fit in one wave (past 12 × SMs columns)
///    it was slower than unsplit (50000 × 2048 94.0 / 101.4, 16384 × 2048
///    32.3 / 37.5). Past one wave, it also takes the calls whose unsplit
///    grid leaves a part-filled last wave among two or three
///    (`paired_tail_split_serves`), in 4 ranges: 65536 × 3200 220.5 /
///    201.7 / 213.4 (kernel time, PAIRED_TAIL_MAX_WAVES has the sweep).
///  - Paired T, for float4 A and x as float4: wherever `paired_serves`,
///    before the kernels below. A warp per column, as they do, but each
///    round's float4s of A and of x are requested together, one memory
///    round trip a round where the others wait for A before asking for x
///    (H200, kernel time, `scripts/gemv-ab.py`, matrices rotated past the L2,
///    µs, against the routine's choice before: 1000² 3.17 / 3.47, 2048² 6.13
///    / 6.89, 4000 × 1000 6.45 / 8.18, 8192 × 2048 17.20 / 19.20, 5000² 24.50
///    / 25.44, 10000² 90.5 / 98.9, 16384² 234.4 / 239.8, 20000² 353.2 /
///    363.8, 1024 × 65536 60.6 / 61.3, 65536 × 1024 68.5 / 70.6). The rest
///    of this list is for the calls it does not take.
///  - Lean T with x through L1: wherever it runs unsplit in one wave, for x
///    16-byte aligned with unit stride. Every block reads x from its first
///    row on, so the staging's two barriers per chunk cost more than L1
///    reads (H100, kernel time, `scripts/gemv-ab.py`, µs, on the optimizer's
///    shapes against the routine's choice before: 256² 2.08 / 2.57, 1000²
///    3.18 / 3.25, 2000² 8.35–8.41 / 9.08, 3000² 15.42 / 16.50, 4096² 25.95
///    / 26.50, 5000² 36.08 / 37.75 lean). Past one wave it lost (8192²: 93.4
///    against 91.1 µs).
///  - Lean T: one wave where the default needs more. A warp per column holds
///    32 warps per SM at 64 registers, 4224 columns per wave on an H100, so
///    n = 5000 ran 1.18 waves; the lean kernel's 40 warps run it in one
///    (SGEMV-T 5000²: 43.2–44.4 µs against 47.5–48.5). Where both need the
///    same waves, the default's 8 loads in flight per lane win (8192² to
///    32768²: the lean kernel 1–2 % slower, 65536×1024 4 %).
///  - T with x of unit stride: `gemv_t_f32_l1_any` wherever
///    `l1_any_serves`, after the lean twins where they save a wave (5000²
///    with x as float4: `gemv_t_f32_lean_l1` 36.06 µs against 42.69).
///    Reading each column as float4 from its first 16-byte boundary and x
///    through L1, on blocks of 256 threads, beat the scalar kernel's
///    four-byte loads and staged x by 3–12 % from 2001² to 10001² (H100,
///    kernel time, `scripts/gemv-ab.py`, µs: 2001² 8.32 / 9.48, 3001² 15.21
///    / 16.81, 4097² 26.20 / 28.16, 4223² 28.20 / 29.55, 8191² 93.19 /
///    95.82, 10001² 140.97 / 145.91, 1023 × 65536 88.85 / 99.74), and on
///    float4 A the lean L1 kernel's one wave by 2–5 % from 2000² to 4096²
///    (8.16 / 8.39, 2048² 8.39 / 8.55, 3000² 14.79 / 15.54, 4096² 25.00 /
///    25.91) and the default's by 3–6 % on wide matrices (1024 × 65536 87.57 /
///    90.55, 2048 × 8192 24.53 / 26.18). The split tall shapes keep the
///    default (1048577 × 100, scalar: 162.6 against 155.6 on the same split;
///    65537 × 1024 99.6 / 98.5).
///  - Few-columns N, for float4 A (and any A where `few_any_serves`) on fast
///    DRAM: wherever `few_serves` and
///    `few_pays`, on `few_plan`'s shape, after the sweep (H200, over 66
///    shapes of 16 to 1536 columns, 1.29× faster than the kernels it
///    replaces; 8192 × 128 3.94 → 3.35 µs, cuBLAS 3.36).
///  - Narrow N: at most N_SPLIT_MIN_COLUMNS columns (no split) and row tiles
///    that leave SMs idle (and on fast DRAM, split, where
///    `narrow_split_serves`, on `narrow_split_plan`'s shape): the narrow kernel's smaller tiles engage more SMs
///    (`mublas bench sgemv`: N 256², 8 blocks of 32 rows, 9.6–10.0 µs against
///    11.5–12.1 for the default's 2 × 2 split blocks; 512², 16 blocks,
///    10.3–10.8 against 11.2–12.4 for 4 × 4).
///  - Wide N: `wide_pays`, on the shape of `wide_plan`. First, where
///    the default splits 8 ways or more on 2000 to 4096 columns: its partial
///    sums and last-block sum cost more than a grid of fewer blocks with
///    twice the loads in flight (H100, kernel time, `scripts/gemv-ab.py`: N
///    2000² 9.3 µs unsplit against 10.9 with the 16-way split, 3000² 16.7
///    against 17.4 with 8). Then, with the streamed loads of A and x read
///    through L1, wherever it runs in one wave from 2000 × 2000 on (µs, wide
///    against the default's plan): 4100² 25.0 against 27.5, 5000² 35.0 /
///    38.2, 8192² 88.9 / 91.4, 10000² 131.6 / 135.9, 2000 × 8192 24.2 /
///    27.0; the scalar kernel 4097² 26.2 / 27.7, 5001² 36.7 / 39.4, 10001²
///    132.9 / 144.7 (and 1–4 % slower at 4221² to 4223², 6001² and 8191²).
///    Past 16384 columns, the staged float4 kernel on a grid of half the SMs
///    or more (20000² 526.9 / 535.6; the scalar one lost 10 % at 20001²).
///  - Wide N for any A (`gemv_n_f32_wide_any`): before the sweep and the
///    scalar lanes and wide kernels wherever `wide_any_serves` (from 2000
///    rows to 6336, 12672 on wide matrices, off fast DRAM 15841 to 20000 too
///    on up to 20000 columns, before the long kernel;
///    up to one wave of 32-row tiles on 2000 columns or more, 3000 where they
///    engage nearly every SM), on
///    `wide_any_plan`'s shape: its float4 loads from each column's first
///    16-byte boundary were 1–18 % faster than the scalar kernels on an H100
///    (4097² 25.2 µs against the lanes kernel's 26.2, 9001² 108.5 against
///    the scalar wide kernel's 132.9; see WIDE_ANY_MAX_ROWS in wide.rs).
///  - Scalar lanes N: before the scalar wide kernel, on the same problems,
///    wherever its 32-row tiles run in one wave (on the H100, up to 4224
///    rows; 5001², 157 tiles, took 43.0 µs against 38.1 for cuBLAS). A row
///    per lane reads whole 128-byte lines where the wide kernel's 8-row
///    tiles read 32-byte pieces of each column, which straddle sectors when
///    lda is odd: the scalar wide kernel's times jumped by 10–20 % at n ≡ 25
///    to 31 (mod 32) over 4096…4224, the lanes kernel's follow the bytes
///    (kernel time, µs, lanes / scalar wide: 2001² 8.94 / 9.30, 3001² 15.14
///    / 16.76, 4097² 24.88 / 26.17, 4121² 25.03 / 27.96, 4127² 25.94 /
///    31.39, 4191² 26.28 / 31.61, 4223² 26.69 / 31.25; cuBLAS 8.97 to 29.66).
///  - Scalar long N: where the scalar wide kernel does not serve (more than
///    16384 columns, or more rows than one wave of its tiles) and
///    `long_serves`, one block of LONG_THREADS per SM on the shape of
///    `wide_plan` with `long_thread_rows`, instead of the optimizer's two
///    blocks of 512 (its recipe asks for half the SM's warps). H100, odd lda,
///    kernel time, `scripts/gemv-ab.py`, µs, long / default / cuBLAS: 20001²
///    555.4 / 585.7 / 559.3, 22001² 725.2 / 838.9 / 676.3, 26001² 918.7 /
///    1092.7 / 953.4, 30001² 1232.0 / 1431.2 / 1278.2, 33001² 1591.3 /
///    1829.1 / 1530.4, 40001 × 20001 1092.0 (96 × 8) / 1164.4 / 1161.8,
///    65537 × 4096 351.8 (128 × 6) / 370.2 / 386.3. On fast DRAM it goes
///    before the sweep, on a grid of LONG_MIN_COVERAGE_FAST_DRAM of the SMs
///    or more (`long_pays`).
///  - Scalar thin N: where the default's grid `doubles_up` on at least
///    LONG_MIN_COLUMNS columns (split grids, since the long kernel takes
///    the unsplit ones first), not on fast DRAM: the same grid in blocks of
///    256 threads (THIN_SPACE, with its own recipe).
///
/// Cached per handle ([`SgemvPlans`]) unless a shape is forced.
pub fn plan(
    handle: &Handle,
    op: Op,
    m: i64,
    n: i64,
    a: u64,
    lda: i64,
    x: XReads,
) -> Result<(&'static KernelSpec, LaunchPlan)> {
    let key = CallKey { op, sizes: (m, n), a_offset: (a % 16) as u8, lda, x };
    handle.device.tuner.decide_with(&handle.sgemv_plans, key, || plan_uncached(handle, op, m, n, a, lda, x))
}

/// [`plan`]'s decision, made anew (the tests compare the two).
pub fn plan_uncached(
    handle: &Handle,
    op: Op,
    m: i64,
    n: i64,
    a: u64,
    lda: i64,
    x: XReads,
) -> Result<(&'static KernelSpec, LaunchPlan)> {
    let device = &handle.device;
    let plan_of = |spec: &'static KernelSpec| -> Result<LaunchPlan> {
        let kernel = device.kernel(spec.name)?;
        Ok(device.tuner.plan(spec, &kernel.model, &problem(m, n)))
    };
    // A twin shaped by its own rule instead of the optimizer (forced shapes and the plan cache still first).
    let plan_by = |spec: &'static KernelSpec,
                   rule_name: &'static str,
                   rule: &dyn Fn(&KernelModel, &Problem) -> LaunchPlan|
     -> Result<LaunchPlan> {
        let kernel = device.kernel(spec.name)?;
        let problem = problem(m, n);
        Ok(device.tuner.plan_with(spec, &kernel.model, &problem, rule_name, || rule(&kernel.model, &problem)))
    };
    let default = select_kernel(op, m, a, lda);
    let default_plan = if is_short_n(default) {
        plan_by(default, "short_plan", &|kernel, problem| {
            short_plan(device.model(), kernel, default, problem, device.tuner.plan_uncached(default, kernel, problem))
        })?
    } else {
        plan_of(default)?
    };
    if device.tuner.forced().get(default.name).is_some() {
        // A shape forced on the default kernel pins that kernel (the analyzer times its shapes so).
        return Ok((default, default_plan));
    }
    use optimizer::{sm_coverage, waves};
    let model = device.model();
    let l1_any = x != XReads::Strided && l1_any_serves(default, m, n, &default_plan);
    let long_any = long_any_split_serves(m, n, x_off_a_by_odd_floats(a, lda, x));
    let narrow_split = narrow_split_serves(model, m, n);
    // The split paired kernel for the tail of the unsplit one's last wave (float4 A and x).
    let paired_tail = std::ptr::eq(default, &GEMV_T)
        && x == XReads::Float4
        && paired_serves(m, n)
        && paired_tail_split_serves(model, m, n, || plan_of(&GEMV_T_PAIRED))?;
    for (twin_spec, kind) in twins(default, m, x) {
        let consider = match kind {
            Twin::Cluster => {
                cluster_rows_of_kernel(twin_spec) == Some(cluster_tile_rows(model, m, n))
                    && cluster_serves(|| runs_clusters(device), m, n)
            }
            Twin::Groups => groups_serves(default, m, n) && groups_of_kernel(twin_spec) == Some(groups_of_rows(m)),
            Twin::Stacked | Twin::StackedAny => stacked_serves(m, n),
            Twin::PairedSplit => paired_split_serves(model, m, n) || paired_tail,
            Twin::PairedSplitAny => paired_split_serves(model, m, n) || long_any,
            Twin::Paired => paired_serves(m, n),
            Twin::PairedAny => {
                paired_serves(m, n)
                    && (!l1_any || (std::ptr::eq(default, &GEMV_T_SCALAR) && m >= PAIRED_ANY_OVER_L1_ANY_MIN_ROWS))
            }
            // Where the kernel for any A serves too, only if the lean kernel saves a wave.
            Twin::LeanL1 => !l1_any || waves(model, &default_plan) > 1,
            Twin::Lean => waves(model, &default_plan) > 1,
            Twin::L1Any => l1_any,
            Twin::Narrow => {
                narrow_split || (n as u64 <= N_SPLIT_MIN_COLUMNS && sm_coverage(model, &default_plan) < 1.0)
            }
            Twin::Wide | Twin::WideStaged | Twin::Lanes | Twin::WideAny => wide_kind_serves(model, kind, m, n),
            Twin::Sweep => sweep_serves(model, default, m, n),
            Twin::Few => few_serves(model, default, m, n),
            Twin::Long => long_serves(model, m, n, &default_plan),
            Twin::Thin => !fast_dram(model) && n >= LONG_MIN_COLUMNS && doubles_up(model, &default_plan),
        };
        if !consider {
            continue;
        }
        let twin_plan = match kind {
            Twin::Cluster => {
                plan_by(twin_spec, "cluster_plan", &|kernel, problem| cluster_plan(model, kernel, twin_spec, problem))?
            }
            Twin::Groups => {
                plan_by(twin_spec, "groups_plan", &|kernel, problem| groups_plan(model, kernel, twin_spec, problem))?
            }
            Twin::PairedSplit if paired_tail => plan_by(twin_spec, "paired_tail_split_plan", &|kernel, problem| {
                paired_tail_split_plan(model, kernel, twin_spec, problem)
            })?,
            Twin::PairedSplit | Twin::PairedSplitAny => {
                let plan = plan_by(twin_spec, "paired_split_plan", &|kernel, problem| {
                    paired_split_plan(model, kernel, twin_spec, problem)
                })?;
                // The long-column shape apart from the tuner's cache, whose key does not tell x's offset.
                if kind == Twin::PairedSplitAny && long_any && device.tuner.forced().get(twin_spec.name).is_none() {
                    let kernel = device.kernel(twin_spec.name)?;
                    long_any_split_plan(model, &kernel.model, twin_spec, &problem(m, n), plan, lda % 2 != 0)
                } else {
                    plan
                }
            }
            Twin::Few => {
                plan_by(twin_spec, "few_plan", &|kernel, problem| few_plan(model, kernel, twin_spec, problem))?
            }
            Twin::Stacked | Twin::StackedAny => {
                plan_by(twin_spec, "stacked_plan", &|kernel, problem| stacked_plan(model, kernel, twin_spec, problem))?
            }
            Twin::WideAny => plan_by(twin_spec, "wide_any_plan", &|kernel, problem| {
                wide_any_plan(model, kernel, twin_spec, problem)
            })?,
            Twin::Narrow if narrow_split => plan_by(twin_spec, "narrow_split_plan", &|kernel, problem| {
                narrow_split_plan(model, kernel, twin_spec, problem)
            })?,
            Twin::Wide if wide_fine_serves(model, twin_spec, m) => {
                plan_by(twin_spec, "wide_fine_plan", &|kernel, problem| {
                    wide_fine_plan(model, kernel, twin_spec, problem)
                })?
            }
            Twin::Wide | Twin::WideStaged | Twin::Sweep | Twin::Long => {
                let (rule_name, thread_rows): (_, fn(u32) -> u32) = match kind {
                    Twin::Sweep => ("wide_plan, sweep_thread_rows", sweep_thread_rows),
                    Twin::Long => ("wide_plan, long_thread_rows", long_thread_rows),
                    _ => ("wide_plan, wide_thread_rows", wide_thread_rows),
                };
                plan_by(twin_spec, rule_name, &|kernel, problem| {
                    wide_plan(model, kernel, twin_spec, problem, thread_rows)
                })?
            }
            _ => plan_of(twin_spec)?,
        };
        // A shape forced on a twin that the call could take pins the twin (`mublas report` times its shapes so).
        let forced = device.tuner.forced().get(twin_spec.name).is_some();
        let better = forced
            || match kind {
                Twin::Cluster | Twin::Groups => true,
                Twin::Stacked | Twin::StackedAny => stacked_pays(model, m, &twin_plan),
                Twin::PairedSplit => {
                    paired_split_pays(model, &twin_plan) || (paired_tail && twin_plan.geometry.grid.1 > 1)
                }
                Twin::PairedSplitAny => {
                    paired_split_pays(model, &twin_plan) || (long_any && twin_plan.geometry.grid.1 > 1)
                }
                Twin::Paired => true,
                Twin::PairedAny => !l1_any || paired_any_over_l1_any(model, &plan_of(&GEMV_T_L1_ANY)?, &twin_plan),
                Twin::LeanL1 => lean_l1_pays(model, &twin_plan),
                Twin::Lean => waves(model, &twin_plan) == 1,
                Twin::L1Any => true,
                Twin::Narrow => narrow_split || sm_coverage(model, &twin_plan) > sm_coverage(model, &default_plan),
                Twin::Wide | Twin::WideStaged | Twin::Lanes | Twin::WideAny => {
                    wide_pays(model, kind, m, n, default_plan.geometry.grid.1, &twin_plan)
                }
                Twin::Sweep => sweep_pays(model, default, m, &twin_plan),
                Twin::Few => few_pays(model, n, &twin_plan),
                Twin::Long => long_pays(model, &twin_plan),
                Twin::Thin => true,
            };
        if better {
            return Ok((twin_spec, twin_plan));
        }
    }
    Ok((default, default_plan))
}
