//! SGEMV: y = alpha·op(A)·x + beta·y, A column-major with m rows, n columns
//! and leading dimension lda; op(A) = A (N) or Aᵀ (T, and C for real data).
//!
//! Argument checks follow reference BLAS's order and numbering (the handle not
//! counted): 1 trans, 2 m, 3 n, 6 lda, 8 incx, 11 incy; the first bad one is
//! reported. Quick returns touch no memory: m == 0 or n == 0 (y not even
//! scaled), or a host alpha of 0 with a host beta of 1.
//!
//! Kernels (kernels/gemv.cu): `gemv_n_f32` / `gemv_t_f32` when A is 16-byte
//! aligned and lda a multiple of 4 (float4 loads down the columns), the
//! `_scalar` twins otherwise; for at most [`SHORT_ROWS_MAX`] rows,
//! `gemv_n_f32_short` and `gemv_t_f32_short` (and their `_scalar` twins), in
//! which a warp reads several columns at once instead of leaving most of its
//! lanes without a row; for op T on 65 to 384 rows (512 for A not float4)
//! and many columns, the same layout with 4 or 6 groups of rows a lane
//! (`gemv_t_f32_groups4`, `_groups6`); for op N on at most 1024 rows and more
//! than 512 columns on sm_90, row tiles split among the blocks of a
//! thread-block cluster (`gemv_n_f32_cluster16`, `_cluster32`, `_cluster64`),
//! which add their sums through distributed shared memory (past 16384
//! columns, several clusters a tile through partial vectors). All but the short and groups T kernels take
//! a reduction split (the tuner's `LaunchShape::split`, grid.y): the columns
//! (N) or rows (T) are cut into ranges, one block per range and tile, so that a
//! short y still fills the GPU; partial vectors go to the split slots of the
//! handle's work buffer (a sum and a flag each, no fence) and the block of a
//! tile that started last adds them in a fixed order as they fill, so one
//! launch suffices and the result does not depend on timing.

use super::Scalar;
use super::vector::StridedVector;
use crate::handle::{Handle, SPLIT_COUNTER_SLOTS, SPLIT_SLOTS};
use crate::launch::KernelArg::{I64, Ptr};
use crate::launch::context::ContextGuard;
use crate::launch::device::DeviceState;
use crate::launch::images::{self, ImageChoice};
use crate::status::{Error, Result};
use crate::tuner::optimizer;
use crate::tuner::{DeviceModel, Geometry, KernelModel, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

/// Rows per thread in the N kernels (GEMV_N_ROWS in kernels/gemv.cu).
const N_ROWS_PER_THREAD: u64 = 4;
/// Column ranges of a split in the N kernels are multiples of this (and so of
/// the kernels' 4-column groups). On the H100, ranges shorter than about 128
/// columns cost more in partial sums than their extra blocks bring (SGEMV-N at
/// n = 512 and 1024 ran 1.3–1.6× slower with 8 to 32 columns per range than
/// with 128 or more).
const N_COLUMN_GRANULE: u64 = 128;
/// op N splits only matrices wider than this. A split has a fixed cost (the
/// partial vectors, then a fence and a counter per block, the last block's sum;
/// measured before the split slots took the fence's place)
/// that narrow problems do not win back: on the H100 (`mublas bench
/// sgemv-shapes`), 256² took 8.0 µs unsplit against 10.1 with the 2-way split
/// the optimizer chose for SM coverage, 512² 9.6 against 10.0 with 4 ranges;
/// at 1000² the 4-way split was faster (11.7 against 13.5). Such problems
/// get their SMs from the narrow kernels' smaller row tiles instead (`plan`).
const N_SPLIT_MIN_COLUMNS: u64 = 512;
/// Row ranges of a split in the T kernels are multiples of this (one chunk of
/// x, GEMV_T_XCHUNK): on the H100, splitting SGEMV-T at n = 1024 to 2048 into
/// shorter ranges was 10–50 % slower than not splitting.
const T_ROW_GRANULE: u64 = 2048;
/// Column ranges of a split in the short N kernels are multiples of this.
/// Since the split's slots (no fence), shorter ranges than 1024 pay where
/// they engage more SMs: H200, kernel time (`scripts/gemv-ab.py`), µs, ranges
/// of 1024 / 512 / 256 columns: 4 × 65536 4.24 / 4.10 / 4.63 (256 with 64
/// threads untimed), 8 × 32768 4.69 / 4.51 / 4.36, 1 × 65536 4.23 / 4.18 /
/// 4.49; 2 × 16385 4.99 on 15 ranges, 4.48 on 43. cuBLAS 4.96, 4.70, 3.65,
/// 3.61. Through the library, with SHORT_SPLIT_MAX_THREADS and the gather's
/// tail under predicates (`gemv_split_sum`), 27 shapes of 1 to 8 rows on
/// 16385 to 2^20 columns ran 1.06× faster by geometric mean, at most 1.2 %
/// slower (docs/performance.md, "Short N ranges of 512 columns").
const SHORT_COLUMN_GRANULE: u64 = 512;
/// Columns a lane of the short N kernels loads at once (GEMV_SHORT_UNROLL).
const SHORT_UNROLL: u64 = 4;
/// Columns per lane in the T kernels when m ≤ 64 (GEMV_T_SMALL_COLUMNS).
const T_SMALL_COLUMNS: u64 = 4;
/// op N with at most this many rows goes to the short kernels (GEMV_SHORT_ROWS):
/// a row tile of the N kernels has at least 128 rows.
pub const SHORT_ROWS_MAX: i64 = 64;

const SPLITS: &[u32] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

const N_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 256, ty_min: 1, ty_max: 16, splits: SPLITS };
/// The narrow N kernels: row tiles of 32 to 128 rows (Tx 8 to 32). They give
/// more blocks to an unsplit grid of few row tiles (see `plan`), and on fast
/// DRAM run few rows on many columns split (`narrow_split_serves`). Ty up to 128: with few blocks, the threads per block are
/// what keeps loads in flight. On the H100 (`mublas bench sgemv`, shapes
/// forced, two runs) N 512² took 10.5–10.6 µs at 8×64, 11.0 at 8×128,
/// 11.5–12.3 at 8×32; the optimizer's 8×65 10.3–10.8.
const NARROW_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 8, tx_min: 8, tx_max: 32, ty_min: 1, ty_max: 128, splits: NARROW_SPLITS };
/// The narrow kernels split only where `narrow_split_serves` (the optimizer's
/// narrow problems have at most N_SPLIT_MIN_COLUMNS columns, which
/// `reduction_split` never splits).
const NARROW_SPLITS: &[u32] = &[1, 2, 4, 8, 16, 32, 64];
/// On fast DRAM, N calls of at most this many rows on more than
/// N_SPLIT_MIN_COLUMNS columns (which the default kernel splits) run the
/// narrow kernel split (`narrow_split_plan`): 32-row tiles of
/// NARROW_SPLIT_THREAD_ROWS thread rows, split as far as the grid keeps at
/// most NARROW_SPLIT_BLOCKS_PER_SM blocks per SM (and the ranges
/// N_COLUMN_GRANULE columns). The default's row tiles of 128 to 1024
/// rows gave such calls one block per tile and range, and 1024-row tiles
/// for 128 rows kept 7 of 8 threads idle. H200, kernel time,
/// `scripts/gemv-ab.py`, µs, the default's shape / this rule's / cuBLAS:
/// 128 × 2048 9.17 (256 × 4, split 16) / 4.97 (8 × 32, split 16: 64 blocks)
/// / 3.45, 384 × 2048 6.51 (32 × 16 × 16) / 5.85 (192 blocks) / 3.85, 512 ×
/// 2048 6.80 / 6.09 (256) / 3.93, 512 × 4096 8.21 / 7.16 (256) / 6.20, 128 ×
/// 16384 13.08 (32 × 16 × 16) / 8.31 (8 × 32 × 64, 256 blocks) / 9.08, odd
/// lda 257 × 2048 6.53 / 5.90 / 3.68. Of the other shapes timed, 8 × 32 was
/// the fastest or within 2 % at each (8 × 16 and 8 × 64 up to 12 % slower,
/// 16 × 16 and 16 × 32 up to 8 %); one block per SM was 1–7 % slower at 512
/// × 4096 and 128 × 2048, shorter ranges (64 or 32 columns) 5–45 % slower.
const NARROW_SPLIT_MAX_ROWS: i64 = 512;
/// It takes only calls whose column ranges are at most this many columns
/// (one chunk of x, GEMV_N_XCHUNK): on longer ranges its grid of at most 2
/// blocks per SM kept too few loads in flight. Through the library (kernel
/// time, µs, default / narrow split without the limit / cuBLAS; ranges):
/// 257 × 100000 35.32 / 43.81 / 45.41 (6250 columns), 384 × 100000 43.92 /
/// 48.74 / 41.36 (6250), 512 × 100000 56.62 / 59.08 / 56.41 (6250), 129 ×
/// 100000 24.21 / 25.68 / 23.72 (3125), 200 × 100000 28.95 / 27.89 / 28.07
/// (3125); on ranges up to 2048 columns it gained: 512 × 32768 22.77 /
/// 21.95 / 25.67 (2048), 200 × 32768 17.01 / 12.82 / 14.77 (1024), 129 ×
/// 16385 13.31 / 9.00 / 9.01 (640), 128 × 100000 53.84 / 20.40 / 23.51
/// (1563).
const NARROW_SPLIT_MAX_RANGE_COLUMNS: u64 = 2048;
const NARROW_SPLIT_THREAD_ROWS: u32 = 32;
const NARROW_SPLIT_BLOCKS_PER_SM: u64 = 2;
/// The wide N kernels (8 columns in flight per thread): unsplit, row tiles of
/// 32 to 256 rows. Their shape is chosen by [`wide_plan`], not the optimizer.
const WIDE_SPACE: LaunchSpace = LaunchSpace { tx_step: 8, tx_min: 8, tx_max: 64, ty_min: 8, ty_max: 64, splits: &[1] };
/// The scalar N kernel for long columns: unsplit, one block of LONG_THREADS
/// per SM, row tiles of 256 to 512 rows (Tx 64, 96 or 128: whole warps on
/// each thread row). Its shape is chosen by [`wide_plan`] with
/// [`long_thread_rows`] (`long_serves` says where).
const LONG_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 64, tx_max: 128, ty_min: 6, ty_max: 12, splits: &[1] };
/// Threads of a long block. With odd lda on an H100 (kernel time,
/// `scripts/gemv-ab.py`, µs), one block of 768 threads per SM beat two of
/// 512, the optimizer's shape (32 × 16), from 18001 rows on: 20001² 555.4
/// against 585.7 (cuBLAS 559.3), 24001² 827.8 / 908.7 (807.9), 28001²
/// 1070.3 / 1360.9 (1104.6), 32767² 1562.5 / 1812.1 (1508.7); one of 1024
/// threads (64 × 16) was faster at 110 blocks or fewer and slower at 128
/// (32767²: 1667.1), one of 512 (64 × 8) slower at 94 blocks or fewer
/// (24001²: 871.7).
const LONG_THREADS: u32 = 768;
/// The long and thin kernels take problems of at least this many columns
/// (the long kernel's narrowest measured: 100001 × 2048 and 65537 × 4096;
/// the thin kernel ran 20001 × 1001 in 31.4 µs against the default's 30.1)…
const LONG_MIN_COLUMNS: i64 = 2048;
/// …where the default's unsplit grid puts a second block on more than
/// 1/LONG_MIN_DOUBLED_SMS of the SMs: at 16897², 133 blocks of 32 × 16 (one
/// SM with two), the default took 383.1 µs against the long kernel's 406.1
/// (67 blocks of 64 × 12); at 18001², 141 blocks, 461.1 against 454.1.
const LONG_MIN_DOUBLED_SMS: u64 = 16;
/// On fast DRAM (`fast_dram`) the long kernel goes before the sweep where its
/// grid engages at least this share of the SMs (H200, odd lda, kernel time,
/// `scripts/gemv-ab.py`, µs, long / sweep / cuBLAS; blocks of the long
/// kernel): 24001² 601.3 / 568.7 / 579.3 (94), 20001² 401.7 / 375.9 / 404.7
/// (79), but 26001² 640.6 / 673.3 / 677.9 (102), 28001² 727.4 / 789.4 /
/// 749.6 (110), 32767² 1100.6 / 1136.1 / 1037.9 (128), 40001 × 20001 731.1 /
/// 771.8 / 786.5 (105), 65537 × 4096 250.8 / 263.1 / 264.1 (129).
const LONG_MIN_COVERAGE_FAST_DRAM: f64 = 0.75;
/// The scalar N kernel with at most 8 thread rows (`Twin::Thin`): where the
/// default's grid puts two blocks of 512 threads on an SM, its recipe
/// (`gemv_n_f32_scalar_thin` in src/tuner/recipe.rs) gives the same grid
/// with blocks of 256, so that no SM holds more than 512 threads. With odd
/// lda on an H100 (kernel time, `scripts/gemv-ab.py`, µs, 32 × 8 / the
/// default's 32 × 16 at the same split / cuBLAS): 3001 × 100001 (8 ways)
/// 414.5 / 459.0 / 441.1, 2001 × 200001 (16 ways) 533.4 / 594 / 557.8,
/// 20001² 579.7 / 585.7 / 559.3, 28001² 1159.9 / 1360.9 / 1104.6 (the long
/// kernel goes first there); with one block per SM 32 × 8 lost (16897²:
/// 438.5 against 383.1). Through the library, see docs/performance.md.
const THIN_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 256, ty_min: 1, ty_max: 8, splits: SPLITS };
/// The scalar lanes kernel: a row per lane (Tx = 32 lanes, a 32-row tile),
/// Ty thread rows of 8 columns in flight each, unsplit. Its recipe asks for
/// blocks of 1024 threads, the fastest timed (`gemv_n_lanes` in kernels/gemv.cu).
const LANES_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 32, ty_min: 1, ty_max: 32, splits: &[1] };
/// The sweep kernel: a row per thread, row tiles of Tx = 32 to 1024 rows, Ty
/// thread rows over contiguous column ranges, unsplit. Its shape is chosen by
/// [`wide_plan`] with [`sweep_thread_rows`] (`sweep_serves` says where).
const SWEEP_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 1024, ty_min: 1, ty_max: 32, splits: &[1] };
/// Threads of a sweep block at most: one block per SM at its 64 registers.
/// On an H200 (kernel time, `scripts/gemv-ab.py`, µs) 16384² took 235.4 on
/// 128 × 8 and 234.9 on 128 × 4 at 128 registers with 64 columns in flight.
const SWEEP_THREADS: u32 = 1024;
/// The sweep kernel serves devices whose DRAM gives each SM at least this
/// many bytes per second. Two GPUs were measured, with the same 132 SMs: on
/// an H200 (36.5 GB/s per SM) the sweep read long columns 5–10 % faster than
/// the wide kernels; on an H100 (25.4) 1–6 % slower (16384²: 358.5 against
/// 345.8 µs; cuBLAS 357.3). The threshold lies between them.
const SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND: f64 = 30e9;
/// There, the sweep takes float4 A from this many rows on (H200, µs, sweep /
/// wide / cuBLAS: 12000² 132.5 / 140.3 / 142.8, 10000² 98.3–98.9 / 96.6 /
/// 108.4, 5000² 30.0 / 27.6 / 30.5 on 64 × 16, 3000² 12.4 / 11.6 / 13.1)…
const SWEEP_MIN_ROWS: i64 = 12000;
/// Below SWEEP_MIN_ROWS, past one wave of 32-row tiles, the sweep takes float4
/// A on more than FEW_MAX_COLUMNS columns where its one-wave grid engages as
/// many SMs as the wide kernel's ([`sweep_pays`]). Its row tiles step by 32
/// rows, the wide kernel's by 8, so its grid fits some sizes and leaves SMs
/// idle at others; on as many SMs it reads faster. H200, kernel time,
/// `scripts/gemv-ab.py`, µs, sweep / wide (`wide_fine_plan`) / cuBLAS, the
/// sweep's blocks / the wide kernel's: 7680² 55.3 / 58.5 / 56.3 (120 / 120),
/// 8000² 59.4 / 62.9 / 61.3 (125 / 125), 8192² 61.9 / 67.8 / 63.6 (128 /
/// 128), 8448² 65.7 / 70.6 / 68.9 (132 / 132), 8192 × 16384 120.1 / 128.1
/// / 123.0, 7400² 53.6 / 53.7 / 54.0 (116 / 116); on fewer SMs than the wide
/// kernel, 6336² 40.6 / 40.0 (99 / 132), 7000² 49.0 / 48.3 (110 / 125), 9000²
/// 80.1 / 78.7 (94 / 125), 10000² 95.8 / 94.9 (105 / 125), 10800² 109.0 /
/// 108.0 (113 / 123), 11500² 123.4 / 123.1 (120 / 131; through the library
/// 126.1 / 123.6), but 7200² 49.8 / 50.2 (113 / 129) and 11000² 113.2 /
/// 116.4 (115 / 125).
/// …and any other A from this many rows (4097² 19.5 against the scalar wide
/// kernel's 21.7, cuBLAS 19.1; 4223² 19.9–20.8 against the lanes kernel's
/// 22.6, cuBLAS 22.4–22.9). Past 4224 rows the scalar wide kernel's time
/// jumps from size to size where the sweep's follows the bytes. Through the
/// library over 30 shapes with odd lda from 4225² to 32767²
/// (`scripts/sgemv-builds.py`, H200, µs, scalar wide or split / sweep /
/// cuBLAS): 1.018× faster by geometric mean, and 1.048× cuBLAS's speed
/// against 1.029; 6001² 46.0 / 39.3 / 40.0, 9001² 106.9 / 82.4 / 99.6,
/// 16383² 317.8 / 277.7 / 273.8, 20001² 422.6 / 380.8 / 422.9, but 5001²
/// 28.4 / 30.1 / 30.8 and 14001² 183.5 / 188.5 / 195.0; behind cuBLAS at
/// 28001² and 32767² (0.93 and 0.90; the split scalar kernel 0.88 at 32767²;
/// the long kernel now goes first there, `long_pays`; up to WIDE_ANY_MAX_ROWS,
/// or WIDE_ANY_LONG_MAX_ROWS on wide matrices, the wide kernel for any A goes
/// first)…
const SWEEP_MIN_ROWS_SCALAR: i64 = 4096;
/// …on at least this many columns, so that each thread row sweeps several
/// groups of 32 (65536 × 1024: 62.3 µs against 67.9 for the wide kernel,
/// cuBLAS 64.5; 131072 × 256 was faster too, 33.7 / 35.2, but fewer columns
/// on fewer rows were not timed).
const SWEEP_MIN_COLUMNS: i64 = 1024;
/// Below SWEEP_MIN_ROWS_SCALAR rows the sweep takes A that is not float4 from
/// this many rows, on SWEEP_SHORT_MIN_COLUMNS columns up to
/// SWEEP_SHORT_MAX_COLUMNS_PER_ROW times as many as rows, where the wide
/// kernel for any A does not ([`wide_any_serves`]). There the default split
/// its columns, or the lanes kernel its rows. H200, kernel time,
/// `scripts/gemv-ab.py`, lda = m, µs, sweep on 32 × 32 / the default's split
/// (best of 8, 16, 32) or the lanes kernel / cuBLAS: 1001² 4.77 / 6.57 /
/// 13.12, 1501² 6.56 / 8.25 / 7.05, 1999² 8.00 / 9.69 / 8.38, 1001 × 600
/// 3.74 / 6.52 / 8.52, 2001 × 1024 5.45 / 7.71 / 12.87, 3001 × 512 4.73 /
/// 6.95 / 7.33, 4001 × 2001 10.89 / 11.93 (lanes) / 10.53, 4095 × 2000
/// 11.03 / 12.06 (lanes) / 10.69, 767² 5.30 / 6.96 (narrow) / 5.38, 511²
/// 5.09 / 5.87 (narrow) / 5.33, 1001 × 3001 8.84 / 9.29 / 8.47; on more
/// columns the split was faster (1001 × 4001 11.00 / 10.25 / 10.32, 1501 ×
/// 8001 20.83 / 17.82 / 20.43).
const SWEEP_SHORT_MIN_ROWS: i64 = 256;
const SWEEP_SHORT_MIN_COLUMNS: i64 = 256;
const SWEEP_SHORT_MAX_COLUMNS_PER_ROW: i64 = 3;
/// Threads of a wide block at most: the most their registers (94 and 102 on
/// sm_90) leave room for in one block per SM. Full blocks were faster than half ones
/// at every size tried (H100, kernel time with x staged, `scripts/gemv-ab.py`: 4100²
/// 27.2 µs on 8 × 64 against 28.6 on 8 × 32, 5000² 37.2 on 16 × 32 against 42.3 on 16 × 16).
const WIDE_THREADS: u32 = 512;
/// On fast DRAM (`fast_dram`), past one wave of 32-row tiles, the float4 wide
/// kernel's row tiles are any multiple of 8 rows (`wide_fine_plan`): Tx even, the
/// fewest rows that still give every block an SM of its own, and blocks of at
/// most this many threads. Against [`wide_plan`]'s shapes (H200, kernel time,
/// `scripts/gemv-ab.py`, µs, the fastest of 8 to 16 shapes per size / this
/// rule's / wide_plan's): 4500² 22.59 / 22.59 (10 × 32) / 23.20 (16 × 32),
/// 5000² 26.21 / 26.21–26.34 (10 × 32) / 27.47–27.62, 5500² 31.57 / 31.66
/// (12 × 32) / 32.44, 6000² 36.25 / 36.38 (12 × 32) / 36.93, 6500² 42.33 /
/// 42.33 (14 × 24) / 43.52, 7000² 47.86 / 47.86 (14 × 24) / 49.36, 8192²
/// 64.51 / 66.05 (16 × 24) / 66.26, 9000² 79.51 / 79.51 (18 × 16) / 81.48 (24
/// × 21), 10000² 95.30 / 95.60 (20 × 16) / 96.84, 11000² 116.82 / 116.82 (22 ×
/// 16) / 121.47. Fuller blocks lost with these tiles (5000²: 10 × 48 27.05–27.11,
/// 10 × 51 27.60–27.77), and up to one wave of 32-row tiles wide_plan's 8 × 64
/// stays (2500²: 6 × 64, 105 blocks, 9.43 against 9.14; 4096² 8 × 48 18.98
/// against 18.58). On the H100 not timed, so not taken there.
const WIDE_FINE_THREADS: u32 = 384;
/// On fast DRAM the float4 wide kernel's twin for any A
/// (`gemv_n_f32_wide_any`) takes A that is not float4 from WIDE_MIN_ROWS up
/// to this many rows (Tx 12), before the sweep and the scalar lanes kernel
/// (where: [`wide_any_serves`]; shapes: [`wide_any_plan`]). Past one wave of
/// 32-row tiles, on wide_fine_plan's shapes (H200, kernel time,
/// `scripts/gemv-ab.py`, lda = m, µs, this / the sweep's 64 × 16 / cuBLAS): 4501² 23.65 / 26.52 / 26.73, 5001² 26.66 /
/// 30.72 / 30.92, 6001² 36.24 / 39.53 / 39.83; 4609² to 4639² (m mod 32 = 1,
/// 9, 14, 17, 22, 25, 30, 31) 0.86–0.91 of the sweep's time, 5505² to 5535²
/// 0.91–0.98; but 7009² to 7039² 0.97–1.03 (14 × 24), 9985² to 10015²
/// 1.01–1.04 (20 × 16 against 96 × 8), 11489² to 11519² 0.98–1.02. Up to
/// one wave of 32-row tiles, on 8 × 64 (µs, this / the sweep's 32 × 32 /
/// the lanes kernel's / cuBLAS): 2001² 7.79 / 8.42 / 9.84 / 8.14, 2501²
/// 9.80 / 10.73 / 11.89 / 10.52, 3001² 12.53 / 12.73 / 14.57 / 13.78, 3501²
/// 15.75 / 15.62 / 17.59 / 16.48. Where its tiles engage nearly every SM it
/// is taken below 4096 rows on wide matrices only (WIDE_ANY_FULL_WAVE_MIN_COLUMNS): on 8 × 48 4001² ran 18.44 (8 × 64 18.52) / 19.08 / 20.58 /
/// 18.16, and over n = 4097…4223 (n % 4 != 0, beta 0.5) 0.956–0.994 of the
/// sweep's time by n mod 32 (8 × 64 0.976–1.027), but through the library
/// (beta 0) 4097² to 4223² ran within 1 % of the sweep either way, and 4097
/// × 2001 and 4095 × 2000 4–5 % slower than the sweep and the lanes kernel
/// (11.68 against 11.16, 12.48 against 11.96).
const WIDE_ANY_MAX_ROWS: i64 = 6336;
/// Past WIDE_ANY_MAX_ROWS it takes A on at least WIDE_ANY_LONG_MIN_COLUMNS
/// columns, up to this many rows (Tx 24, the last of wide_fine_plan's shapes
/// with 16 thread rows; at Tx 26 it has 8, and ran 12 % slower than the
/// sweep at 12673² and 13001²). Through the library against the sweep (H200,
/// kernel time, `scripts/sgemv-builds.py`, odd lda, beta 0, µs, sweep / this
/// / cuBLAS): 7681² 59.79 / 57.03 / 59.39, 8001² 64.98 / 61.80 / 68.78,
/// 8193² 68.20 / 64.90 / 72.52, 9001² 82.40 / 81.25 / 99.58, 11489² 125.69 /
/// 123.60 / 142.90, 12001² 138.51 / 134.74 / 150.81, 12671² 155.96 / 148.75
/// / 165.52, 12001 × 16384 190.44 / 182.54 / 201.09, level at 9985² to
/// 10015² and 11001² (within 0.6 %), but 6553² 45.08 / 46.32 / 46.18
/// (45.11 / 45.87 in a second run)…
const WIDE_ANY_LONG_MAX_ROWS: i64 = 12672;
/// …and on fewer columns the sweep was faster: 8001 × 2001 18.85 / 19.57 /
/// 19.17, 11001 × 2001 24.04 / 24.67 / 26.05, 9001 × 4096 39.28 / 39.83 /
/// 47.60. On 6144 columns or more (the final rule, same units): 8001 × 6144
/// 50.76 / 48.75 / 49.42, 9001 × 6144 57.11 / 56.91 / 68.44, 11001 × 6144
/// 67.68 / 67.62 / 79.83, 12001 × 8192 95.55 / 93.50 / 107.74, 7001 × 12001
/// 84.57 / 81.00 / 86.10. Between 4096 and 6144 columns not timed.
const WIDE_ANY_LONG_MIN_COLUMNS: i64 = 6144;
/// The any-A kernel takes 32-row tiles where they engage less than this
/// share of the SMs (up to 4000 rows on 132 SMs)…
const WIDE_ANY_32_ROW_TILES_MAX_COVERAGE: f64 = 0.95;
/// …on at least this many columns (on fewer the sweep was faster: H200,
/// kernel time, `scripts/gemv-ab.py`, µs, sweep on 32 × 32 / this on 8 × 64 /
/// cuBLAS: 2001 × 1024 5.45 / 6.41 / 12.87, 3001 × 1024 6.21 / 7.10 / 5.70,
/// 2001 × 768 4.80 / 6.27 / 10.05; on 2000 columns or more this was faster
/// or level: 2001² 7.98 / 7.71 / 8.00, 2501² 10.37 / 9.75 / 10.39, 3001²
/// 12.44 / 12.45 / 13.64, 3501² 15.40 / 15.70 / 16.33, 1999 × 4001 12.96 /
/// 12.28 / 14.08)…
const WIDE_ANY_SHORT_MIN_COLUMNS: i64 = 2000;
/// …and up to SWEEP_MIN_ROWS_SCALAR rows also where its 32-row tiles engage
/// nearly every SM, on at least this many columns (same units, the lanes
/// kernel the third: 4001 × 2001 10.89 / 11.11 / 11.93, 4065 × 2001 11.03 /
/// 11.41 / 12.01, 4001 × 3001 14.97 / 14.86 / 16.31, 4001² 18.93 / 18.57 /
/// 20.46, 4065 × 6001 27.43 / 26.58 / 29.21, 4095 × 8001 36.38 / 34.31 /
/// 38.04; cuBLAS 10.53, 10.65, 15.63, 18.18, 26.36, 34.09).
const WIDE_ANY_FULL_WAVE_MIN_COLUMNS: i64 = 3000;
/// Columns a thread row of the wide kernels has in flight (`gemv_n<VEC, 8, …>` in kernels/gemv.cu).
const WIDE_GROUP_COLUMNS: u64 = 8;
/// The wide N kernels need at least this many rows (`wide_pays`; the fewest
/// measured: at 1000² their 32 blocks were not tried)…
const WIDE_MIN_ROWS: i64 = 2000;
/// …and replace a split of at least this many ranges on at most
/// WIDE_MAX_SPLIT_COLUMNS columns, or run on at least WIDE_MIN_ROWS columns.
const WIDE_MIN_SPLIT: u32 = 8;
const WIDE_MAX_SPLIT_COLUMNS: i64 = 4096;
/// The wide kernels that read x through L1 take at most this many columns
/// (64 KiB of x); wider matrices run `gemv_n_f32_wide_staged` (kernels/gemv.cu).
const WIDE_L1_MAX_COLUMNS: i64 = 16384;
/// The staged wide kernel needs a grid that engages at least this share of
/// the SMs (2000 × 8192, 63 blocks: 28.1 µs against 27.0 for the default's
/// 8-way split; the L1 kernel took 24.2 there).
const WIDE_STAGED_MIN_COVERAGE: f64 = 0.5;
/// The few-columns N kernel (`gemv_n_f32_few`, the float4 wide kernel's
/// code): row tiles of FEW_TX · 4 = 32 rows, unsplit, Ty thread rows of 8
/// columns each; [`few_plan`] chooses Ty.
const FEW_TX: u32 = 8;
const FEW_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 8, tx_min: FEW_TX, tx_max: FEW_TX, ty_min: 4, ty_max: 64, splits: &[1] };
/// Where it serves ([`few_serves`]): on fast DRAM (only an H200 measured), at
/// most FEW_MAX_COLUMNS columns, FEW_MIN_ROWS to FEW_MAX_ROWS rows, the
/// range timed (H200, kernel time, `scripts/gemv-ab.py` and
/// `scripts/sgemv-builds.py`, µs, the routine's kernel before / this one /
/// cuBLAS): 4096 × 768 8.31 / 5.93 / 6.42, 4096 × 1536 11.20 / 8.68 /
/// 8.64, 8192 × 128 3.93 / 3.48 / 3.20, 20000 × 256 8.14 / 7.45 / 7.35,
/// 100000 × 32 10.18 / 5.66 / 7.30, 512 × 128 2.94 / 2.38 / 2.74.
const FEW_MAX_COLUMNS: i64 = 1536;
const FEW_MIN_ROWS: i64 = 256;
/// On at most N_SPLIT_MIN_COLUMNS columns (which the narrow and short
/// kernels do not split) from this many rows: there the short kernel's one
/// block reads its columns in several rounds, each a trip to memory, and
/// the narrow kernels stage x first. H200, kernel time (`scripts/gemv-ab.py`,
/// matrices mostly in the L2), µs, this one on 32-row tiles / cuBLAS: 16 ×
/// 512 2.65 / 2.03, 32 × 512 2.65 / 2.25, 64 × 512 2.70 / 2.30, 128 × 512
/// 2.71 / 2.39, odd lda 33 × 512 3.43 / 2.25; through the library, rotated
/// past the L2, the short and narrow kernels took 3.10 (16 × 512), 3.55,
/// 4.48, 3.27 and 5.36 against cuBLAS's 2.08 to 2.31; the short kernel's
/// 512 threads on 64 × 512 5.18 (`gemv-ab.py`, rotated). The clusters took
/// 2.89 to 3.07 there.
const FEW_SHORT_MIN_ROWS: i64 = 9;
const FEW_MAX_ROWS: i64 = 200_000;
/// The few-columns kernel for any A: [`few_any_serves`].
const FEW_ANY_MAX_COLUMNS: i64 = N_SPLIT_MIN_COLUMNS as i64;
const FEW_ANY_MAX_ROWS: i64 = 24_576;
const FEW_ANY_LONG_MAX_COLUMNS: i64 = 64;
/// Where no grid of it runs in one wave, it pays on at most this many
/// columns (`few_pays`; 200000 rows, µs, the default's split / this one:
/// 256 columns 53.5 / 52.1, 512 101.3 / 102.0, 1000 193.9 / 198.8).
const FEW_MAX_COLUMNS_IN_WAVES: i64 = 256;
/// At most 512 threads: a block of 1024 holds an SM alone (60 registers), so
/// the 256 ranges that fill the GPU would run in two waves (H100, m = 16,
/// n = 2^20: 39 µs against 36 µs with 512 threads).
const SHORT_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 512, ty_min: 1, ty_max: 1, splits: SPLITS };
/// Split, at most this many threads: on the 256 ranges of 1 × 2^20, 512
/// threads took 7.39 µs and 256 7.00, on those of 1 × 262144 5.67 against
/// 4.88 (H200, kernel time, `scripts/gemv-ab.py`; cuBLAS 7.33 and 4.49).
const SHORT_SPLIT_MAX_THREADS: u32 = 256;
const T_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 1024, ty_min: 1, ty_max: 1, splits: SPLITS };
/// The short T kernels never split: a column's rows are one lane group's. At
/// most 64 threads: a block reads its columns in one round and exits, and
/// on the H100 (m = 16, n = 2^20, every block size timed in one run) time grew
/// with the block: 37.8 µs at 32 threads, 41.9 at 64, 43–44 at 128 and 256,
/// 46–62 from 288 to 1024; among 32 to 128 the optimizer's largest
/// Grid-Occupancy fell on 96 threads (51.0 µs).
/// `gemv_t_f32_l1_any`: blocks of 256 threads (8 columns), unsplit. 256 was
/// the fastest block timed on the H100 (kernel time, `scripts/gemv-ab.py`,
/// µs): 2001² 8.32 against 8.99 on the 480 threads an optimizer recipe took,
/// 4097² 26.20 / 26.16 on 512, 8191² 93.19 / 93.29 on 512 and 94.34 on 1024,
/// 10001² 140.97 / 146.81 on 1024, 1023 × 65536 88.85 / 99.89 on 1024.
const L1_ANY_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 256, tx_max: 256, ty_min: 1, ty_max: 1, splits: &[1] };
/// `gemv_t_f32_l1_any` takes matrices of at least this many columns: below, its
/// blocks of 8 columns were no faster than the kernels it would replace (H100,
/// kernel time, µs: 1001² 3.35 against the scalar kernel's 3.34, 257² 2.60 /
/// 2.32; 1000² 3.28 against `gemv_t_f32_lean_l1`'s 3.07, 1024² 3.31 / 3.08)…
const L1_ANY_MIN_COLUMNS: i64 = 2000;
/// …and, where A is float4 too, at most this many rows: past them the default
/// kernel's 8 loads in flight per lane read long columns faster (16384² 352.0
/// against 350.1 µs, 20000² 524.0 / 521.5, 32768² 1395.6 / 1382.5; level at
/// 8192² and 10000², 90.9 / 91.1 and 138.5 / 139.0).
const L1_ANY_FLOAT4_MAX_ROWS: i64 = 10000;
/// `gemv_t_f32_paired`: blocks of 256 threads (8 columns), unsplit. Blocks
/// of 64 and 128 ran within 1 % of 256 (H200, kernel time, µs: 2048² 6.17 /
/// 6.18 / 6.13, 10000² 89.9 / 90.0 / 90.5, 65536 × 1024 68.6 / 68.6 / 68.5).
const PAIRED_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 256, tx_max: 256, ty_min: 1, ty_max: 1, splits: &[1] };
/// `gemv_t_f32_paired_any` on blocks of 64 threads: 2 columns a block, so that
/// 600 columns fill every SM (300 blocks, not 75), and 1-4 % faster than 256
/// on squares too (H200, kernel time, odd lda, µs, 64 / 256: 3001² 12.17 /
/// 12.68, 4097² 18.76 / 19.13, 5001² 27.24 / 28.40, 10001² 93.5 / 95.3).
const PAIRED_ANY_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 64, tx_max: 64, ty_min: 1, ty_max: 1, splits: &[1] };
/// Where `gemv_t_f32_l1_any` serves an odd lda (A not float4), the unsplit
/// paired kernel for any A takes the call from it on columns of at least
/// this many rows ([`paired_any_over_l1_any`]). H200, kernel time, odd lda,
/// µs, paired any on 64 threads / l1 any / cuBLAS (`scripts/gemv-ab.py`):
/// 2049² 6.68 / 7.23 / 7.29, 4103² 18.77 /
/// 19.86 / 23.15, 5001² 27.24 / 33.72 / 30.93 (the routine ran the scalar
/// lean kernel, 29.44 through the library), 6001² 36.20 / 40.65 / 42.30,
/// 10001² 93.48 / 102.54 / 117.98, 20001² 365.4 / 377.7 / 410.6, 30001 ×
/// 2001 57.70 / 67.82 / 60.95, 2049 × 8192 19.18 / 19.97 / 25.32. On
/// shorter columns its head, tail and shifted rounds cost more than its
/// paired requests save: 1023 × 65536 80.26 / 66.04 / 66.87, 513 × 10001
/// 11.51 / 9.21 / 8.64…
const PAIRED_ANY_OVER_L1_ANY_MIN_ROWS: i64 = 2000;
/// …except where `gemv_t_f32_l1_any` runs in one wave filled to less than
/// this Grid-Occupancy and the paired kernel, at half its warps per SM
/// (128 registers against 64), needs a second, part-filled wave (132 SMs:
/// 2113 to 3801 columns; µs as above, 2501² 10.45 / 9.51, 3001² 12.15 /
/// 11.74, 3583² 15.74 / 15.37, 1001 × 3001 6.42 / 5.85). From 0.9 on the
/// paired kernel's second wave is nearly full (3999² 18.06 / 18.29, 4097²
/// 18.74 / 19.25, 4223² 20.83 / 20.90). Through the library against the
/// build before (`scripts/sgemv-builds.py`, µs, 127 shapes changed): off the
/// saw-tooth 31 shapes 1.05x faster by geometric mean (0.96–1.15x; 1.15x to
/// 1.21x cuBLAS's speed; 9001² 91.25 → 79.42, 5001² 29.17 → 27.28 from the
/// scalar lean kernel; 2001 × 4001 10.56 → 11.00 the one slower); on the
/// T saw-tooth's 96 sizes with n % 4 ≠ 0 level (1.000x; 4097² 19.33 → 18.80,
/// 4105² 20.13 → 18.96, 4186² 20.12 → 20.68), the slowest 2.0 % above the
/// median instead of 3.4 %.
const L1_ANY_KEEPS_BELOW_GRID_OCCUPANCY: f64 = 0.9;
/// `gemv_t_f32_paired` takes matrices of at least this many columns: on
/// fewer, as many warps as columns left it behind the lean kernel with x
/// through L1 (H200, kernel time, µs: 512² 2.30 against 2.21, 256² 2.15 /
/// 2.02; 768² 2.71 / 3.10)…
const PAIRED_MIN_COLUMNS: i64 = 768;
/// …and at most this many rows: its row indices are 32-bit. On fewer
/// columns, down to PAIRED_SHORT_MIN_COLUMNS, it serves matrices of more
/// rows than columns and fewer than PAIRED_SHORT_ROWS_PER_COLUMN rows per
/// column (16 rows per lane of each block's 8 warps: 128 per SM slot),
/// where the split paired kernel's ranges and partial sums cost more than
/// its extra warps bring (H200, kernel time, µs, unsplit / split / cuBLAS:
/// 2048 × 512 3.24 / 4.55 / 3.36, 4096 × 512 4.85 / 5.73 / 5.01, 1024 × 512
/// 2.25 / - / 2.95, 3000 × 384 3.81 / 5.15 / 6.33, 4096 × 384 4.52 / 5.27 /
/// 4.63, 8192 × 700 8.67 / 9.44; the lean kernel with x through L1, which
/// the routine ran on some of these, 4.65 at 2048 × 512 and 3.30 at 1024 ×
/// 512). At 16 rows per column they tied (4096 × 256 4.22 / 4.61 as
/// kernels, 4.63 / 4.64 through the library; 8192 × 512 7.81 / 7.78); past
/// it the split won (6000 × 300 5.94 / 5.30 through the library, 8192 × 256
/// 7.20 / 5.71, 16384 × 384 12.80 / 9.84).
const PAIRED_MAX_ROWS: i64 = i32::MAX as i64 - 1024;
const PAIRED_SHORT_MIN_COLUMNS: i64 = 256;
/// It also takes the matrices of at most PAIRED_TINY_MAX_ROWS rows on at most
/// PAIRED_TINY_MAX_COLUMNS columns, whose few blocks the lean kernel with x
/// through L1 sized for occupancy, up to 1024 threads for 2 columns: a
/// block's warps cost its launch even without a column (H200, kernel time,
/// `scripts/gemv-ab.py`, µs, paired on 256 threads / lean L1 on 32, 256 and
/// 1024 / cuBLAS: 128 × 2 1.47 / - / 1.85 / 2.86, 512 × 2 1.46 / 1.63 / 1.99
/// / -, 128 × 16 1.82 / 1.71 / 1.97 / -, 512 × 8 1.99 / 1.95 / 2.28 / -;
/// cuBLAS 1.80 to 2.67).
const PAIRED_TINY_MAX_ROWS: i64 = 512;
const PAIRED_TINY_MAX_COLUMNS: i64 = 32;
const PAIRED_SHORT_ROWS_PER_COLUMN: i64 = 16;
/// `gemv_t_f32_paired_split`: the paired kernel's blocks, split over rows;
/// `paired_split_plan` weighs these splits (2 to 3 blocks per SM for 1 to
/// 128 blocks of columns on 132 SMs).
const PAIRED_SPLIT_SPACE: LaunchSpace = LaunchSpace {
    tx_step: 32,
    tx_min: 256,
    tx_max: 256,
    ty_min: 1,
    ty_max: 1,
    splits: &[2, 3, 4, 5, 6, 8, 12, 16, 24, 33, 48, 66, 132, 198, 264],
};
/// The split paired kernel's row ranges are whole stretches of 128 rows (a
/// float4 per lane; the kernel needs multiples of 4). Ranges of 2048 rows
/// left a short last range: 32771 × 768 in 4 ranges ran 30.26 µs in ranges
/// of 10240 rows, 29.19 in 9216 and 28.76 in 8320 (H200, kernel time)…
const PAIRED_ROW_GRANULE: u64 = 128;
/// …and at least this long, one round of the kernel's loads: 2048 × 512 ran
/// 4.22 µs in 2 ranges, 4.62 in 4 (H200, kernel time; 5.37 on the default).
const PAIRED_SPLIT_MIN_RANGE: u64 = 1024;
/// On at most PAIRED_SPLIT_SHORT_RANGE_MAX_COLUMNS columns, where ranges of
/// PAIRED_SPLIT_MIN_RANGE rows give no grid that pays, ranges of half as
/// many: there the default ran 4 to 8 blocks (H200, kernel time, µs,
/// `scripts/gemv-ab.py`: 4096 × 64 6.19 on the default, 3.76 split 8 ways
/// into 512-row ranges, cuBLAS 3.74). On more columns the short ranges lost
/// to the routine's kernels (2048 × 128: 3.77 split 4 ways, 3.69 lean).
const PAIRED_SPLIT_SHORT_RANGE: u64 = 512;
const PAIRED_SPLIT_SHORT_RANGE_MAX_COLUMNS: u64 = 64;
/// From PAIRED_MIN_COLUMNS columns on, where the unsplit paired kernel
/// serves, the split one serves matrices of at least this many rows where
/// the unsplit grid leaves an eighth of the SMs idle or more: on fewer, the
/// unsplit kernel was as fast or faster (H200, kernel time, µs, unsplit /
/// split 2 / 3 / 4: 20000 × 1024 22.6 / 23.5 / 23.5 / 24.2, 8192 × 1024
/// 10.75 / 11.64; 16384 × 768 16.5 / 16.0 / 16.6 / 16.3; 32768 × 768 30.7 /
/// 28.7 / 30.4 / 28.2)…
const PAIRED_SPLIT_MIN_ROWS: i64 = 32768;
/// …and this many where it engages more SMs: 65536 × 1024 (128 blocks of
/// columns) ran 68.1 µs unsplit against 69.7 split 2 ways, 40003 × 1030
/// 43.2 against 44.0, where 100000 × 1024 ran 104.9 against 97.1 and
/// 1000000 × 1024 972.5 against 914.0 (H200, `scripts/sgemv-builds.py`).
const PAIRED_SPLIT_MIN_ROWS_FULL_GRID: i64 = 100_000;
/// Where the unsplit paired kernel's grid needs two waves or more, at most
/// this many, and fills the last to less than PAIRED_TAIL_MAX_LAST_FILL, the
/// split paired kernel takes matrices of PAIRED_SPLIT_MIN_ROWS rows or more
/// in PAIRED_TAIL_SPLIT ranges ([`paired_tail_split_serves`]): blocks a
/// quarter as long shorten a part-filled last wave, whose few blocks do not
/// keep DRAM busy. H200, kernel time, `OP=T GRANULE=128 scripts/gemv-ab.py`, µs,
/// unsplit / split 4 / cuBLAS (3 blocks of 8 columns per SM, 396 a wave):
/// 65536 × 3200 (400 blocks, the last wave 0.01 full) 220.5 / 201.7 /
/// 213.4, 65536 × 3584 241.0 / 225.1 / 238.4, 65536 × 4096 (0.29) 265.1 /
/// 255.2 / 273.6, 65536 × 5120 (0.62) 325.7 / 318.2 / 333.0, 65536 × 7040
/// (3 waves, 0.22) 447.2 / 428.6 / 459.1, 131072 × 3500 462.0 / 432.5 /
/// 454.6, 200000 × 3456 689.6 / 634.2 / 674.0, 262144 × 5000 1247.1 /
/// 1184.2 / 1266.9, 32768 × 3500 123.2 / 116.3 / 119.4. Split 2 and 8 were
/// within 2 % of 4 or slower, but for 8 on 200000 rows and more (up to 1.9 %
/// faster). Where the last wave is fuller the split was level or slower
/// (65536 × 6144 (0.94) 373.4 / 374.6, 65536 × 3072 (one wave, 0.97) 191.5
/// / 194.0), as on more waves (65536 × 16384 (6 waves) 965.6 / 972.8,
/// 20000² 360.4 / 375.0) and on shorter columns (16384 × 4000 63.1 / 65.2,
/// 24576 × 4000 93.3 / 93.8). The one loss measured inside the rule:
/// 32768 × 8192 (3 waves, 0.59) 254.9 / 257.0.
const PAIRED_TAIL_MAX_WAVES: u64 = 3;
const PAIRED_TAIL_MAX_LAST_FILL: f64 = 0.85;
const PAIRED_TAIL_SPLIT: u32 = 4;
/// Where x lies an odd number of floats off A's float4s in some column
/// (lda odd, or A and x at floats of different parity: shifts of 1 and 3
/// floats), the split paired kernel for any A takes columns of more than
/// this many rows whether or not its grid fits one wave
/// (`long_any_split_serves`)… Unsplit, or split to fit one wave, those
/// calls fell behind from 50000 rows on; with x 0 or 2 floats off (even
/// lda, x and A of one parity) they did not, nor did the float4 kernel.
/// H200, kernel time (`OP=T GRANULE=128 scripts/gemv-ab.py`), µs, unsplit
/// / best split (of 2, 3, 5, 8) / cuBLAS: odd lda 40001 × 2001 78.6 / 81.1
/// / 80.5, 65537 × 2001 140.7 / 132.1 / 131.5, 100001 × 2001 214.5 / 192.3
/// / 208.0, 200001 × 2001 431.1 / 370.8 / 394.2, 400001 × 2001 875.4 /
/// 728.8 / 752.3, 131073 × 1001 162.3 / 128.6 / 136.6 (split 2, one wave:
/// 142.1); lda 16-byte aligned, x 1 float off: 65536 × 2001 172.7 / 150.6 /
/// 130.0, 100000 × 2001 247.7 / 214.0 / 202.4, 100000 × 1001 183.1 / 106.1
/// / 102.8; x 2 floats off: 100000 × 2001 184.1 / 187.0 / 202.3; lda ≡ 2
/// (mod 4): 65538 × 2001 123.9 / 131.7 / 128.6, 200002 × 2001 360.4 /
/// 361.8 / 383.7; float4: 131072 × 2048 246.8 / 253.4 / 271.6. The x 1
/// float off figures predate the sm_90 fix of that loop (kernels/gemv.cu,
/// gemv_t_paired_rows): since, unsplit 100000 × 2001 188.7 against split
/// 2 191.0, 65536 × 4000 247.4 / 251.0, where odd lda still wants the
/// split (200001 × 2001 381.7 / 369.8).
const PAIRED_ANY_LONG_MIN_ROWS: i64 = 60_000;
/// …cut into ranges of at most this many rows (`long_any_split_plan`: the
/// smallest split of its space that gives them). The fastest splits timed
/// above had ranges of 16385 to 50001 rows; this rule's split was the
/// fastest or within 3 % of it, except at 131073 × 1001 (3 ranges: 137.6
/// against 128.6 on 8).
const PAIRED_ANY_MAX_RANGE_ROWS: u64 = 48_000;
/// `gemv_t_f32_stacked`: one column a block, Ty warps sharing its rows
/// ([`stacked_plan`]), at most 512 threads (its launch bounds). Two columns
/// a block (Tx 64) ran 1-8 % slower at Ty 4 and 8 (H200, kernel time:
/// 8192 x 128 3.60 / 3.70 µs at Ty 8, 4096 x 32 2.62 / 2.70 at Ty 4).
const STACKED_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 32, ty_min: 1, ty_max: 16, splits: &[1] };
/// A stacked warp's rows: one round of the paired loads (8 float4s a lane)…
const STACKED_WARP_ROWS: u64 = 1024;
/// …and at most twice as many once [`stacked_plan`] has halved Ty to fit one
/// wave; on more the split paired kernel's grid over every SM won (H200,
/// kernel time, µs, stacked / split / cuBLAS: 32768 x 32 on 16 warps 4.60 /
/// 4.83 / 5.06, 65536 x 32 6.81 / 6.01 / 6.22, 131072 x 16 10.20 / 6.52 /
/// 6.37).
const STACKED_MAX_WARP_ROWS: u64 = 2 * STACKED_WARP_ROWS;
/// It serves at most this many columns: from 768 on, with Ty 2, it lost to
/// the paired kernel's warp per column (2048 x 768 4.08 / 3.64 µs)…
const STACKED_MAX_COLUMNS: i64 = 512;
/// …and with Ty 2, at most this many (2048 x 256: 2.98 against the paired
/// kernel's 2.72; 2048 x 128 2.68 / 2.86).
const STACKED_PAIR_MAX_COLUMNS: i64 = 128;
/// On fewer than STACKED_FEW_COLUMNS columns (as many SMs), at most this
/// many rows: the split kernel's ranges on 64 SMs read 32768 x 1 in 2.90 µs
/// against 3.29 on one SM's 16 warps, 32768 x 8 3.61 / 3.73, where 24000 x
/// 1 ran 3.20 / 3.13 and 24000 x 8 3.70 / 3.49 (H200, kernel time through
/// the library).
const STACKED_FEW_COLUMNS: i64 = 16;
const STACKED_FEW_COLUMNS_MAX_ROWS: i64 = 24576;
const T_SHORT_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 64, ty_min: 1, ty_max: 1, splits: &[1] };

/// The groups T kernels (`gemv_t_f32_groups4`, `_groups6` and their `_scalar`
/// twins) serve op T from SHORT_ROWS_MAX + 1 to this many rows…
const GROUPS_MAX_ROWS: i64 = 384;
/// …and for A that is not float4 to this many (the 4-group kernel's 128 ·
/// 4). There the alternatives read A as float4 from each column's first
/// 16-byte boundary and x as floats (`gemv_t_f32_l1_any`) or four bytes at a
/// time: odd lda, H200, kernel time (`scripts/gemv-ab.py`), µs, the scalar
/// 4-group kernel / `gemv_t_f32_l1_any` / cuBLAS: 448 × 8192 6.66 / 7.56 /
/// 6.40, 448 × 262144 125.6 / 152.9 / 127.2.
const GROUPS_SCALAR_MAX_ROWS: i64 = 512;
/// …on at least this many columns. H200, kernel time (`scripts/gemv-ab.py`),
/// µs, the groups kernel / the paired kernel: at 4096 columns level or ahead
/// (65 rows 2.87 / 3.78, 256 3.42 / 3.86, 384 4.24 / 4.19); at 2048, where
/// a block of 256 threads covers 64 to 256 columns, behind on every row
/// count tried (128 rows 2.50 / 2.45, 256 2.87 / 2.62, 384 3.48 / 2.88).
/// From 448 rows (32 lanes a column) the paired kernel was faster up to
/// 8192 columns (448 × 8192 6.64 / 6.32) and level at 512 × 262144 (130.5 /
/// 129.7).
const GROUPS_MIN_COLUMNS: i64 = 4096;
/// Columns a lane of the groups kernels holds (GEMV_T_GROUPS_COLUMNS).
const GROUPS_COLUMNS_PER_LANE: u64 = 2;
/// Threads a block of the groups kernels: 256 (a quarter of the SM's at
/// their 64 to 97 registers), 128 where that leaves SMs without a block.
const GROUPS_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 128, tx_min: 128, tx_max: 256, ty_min: 1, ty_max: 1, splits: &[1] };

/// The cluster N kernels (`gemv_n_f32_cluster16`, `_cluster32` and their
/// `_scalar_` twins; thread-block clusters, so sm_90 machine code only,
/// [`runs_clusters`]): this many blocks a row tile, each a range of the
/// columns, their sums added through distributed shared memory
/// (GEMV_CLUSTER in kernels/gemv.cu).
pub const CLUSTER_BLOCKS: u32 = 8;
/// They serve op N on at most this many rows (those of the short kernels too:
/// a split through partial sums of one tile of up to 64 rows ran 1.7–3.4×
/// slower than clusters of 16-row tiles, 64 × 4096 8.14 µs against 3.47)…
const CLUSTER_MAX_ROWS: i64 = 1024;
/// …on more than N_SPLIT_MIN_COLUMNS columns, in one cluster a tile up to
/// ranges of this many a block (past them one cluster was slower than the
/// narrow kernels' and the default's splits: 128 × 32768 11.4 µs against
/// 10.3, 512 × 32768 22.8 / 21.9)…
const CLUSTER_MAX_RANGE_COLUMNS: i64 = 2048;
/// …and past CLUSTER_BLOCKS such ranges on at most this many rows, in
/// several clusters a tile ([`clusters_per_tile`]), whose sums the last of
/// them adds from partial vectors. H200, kernel time through the library
/// (`scripts/sgemv-builds.py`), µs, several clusters / the kernels before /
/// cuBLAS: 64 × 32768 7.05 / 11.70 / 6.60, odd lda 65 × 262144 27.4 / 96.4
/// / 28.4, 128 × 262144 39.5 / 85.8 / 36.1; from 129 rows on they lost
/// as often as they won (129 × 1048576 with odd lda 224 / 147 / 166, 200 ×
/// 1048576 257 / 208 / 234, odd lda 255 × 65536 32.5 / 23.6 / 20.9).
const CLUSTER_GROUPS_MAX_ROWS: i64 = 128;
/// …and at least this many: on fewer, a 16-row tile's lanes (4 a column)
/// hold rows that are not there, where the short kernel gives each column 1
/// or 2 lanes (µs, as above: 1 × 1048576 19.5 / 9.1 / 8.4, 8 × 262144 9.0
/// / 8.2 / 8.2).
const CLUSTER_GROUPS_MIN_ROWS: i64 = 9;
/// Several clusters a tile aim at a block per SM, and at two past this many
/// elements of A (H200, `scripts/gemv-ab.py`, µs, blocks per SM 1 / 2: 16 ×
/// 32768 5.45 / 5.98, 64 × 65536 9.70 / 9.94, 65 × 65536 12.85 / 11.82, 17
/// × 262144 12.60 / 11.77, 128 × 262144 39.6 / 38.1; four were slower
/// throughout), where 33 to 64 rows also take one tile of 64 instead of two
/// of 32 (µs, 32 / 64: 48 × 262144 21.1 / 19.6, 48 × 1048576 67.0 / 56.0,
/// odd lda 64 × 262144 30.3 / 24.7, but 64 × 1048576 71.0 / 73.6).
const CLUSTER_TWO_PER_SM_MIN_ELEMENTS: u64 = 1 << 22;
/// Several clusters a tile: at most this many up to
/// CLUSTERS_SHORT_MAX_COLUMNS columns, where a block per SM left each block
/// too few columns to pay for its share of the partial vectors. H200,
/// kernel time through the library (`scripts/sgemv-builds.py`, each pair of
/// builds named both ways), µs, a block per SM / at most 8: 9 × 16385
/// 5.57–5.72 / 4.96–4.97, 16 × 24576 5.44–5.45 / 4.90–4.91, 16 × 32768
/// 5.59–5.64 / 5.04–5.14, 17 × 20000 5.83–5.87 / 5.56–5.60, 32 × 32768
/// 6.29–6.31 / 6.12–6.13; level on 65536 columns (`scripts/gemv-ab.py`, 16
/// × 65536 6.59 / 6.51). Several clusters a tile on up to 16384 columns
/// were not kept (docs/performance.md, "Fewer clusters a tile on up to
/// 32768 columns").
const CLUSTERS_SHORT_MAX: u64 = 8;
const CLUSTERS_SHORT_MAX_COLUMNS: i64 = 32768;
/// …and from FEW_MIN_ROWS rows on, only past FEW_MAX_COLUMNS columns, where
/// the few-columns and narrow kernels were level or faster (512 × 1024 3.30
/// against 3.64, 1000 × 600 with odd lda 3.89 against 4.21).
/// Blocks of 256 threads (128 for `mublas tune` and the tests), and one,
/// two or five clusters a tile for them ([`cluster_plan`] takes any number).
const CLUSTER_SPACE: LaunchSpace = LaunchSpace {
    tx_step: 128,
    tx_min: 128,
    tx_max: 256,
    ty_min: 1,
    ty_max: 1,
    splits: &[CLUSTER_BLOCKS, 2 * CLUSTER_BLOCKS, 5 * CLUSTER_BLOCKS],
};

/// op N, A 16-byte aligned and lda % 4 == 0. problem.m = rows, problem.n = columns of A.
pub static GEMV_N: KernelSpec = KernelSpec { name: "gemv_n_f32", space: N_SPACE, geometry: n_geometry };
/// op N, any alignment and lda.
pub static GEMV_N_SCALAR: KernelSpec = KernelSpec { name: "gemv_n_f32_scalar", space: N_SPACE, geometry: n_geometry };
/// GEMV_N and GEMV_N_SCALAR in row tiles of 32 to 128 rows, unsplit.
pub static GEMV_N_NARROW: KernelSpec =
    KernelSpec { name: "gemv_n_f32_narrow", space: NARROW_SPACE, geometry: n_geometry };
pub static GEMV_N_SCALAR_NARROW: KernelSpec =
    KernelSpec { name: "gemv_n_f32_scalar_narrow", space: NARROW_SPACE, geometry: n_geometry };
/// GEMV_N and GEMV_N_SCALAR with 8 columns in flight per thread, unsplit.
pub static GEMV_N_WIDE: KernelSpec = KernelSpec { name: "gemv_n_f32_wide", space: WIDE_SPACE, geometry: n_geometry };
pub static GEMV_N_SCALAR_WIDE: KernelSpec =
    KernelSpec { name: "gemv_n_f32_scalar_wide", space: WIDE_SPACE, geometry: n_geometry };
/// GEMV_N_WIDE's float4 loads for any A and lda >= 4 (`wide_any_serves`).
pub static GEMV_N_WIDE_ANY: KernelSpec =
    KernelSpec { name: "gemv_n_f32_wide_any", space: WIDE_SPACE, geometry: n_geometry };
/// GEMV_N_WIDE on 32-row tiles with as many thread rows as the columns keep busy (FEW_SPACE).
pub static GEMV_N_FEW: KernelSpec = KernelSpec { name: "gemv_n_f32_few", space: FEW_SPACE, geometry: n_geometry };
/// Its twin for any A (GEMV_N_SCALAR_WIDE's code), where `few_any_serves`.
pub static GEMV_N_SCALAR_FEW: KernelSpec =
    KernelSpec { name: "gemv_n_f32_scalar_few", space: FEW_SPACE, geometry: n_geometry };
/// GEMV_N_SCALAR unsplit in one wave of one block of LONG_THREADS per SM.
pub static GEMV_N_SCALAR_LONG: KernelSpec =
    KernelSpec { name: "gemv_n_f32_scalar_long", space: LONG_SPACE, geometry: n_geometry };
/// GEMV_N_SCALAR with at most 8 thread rows, for grids that put two blocks on an SM.
pub static GEMV_N_SCALAR_THIN: KernelSpec =
    KernelSpec { name: "gemv_n_f32_scalar_thin", space: THIN_SPACE, geometry: n_geometry };
/// op N, any alignment and lda: a row per lane, for one wave of 32-row tiles.
pub static GEMV_N_SCALAR_LANES: KernelSpec =
    KernelSpec { name: "gemv_n_f32_scalar_lanes", space: LANES_SPACE, geometry: lanes_geometry };
/// op N, any alignment and lda: a row per thread, for one wave of row tiles on fast DRAM.
pub static GEMV_N_SWEEP: KernelSpec =
    KernelSpec { name: "gemv_n_f32_sweep", space: SWEEP_SPACE, geometry: lanes_geometry };
/// The float4 wide kernel with x staged in shared memory, past WIDE_L1_MAX_COLUMNS columns.
pub static GEMV_N_WIDE_STAGED: KernelSpec =
    KernelSpec { name: "gemv_n_f32_wide_staged", space: WIDE_SPACE, geometry: n_geometry };
/// op N, m ≤ SHORT_ROWS_MAX, A 16-byte aligned and lda % 4 == 0.
pub static GEMV_N_SHORT: KernelSpec =
    KernelSpec { name: "gemv_n_f32_short", space: SHORT_SPACE, geometry: short_geometry };
/// op N, m ≤ SHORT_ROWS_MAX, any alignment and lda.
pub static GEMV_N_SHORT_SCALAR: KernelSpec =
    KernelSpec { name: "gemv_n_f32_short_scalar", space: SHORT_SPACE, geometry: short_geometry };
/// op N on at most CLUSTER_MAX_ROWS rows, row tiles of 16, 32 or 64 rows
/// in clusters of CLUSTER_BLOCKS column ranges (`cluster_serves`), A
/// 16-byte aligned and lda % 4 == 0, or any A (`_scalar_`).
pub static GEMV_N_CLUSTER16: KernelSpec =
    KernelSpec { name: "gemv_n_f32_cluster16", space: CLUSTER_SPACE, geometry: n_cluster16_geometry };
pub static GEMV_N_CLUSTER32: KernelSpec =
    KernelSpec { name: "gemv_n_f32_cluster32", space: CLUSTER_SPACE, geometry: n_cluster32_geometry };
pub static GEMV_N_SCALAR_CLUSTER16: KernelSpec =
    KernelSpec { name: "gemv_n_f32_scalar_cluster16", space: CLUSTER_SPACE, geometry: n_cluster16_geometry };
pub static GEMV_N_SCALAR_CLUSTER32: KernelSpec =
    KernelSpec { name: "gemv_n_f32_scalar_cluster32", space: CLUSTER_SPACE, geometry: n_cluster32_geometry };
pub static GEMV_N_CLUSTER64: KernelSpec =
    KernelSpec { name: "gemv_n_f32_cluster64", space: CLUSTER_SPACE, geometry: n_cluster64_geometry };
pub static GEMV_N_SCALAR_CLUSTER64: KernelSpec =
    KernelSpec { name: "gemv_n_f32_scalar_cluster64", space: CLUSTER_SPACE, geometry: n_cluster64_geometry };
/// op T, A 16-byte aligned and lda % 4 == 0.
pub static GEMV_T: KernelSpec = KernelSpec { name: "gemv_t_f32", space: T_SPACE, geometry: t_geometry };
/// op T, any alignment and lda.
pub static GEMV_T_SCALAR: KernelSpec = KernelSpec { name: "gemv_t_f32_scalar", space: T_SPACE, geometry: t_geometry };
/// GEMV_T and GEMV_T_SCALAR with half the loads in flight and at most 48
/// registers: more warps per SM, for the problems whose columns that fits in
/// one wave instead of two (see `plan`).
pub static GEMV_T_LEAN: KernelSpec = KernelSpec { name: "gemv_t_f32_lean", space: T_SPACE, geometry: t_geometry };
pub static GEMV_T_SCALAR_LEAN: KernelSpec =
    KernelSpec { name: "gemv_t_f32_scalar_lean", space: T_SPACE, geometry: t_geometry };
/// GEMV_T_LEAN reading x through L1 as float4 instead of staging it: for x
/// 16-byte aligned with unit stride ([`XReads::Float4`]), unsplit in one wave.
pub static GEMV_T_LEAN_L1: KernelSpec = KernelSpec { name: "gemv_t_f32_lean_l1", space: T_SPACE, geometry: t_geometry };
/// op T, any alignment and lda, x with unit stride at any alignment
/// ([`XReads::UnitStride`] or better): float4 loads from each column's first
/// 16-byte boundary, unsplit, blocks of 256 threads (L1_ANY_SPACE; see `plan`).
pub static GEMV_T_L1_ANY: KernelSpec =
    KernelSpec { name: "gemv_t_f32_l1_any", space: L1_ANY_SPACE, geometry: t_geometry };
/// op T, A 16-byte aligned and lda % 4 == 0, x 16-byte aligned with unit
/// stride ([`XReads::Float4`]): a warp per column, unsplit, each round's loads
/// of A and x requested together (PAIRED_SPACE; see `plan`).
pub static GEMV_T_PAIRED: KernelSpec =
    KernelSpec { name: "gemv_t_f32_paired", space: PAIRED_SPACE, geometry: t_geometry };
/// GEMV_T_PAIRED split over rows, a counter per column (PAIRED_SPLIT_SPACE;
/// see `plan`).
pub static GEMV_T_PAIRED_SPLIT: KernelSpec =
    KernelSpec { name: "gemv_t_f32_paired_split", space: PAIRED_SPLIT_SPACE, geometry: t_paired_geometry };
/// GEMV_T_PAIRED unsplit on blocks (32, Ty): Ty warps share a column
/// (STACKED_SPACE; see `plan`).
pub static GEMV_T_STACKED: KernelSpec =
    KernelSpec { name: "gemv_t_f32_stacked", space: STACKED_SPACE, geometry: t_geometry };
/// GEMV_T_PAIRED for any A and lda, x of unit stride at any alignment
/// ([`XReads::UnitStride`] or better; PAIRED_ANY_SPACE, see `plan`).
pub static GEMV_T_PAIRED_ANY: KernelSpec =
    KernelSpec { name: "gemv_t_f32_paired_any", space: PAIRED_ANY_SPACE, geometry: t_geometry };
/// GEMV_T_PAIRED_SPLIT for any A and lda, x of unit stride at any alignment
/// ([`XReads::UnitStride`] or better; see `plan`).
pub static GEMV_T_PAIRED_SPLIT_ANY: KernelSpec =
    KernelSpec { name: "gemv_t_f32_paired_split_any", space: PAIRED_SPLIT_SPACE, geometry: t_paired_geometry };
/// GEMV_T_STACKED for any A and lda, x of unit stride at any alignment.
pub static GEMV_T_STACKED_ANY: KernelSpec =
    KernelSpec { name: "gemv_t_f32_stacked_any", space: STACKED_SPACE, geometry: t_geometry };
/// op T, m ≤ SHORT_ROWS_MAX, A 16-byte aligned and lda % 4 == 0.
pub static GEMV_T_SHORT: KernelSpec =
    KernelSpec { name: "gemv_t_f32_short", space: T_SHORT_SPACE, geometry: t_short_geometry };
/// op T, m ≤ SHORT_ROWS_MAX, any alignment and lda.
pub static GEMV_T_SHORT_SCALAR: KernelSpec =
    KernelSpec { name: "gemv_t_f32_short_scalar", space: T_SHORT_SPACE, geometry: t_short_geometry };
/// op T on 65 to GROUPS_MAX_ROWS rows (GROUPS_SCALAR_MAX_ROWS for the
/// `_scalar` ones): the short kernels' layout with 4 or 6 groups of 4 rows a
/// lane (see [`groups_of_rows`]), A 16-byte aligned and lda % 4 == 0, or any
/// A (`_scalar`).
pub static GEMV_T_GROUPS4: KernelSpec =
    KernelSpec { name: "gemv_t_f32_groups4", space: GROUPS_SPACE, geometry: t_groups4_geometry };
pub static GEMV_T_GROUPS6: KernelSpec =
    KernelSpec { name: "gemv_t_f32_groups6", space: GROUPS_SPACE, geometry: t_groups6_geometry };
pub static GEMV_T_SCALAR_GROUPS4: KernelSpec =
    KernelSpec { name: "gemv_t_f32_scalar_groups4", space: GROUPS_SPACE, geometry: t_groups4_geometry };
pub static GEMV_T_SCALAR_GROUPS6: KernelSpec =
    KernelSpec { name: "gemv_t_f32_scalar_groups6", space: GROUPS_SPACE, geometry: t_groups6_geometry };
/// Not a routine's kernel: `gemv_read_floor_f32(n4, A, sink)` reads n4 float4s
/// and nothing else, the floor for a GEMV's time (`mublas bench floor`).
pub const READ_FLOOR_NAME: &str = "gemv_read_floor_f32";

pub const KERNEL_NAMES: &[&str] = &[
    READ_FLOOR_NAME,
    GEMV_N.name,
    GEMV_N_SCALAR.name,
    GEMV_N_NARROW.name,
    GEMV_N_SCALAR_NARROW.name,
    GEMV_N_WIDE.name,
    GEMV_N_SCALAR_WIDE.name,
    GEMV_N_SCALAR_LONG.name,
    GEMV_N_SCALAR_THIN.name,
    GEMV_N_WIDE_STAGED.name,
    GEMV_N_WIDE_ANY.name,
    GEMV_N_FEW.name,
    GEMV_N_SCALAR_FEW.name,
    GEMV_N_SCALAR_LANES.name,
    GEMV_N_SWEEP.name,
    GEMV_N_SHORT.name,
    GEMV_N_SHORT_SCALAR.name,
    GEMV_N_CLUSTER16.name,
    GEMV_N_CLUSTER32.name,
    GEMV_N_SCALAR_CLUSTER16.name,
    GEMV_N_SCALAR_CLUSTER32.name,
    GEMV_N_CLUSTER64.name,
    GEMV_N_SCALAR_CLUSTER64.name,
    GEMV_T.name,
    GEMV_T_SCALAR.name,
    GEMV_T_LEAN.name,
    GEMV_T_SCALAR_LEAN.name,
    GEMV_T_LEAN_L1.name,
    GEMV_T_L1_ANY.name,
    GEMV_T_PAIRED.name,
    GEMV_T_PAIRED_ANY.name,
    GEMV_T_PAIRED_SPLIT.name,
    GEMV_T_PAIRED_SPLIT_ANY.name,
    GEMV_T_STACKED.name,
    GEMV_T_STACKED_ANY.name,
    GEMV_T_SHORT.name,
    GEMV_T_SHORT_SCALAR.name,
    GEMV_T_GROUPS4.name,
    GEMV_T_GROUPS6.name,
    GEMV_T_SCALAR_GROUPS4.name,
    GEMV_T_SCALAR_GROUPS6.name,
];

/// op(A), validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    N,
    T,
}

impl Op {
    /// (length of x, length of y) for an m×n A.
    pub fn vector_lengths(self, m: i64, n: i64) -> (i64, i64) {
        match self {
            Op::N => (n, m),
            Op::T => (m, n),
        }
    }
}

/// The reference-BLAS checks of SGEMV, in its order: the first bad argument's
/// position is the error. trans: 0 N, 1 T, 2 C (= T for real data); anything
/// else, CONJG (3) included, is invalid.
pub fn check_arguments(trans: i32, m: i64, n: i64, lda: i64, incx: i64, incy: i64) -> Result<Op> {
    let bad = |position| Err(Error::InvalidArgument { routine: "SGEMV", position });
    let op = match trans {
        0 => Op::N,
        1 | 2 => Op::T,
        _ => return bad(1),
    };
    if m < 0 {
        return bad(2);
    }
    if n < 0 {
        return bad(3);
    }
    if lda < m.max(1) {
        return bad(6);
    }
    if incx == 0 {
        return bad(8);
    }
    if incy == 0 {
        return bad(11);
    }
    Ok(op)
}

/// True when the call must return at once, touching nothing: an empty A, or
/// alpha = 0 with beta = 1 known on the host.
pub fn quick_return(m: i64, n: i64, alpha: Scalar, beta: Scalar) -> bool {
    m == 0 || n == 0 || (alpha.is(0.0) && beta.is(1.0))
}

/// How a kernel family lays a launch over A: which dimension the split cuts and
/// what a tile (grid.x) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// op N: row tiles of 4·Tx rows; the split cuts the columns.
    N,
    /// op N, m ≤ SHORT_ROWS_MAX: one tile; the split cuts the columns.
    NShort,
    /// op T: tiles of Tx / 32 columns; the split cuts the rows.
    T,
    /// op T, m ≤ SHORT_ROWS_MAX: tiles of 4·Tx / L columns (L lanes per column); no split.
    TShort,
    /// op T, the split paired kernel: as T, but the split cuts the rows in
    /// ranges of PAIRED_ROW_GRANULE rows, and the kernel counts arrivals per
    /// column.
    TPaired,
    /// op T, the groups kernels: as TShort with this many groups of 4 rows a
    /// lane and GROUPS_COLUMNS_PER_LANE columns ([`groups_columns_per_block`]).
    TGroups(u64),
    /// op N, the cluster kernels: row tiles of this many rows, each in one
    /// or more clusters of CLUSTER_BLOCKS column ranges (grid.y); the work
    /// buffer only for more than one.
    NCluster(u64),
}

impl Layout {
    pub fn of(op: Op, m: i64) -> Layout {
        match op {
            Op::N if m <= SHORT_ROWS_MAX => Layout::NShort,
            Op::N => Layout::N,
            Op::T if m <= SHORT_ROWS_MAX => Layout::TShort,
            Op::T => Layout::T,
        }
    }

    /// The layout `spec` launches with for a call of `op` on m rows.
    pub fn of_kernel(spec: &KernelSpec, op: Op, m: i64) -> Layout {
        if std::ptr::eq(spec, &GEMV_T_PAIRED_SPLIT) || std::ptr::eq(spec, &GEMV_T_PAIRED_SPLIT_ANY) {
            Layout::TPaired
        } else if let Some(groups) = groups_of_kernel(spec) {
            Layout::TGroups(groups)
        } else if let Some(rows) = cluster_rows_of_kernel(spec) {
            Layout::NCluster(rows)
        } else {
            Layout::of(op, m)
        }
    }
}

/// Lanes that share a column in the T and short N kernels: the fewest (a power
/// of two, at most a warp) that give each lane 4 of the m rows
/// (gemv_lanes_per_column in kernels/gemv.cu).
pub fn lanes_per_column(m: u64) -> u64 {
    let mut lanes = 1;
    while lanes < 32 && 4 * lanes < m {
        lanes *= 2;
    }
    lanes
}

/// The float4 kernels need every column of A to start 16-byte aligned.
pub fn select_kernel(op: Op, m: i64, a: u64, lda: i64) -> &'static KernelSpec {
    let vec4 = a.is_multiple_of(16) && lda % 4 == 0;
    match (Layout::of(op, m), vec4) {
        // (Layout::of never gives NCluster either.)
        (Layout::N | Layout::NCluster(_), true) => &GEMV_N,
        (Layout::N | Layout::NCluster(_), false) => &GEMV_N_SCALAR,
        (Layout::NShort, true) => &GEMV_N_SHORT,
        (Layout::NShort, false) => &GEMV_N_SHORT_SCALAR,
        // (Layout::of never gives TPaired or TGroups, the split paired and groups kernels' own.)
        (Layout::T | Layout::TPaired | Layout::TGroups(_), true) => &GEMV_T,
        (Layout::T | Layout::TPaired | Layout::TGroups(_), false) => &GEMV_T_SCALAR,
        (Layout::TShort, true) => &GEMV_T_SHORT,
        (Layout::TShort, false) => &GEMV_T_SHORT_SCALAR,
    }
}

/// How the kernels may read x through L1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XReads {
    /// 16-byte aligned, unit stride: as float4 (`gemv_t_f32_paired`, `gemv_t_f32_lean_l1`).
    Float4,
    /// Unit stride at any alignment: as consecutive floats (`gemv_t_f32_l1_any`);
    /// `odd_float`: x starts 4 or 12 bytes past a 16-byte boundary.
    UnitStride { odd_float: bool },
    /// Any other stride: staged by the kernels that take it.
    Strided,
}

/// How x at address `x` with increment `incx` can be read.
pub fn x_reads(x: u64, incx: i64) -> XReads {
    match incx {
        1 if x.is_multiple_of(16) => XReads::Float4,
        1 => XReads::UnitStride { odd_float: (x / 4) % 2 == 1 },
        _ => XReads::Strided,
    }
}

/// A kernel besides the default that can serve a call, and when `plan` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Twin {
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
    /// for any A with x through L1 does not serve.
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
    /// The float4 wide kernel's twin for any A: [`wide_any_serves`], shaped by [`wide_any_plan`].
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

const TWINS: [(&KernelSpec, &KernelSpec, Twin); 45] = [
    (&GEMV_T, &GEMV_T_GROUPS4, Twin::Groups),
    (&GEMV_T, &GEMV_T_GROUPS6, Twin::Groups),
    (&GEMV_T_SCALAR, &GEMV_T_SCALAR_GROUPS4, Twin::Groups),
    (&GEMV_T_SCALAR, &GEMV_T_SCALAR_GROUPS6, Twin::Groups),
    (&GEMV_T, &GEMV_T_STACKED, Twin::Stacked),
    (&GEMV_T, &GEMV_T_STACKED_ANY, Twin::StackedAny),
    (&GEMV_T, &GEMV_T_PAIRED_SPLIT, Twin::PairedSplit),
    (&GEMV_T, &GEMV_T_PAIRED_SPLIT_ANY, Twin::PairedSplitAny),
    (&GEMV_T, &GEMV_T_PAIRED, Twin::Paired),
    (&GEMV_T, &GEMV_T_PAIRED_ANY, Twin::PairedAny),
    (&GEMV_T, &GEMV_T_LEAN_L1, Twin::LeanL1),
    (&GEMV_T, &GEMV_T_LEAN, Twin::Lean),
    (&GEMV_T, &GEMV_T_L1_ANY, Twin::L1Any),
    (&GEMV_T_SCALAR, &GEMV_T_STACKED_ANY, Twin::StackedAny),
    (&GEMV_T_SCALAR, &GEMV_T_PAIRED_SPLIT_ANY, Twin::PairedSplitAny),
    (&GEMV_T_SCALAR, &GEMV_T_PAIRED_ANY, Twin::PairedAny),
    (&GEMV_T_SCALAR, &GEMV_T_SCALAR_LEAN, Twin::Lean),
    (&GEMV_T_SCALAR, &GEMV_T_L1_ANY, Twin::L1Any),
    (&GEMV_N, &GEMV_N_CLUSTER16, Twin::Cluster),
    (&GEMV_N, &GEMV_N_CLUSTER32, Twin::Cluster),
    (&GEMV_N, &GEMV_N_CLUSTER64, Twin::Cluster),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_CLUSTER16, Twin::Cluster),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_CLUSTER32, Twin::Cluster),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_CLUSTER64, Twin::Cluster),
    (&GEMV_N_SHORT, &GEMV_N_CLUSTER16, Twin::Cluster),
    (&GEMV_N_SHORT, &GEMV_N_CLUSTER32, Twin::Cluster),
    (&GEMV_N_SHORT, &GEMV_N_CLUSTER64, Twin::Cluster),
    (&GEMV_N_SHORT_SCALAR, &GEMV_N_SCALAR_CLUSTER16, Twin::Cluster),
    (&GEMV_N_SHORT_SCALAR, &GEMV_N_SCALAR_CLUSTER32, Twin::Cluster),
    (&GEMV_N_SHORT_SCALAR, &GEMV_N_SCALAR_CLUSTER64, Twin::Cluster),
    (&GEMV_N_SHORT, &GEMV_N_FEW, Twin::Few),
    (&GEMV_N_SHORT_SCALAR, &GEMV_N_SCALAR_FEW, Twin::Few),
    (&GEMV_N, &GEMV_N_SWEEP, Twin::Sweep),
    (&GEMV_N, &GEMV_N_FEW, Twin::Few),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_LONG, Twin::Long),
    (&GEMV_N_SCALAR, &GEMV_N_WIDE_ANY, Twin::WideAny),
    (&GEMV_N_SCALAR, &GEMV_N_SWEEP, Twin::Sweep),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_FEW, Twin::Few),
    (&GEMV_N, &GEMV_N_NARROW, Twin::Narrow),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_NARROW, Twin::Narrow),
    (&GEMV_N, &GEMV_N_WIDE, Twin::Wide),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_LANES, Twin::Lanes),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_WIDE, Twin::Wide),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_THIN, Twin::Thin),
    (&GEMV_N, &GEMV_N_WIDE_STAGED, Twin::WideStaged),
];

/// The twins of a default kernel that can serve the call on m rows, given how x can be read.
fn twins(default: &'static KernelSpec, m: i64, x: XReads) -> impl Iterator<Item = (&'static KernelSpec, Twin)> {
    TWINS
        .into_iter()
        .filter(move |(d, _, kind)| {
            std::ptr::eq(*d, default)
                && match kind {
                    Twin::Stacked | Twin::PairedSplit | Twin::Paired | Twin::LeanL1 => x == XReads::Float4,
                    Twin::L1Any | Twin::StackedAny | Twin::PairedSplitAny | Twin::PairedAny => x != XReads::Strided,
                    // Their lanes hold at most 128 · groups rows of a column.
                    Twin::Groups => groups_rows(default, m),
                    Twin::Cluster => cluster_rows(m),
                    _ => true,
                }
        })
        .map(|(_, spec, kind)| (spec, kind))
}

/// Every kernel that can serve the call, the default (`select_kernel`) first.
pub fn candidate_kernels(op: Op, m: i64, a: u64, lda: i64, x: XReads) -> Vec<&'static KernelSpec> {
    let default = select_kernel(op, m, a, lda);
    std::iter::once(default).chain(twins(default, m, x).map(|(spec, _)| spec)).collect()
}

/// The wide N kernels' shape for a problem: for each Tx the thread rows that
/// `thread_rows` gives (the most that a block of WIDE_THREADS holds), and of
/// the grids that run in one wave the one with the largest Grid-Occupancy,
/// ties to the larger Tx. That is the
/// paper's rule without the optimizer's SM-coverage extension, which here
/// would take the smallest row tiles (5000²: 8 × 32, 157 blocks, 38.2 µs)
/// over fewer, longer ones that sweep the columns together (16 × 32, 79
/// blocks, 37.2; cuBLAS 37.7). Measured as kernels on the H100, with x
/// staged (`scripts/gemv-ab.py`, µs), the shape this rule takes was the fastest
/// wide shape tried, or within 0.4 % of it, at every size: 4100² 8 × 64
/// 27.2, 6000² 16 × 32 51.2, 7000² 16 × 32 68.2, 8192² 16 × 32 89.9, 10000²
/// 24 × 21 135.0 (32 × 16 134.4), 12000² 24 × 21 191.7 (32 × 16 191.0),
/// 16384² 32 × 16 345.6, 20000² 40 × 12 526.9 (48 × 10 526.0, 64 × 8
/// 532.1), 32768² 64 × 8 1374.6. Without a one-wave grid, the largest Tx
/// (which `wide_pays` then refuses). The sweep kernel's shape follows the
/// same rule with [`sweep_thread_rows`].
fn wide_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
    thread_rows: fn(u32) -> u32,
) -> LaunchPlan {
    use crate::tuner::occupancy::waves;
    let fullest_blocks = optimizer::candidates(device, kernel, spec, problem)
        .into_iter()
        .filter(|(shape, _, _)| shape.ty == thread_rows(shape.tx))
        .map(|(shape, geometry, occupancy)| LaunchPlan { shape, geometry, occupancy });
    let mut best: Option<LaunchPlan> = None;
    let mut largest_tx: Option<LaunchPlan> = None;
    for plan in fullest_blocks {
        largest_tx.get_or_insert(plan);
        let one_wave = waves(plan.geometry.blocks(), plan.occupancy.blocks_per_wave(device)) == 1;
        if one_wave && best.is_none_or(|b| plan.occupancy.grid > b.occupancy.grid) {
            best = Some(plan);
        }
    }
    best.or(largest_tx).unwrap_or_else(|| {
        let shape = LaunchShape { tx: spec.space.tx_min, ty: thread_rows(spec.space.tx_min), split: 1 };
        LaunchPlan::of_shape(device, kernel, spec, problem, shape)
    })
}

/// Whether the float4 wide kernel takes its shape from [`wide_fine_plan`]
/// (WIDE_FINE_THREADS): on fast DRAM, past one wave of 32-row tiles.
fn wide_fine_serves(device: &DeviceModel, spec: &KernelSpec, m: i64) -> bool {
    std::ptr::eq(spec, &GEMV_N_WIDE) && past_one_wave_of_32_row_tiles_on_fast_dram(device, m)
}

/// Whether the device has fast DRAM and m rows need more 32-row tiles than it has SMs.
fn past_one_wave_of_32_row_tiles_on_fast_dram(device: &DeviceModel, m: i64) -> bool {
    fast_dram(device) && tiles_of_32_rows(m) > device.sm_count as u64
}

/// Row tiles of the wide kernels' shortest tiles (Tx 8: 32 rows) that m rows need.
fn tiles_of_32_rows(m: i64) -> u64 {
    n_row_tiles(m.max(0) as u64, WIDE_SPACE.tx_min)
}

/// Row tiles of the N kernels whose threads own N_ROWS_PER_THREAD rows each (4·Tx rows a tile) that m rows need.
fn n_row_tiles(m: u64, tx: u32) -> u64 {
    m.div_ceil(N_ROWS_PER_THREAD * tx.max(1) as u64)
}

/// Whether the wide kernel for any A can take an N call from the scalar
/// default (`plan`, which then needs [`wide_pays`]): on fast DRAM, up to
/// WIDE_ANY_MAX_ROWS rows (WIDE_ANY_LONG_MAX_ROWS on at least
/// WIDE_ANY_LONG_MIN_COLUMNS columns), where the wide kernels serve; below
/// SWEEP_MIN_ROWS_SCALAR rows on at least WIDE_ANY_SHORT_MIN_COLUMNS columns
/// where its 32-row tiles engage less than WIDE_ANY_32_ROW_TILES_MAX_COVERAGE
/// of the SMs, else on at least WIDE_ANY_FULL_WAVE_MIN_COLUMNS; past them
/// where 32-row tiles need more than one wave (the sweep keeps the rest).
fn wide_any_serves(device: &DeviceModel, m: i64, n: i64) -> bool {
    let leaves_sms_idle = (tiles_of_32_rows(m) as f64) < WIDE_ANY_32_ROW_TILES_MAX_COVERAGE * device.sm_count as f64;
    let max_rows = if n >= WIDE_ANY_LONG_MIN_COLUMNS { WIDE_ANY_LONG_MAX_ROWS } else { WIDE_ANY_MAX_ROWS };
    let columns = if m < SWEEP_MIN_ROWS_SCALAR {
        n >= WIDE_ANY_SHORT_MIN_COLUMNS && (leaves_sms_idle || n >= WIDE_ANY_FULL_WAVE_MIN_COLUMNS)
    } else {
        past_one_wave_of_32_row_tiles_on_fast_dram(device, m)
    };
    fast_dram(device) && m <= max_rows && columns && wide_serves(Twin::WideAny, m, n)
}

/// The any-A wide kernel's shape: [`wide_fine_plan`]'s past one wave of
/// 32-row tiles, else 32-row tiles (Tx 8) of WIDE_THREADS.
fn wide_any_plan(device: &DeviceModel, kernel: &KernelModel, spec: &KernelSpec, problem: &Problem) -> LaunchPlan {
    if past_one_wave_of_32_row_tiles_on_fast_dram(device, problem.m as i64) {
        return wide_fine_plan(device, kernel, spec, problem);
    }
    let tx = spec.space.tx_min;
    LaunchPlan::of_shape(device, kernel, spec, problem, LaunchShape { tx, ty: wide_thread_rows(tx), split: 1 })
}

/// The float4 wide kernel's shape on fast DRAM past one wave of 32-row tiles:
/// the smallest even Tx whose row tiles (4·Tx rows) number at most one per SM,
/// and as many thread rows, a multiple of 8, as WIDE_FINE_THREADS holds (8 at
/// least). Past one wave of the longest tiles (Tx 64) the grid needs two, and
/// [`wide_pays`] refuses it.
fn wide_fine_plan(device: &DeviceModel, kernel: &KernelModel, spec: &KernelSpec, problem: &Problem) -> LaunchPlan {
    let tx = wide_fine_tx(device, problem.m);
    let ty = (WIDE_FINE_THREADS / tx / 8 * 8).max(8);
    LaunchPlan::of_shape(device, kernel, spec, problem, LaunchShape { tx, ty, split: 1 })
}

/// [`wide_fine_plan`]'s Tx for m rows.
fn wide_fine_tx(device: &DeviceModel, m: u64) -> u32 {
    let rows_per_tx_pair = 2 * N_ROWS_PER_THREAD * device.sm_count.max(1) as u64;
    (2 * m.div_ceil(rows_per_tx_pair)).min(WIDE_SPACE.tx_max as u64) as u32
}

/// [`wide_fine_plan`]'s row tiles (blocks) for m rows.
fn wide_fine_tiles(device: &DeviceModel, m: i64) -> u64 {
    let m = m.max(0) as u64;
    n_row_tiles(m, wide_fine_tx(device, m))
}

/// Whether a wide N kernel (or the scalar lanes kernel, which takes the
/// scalar wide kernel's problems) can serve the problem at all: at least
/// WIDE_MIN_ROWS rows, and the kernels that read x through L1 at most
/// WIDE_L1_MAX_COLUMNS columns, the staged one more (`plan` skips the others'
/// plans; [`wide_pays`] starts from it).
fn wide_serves(kind: Twin, m: i64, n: i64) -> bool {
    m >= WIDE_MIN_ROWS
        && match kind {
            Twin::Wide | Twin::WideAny | Twin::Lanes => n <= WIDE_L1_MAX_COLUMNS,
            Twin::WideStaged => n > WIDE_L1_MAX_COLUMNS,
            Twin::Cluster
            | Twin::Groups
            | Twin::Stacked
            | Twin::StackedAny
            | Twin::PairedSplit
            | Twin::PairedSplitAny
            | Twin::Paired
            | Twin::PairedAny
            | Twin::LeanL1
            | Twin::Lean
            | Twin::L1Any
            | Twin::Narrow
            | Twin::Few
            | Twin::Sweep
            | Twin::Long
            | Twin::Thin => false,
        }
}

/// Whether the sweep kernel can take an N call from `default` (`plan`, which
/// then needs [`sweep_pays`]): on a device whose DRAM gives each SM at least
/// SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND: for float4 A SWEEP_MIN_ROWS rows or
/// more than one wave of 32-row tiles, on at least SWEEP_MIN_COLUMNS columns;
/// for any other A the same columns from SWEEP_MIN_ROWS_SCALAR rows, and
/// below them from SWEEP_SHORT_MIN_ROWS rows on SWEEP_SHORT_MIN_COLUMNS to
/// SWEEP_SHORT_MAX_COLUMNS_PER_ROW · m columns. On the H100 the sweep
/// for odd lda was timed too and stays off (docs/performance.md, "Odd lda
/// past 4224 rows").
fn sweep_serves(device: &DeviceModel, default: &KernelSpec, m: i64, n: i64) -> bool {
    let shape = if !std::ptr::eq(default, &GEMV_N_SCALAR) {
        let rows =
            m >= SWEEP_MIN_ROWS || (past_one_wave_of_32_row_tiles_on_fast_dram(device, m) && n > FEW_MAX_COLUMNS);
        rows && n >= SWEEP_MIN_COLUMNS
    } else if m >= SWEEP_MIN_ROWS_SCALAR {
        n >= SWEEP_MIN_COLUMNS
    } else {
        m >= SWEEP_SHORT_MIN_ROWS && (SWEEP_SHORT_MIN_COLUMNS..=SWEEP_SHORT_MAX_COLUMNS_PER_ROW * m).contains(&n)
    };
    fast_dram(device) && shape
}

/// Whether the sweep's plan replaces the default's: in one wave, and for
/// float4 A below SWEEP_MIN_ROWS rows on at least as many blocks as
/// [`wide_fine_plan`]'s row tiles.
fn sweep_pays(device: &DeviceModel, default: &KernelSpec, m: i64, plan: &LaunchPlan) -> bool {
    let as_many_sms_as_the_wide_kernel = std::ptr::eq(default, &GEMV_N_SCALAR)
        || m >= SWEEP_MIN_ROWS
        || plan.geometry.blocks() >= wide_fine_tiles(device, m);
    optimizer::waves(device, plan) == 1 && as_many_sms_as_the_wide_kernel
}

/// Thread rows of a sweep block of Tx: as many as SWEEP_THREADS holds, down
/// to a power of two, so that the column ranges split evenly. 96 × 10 ran
/// 5–13 % slower than 96 × 8 (H200, µs: 10001² 103.4–104.1 against 97.8,
/// 12001² 157.5–158.3 against 139.3–140.9, 10000² 103.1–103.7 against
/// 98.3–98.9), where 64 × 16 ran faster than 64 × 8 (6001² 39.2 against 43.6).
fn sweep_thread_rows(tx: u32) -> u32 {
    1 << (SWEEP_THREADS / tx).ilog2()
}

/// Whether the scalar long kernel can take an N call from the default
/// (`plan`, which then needs [`long_pays`]): at least LONG_MIN_COLUMNS
/// columns, where the scalar wide kernel's one wave of row tiles (one block
/// of at most 4 × 64 rows per SM) does not serve, and the default's plan
/// unsplit with a second block on more than 1/LONG_MIN_DOUBLED_SMS of the SMs.
fn long_serves(device: &DeviceModel, m: i64, n: i64, default_plan: &LaunchPlan) -> bool {
    let wide_rows = device.sm_count as u64 * N_ROWS_PER_THREAD * WIDE_SPACE.tx_max as u64;
    let wide_serves = wide_serves(Twin::Wide, m, n) && m as u64 <= wide_rows;
    n >= LONG_MIN_COLUMNS && !wide_serves && default_plan.geometry.grid.1 == 1 && doubles_up(device, default_plan)
}

/// Whether a plan's grid puts a second block on more than
/// 1/LONG_MIN_DOUBLED_SMS of the SMs (where the scalar kernel's 4-byte loads
/// ran slower with more threads per SM: the long and thin kernels).
fn doubles_up(device: &DeviceModel, plan: &LaunchPlan) -> bool {
    let sms = device.sm_count as u64;
    plan.geometry.blocks().saturating_sub(sms) * LONG_MIN_DOUBLED_SMS > sms
}

/// Whether the long kernel's plan replaces the default's: in one wave and,
/// on fast DRAM, where it goes before the sweep, on at least
/// LONG_MIN_COVERAGE_FAST_DRAM of the SMs.
fn long_pays(device: &DeviceModel, plan: &LaunchPlan) -> bool {
    optimizer::waves(device, plan) == 1
        && (!fast_dram(device) || optimizer::sm_coverage(device, plan) >= LONG_MIN_COVERAGE_FAST_DRAM)
}

/// Thread rows of a long block of Tx: LONG_THREADS in all.
fn long_thread_rows(tx: u32) -> u32 {
    LONG_THREADS / tx
}

/// Thread rows of a wide block of Tx: as many as WIDE_THREADS holds.
fn wide_thread_rows(tx: u32) -> u32 {
    WIDE_THREADS / tx
}

/// Whether `spec` is one of the short N kernels.
fn is_short_n(spec: &KernelSpec) -> bool {
    std::ptr::eq(spec, &GEMV_N_SHORT) || std::ptr::eq(spec, &GEMV_N_SHORT_SCALAR)
}

/// The short N kernels' shape: the optimizer's `plan`, with no more threads
/// than the warps a column range gives a load each, and split at most
/// SHORT_SPLIT_MAX_THREADS. A
/// warp loads 32 / L columns GEMV_SHORT_UNROLL times a step (L lanes a
/// column, [`lanes_per_column`]): 128 columns up to 4 rows, so that the
/// optimizer's 512 threads on ranges of 1024 columns left half the warps
/// without a column. H200, kernel time through the library
/// (`scripts/sgemv-builds.py`), µs, 512 / 256 threads / cuBLAS: 1 × 32768
/// 5.40 / 4.82 / 11.03, 1 × 65536 5.74 / 5.11 / 3.94, 1 × 262144 6.86 /
/// 5.86 / 4.47, 2 × 65536 5.68 / 5.11 / 4.06, 4 × 65536 5.62 / 5.06 /
/// 4.27, 4 × 262144 7.11 / 6.83 / 7.62. Unsplit, a warp without a column
/// still costs: the block's launch and its fold through shared memory grow
/// with its warps (H200, kernel time, `scripts/gemv-ab.py`, µs, 32 / 128 /
/// 512 threads: 8 × 32 1.80 / 2.44 / 2.98, odd lda 2 × 128 1.92 / 2.56 /
/// 3.22; 8 × 512 on 128 / 256 / 512 2.92 / 2.73 / 3.07; cuBLAS 1.67, 1.66
/// and 1.95).
fn short_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
    plan: LaunchPlan,
) -> LaunchPlan {
    let (range, splits) = reduction_split(Layout::NShort, problem, &plan.shape);
    let warp_step = 32 / lanes_per_column(problem.m) * SHORT_UNROLL;
    let most = if splits > 1 { SHORT_SPLIT_MAX_THREADS } else { spec.space.tx_max };
    let busy = (range.div_ceil(warp_step) * 32).clamp(spec.space.tx_min as u64, most as u64) as u32;
    if plan.shape.tx <= busy {
        return plan;
    }
    LaunchPlan::of_shape(device, kernel, spec, problem, LaunchShape { tx: busy, ..plan.shape })
}

/// Whether a few-columns N kernel takes an N call from `default` (`plan`,
/// after the sweep): on fast DRAM, FEW_MIN_ROWS to FEW_MAX_ROWS rows (from
/// FEW_SHORT_MIN_ROWS on at most N_SPLIT_MIN_COLUMNS columns) and at most
/// FEW_MAX_COLUMNS columns; for A that is not float4 ([`few_any_serves`])
/// fewer.
fn few_serves(device: &DeviceModel, default: &KernelSpec, m: i64, n: i64) -> bool {
    let float4 = std::ptr::eq(default, &GEMV_N) || std::ptr::eq(default, &GEMV_N_SHORT);
    let shape = if float4 { n <= FEW_MAX_COLUMNS } else { few_any_serves(m, n) };
    let min_rows = if n <= N_SPLIT_MIN_COLUMNS as i64 { FEW_SHORT_MIN_ROWS } else { FEW_MIN_ROWS };
    fast_dram(device) && (min_rows..=FEW_MAX_ROWS).contains(&m) && shape
}

/// Where the few-columns kernel for any A (`gemv_n_f32_scalar_few`) replaces
/// the scalar narrow or wide kernel: at most FEW_ANY_MAX_COLUMNS columns
/// (which the narrow kernels do not split) up to FEW_ANY_MAX_ROWS rows, at
/// most FEW_ANY_LONG_MAX_COLUMNS past them. Through the library (H200,
/// kernel time, `scripts/sgemv-builds.py`, odd lda, µs, before / with it /
/// cuBLAS): 257 × 64 3.42 / 2.41 / 2.01, 1001 × 16 3.45 / 2.36 / 2.00, 4097 ×
/// 256 5.03 / 3.88 / 4.60, 4097 × 512 6.60 / 5.54 / 4.51, 16385 × 200 6.61 /
/// 6.37 / 6.50, 200000 × 16 10.26 / 7.82 / 8.55, 200000 × 64 19.02 / 17.56 /
/// 20.83. Past FEW_ANY_MAX_ROWS on 100 columns or more it lost 1–15 % (32769
/// × 200 9.59 / 10.37, 65537 × 512 34.59 / 40.04, 200000 × 256 54.37 /
/// 62.86; 24577 rows level). Everywhere 255 columns ran 2–15 % longer (16385
/// × 255 8.07 / 8.84; cuBLAS is slow there too, 9.36).
fn few_any_serves(m: i64, n: i64) -> bool {
    n <= FEW_ANY_LONG_MAX_COLUMNS || (m <= FEW_ANY_MAX_ROWS && n <= FEW_ANY_MAX_COLUMNS)
}

/// Whether the few-columns kernel's plan replaces the default's: in one
/// wave, or on at most FEW_MAX_COLUMNS_IN_WAVES columns.
fn few_pays(device: &DeviceModel, n: i64, plan: &LaunchPlan) -> bool {
    optimizer::waves(device, plan) == 1 || n <= FEW_MAX_COLUMNS_IN_WAVES
}

/// The few-columns kernel's shape: 32-row tiles and, from one thread row per
/// group of 8 columns (a power of two, at most 64 = 512 threads), half as
/// many until the grid runs in one wave, 4 at least. Each thread then
/// requests its columns' loads together, every block's at once, and the
/// fold of the thread rows takes log2(Ty) steps. Against the fastest of 11
/// (Tx, Ty) timed at each of 36 shapes from 256 × 256 to 200000 × 16 (H200,
/// `scripts/gemv-ab.py`), this rule's shape was within 3 %
/// (16384 × 256: 8 × 16 6.62 µs, 16 × 16 6.49; 100000 × 64, where no
/// grid runs in one wave: 8 × 4 9.04, 16 × 8 8.85).
fn few_plan(device: &DeviceModel, kernel: &KernelModel, spec: &KernelSpec, problem: &Problem) -> LaunchPlan {
    let space = spec.space;
    let groups = problem.n.div_ceil(WIDE_GROUP_COLUMNS).next_power_of_two();
    let mut ty = groups.clamp(space.ty_min as u64, space.ty_max as u64) as u32;
    loop {
        let shape = LaunchShape { tx: FEW_TX, ty, split: 1 };
        let plan = LaunchPlan::of_shape(device, kernel, spec, problem, shape);
        if ty <= space.ty_min || optimizer::waves(device, &plan) == 1 {
            return plan;
        }
        ty /= 2;
    }
}

/// Whether the narrow kernels take a split N call from the default (`plan`,
/// where it always pays): on fast DRAM, at most NARROW_SPLIT_MAX_ROWS rows
/// on more than N_SPLIT_MIN_COLUMNS columns, in ranges ([`narrow_split`])
/// of at most NARROW_SPLIT_MAX_RANGE_COLUMNS columns.
fn narrow_split_serves(device: &DeviceModel, m: i64, n: i64) -> bool {
    let (range_columns, _) = split_ranges(n.max(0) as u64, narrow_split(device, m.max(0) as u64), N_COLUMN_GRANULE);
    let columns = n as u64 > N_SPLIT_MIN_COLUMNS && range_columns <= NARROW_SPLIT_MAX_RANGE_COLUMNS;
    fast_dram(device) && m <= NARROW_SPLIT_MAX_ROWS && columns
}

/// [`narrow_split_plan`]'s split for m rows: the largest of NARROW_SPLITS
/// whose grid has at most NARROW_SPLIT_BLOCKS_PER_SM blocks per SM.
fn narrow_split(device: &DeviceModel, m: u64) -> u32 {
    let tiles = n_row_tiles(m, NARROW_SPACE.tx_min).max(1);
    let blocks_max = NARROW_SPLIT_BLOCKS_PER_SM * device.sm_count.max(1) as u64;
    NARROW_SPLITS.iter().copied().filter(|&s| tiles * s as u64 <= blocks_max).max().unwrap_or(1)
}

/// The narrow kernels' split shape: 32-row tiles (Tx 8) of
/// NARROW_SPLIT_THREAD_ROWS, and the largest split whose grid has at most
/// NARROW_SPLIT_BLOCKS_PER_SM blocks per SM (`reduction_split` then keeps
/// ranges of at least N_COLUMN_GRANULE columns).
fn narrow_split_plan(device: &DeviceModel, kernel: &KernelModel, spec: &KernelSpec, problem: &Problem) -> LaunchPlan {
    let shape =
        LaunchShape { tx: NARROW_SPACE.tx_min, ty: NARROW_SPLIT_THREAD_ROWS, split: narrow_split(device, problem.m) };
    LaunchPlan::of_shape(device, kernel, spec, problem, shape)
}

/// Whether the device's DRAM is fast enough for its SMs that the sweep
/// kernel may serve (SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND).
pub fn fast_dram(device: &DeviceModel) -> bool {
    device.dram_bytes_per_sm_second() >= SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND
}

/// Whether a wide N kernel (or the scalar lanes kernel) replaces the
/// default's plan (`plan`, "Wide N"): one that serves the problem
/// ([`wide_serves`]) in one wave; for the kernels that read x through L1, a split of WIDE_MIN_SPLIT or more replaced on at
/// most WIDE_MAX_SPLIT_COLUMNS columns, or at least WIDE_MIN_ROWS columns;
/// for the staged one, a grid on at least half the SMs.
fn wide_pays(device: &DeviceModel, kind: Twin, m: i64, n: i64, default_split: u32, wide: &LaunchPlan) -> bool {
    if !wide_serves(kind, m, n) || optimizer::waves(device, wide) != 1 {
        return false;
    }
    match kind {
        Twin::Wide | Twin::WideAny | Twin::Lanes => {
            (default_split >= WIDE_MIN_SPLIT && n <= WIDE_MAX_SPLIT_COLUMNS) || n >= WIDE_MIN_ROWS
        }
        _ => optimizer::sm_coverage(device, wide) >= WIDE_STAGED_MIN_COVERAGE,
    }
}

/// Whether the lean T kernel with x through L1 replaces the default (`plan`):
/// where its grid runs unsplit in one wave.
fn lean_l1_pays(device: &DeviceModel, plan: &LaunchPlan) -> bool {
    optimizer::waves(device, plan) == 1 && plan.geometry.grid.1 == 1
}

/// Whether the device runs the cluster kernels: thread-block clusters need
/// sm_90, and only the embedded sm_90 machine code has them. The PTX, which
/// the driver compiles for GPUs newer than every CUBIN and under
/// MUBLAS_FORCE_PTX, has traps in their place.
pub fn runs_clusters(device: &DeviceState) -> bool {
    device
        .loaded_images
        .iter()
        .any(|(name, choice)| *name == images::GEMV.name && matches!(choice, ImageChoice::Cubin(arch) if *arch >= 90))
}

/// Rows the cluster kernels can take: at most CLUSTER_MAX_ROWS.
fn cluster_rows(m: i64) -> bool {
    (1..=CLUSTER_MAX_ROWS).contains(&m)
}

/// Columns one cluster a tile serves: CLUSTER_BLOCKS ranges of CLUSTER_MAX_RANGE_COLUMNS.
const ONE_CLUSTER_MAX_COLUMNS: i64 = CLUSTER_BLOCKS as i64 * CLUSTER_MAX_RANGE_COLUMNS;

/// Whether a cluster kernel takes an N call (`plan`, first), on a device
/// that runs them (`clusters`, asked last: only calls of such shapes look
/// at the loaded images): [`cluster_rows`] on more than N_SPLIT_MIN_COLUMNS
/// columns, past FEW_MAX_COLUMNS from FEW_MIN_ROWS rows on, and past
/// ONE_CLUSTER_MAX_COLUMNS on CLUSTER_GROUPS_MIN_ROWS to CLUSTER_GROUPS_MAX_ROWS.
fn cluster_serves(clusters: impl FnOnce() -> bool, m: i64, n: i64) -> bool {
    let groups_rows = (CLUSTER_GROUPS_MIN_ROWS..=CLUSTER_GROUPS_MAX_ROWS).contains(&m);
    let columns = n > N_SPLIT_MIN_COLUMNS as i64 && (n <= ONE_CLUSTER_MAX_COLUMNS || groups_rows);
    cluster_rows(m) && columns && (m < FEW_MIN_ROWS || n > FEW_MAX_COLUMNS) && clusters()
}

/// Rows a cluster kernel's tile holds for m × n. In one cluster a tile: 16
/// where every block of the 16-row tiles has an SM of its own, 32 past that
/// (fewer blocks, twice the rows a column each). H200, kernel time
/// (`scripts/gemv-ab.py`), µs, 16 / 32 rows: 128 × 8192 4.99 / 6.53, 256 ×
/// 8192 6.42 / 7.09, 512 × 8192 8.91 / 8.41, 1024 × 2048 8.11 / 5.71. In
/// several ([`clusters_per_tile`]), 16 up to 16 rows, 32 up to 32 (and up
/// to 64 on at most CLUSTER_TWO_PER_SM_MIN_ELEMENTS), 64 past that; µs, 32 /
/// 64 rows: 64 × 32768 7.19 / 7.76, 100 × 262144 41.7 / 35.6, odd lda 65
/// × 262144 35.1 / 27.7.
pub fn cluster_tile_rows(device: &DeviceModel, m: i64, n: i64) -> u64 {
    if n > ONE_CLUSTER_MAX_COLUMNS {
        return match m {
            ..=16 => 16,
            17..=32 => 32,
            33..=64 if !cluster_two_per_sm(m, n) => 32,
            _ => 64,
        };
    }
    let blocks = (m.max(1) as u64).div_ceil(16) * CLUSTER_BLOCKS as u64;
    if blocks <= device.sm_count as u64 { 16 } else { 32 }
}

/// Whether several clusters a tile aim at two blocks per SM for m × n (past
/// CLUSTER_TWO_PER_SM_MIN_ELEMENTS), where 33 to 64 rows also take 64-row tiles.
fn cluster_two_per_sm(m: i64, n: i64) -> bool {
    m.max(1) as u64 * n.max(0) as u64 > CLUSTER_TWO_PER_SM_MIN_ELEMENTS
}

/// Clusters a row tile of `tile_rows` rows takes for m × n: one up to
/// ONE_CLUSTER_MAX_COLUMNS columns; past that, as many as bring the grid
/// nearest a block per SM (two past CLUSTER_TWO_PER_SM_MIN_ELEMENTS), at
/// most CLUSTERS_SHORT_MAX up to CLUSTERS_SHORT_MAX_COLUMNS columns.
pub fn clusters_per_tile(device: &DeviceModel, m: i64, n: i64, tile_rows: u64) -> u32 {
    if n <= ONE_CLUSTER_MAX_COLUMNS {
        return 1;
    }
    let per_sm = if cluster_two_per_sm(m, n) { 2 } else { 1 };
    let cluster_blocks = (m.max(1) as u64).div_ceil(tile_rows) * CLUSTER_BLOCKS as u64;
    let fill = ((per_sm * device.sm_count as u64 + cluster_blocks / 2) / cluster_blocks).clamp(1, u32::MAX as u64 / 8);
    (if n <= CLUSTERS_SHORT_MAX_COLUMNS { fill.min(CLUSTERS_SHORT_MAX) } else { fill }) as u32
}

/// Whether `spec` is one of the cluster kernels (which only [`runs_clusters`] devices can launch).
pub fn needs_clusters(spec: &KernelSpec) -> bool {
    cluster_rows_of_kernel(spec).is_some()
}

/// The value `table` gives `spec`, one of its kernels (a float4 kernel, its
/// twin for any A, and what both are compiled for); None for the other kernels.
fn compiled_parameter(spec: &KernelSpec, table: &[(&KernelSpec, &KernelSpec, u64)]) -> Option<u64> {
    table.iter().find(|(vec, any, _)| std::ptr::eq(spec, *vec) || std::ptr::eq(spec, *any)).map(|(.., v)| *v)
}

/// The rows of a cluster kernel's tile; None for the other kernels.
fn cluster_rows_of_kernel(spec: &KernelSpec) -> Option<u64> {
    compiled_parameter(
        spec,
        &[
            (&GEMV_N_CLUSTER16, &GEMV_N_SCALAR_CLUSTER16, 16),
            (&GEMV_N_CLUSTER32, &GEMV_N_SCALAR_CLUSTER32, 32),
            (&GEMV_N_CLUSTER64, &GEMV_N_SCALAR_CLUSTER64, 64),
        ],
    )
}

/// The cluster kernels' shape: blocks of CLUSTER_SPACE.tx_max threads,
/// [`clusters_per_tile`] clusters of CLUSTER_BLOCKS column ranges a tile.
fn cluster_plan(device: &DeviceModel, kernel: &KernelModel, spec: &KernelSpec, problem: &Problem) -> LaunchPlan {
    let (m, n) = (problem.m as i64, problem.n as i64);
    let clusters = cluster_rows_of_kernel(spec).map_or(1, |rows| clusters_per_tile(device, m, n, rows));
    let shape = LaunchShape { tx: CLUSTER_SPACE.tx_max, ty: 1, split: clusters * CLUSTER_BLOCKS };
    LaunchPlan::of_shape(device, kernel, spec, problem, shape)
}

/// Rows the groups kernels can take from a call of `default`: more than the
/// short kernel's, at most GROUPS_MAX_ROWS, or GROUPS_SCALAR_MAX_ROWS for
/// the scalar default (A not float4).
fn groups_rows(default: &KernelSpec, m: i64) -> bool {
    let max_rows = if std::ptr::eq(default, &GEMV_T_SCALAR) { GROUPS_SCALAR_MAX_ROWS } else { GROUPS_MAX_ROWS };
    (SHORT_ROWS_MAX + 1..=max_rows).contains(&m)
}

/// Whether a groups kernel takes a T call from `default` (`plan`, first):
/// [`groups_rows`] on at least GROUPS_MIN_COLUMNS columns.
fn groups_serves(default: &KernelSpec, m: i64, n: i64) -> bool {
    groups_rows(default, m) && n >= GROUPS_MIN_COLUMNS
}

/// Groups of 4 rows a lane for m rows: 4 or 6, whichever leaves its lanes
/// fewer rows past m (4 · L · groups, L lanes for ceil(m / groups) rows), 6
/// on a tie (more loads in flight a lane, fewer shuffles). The 6-group kernel
/// takes 65–96, 129–192 and 257–384 rows (L = 4, 8, 16 where 4 groups need
/// twice the lanes), the 4-group one the rest. H200, kernel time
/// (`scripts/gemv-ab.py`), 262144 columns, µs, 4 groups / 6 / cuBLAS: 65 rows
/// 22.9 / 20.1 / 27.0, 100 26.5 / 31.0 / 39.1, 160 44.1 / 42.3 / 53.5, 200
/// 50.3 / 60.4 / 66.9, 257 92.5 / 68.1 / 72.7, 320 90.9 / 82.3 / 89.9.
pub fn groups_of_rows(m: i64) -> u64 {
    let covered = |groups: u64| 4 * lanes_per_column((m.max(1) as u64).div_ceil(groups)) * groups;
    if covered(6) <= covered(4) { 6 } else { 4 }
}

/// The groups a groups kernel holds a lane; None for the other kernels.
fn groups_of_kernel(spec: &KernelSpec) -> Option<u64> {
    compiled_parameter(
        spec,
        &[(&GEMV_T_GROUPS4, &GEMV_T_SCALAR_GROUPS4, 4), (&GEMV_T_GROUPS6, &GEMV_T_SCALAR_GROUPS6, 6)],
    )
}

/// The groups kernels' shape: blocks of GROUPS_SPACE.tx_max threads, or of
/// tx_min where that grid has fewer blocks than SMs (65 × 4096 on 4 lanes a
/// column: 32 blocks of 256 threads 2.87 µs, 64 of 128 2.67).
fn groups_plan(device: &DeviceModel, kernel: &KernelModel, spec: &KernelSpec, problem: &Problem) -> LaunchPlan {
    let shape = |tx| LaunchShape { tx, ty: 1, split: 1 };
    let plan = LaunchPlan::of_shape(device, kernel, spec, problem, shape(GROUPS_SPACE.tx_max));
    if plan.geometry.blocks() >= device.sm_count as u64 {
        plan
    } else {
        LaunchPlan::of_shape(device, kernel, spec, problem, shape(GROUPS_SPACE.tx_min))
    }
}

/// Whether `gemv_t_f32_paired` can take a T call from `gemv_t_f32` (`plan`;
/// x as float4 is the caller's check): at least PAIRED_MIN_COLUMNS columns
/// and at most PAIRED_MAX_ROWS rows, split or not (65536 × 1024 ran 68.5 µs
/// unsplit against 70.6 on the default's split of 4, H200), or at least
/// PAIRED_SHORT_MIN_COLUMNS, with more rows than columns and fewer than
/// PAIRED_SHORT_ROWS_PER_COLUMN times as many, or at most
/// PAIRED_TINY_MAX_ROWS × PAIRED_TINY_MAX_COLUMNS; where the split paired
/// kernel does not take it.
fn paired_serves(m: i64, n: i64) -> bool {
    (n >= PAIRED_MIN_COLUMNS && m <= PAIRED_MAX_ROWS)
        || (n >= PAIRED_SHORT_MIN_COLUMNS && n < m && m < PAIRED_SHORT_ROWS_PER_COLUMN * n)
        || (m <= PAIRED_TINY_MAX_ROWS && n <= PAIRED_TINY_MAX_COLUMNS)
}

/// Whether `gemv_t_f32_stacked` can take a T call from `gemv_t_f32` (`plan`,
/// which then needs [`stacked_pays`]; x as float4 is the caller's check):
/// more rows than one warp's round (Ty 2 at least), at most
/// STACKED_MAX_COLUMNS columns, with Ty 2 at most STACKED_PAIR_MAX_COLUMNS,
/// and on fewer than STACKED_FEW_COLUMNS at most STACKED_FEW_COLUMNS_MAX_ROWS
/// rows.
fn stacked_serves(m: i64, n: i64) -> bool {
    let rows = m as u64;
    rows > STACKED_WARP_ROWS
        && rows <= STACKED_SPACE.ty_max as u64 * STACKED_MAX_WARP_ROWS
        && n <= STACKED_MAX_COLUMNS
        && (rows > 2 * STACKED_WARP_ROWS || n <= STACKED_PAIR_MAX_COLUMNS)
        && (n >= STACKED_FEW_COLUMNS || m <= STACKED_FEW_COLUMNS_MAX_ROWS)
}

/// The stacked kernel's shape: one column a block and Ty warps on it, from
/// the power of two at or above the warps that give each one round
/// (STACKED_WARP_ROWS rows), at most 16, halved until the grid runs in one
/// wave. Against the fastest Ty of 2 to 16 at each of 25 shapes from 2048 x
/// 16 to 32768 x 64 (H200, kernel time, `scripts/gemv-ab.py`), the rule's
/// was within 3 % (3000 x 32: Ty 4 2.59 µs, 8 2.59; 4096 x 512: Ty 4 4.61,
/// 8 5.66, as Ty 8 needs two waves there).
fn stacked_plan(device: &DeviceModel, kernel: &KernelModel, spec: &KernelSpec, problem: &Problem) -> LaunchPlan {
    let space = spec.space;
    let warps = problem.m.div_ceil(STACKED_WARP_ROWS).next_power_of_two();
    let mut ty = warps.clamp(space.ty_min as u64, space.ty_max as u64) as u32;
    loop {
        let shape = LaunchShape { tx: space.tx_min, ty, split: 1 };
        let plan = LaunchPlan::of_shape(device, kernel, spec, problem, shape);
        if ty <= space.ty_min || optimizer::waves(device, &plan) == 1 {
            return plan;
        }
        ty /= 2;
    }
}

/// Whether the stacked plan replaces the default's: two warps a column or
/// more, in one wave, at most STACKED_MAX_WARP_ROWS rows a warp.
fn stacked_pays(device: &DeviceModel, m: i64, plan: &LaunchPlan) -> bool {
    let ty = plan.shape.ty as u64;
    ty >= 2 && optimizer::waves(device, plan) == 1 && (m as u64).div_ceil(ty) <= STACKED_MAX_WARP_ROWS
}

/// Whether `gemv_t_f32_paired_split` can take a T call from `gemv_t_f32`
/// (`plan`, which then needs [`paired_split_pays`]; x as float4 is the
/// caller's check): rows in 32 bits, two ranges of PAIRED_SPLIT_MIN_RANGE
/// rows at least, at most one column per arrival counter, and where the
/// unsplit paired kernel serves, PAIRED_SPLIT_MIN_ROWS rows (where its
/// blocks of 8 columns leave at least 1/8 of the SMs idle) or
/// PAIRED_SPLIT_MIN_ROWS_FULL_GRID (where they do not).
fn paired_split_serves(device: &DeviceModel, m: i64, n: i64) -> bool {
    let unsplit_blocks = (n as u64).div_ceil(t_columns_per_block(m as u64, PAIRED_SPACE.tx_min));
    let min_rows = if 8 * unsplit_blocks <= 7 * device.sm_count as u64 {
        PAIRED_SPLIT_MIN_ROWS
    } else {
        PAIRED_SPLIT_MIN_ROWS_FULL_GRID
    };
    m <= PAIRED_MAX_ROWS
        && m as u64 >= 2 * PAIRED_SPLIT_MIN_RANGE
        && n as u64 <= SPLIT_COUNTER_SLOTS
        && (!paired_serves(m, n) || m >= min_rows)
}

/// The split paired kernel's shape: of the splits of its space whose grid
/// runs in one wave with more blocks than SMs (where there is none, with
/// blocks on a quarter of the SMs or more), and ranges of at least
/// PAIRED_SPLIT_MIN_RANGE rows (where none pays, on at most
/// PAIRED_SPLIT_SHORT_RANGE_MAX_COLUMNS columns, PAIRED_SPLIT_SHORT_RANGE),
/// the one whose grid best fills the fewest
/// blocks per SM that hold it (k = ⌈blocks / SMs⌉: the Grid-Occupancy of a
/// device that runs k blocks per SM), ties to the smaller split. So 64
/// blocks of columns (512) split 4 ways on 132 SMs (256 blocks, 0.97 of two
/// per SM), not 3 (0.73) or 5 (0.81), and 96 (768 columns) 4 ways (384,
/// 0.97 of three), not 2 or 3 (0.73). Measured on an H200 (kernel time,
/// `scripts/gemv-ab.py`, ranges of 128 rows, µs, this rule's split first):
/// 65536 × 512 35.9 (split 2 40.3, 6 38.4), 8192 × 512 7.84 (2: 8.02, 6:
/// 7.97), 100000 × 256 28.6 (12: 28.8), 16384 × 256 7.72 (4: 7.95, 12:
/// 8.01), 1000000 × 128 121.8 (24: 122.0), 300000 × 64 22.2 (49: 23.2),
/// 1048576 × 16 20.8 (198: 22.2), 200000 × 768 144.1 (3: 149.2), 100000 ×
/// 1024 98.8 (3: 99.4); the worst, 50000 × 384 23.2 against 22.2 on a split
/// of 5 (240 blocks, 0.91 of two). On matrices too small for two blocks per
/// SM (µs, this rule's split first, then cuBLAS): 4096 × 256 4.31 (split
/// 2: 5.02; 4.27), 8192 × 128 4.61 (4: 4.99; 5.07), 16384 × 64 4.90 (8:
/// 5.01; 5.07), 3000 × 512 5.18 (6.55), 2048 × 512 4.22 (3.36; the
/// unsplit paired kernel, which does not serve fewer than
/// PAIRED_MIN_COLUMNS columns, 3.59). Without such a split, the space's
/// first.
fn paired_split_plan(device: &DeviceModel, kernel: &KernelModel, spec: &KernelSpec, problem: &Problem) -> LaunchPlan {
    let sms = device.sm_count as u64;
    let tx = spec.space.tx_min;
    let plans: Vec<LaunchPlan> = paired_split_plans(device, kernel, spec, problem).collect();
    // The best plan that pays on ranges of at least `min_range` rows, by (more blocks than SMs, fill) in that order.
    let best_on = |min_range: u64| {
        let mut best: Option<((bool, f64), LaunchPlan)> = None;
        for &plan in &plans {
            let (per_split, _) = reduction_split(Layout::TPaired, problem, &plan.shape);
            let blocks = plan.geometry.blocks();
            if !paired_split_pays(device, &plan) || per_split < min_range {
                continue;
            }
            let score = (blocks > sms, blocks as f64 / (blocks.div_ceil(sms) * sms) as f64);
            let better = |(more, fill): (bool, f64)| (score.0 && !more) || (score.0 == more && score.1 > fill + 1e-9);
            if best.is_none_or(|(best_score, _)| better(best_score)) {
                best = Some((score, plan));
            }
        }
        best.map(|(_, plan)| plan)
    };
    best_on(PAIRED_SPLIT_MIN_RANGE)
        .or_else(|| {
            (problem.n <= PAIRED_SPLIT_SHORT_RANGE_MAX_COLUMNS).then(|| best_on(PAIRED_SPLIT_SHORT_RANGE)).flatten()
        })
        .or(plans.first().copied())
        .unwrap_or_else(|| LaunchPlan::of_shape(device, kernel, spec, problem, LaunchShape { tx, ty: 1, split: 1 }))
}

/// Whether a split paired plan replaces the default's: split, in one wave,
/// with blocks on a quarter of the SMs or more. Below half of them the
/// default's and lean kernels were slower still (H200, kernel time, µs,
/// `scripts/gemv-ab.py`, the routine's kernel / split / cuBLAS): 4096 × 128
/// 6.21 / 4.03 (4 ranges, 64 blocks) / 4.52.
fn paired_split_pays(device: &DeviceModel, plan: &LaunchPlan) -> bool {
    plan.geometry.grid.1 > 1
        && optimizer::waves(device, plan) == 1
        && 4 * plan.geometry.blocks() >= device.sm_count as u64
}

/// Whether the split paired kernel takes a T call from the unsplit one
/// (`paired`, its plan) for the tail of its last wave: at least
/// PAIRED_SPLIT_MIN_ROWS rows in 32 bits, no more columns than the split's
/// counters, and an unsplit grid of two to PAIRED_TAIL_MAX_WAVES waves, the
/// last filled to less than PAIRED_TAIL_MAX_LAST_FILL. It then runs in
/// PAIRED_TAIL_SPLIT ranges (`paired_tail_split_plan`). The unsplit plan is
/// asked for only past the size checks, which most calls fail.
fn paired_tail_split_serves(
    device: &DeviceModel,
    m: i64,
    n: i64,
    paired: impl FnOnce() -> Result<LaunchPlan>,
) -> Result<bool> {
    if !(PAIRED_SPLIT_MIN_ROWS..=PAIRED_MAX_ROWS).contains(&m) || n as u64 > SPLIT_COUNTER_SLOTS {
        return Ok(false);
    }
    let paired = paired()?;
    Ok((2..=PAIRED_TAIL_MAX_WAVES).contains(&optimizer::waves(device, &paired))
        && optimizer::last_wave_fill(device, &paired) < PAIRED_TAIL_MAX_LAST_FILL)
}

/// The split paired kernel's shape for the tail of the unsplit one's last wave: PAIRED_TAIL_SPLIT ranges.
fn paired_tail_split_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> LaunchPlan {
    let shape = LaunchShape { tx: spec.space.tx_min, ty: 1, split: PAIRED_TAIL_SPLIT };
    LaunchPlan::of_shape(device, kernel, spec, problem, shape)
}

/// Whether x lies an odd number of floats off A's float4s in some column
/// (lda odd, or A and x at floats of different parity), where the any-A
/// kernels shift x by 1 or 3 floats.
fn x_off_a_by_odd_floats(a: u64, lda: i64, x: XReads) -> bool {
    let a_odd = (a / 4) % 2 == 1;
    lda % 2 != 0
        || match x {
            XReads::Float4 => a_odd,
            XReads::UnitStride { odd_float } => a_odd != odd_float,
            XReads::Strided => false,
        }
}

/// Whether the split paired kernel for any A takes a call for its long
/// columns alone, in as many waves as it needs: x an odd number of floats
/// off A's float4s (`odd_shift`, [`x_off_a_by_odd_floats`]), more than
/// PAIRED_ANY_LONG_MIN_ROWS rows, on no more columns than the split's counters.
fn long_any_split_serves(m: i64, n: i64, odd_shift: bool) -> bool {
    odd_shift && m > PAIRED_ANY_LONG_MIN_ROWS && m <= PAIRED_MAX_ROWS && n as u64 <= SPLIT_COUNTER_SLOTS
}

/// The split paired kernel for any A's shape on long columns
/// ([`long_any_split_serves`]): `plan` (`paired_split_plan`'s, which the
/// tuner caches for every call of the problem's size) where that pays on
/// ranges of at most PAIRED_ANY_MAX_RANGE_ROWS rows, or pays at all where
/// lda is even; else the smallest split of its space whose ranges are that
/// short. With every column's x one float off (lda even) the split that
/// pays was the fastest on 1001 columns, with lda odd the short ranges
/// (H200, kernel time, µs, split 2 (one wave) / 5 / 8: x 1 float off,
/// 200000 × 1001 208.6 / 225.3 / 210.2, 100000 × 1001 106.1 / 117.9 /
/// 110.4; lda odd, 200001 × 1001 213.1 / 191.3 (6) / 189.9).
fn long_any_split_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
    plan: LaunchPlan,
    odd_lda: bool,
) -> LaunchPlan {
    let short_ranges =
        |plan: &LaunchPlan| reduction_split(Layout::TPaired, problem, &plan.shape).0 <= PAIRED_ANY_MAX_RANGE_ROWS;
    if paired_split_pays(device, &plan) && (short_ranges(&plan) || !odd_lda) {
        return plan;
    }
    paired_split_plans(device, kernel, spec, problem).find(short_ranges).unwrap_or(plan)
}

/// The split paired kernels' plans, one per split of their space (on its one
/// block size), in the space's order.
fn paired_split_plans<'a>(
    device: &'a DeviceModel,
    kernel: &'a KernelModel,
    spec: &'a KernelSpec,
    problem: &'a Problem,
) -> impl Iterator<Item = LaunchPlan> + 'a {
    let tx = spec.space.tx_min;
    spec.space
        .splits
        .iter()
        .map(move |&split| LaunchPlan::of_shape(device, kernel, spec, problem, LaunchShape { tx, ty: 1, split }))
}

/// Whether `gemv_t_f32_l1_any` can take a T call from its default kernel
/// (`plan`; x with unit stride is the caller's check): the default's plan
/// unsplit on at least L1_ANY_MIN_COLUMNS columns, and for float4 A at most
/// L1_ANY_FLOAT4_MAX_ROWS rows.
fn l1_any_serves(default: &KernelSpec, m: i64, n: i64, default_plan: &LaunchPlan) -> bool {
    default_plan.geometry.grid.1 == 1
        && n >= L1_ANY_MIN_COLUMNS
        && (std::ptr::eq(default, &GEMV_T_SCALAR) || m <= L1_ANY_FLOAT4_MAX_ROWS)
}

/// Whether the unsplit paired kernel for any A (`paired_any`) takes a call
/// that `gemv_t_f32_l1_any` (`l1_any`) serves, on columns of at least
/// PAIRED_ANY_OVER_L1_ANY_MIN_ROWS rows (the caller's check): unless
/// `l1_any` runs in one wave filled to less than
/// L1_ANY_KEEPS_BELOW_GRID_OCCUPANCY where `paired_any` needs more.
fn paired_any_over_l1_any(device: &DeviceModel, l1_any: &LaunchPlan, paired_any: &LaunchPlan) -> bool {
    let l1_any_keeps = optimizer::waves(device, l1_any) == 1
        && optimizer::waves(device, paired_any) > 1
        && l1_any.occupancy.grid < L1_ANY_KEEPS_BELOW_GRID_OCCUPANCY;
    !l1_any_keeps
}

/// The kernel and the tuner's plan for a call (what `sgemv` launches; the
/// benchmark reports it): the default kernel, unless its twin does better by
/// a rule the occupancies cannot see, or a shape is forced on the default.
///  - Cluster N, for any A and x, where the gemv image is sm_90 machine code
///    ([`runs_clusters`]): wherever `cluster_serves` (1 to 1024 rows on 513
///    to 16384 columns, past 1536 from 256 rows on; 9 to 128 rows past 16384
///    columns), the kernel of [`cluster_tile_rows`] on 256 threads in
///    [`clusters_per_tile`] clusters a tile. Each tile of 16, 32 or 64 rows is split
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
///    PAIRED_ANY_MAX_RANGE_ROWS, in as many waves as it takes: x's float4s
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
///    [`l1_any_serves`], after the lean twins where they save a wave (5000²
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
///  - Few-columns N, for float4 A on fast DRAM: wherever `few_serves` and
///    `few_pays`, on `few_plan`'s shape, after the sweep (H200, over 66
///    shapes of 16 to 1536 columns, 1.29× faster than the kernels it
///    replaces; 8192 × 128 3.94 → 3.35 µs, cuBLAS 3.36).
///  - Narrow N: at most N_SPLIT_MIN_COLUMNS columns (no split) and row tiles
///    that leave SMs idle: the narrow kernel's smaller tiles engage more SMs
///    (`mublas bench sgemv`: N 256², 8 blocks of 32 rows, 9.6–10.0 µs against
///    11.5–12.1 for the default's 2 × 2 split blocks; 512², 16 blocks,
///    10.3–10.8 against 11.2–12.4 for 4 × 4).
///  - Wide N: [`wide_pays`], on the shape of [`wide_plan`]. First, where
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
pub fn plan(
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
    let plan_by =
        |spec: &'static KernelSpec, rule: &dyn Fn(&KernelModel, &Problem) -> LaunchPlan| -> Result<LaunchPlan> {
            let kernel = device.kernel(spec.name)?;
            let problem = problem(m, n);
            Ok(device.tuner.plan_with(spec, &kernel.model, &problem, || rule(&kernel.model, &problem)))
        };
    let default = select_kernel(op, m, a, lda);
    let default_plan = if is_short_n(default) {
        plan_by(default, &|kernel, problem| {
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
            Twin::Wide | Twin::WideStaged | Twin::Lanes => wide_serves(kind, m, n),
            Twin::WideAny => wide_any_serves(model, m, n),
            Twin::Sweep => sweep_serves(model, default, m, n),
            Twin::Few => few_serves(model, default, m, n),
            Twin::Long => long_serves(model, m, n, &default_plan),
            Twin::Thin => !fast_dram(model) && n >= LONG_MIN_COLUMNS && doubles_up(model, &default_plan),
        };
        if !consider {
            continue;
        }
        let twin_plan = match kind {
            Twin::Cluster => plan_by(twin_spec, &|kernel, problem| cluster_plan(model, kernel, twin_spec, problem))?,
            Twin::Groups => plan_by(twin_spec, &|kernel, problem| groups_plan(model, kernel, twin_spec, problem))?,
            Twin::PairedSplit if paired_tail => {
                plan_by(twin_spec, &|kernel, problem| paired_tail_split_plan(model, kernel, twin_spec, problem))?
            }
            Twin::PairedSplit | Twin::PairedSplitAny => {
                let plan = plan_by(twin_spec, &|kernel, problem| paired_split_plan(model, kernel, twin_spec, problem))?;
                // The long-column shape apart from the tuner's cache, whose key does not tell x's offset.
                if kind == Twin::PairedSplitAny && long_any && device.tuner.forced().get(twin_spec.name).is_none() {
                    let kernel = device.kernel(twin_spec.name)?;
                    long_any_split_plan(model, &kernel.model, twin_spec, &problem(m, n), plan, lda % 2 != 0)
                } else {
                    plan
                }
            }
            Twin::Few => plan_by(twin_spec, &|kernel, problem| few_plan(model, kernel, twin_spec, problem))?,
            Twin::Stacked | Twin::StackedAny => {
                plan_by(twin_spec, &|kernel, problem| stacked_plan(model, kernel, twin_spec, problem))?
            }
            Twin::WideAny => plan_by(twin_spec, &|kernel, problem| wide_any_plan(model, kernel, twin_spec, problem))?,
            Twin::Narrow if narrow_split => {
                plan_by(twin_spec, &|kernel, problem| narrow_split_plan(model, kernel, twin_spec, problem))?
            }
            Twin::Wide if wide_fine_serves(model, twin_spec, m) => {
                plan_by(twin_spec, &|kernel, problem| wide_fine_plan(model, kernel, twin_spec, problem))?
            }
            Twin::Wide | Twin::WideStaged | Twin::Sweep | Twin::Long => {
                let thread_rows = match kind {
                    Twin::Sweep => sweep_thread_rows,
                    Twin::Long => long_thread_rows,
                    _ => wide_thread_rows,
                };
                plan_by(twin_spec, &|kernel, problem| wide_plan(model, kernel, twin_spec, problem, thread_rows))?
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

/// What the tuner sizes a launch for: A's rows and columns.
pub fn problem(m: i64, n: i64) -> Problem {
    Problem { m: m as u64, n: n as u64, k: 0 }
}

/// Cuts `len` into at most `split` ranges whose length is a multiple of
/// `granule`: (length of each range, number of ranges). No range is empty.
pub fn split_ranges(len: u64, split: u32, granule: u64) -> (u64, u32) {
    if split <= 1 || len <= granule {
        return (len.max(1), 1);
    }
    let per = len.div_ceil(split as u64).div_ceil(granule) * granule;
    (per, len.div_ceil(per) as u32)
}

/// Blocks along grid.x: row tiles (N), column groups (T), or the one tile of the short kernels.
fn tiles(layout: Layout, problem: &Problem, shape: &LaunchShape) -> u64 {
    let n = match layout {
        Layout::N => n_row_tiles(problem.m, shape.tx),
        Layout::NShort => 1,
        Layout::T | Layout::TShort | Layout::TPaired => problem.n.div_ceil(t_columns_per_block(problem.m, shape.tx)),
        Layout::TGroups(groups) => problem.n.div_ceil(groups_columns_per_block(problem.m, shape.tx, groups)),
        Layout::NCluster(rows) => problem.m.div_ceil(rows),
    };
    n.max(1)
}

/// Columns one block of the T kernels covers: a warp per column from m = 65
/// on; below (the short T kernels), Tx / L column slots of T_SMALL_COLUMNS columns each.
pub fn t_columns_per_block(m: u64, tx: u32) -> u64 {
    let lanes = lanes_per_column(m);
    let slots = (tx as u64 / lanes).max(1);
    if lanes < 32 { slots * T_SMALL_COLUMNS } else { slots }
}

/// Columns one block of a groups kernel covers: Tx / L column slots of
/// GROUPS_COLUMNS_PER_LANE columns, L lanes for ceil(m / groups) rows at 4 a lane.
pub fn groups_columns_per_block(m: u64, tx: u32, groups: u64) -> u64 {
    let lanes = lanes_per_column(m.div_ceil(groups.max(1)));
    (tx as u64 / lanes).max(1) * GROUPS_COLUMNS_PER_LANE
}

/// The split a launch really uses, (range length, ranges = grid.y): the shape's,
/// cut down so that no range is empty and the partial vectors fit in the
/// work buffer's SPLIT_SLOTS, and 1 when there are more tiles (columns, for the split
/// paired kernel) than counters, when op N has at most N_SPLIT_MIN_COLUMNS
/// columns, or the kernel does not split (the short T kernels).
pub fn reduction_split(layout: Layout, problem: &Problem, shape: &LaunchShape) -> (u64, u32) {
    let (len, granule, len_y) = match layout {
        Layout::N => (problem.n, N_COLUMN_GRANULE, problem.m),
        Layout::NShort => (problem.n, SHORT_COLUMN_GRANULE, problem.m),
        Layout::T => (problem.m, T_ROW_GRANULE, problem.n),
        Layout::TPaired => (problem.m, PAIRED_ROW_GRANULE, problem.n),
        Layout::TShort | Layout::TGroups(_) => return (problem.m.max(1), 1),
        // Whole clusters, at least one, whatever the columns (a range past n is empty), their partial
        // vectors within SPLIT_SLOTS.
        Layout::NCluster(_) => {
            let fits = (SPLIT_SLOTS / problem.m.max(1)).max(1);
            let clusters = ((shape.split / CLUSTER_BLOCKS) as u64).clamp(1, fits) as u32;
            let splits = clusters * CLUSTER_BLOCKS;
            return (problem.n.div_ceil(splits as u64).max(1), splits);
        }
    };
    let narrow = matches!(layout, Layout::N) && problem.n <= N_SPLIT_MIN_COLUMNS;
    let counted = if layout == Layout::TPaired { problem.n } else { tiles(layout, problem, shape) };
    if narrow || counted > SPLIT_COUNTER_SLOTS {
        return (len.max(1), 1);
    }
    let fits = (SPLIT_SLOTS / len_y.max(1)).clamp(1, u32::MAX as u64) as u32;
    split_ranges(len, shape.split.min(fits), granule)
}

fn grid_x(blocks: u64) -> u32 {
    blocks.min(i32::MAX as u64) as u32
}

fn geometry(layout: Layout, problem: &Problem, shape: &LaunchShape) -> Geometry {
    let (_, splits) = reduction_split(layout, problem, shape);
    // Every kernel's shared memory is static (the N kernels fold their thread rows through the x chunk).
    Geometry { grid: (grid_x(tiles(layout, problem, shape)), splits, 1), dynamic_shared_bytes: 0 }
}

fn n_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::N, problem, shape)
}

fn short_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::NShort, problem, shape)
}

fn t_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::T, problem, shape)
}

fn t_paired_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::TPaired, problem, shape)
}

/// The lanes and sweep kernels: a row per thread, Tx rows a block, unsplit.
fn lanes_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    Geometry { grid: (grid_x(problem.m.div_ceil(shape.tx.max(1) as u64).max(1)), 1, 1), dynamic_shared_bytes: 0 }
}

fn t_short_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::TShort, problem, shape)
}

fn t_groups4_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::TGroups(4), problem, shape)
}

fn t_groups6_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::TGroups(6), problem, shape)
}

fn n_cluster16_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::NCluster(16), problem, shape)
}

fn n_cluster32_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::NCluster(32), problem, shape)
}

fn n_cluster64_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::NCluster(64), problem, shape)
}

/// Split slots a launch with `splits` partial vectors needs (one a range; for
/// the cluster kernels, one a cluster): each the length of y, in the work
/// buffer's [`SPLIT_SLOTS`] (which, with the counters, come with every
/// [`WorkArea`](crate::handle::WorkArea)). 0 without a split.
pub fn split_slots(op: Op, m: i64, n: i64, splits: u32) -> u64 {
    if splits <= 1 {
        return 0;
    }
    let (_, len_y) = op.vector_lengths(m, n);
    splits as u64 * len_y as u64
}

/// Bytes one call moves, for the benchmark's bandwidth figure: A once, x once,
/// y read and written: (m·n + len(x) + 2·len(y))·4, (n² + 3n)·4 when square.
pub fn bytes_moved(op: Op, m: i64, n: i64) -> f64 {
    let (len_x, len_y) = op.vector_lengths(m, n);
    (m as f64 * n as f64 + len_x as f64 + 2.0 * len_y as f64) * 4.0
}

/// One validated call.
#[derive(Clone, Copy, Debug)]
struct Call {
    op: Op,
    m: i64,
    n: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    x: StridedVector,
    beta: Scalar,
    y: StridedVector,
}

impl Call {
    /// Checks the arguments; None for a quick return.
    #[allow(clippy::too_many_arguments)]
    fn new(
        trans: i32,
        m: i64,
        n: i64,
        alpha: Scalar,
        a: u64,
        lda: i64,
        x: u64,
        incx: i64,
        beta: Scalar,
        y: u64,
        incy: i64,
    ) -> Result<Option<Call>> {
        let op = check_arguments(trans, m, n, lda, incx, incy)?;
        if quick_return(m, n, alpha, beta) {
            return Ok(None);
        }
        if y == 0 {
            return Err(Error::InvalidValue("SGEMV: y is NULL".into()));
        }
        // A host alpha of 0 reads neither A nor x.
        if (a == 0 || x == 0) && !alpha.is(0.0) {
            return Err(Error::InvalidValue("SGEMV: A or x is NULL".into()));
        }
        let (len_x, len_y) = op.vector_lengths(m, n);
        Ok(Some(Call {
            op,
            m,
            n,
            alpha,
            a,
            lda,
            x: StridedVector { base: x, len: len_x, inc: incx },
            beta,
            y: StridedVector { base: y, len: len_y, inc: incy },
        }))
    }
}

/// y = alpha·op(A)·x + beta·y (cuBLAS `cublasSgemv`), the launch shape chosen by the tuner.
#[allow(clippy::too_many_arguments)]
pub fn sgemv(
    handle: &Handle,
    trans: i32,
    m: i64,
    n: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    x: u64,
    incx: i64,
    beta: Scalar,
    y: u64,
    incy: i64,
) -> Result<()> {
    let Some(call) = Call::new(trans, m, n, alpha, a, lda, x, incx, beta, y, incy)? else { return Ok(()) };
    let (spec, plan) = plan(handle, call.op, m, n, a, lda, x_reads(x, incx))?;
    launch(handle, spec, &call, plan.shape)
}

/// [`sgemv`] with the kernel (one of [`candidate_kernels`]) and the launch
/// shape given instead of chosen: for tests that run every candidate of every
/// kernel. Same checks, same launch.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn sgemv_with_shape(
    handle: &Handle,
    spec: &'static KernelSpec,
    shape: LaunchShape,
    trans: i32,
    m: i64,
    n: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    x: u64,
    incx: i64,
    beta: Scalar,
    y: u64,
    incy: i64,
) -> Result<()> {
    let Some(call) = Call::new(trans, m, n, alpha, a, lda, x, incx, beta, y, incy)? else { return Ok(()) };
    if !candidate_kernels(call.op, m, a, lda, x_reads(x, incx)).iter().any(|k| std::ptr::eq(*k, spec)) {
        return Err(Error::InvalidValue(format!("{} cannot serve this call", spec.name)));
    }
    if needs_clusters(spec) && !runs_clusters(&handle.device) {
        return Err(Error::InvalidValue(format!("{} needs thread-block clusters (sm_90 machine code)", spec.name)));
    }
    // The kernels assume their declared block shapes (GEMV-T's blocks are 1-D).
    if !spec.space.contains(&shape) {
        return Err(Error::InvalidValue(format!("{shape:?} is outside the launch space of {}", spec.name)));
    }
    launch(handle, spec, &call, shape)
}

fn launch(handle: &Handle, spec: &'static KernelSpec, call: &Call, shape: LaunchShape) -> Result<()> {
    let device = &handle.device;
    let kernel = device.kernel(spec.name)?;
    let problem = problem(call.m, call.n);
    let layout = Layout::of_kernel(spec, call.op, call.m);
    let (_, splits) = reduction_split(layout, &problem, &shape);
    // The cluster kernels add their ranges in the cluster: partial vectors only for several clusters a tile.
    let in_cluster = matches!(layout, Layout::NCluster(_));
    let (partial_vectors, unsplit) = if in_cluster { (splits / CLUSTER_BLOCKS, CLUSTER_BLOCKS) } else { (splits, 1) };
    // Held until the launch is queued: calls on this handle from other threads
    // wait, so that two launches never share the counters at once. Without
    // the work buffer (its limit, or no memory to grow it) the launch is
    // unsplit (one cluster a tile).
    let (work, shape) = if partial_vectors <= 1 {
        (None, shape)
    } else {
        debug_assert!(split_slots(call.op, call.m, call.n, partial_vectors) <= SPLIT_SLOTS);
        match handle.work_area(0) {
            Ok(work) => (Some(work), shape),
            Err(Error::AllocFailed(why)) => {
                log::info!("SGEMV: not splitting ({why})");
                (None, LaunchShape { split: unsplit, ..shape })
            }
            Err(e) => return Err(e),
        }
    };
    let geometry = (spec.geometry)(&problem, &shape);
    let (per_split, splits) = reduction_split(layout, &problem, &shape);
    debug_assert_eq!(splits, geometry.grid.1);
    debug_assert!(splits == unsplit || work.is_some());
    let (alpha_value, alpha_address) = call.alpha.kernel_args();
    let (beta_value, beta_address) = call.beta.kernel_args();
    let _bound = ContextGuard::bind(device.context())?;
    let (counters, slots) = work.as_ref().map_or((0, 0), |work| (work.counters(), work.slots()));
    // SAFETY: the argument list matches GEMV_PARAMS in kernels/gemv.cu; A spans
    // lda·(n-1) + m floats and x, y their lengths with their increments, which
    // the caller vouches for as cuBLAS's does; the work buffer holds the
    // counters and the slots of `splits` partial vectors (split_slots).
    unsafe {
        kernel.launch(
            handle.stream(),
            &geometry,
            &shape,
            &[
                I64(call.m),
                I64(call.n),
                alpha_value,
                alpha_address,
                Ptr(call.a),
                I64(call.lda),
                Ptr(call.x.first_element()),
                I64(call.x.inc),
                beta_value,
                beta_address,
                Ptr(call.y.first_element()),
                I64(call.y.inc),
                I64(per_split as i64),
                Ptr(counters),
                Ptr(slots),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_narrow_kernels_take_the_smallest_tiles_on_an_h100() {
        // What `plan` weighs on an H100 (the narrow kernels have no stored
        // recipe: the permissive one), with the N kernels' 64 registers and x chunk.
        use crate::tuner::optimizer::{choose, sm_coverage};
        use crate::tuner::{DeviceModel, KernelModel, TuningRecipe};
        let device = DeviceModel::h100_sxm();
        let model = KernelModel { registers_per_thread: 64, static_shared_bytes: 8193, max_threads_per_block: 1024 };
        let recipe = TuningRecipe::permissive(32);
        for (m, blocks) in [(256u64, 8u64), (512, 16), (1000, 32)] {
            let problem = Problem { m, n: 512, k: 0 };
            let plan = choose(&device, &model, &GEMV_N_NARROW, &recipe, &problem).unwrap();
            assert_eq!((plan.shape.tx, plan.shape.split), (8, 1), "{m} rows: {plan:?}");
            assert_eq!(plan.geometry.blocks(), blocks);
            // The default kernel's unsplit 128-row tiles engage 4 times fewer SMs.
            let default = choose(&device, &model, &GEMV_N, &recipe, &problem).unwrap();
            assert_eq!(default.geometry.grid.1, 1);
            assert!(sm_coverage(&device, &plan) > sm_coverage(&device, &default));
        }
    }

    /// The wide N kernels as the driver reports them on an H100 (94 and 102 registers).
    fn wide_models() -> [KernelModel; 2] {
        let model = |registers_per_thread| KernelModel {
            registers_per_thread,
            static_shared_bytes: 8193,
            max_threads_per_block: WIDE_THREADS,
        };
        [model(94), model(102)]
    }

    /// The scalar lanes kernel as the driver reports it on an H100 (46 registers).
    fn lanes_model() -> KernelModel {
        KernelModel { registers_per_thread: 46, static_shared_bytes: 4224, max_threads_per_block: 1024 }
    }

    #[test]
    fn the_lanes_kernel_takes_a_row_per_lane_unsplit() {
        let mut ty = LANES_SPACE.ty_min;
        while ty <= LANES_SPACE.ty_max {
            let shape = LaunchShape { tx: 32, ty, split: 1 };
            for (m, n, tiles) in [(1u64, 1u64, 1u32), (31, 5, 1), (32, 5000, 1), (33, 7, 2), (4097, 4097, 129)] {
                let problem = Problem { m, n, k: 0 };
                let g = lanes_geometry(&problem, &shape);
                assert_eq!((g.grid, g.dynamic_shared_bytes), ((tiles, 1, 1), 0), "{m} × {n}, {shape:?}");
                // `launch` takes its split from Layout::N's rule: one range, all the columns.
                assert_eq!(reduction_split(Layout::N, &problem, &shape), (n, 1));
            }
            ty += 1;
        }
    }

    #[test]
    fn the_lanes_kernel_replaces_the_scalar_wide_one_where_it_fills_one_wave() {
        use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
        let device = DeviceModel::h100_sxm();
        let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
        let lanes = |m: u64, n: u64| tuner.plan(&GEMV_N_SCALAR_LANES, &lanes_model(), &Problem { m, n, k: 0 });
        // The recipe asks for 1024 threads: a block per SM, 32-row tiles.
        for (m, blocks) in [(2001u64, 63u64), (3001, 94), (4097, 129), (4223, 132), (4224, 132)] {
            let plan = lanes(m, m);
            assert_eq!((plan.shape.tx, plan.shape.ty, plan.geometry.blocks()), (32, 32, blocks), "{m}²");
            assert!(wide_pays(&device, Twin::Lanes, m as i64, m as i64, 4, &plan), "{m}²");
        }
        // Past 132 tiles, two waves: the scalar wide kernel's larger tiles instead.
        for m in [4225u64, 5001, 8191] {
            assert!(!wide_pays(&device, Twin::Lanes, m as i64, m as i64, 4, &lanes(m, m)), "{m}²");
        }
        // The problems the wide kernels serve, no others.
        assert!(!wide_pays(&device, Twin::Lanes, 1999, 1999, 16, &lanes(1999, 1999)), "too few rows");
        assert!(!wide_pays(&device, Twin::Lanes, 4097, 1500, 4, &lanes(4097, 1500)), "fewer than 2000 columns");
        assert!(!wide_pays(&device, Twin::Lanes, 4097, 20001, 1, &lanes(4097, 20001)), "past 16384 columns");
    }

    #[test]
    fn the_wide_kernels_take_the_longest_row_tiles_that_fill_one_wave() {
        let device = DeviceModel::h100_sxm();
        for kernel in wide_models() {
            for (m, n, shape, blocks) in [
                (2000u64, 2000u64, (8, 64), 63),
                (4096, 4096, (8, 64), 128),
                (4100, 4100, (8, 64), 129),
                (5000, 5000, (16, 32), 79),
                (6000, 6000, (16, 32), 94),
                (7000, 7000, (16, 32), 110),
                (8192, 8192, (16, 32), 128),
                (8192, 2000, (16, 32), 128),
                (10000, 10000, (24, 21), 105),
                (12000, 12000, (24, 21), 125),
                (16384, 16384, (32, 16), 128),
                (20000, 20000, (40, 12), 125),
                (32768, 32768, (64, 8), 128),
            ] {
                let plan = wide_plan(&device, &kernel, &GEMV_N_WIDE, &Problem { m, n, k: 0 }, wide_thread_rows);
                assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (shape.0, shape.1, 1), "{m} × {n}");
                assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
                assert_eq!(optimizer::waves(&device, &plan), 1, "{m} × {n}");
            }
            // No one-wave grid of 256-row tiles or shorter: the largest Tx, in two waves.
            let plan =
                wide_plan(&device, &kernel, &GEMV_N_WIDE, &Problem { m: 65536, n: 1024, k: 0 }, wide_thread_rows);
            assert_eq!((plan.shape.tx, plan.geometry.blocks()), (64, 256));
            assert_eq!(optimizer::waves(&device, &plan), 2);
        }
    }

    #[test]
    fn on_fast_dram_the_wide_kernels_take_one_tile_per_sm_and_the_any_a_one_serves_from_2000_rows() {
        let (h100, h200) = (DeviceModel::h100_sxm(), DeviceModel::h200());
        for kernel in wide_models() {
            for (m, shape, blocks) in [
                (4225u64, (10, 32), 106),
                (4500, (10, 32), 113),
                (5000, (10, 32), 125),
                (5500, (12, 32), 115),
                (6000, (12, 32), 125),
                (6500, (14, 24), 117),
                (7000, (14, 24), 125),
                (8192, (16, 24), 128),
                (9000, (18, 16), 125),
                (10000, (20, 16), 125),
                (11000, (22, 16), 125),
            ] {
                assert!(wide_fine_serves(&h200, &GEMV_N_WIDE, m as i64), "{m}");
                let plan = wide_fine_plan(&h200, &kernel, &GEMV_N_WIDE, &Problem { m, n: m, k: 0 });
                assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (shape.0, shape.1, 1), "{m}²");
                assert_eq!(plan.geometry.blocks(), blocks, "{m}²");
                assert!(wide_pays(&h200, Twin::Wide, m as i64, m as i64, 1, &plan), "{m}²");
            }
            // Past one wave of the longest tiles: two waves, which wide_pays refuses.
            let plan = wide_fine_plan(&h200, &kernel, &GEMV_N_WIDE, &Problem { m: 40000, n: 2048, k: 0 });
            assert_eq!((plan.shape.tx, plan.shape.ty), (64, 8));
            assert!(!wide_pays(&h200, Twin::Wide, 40000, 2048, 1, &plan));
        }
        // The twin for any A from 2000 rows up to 48-row tiles (Tx 12; 96-row tiles, Tx 24, on at least 6144
        // columns), on the columns the wide kernels serve:
        // the same shapes past one wave of 32-row tiles, and below it 32-row tiles of 512 threads where they
        // engage less than 95 % of the SMs.
        for (m, shape, blocks) in [
            (2000u64, (8, 64), 63),
            (3501, (8, 64), 110),
            (4000, (8, 64), 125),
            (4225, (10, 32), 106),
            (5001, (10, 32), 126),
            (6336, (12, 32), 132),
            (9001, (18, 16), 126),
            (12672, (24, 16), 132),
        ] {
            let fewest_columns = if m > 6336 { 6144 } else { 2000 };
            assert!(wide_any_serves(&h200, m as i64, fewest_columns) && wide_any_serves(&h200, m as i64, 16384), "{m}");
            assert!(!wide_any_serves(&h100, m as i64, m as i64), "{m}");
            let plan = wide_any_plan(&h200, &wide_models()[0], &GEMV_N_WIDE_ANY, &Problem { m, n: m, k: 0 });
            assert_eq!((plan.shape.tx, plan.shape.ty, plan.geometry.blocks()), (shape.0, shape.1, blocks), "{m}²");
        }
        assert!(!wide_any_serves(&h200, 1999, 2000) && !wide_any_serves(&h200, 12673, 12673));
        // Below 4096 rows, on fewer than 2000 columns: the sweep.
        assert!(!wide_any_serves(&h200, 3001, 1999) && wide_any_serves(&h200, 3001, 2000));
        // Past 6336 rows, on at least 6144 columns.
        assert!(wide_any_serves(&h200, 6337, 6144) && !wide_any_serves(&h200, 6337, 6143));
        assert!(wide_any_serves(&h200, 6336, 2000));
        // Where 32-row tiles engage 95 % of the SMs or more (126 of 132), below 4096 rows on at least 3000
        // columns; on fewer, and from 4096 rows (one wave of 32-row tiles), the sweep.
        for m in [4001, 4095] {
            assert!(wide_any_serves(&h200, m, 3000) && !wide_any_serves(&h200, m, 2999), "{m}");
            let plan =
                wide_any_plan(&h200, &wide_models()[0], &GEMV_N_WIDE_ANY, &Problem { m: m as u64, n: 3000, k: 0 });
            assert_eq!((plan.shape.tx, plan.shape.ty), (8, 64), "{m}");
        }
        for m in [4096, 4224] {
            assert!(!wide_any_serves(&h200, m, m), "{m}");
        }
        assert!(!wide_any_serves(&h200, 5001, 16385));
        // Up to one wave of 32-row tiles, on the H100, and for the other wide kernels: wide_plan's shapes.
        assert!(!wide_fine_serves(&h200, &GEMV_N_WIDE, 4224));
        assert!(!wide_fine_serves(&h100, &GEMV_N_WIDE, 5000));
        assert!(!wide_fine_serves(&h200, &GEMV_N_SCALAR_WIDE, 5000));
        assert!(!wide_fine_serves(&h200, &GEMV_N_WIDE_STAGED, 5000));
    }

    /// The sweep kernel as the driver reports it on sm_90 (64 registers).
    fn sweep_model() -> KernelModel {
        KernelModel { registers_per_thread: 64, static_shared_bytes: 4224, max_threads_per_block: 1024 }
    }

    #[test]
    fn the_sweep_kernel_takes_the_shortest_row_tiles_that_fill_one_wave_of_full_blocks() {
        let device = DeviceModel::h200();
        let sweep = |m: u64, n: u64| {
            wide_plan(&device, &sweep_model(), &GEMV_N_SWEEP, &Problem { m, n, k: 0 }, sweep_thread_rows)
        };
        // One block of up to 1024 threads per SM: the most row tiles that 132 SMs hold, on a power of two
        // of thread rows.
        for (m, n, shape, blocks) in [
            (4097u64, 4097u64, (32, 32), 129),
            (6001, 6001, (64, 16), 94),
            (12000, 12000, (96, 8), 125),
            (16384, 16384, (128, 8), 128),
            (20000, 20000, (160, 4), 125),
            (24000, 24000, (192, 4), 125),
            (32768, 32768, (256, 4), 128),
            (65536, 1024, (512, 2), 128),
            (131072, 1024, (1024, 1), 128),
        ] {
            let plan = sweep(m, n);
            assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (shape.0, shape.1, 1), "{m} × {n}");
            assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
            assert_eq!(optimizer::waves(&device, &plan), 1, "{m} × {n}");
        }
        // Past 132 tiles of 1024 rows, two waves, which `plan` refuses.
        assert_eq!(optimizer::waves(&device, &sweep(135_169, 1024)), 2);
    }

    #[test]
    fn the_sweep_kernel_serves_long_columns_on_fast_dram_only() {
        let (h100, h200) = (DeviceModel::h100_sxm(), DeviceModel::h200());
        assert!(h100.dram_bytes_per_sm_second() < SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND);
        assert!(h200.dram_bytes_per_sm_second() >= SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND);
        for (default, m, n) in [
            (&GEMV_N, 4225, 4225),
            (&GEMV_N, 8192, 8192),
            (&GEMV_N, 12000, 12000),
            (&GEMV_N, 16384, 16384),
            (&GEMV_N, 65536, 1024),
            (&GEMV_N, 131072, 1024),
            (&GEMV_N_SCALAR, 4096, 4096),
            (&GEMV_N_SCALAR, 4224, 4223),
            (&GEMV_N_SCALAR, 4225, 4225),
            (&GEMV_N_SCALAR, 9001, 9001),
            (&GEMV_N_SCALAR, 20001, 20001),
        ] {
            assert!(sweep_serves(&h200, default, m, n), "{} {m} × {n}", default.name);
            assert!(!sweep_serves(&h100, default, m, n), "{} {m} × {n} on an H100", default.name);
        }
        assert!(!sweep_serves(&h200, &GEMV_N, 4224, 4224), "float4 A in one wave of 32-row tiles: the wide kernel");
        assert!(!sweep_serves(&h200, &GEMV_N, 4095, 4095), "float4 A in one wave of 32-row tiles");
        assert!(!sweep_serves(&h200, &GEMV_N, 1 << 20, 1023), "fewer than 1024 columns");
        assert!(!sweep_serves(&h200, &GEMV_N, 16896, 512), "fewer than 1024 columns");
        let unreported = DeviceModel { memory_clock_khz: 0, ..DeviceModel::h200() };
        assert!(!sweep_serves(&unreported, &GEMV_N, 16384, 16384), "no memory clock reported");
    }

    #[test]
    fn few_rows_on_many_columns_run_the_narrow_kernels_split_on_fast_dram() {
        let (h100, h200) = (DeviceModel::h100_sxm(), DeviceModel::h200());
        for (m, n) in [(65, 513), (128, 2048), (512, 4096), (100, 100_000), (200, 32768)] {
            assert!(narrow_split_serves(&h200, m, n), "{m} × {n}");
            assert!(!narrow_split_serves(&h100, m, n), "{m} × {n} on an H100");
        }
        assert!(!narrow_split_serves(&h200, 512, 512), "at most 512 columns: unsplit");
        assert!(!narrow_split_serves(&h200, 513, 2048), "more than 512 rows");
        // Ranges of at most 2048 columns: 64 ranges up to 128 rows, 32 up to 256, 16 up to 512.
        for (m, n) in [(128, 131_072), (129, 65536), (256, 65536), (257, 32768), (512, 32768)] {
            assert!(narrow_split_serves(&h200, m, n) && !narrow_split_serves(&h200, m, n + 1), "{m} × {n}");
        }
        let model = KernelModel { registers_per_thread: 64, static_shared_bytes: 8193, max_threads_per_block: 1024 };
        // (m, n, split, blocks): at most 2 blocks per SM, ranges of at least 128 columns (a multiple of 128).
        for (m, n, split, blocks) in [
            (128u64, 2048u64, 64, 64),
            (384, 2048, 16, 192),
            (512, 2048, 16, 256),
            (512, 4096, 16, 256),
            (128, 16384, 64, 256),
            (65, 100_000, 64, 183),
        ] {
            let plan = narrow_split_plan(&h200, &model, &GEMV_N_NARROW, &Problem { m, n, k: 0 });
            assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (8, 32, split), "{m} × {n}");
            assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
            assert!(GEMV_N_NARROW.space.contains(&plan.shape));
        }
    }

    #[test]
    fn below_4096_rows_the_sweep_takes_any_a_on_up_to_three_times_as_many_columns_as_rows() {
        let (h100, h200) = (DeviceModel::h100_sxm(), DeviceModel::h200());
        for (m, n) in [(256, 256), (300, 500), (511, 511), (1001, 600), (1001, 3003), (3001, 300), (4095, 2000)] {
            assert!(sweep_serves(&h200, &GEMV_N_SCALAR, m, n), "{m} × {n}");
            assert!(!sweep_serves(&h100, &GEMV_N_SCALAR, m, n), "{m} × {n} on an H100");
        }
        for (m, n, why) in [
            (255, 255, "fewer than 256 rows"),
            (4001, 255, "fewer than 256 columns"),
            (1001, 3004, "more than three columns a row"),
            (257, 1000, "more than three columns a row"),
        ] {
            assert!(!sweep_serves(&h200, &GEMV_N_SCALAR, m, n), "{m} × {n}: {why}");
        }
        // Float4 A keeps its kernels there (the wide and few-columns ones).
        assert!(!sweep_serves(&h200, &GEMV_N, 1000, 1000));
        // The sweep's shape: 32-row tiles of 32 thread rows, one wave.
        let plan =
            wide_plan(&h200, &sweep_model(), &GEMV_N_SWEEP, &Problem { m: 1001, n: 1001, k: 0 }, sweep_thread_rows);
        assert_eq!((plan.shape.tx, plan.shape.ty, plan.geometry.blocks()), (32, 32, 32));
        assert!(sweep_pays(&h200, &GEMV_N_SCALAR, 1001, &plan));
    }

    #[test]
    fn under_12000_rows_the_sweep_takes_float4_a_where_its_grid_engages_as_many_sms_as_the_wide_kernels() {
        let device = DeviceModel::h200();
        let sweep =
            |m: u64| wide_plan(&device, &sweep_model(), &GEMV_N_SWEEP, &Problem { m, n: m, k: 0 }, sweep_thread_rows);
        // (m, the sweep's blocks, the wide kernel's): 64-row tiles up to 8448 rows, 96-row tiles past them.
        for (m, blocks, wide) in
            [(7400u64, 116u64, 116u64), (7680, 120, 120), (8000, 125, 125), (8192, 128, 128), (8448, 132, 132)]
        {
            let plan = sweep(m);
            assert_eq!((plan.geometry.blocks(), wide_fine_tiles(&device, m as i64)), (blocks, wide), "{m}²");
            assert!(sweep_pays(&device, &GEMV_N, m as i64, &plan), "{m}²");
        }
        for (m, blocks, wide) in [
            (6336u64, 99u64, 132u64),
            (7000, 110, 125),
            (7200, 113, 129),
            (8449, 89, 118),
            (10000, 105, 125),
            (11500, 120, 131),
        ] {
            let plan = sweep(m);
            assert_eq!((plan.geometry.blocks(), wide_fine_tiles(&device, m as i64)), (blocks, wide), "{m}²");
            assert!(!sweep_pays(&device, &GEMV_N, m as i64, &plan), "{m}²: the wide kernel");
        }
        // The few-columns kernel keeps its columns.
        assert!(sweep_serves(&device, &GEMV_N, 8192, 1537) && !sweep_serves(&device, &GEMV_N, 8192, 1536));
        // From 12000 rows, and for any other A, one wave is enough.
        let plan = sweep(12800);
        assert_eq!(plan.geometry.blocks(), 100);
        assert!(sweep_pays(&device, &GEMV_N, 12800, &plan));
        let plan = sweep(9001);
        assert_eq!(plan.geometry.blocks(), 94);
        assert!(sweep_pays(&device, &GEMV_N_SCALAR, 9001, &plan));
    }

    #[test]
    fn the_long_kernel_takes_one_block_per_sm_where_the_default_doubles_up() {
        // What `plan` weighs on an H100 for the scalar default (63 registers, its built-in recipe).
        use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
        let device = DeviceModel::h100_sxm();
        let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
        let model = KernelModel { registers_per_thread: 63, static_shared_bytes: 8208, max_threads_per_block: 1024 };
        let default = |m: u64, n: u64| tuner.plan(&GEMV_N_SCALAR, &model, &Problem { m, n, k: 0 });
        let long =
            |m: u64, n: u64| wide_plan(&device, &model, &GEMV_N_SCALAR_LONG, &Problem { m, n, k: 0 }, long_thread_rows);
        // The default's two blocks of 512 per SM: 133 blocks at 16897², 141 at 18001², 256 at 32767².
        for (m, n, blocks) in [(16897u64, 16897u64, 133u64), (18001, 18001, 141), (32767, 32767, 256)] {
            let plan = default(m, n);
            assert_eq!(
                (plan.shape.tx, plan.shape.ty, plan.geometry.grid.1, plan.geometry.blocks()),
                (32, 16, 1, blocks)
            );
        }
        let serves = |m: u64, n: u64| long_serves(&device, m as i64, n as i64, &default(m, n));
        assert!(!serves(16897, 16897), "a second block on one SM of 132");
        assert!(!serves(16897, 30001), "the same rows, more columns");
        // (m, n, Tx, Ty, blocks): the most blocks that run in one wave, one per SM.
        for (m, n, tx, ty, blocks) in [
            (18001u64, 18001u64, 64, 12, 71u64),
            (20001, 20001, 64, 12, 79),
            (32767, 32767, 64, 12, 128),
            (33001, 33001, 64, 12, 129),
            (40001, 20001, 96, 8, 105),
            (65537, 4096, 128, 6, 129),
        ] {
            assert!(serves(m, n), "{m} × {n}");
            let plan = long(m, n);
            assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (tx, ty, 1), "{m} × {n}");
            assert_eq!((plan.geometry.blocks(), optimizer::waves(&device, &plan)), (blocks, 1), "{m} × {n}");
            assert!(long_pays(&device, &plan), "{m} × {n}");
        }
        // Past 512-row tiles on every SM, no one-wave grid: `plan` keeps the default (100001 × 2048: 64 × 16).
        assert!(serves(100001, 2048));
        assert!(!long_pays(&device, &long(100001, 2048)));
        assert!(!serves(65537, 2047), "fewer than 2048 columns");
        assert!(default(8192, 16385).geometry.grid.1 > 1);
        assert!(!serves(8192, 16385), "a split default");
        // Where the scalar wide kernel runs in one wave (at most 16384 columns, 33792 rows), it does.
        assert!(!serves(20001, 4096) && !serves(33792, 16384));
        assert!(serves(40001, 16384) && serves(20001, 16385));
        // On fast DRAM, before the sweep, only on 3/4 of the SMs or more: 102 blocks at 26001², 94 at 24001².
        let h200 = DeviceModel::h200();
        assert!(fast_dram(&h200) && h200.sm_count == 132);
        assert!(long_pays(&h200, &long(26001, 26001)) && long_pays(&h200, &long(65537, 4096)));
        assert!(!long_pays(&h200, &long(24001, 24001)) && !long_pays(&h200, &long(20001, 40001)));
        assert!(long_pays(&device, &long(24001, 24001)), "on the H100 in any one wave");
    }

    #[test]
    fn the_thin_kernel_halves_the_blocks_of_a_grid_that_doubles_up() {
        // What `plan` weighs on an H100: the scalar default and its thin twin (63 registers), built-in recipes.
        use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
        let device = DeviceModel::h100_sxm();
        let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
        let model = KernelModel { registers_per_thread: 63, static_shared_bytes: 8208, max_threads_per_block: 1024 };
        let plan = |spec: &KernelSpec, m: u64, n: u64| tuner.plan(spec, &model, &Problem { m, n, k: 0 });
        // (m, n, split, blocks): the same grid, 32 × 8 threads instead of 32 × 16.
        for (m, n, split, blocks) in
            [(3001u64, 100001u64, 8u32, 192u64), (2001, 200001, 16, 256), (12001, 20001, 2, 188)]
        {
            let default = plan(&GEMV_N_SCALAR, m, n);
            assert!(doubles_up(&device, &default), "{m} × {n}");
            let thin = plan(&GEMV_N_SCALAR_THIN, m, n);
            for (p, ty) in [(default, 16), (thin, 8)] {
                assert_eq!(
                    (p.shape.tx, p.shape.ty, p.shape.split, p.geometry.blocks()),
                    (32, ty, split, blocks),
                    "{m} × {n}"
                );
            }
        }
        // One block per SM but a few: the default's 512 threads stay (16897²: 133 blocks; 1001²: 64).
        for (m, n) in [(16897u64, 16897u64), (17501, 20001), (1001, 1001)] {
            assert!(!doubles_up(&device, &plan(&GEMV_N_SCALAR, m, n)), "{m} × {n}");
        }
    }

    #[test]
    fn when_the_wide_kernels_replace_the_default() {
        let device = DeviceModel::h100_sxm();
        let [float4, scalar] = wide_models();
        // What `plan` decides: the kernel that reads x through L1 (float4 or scalar), or the staged float4 one.
        let pays = |m: i64, n: i64, default_split: u32, vec4: bool| {
            let kind = if n <= WIDE_L1_MAX_COLUMNS { Twin::Wide } else { Twin::WideStaged };
            if kind == Twin::WideStaged && !vec4 {
                return false; // no scalar staged kernel
            }
            let kernel = if vec4 { &float4 } else { &scalar };
            let wide =
                wide_plan(&device, kernel, &GEMV_N_WIDE, &Problem { m: m as u64, n: n as u64, k: 0 }, wide_thread_rows);
            wide_pays(&device, kind, m, n, default_split, &wide)
        };
        for vec4 in [true, false] {
            // Where the default splits 8 ways or more on at most 4096 columns…
            assert!(pays(2000, 2000, 16, vec4));
            assert!(pays(3000, 3000, 8, vec4));
            assert!(pays(4096, 4096, 8, vec4));
            assert!(pays(3000, 1500, 8, vec4));
            // …and wherever one wave holds the rows, up to 16384 columns…
            for (m, n, default_split) in
                [(4097, 4097, 4), (5000, 5000, 4), (8192, 2000, 4), (2000, 8192, 8), (16384, 16384, 2)]
            {
                assert!(pays(m, n, default_split, vec4), "{m} × {n}, float4 {vec4}");
            }
            assert!(!pays(8192, 1500, 4, vec4), "fewer than 2000 columns, a 4-way split");
            assert!(!pays(1000, 1000, 16, vec4), "too few rows: 32 blocks");
            assert!(!pays(1024, 65536, 32, vec4), "too few rows");
            assert!(!pays(65536, 1024, 1, vec4), "no one-wave grid");
        }
        // …then the staged float4 kernel, on at least half the SMs.
        assert!(pays(20000, 20000, 1, true));
        assert!(pays(32768, 32768, 1, true));
        assert!(!pays(20000, 20000, 1, false));
        assert!(!pays(2000, 20000, 8, true), "63 blocks on 20000 columns");
    }

    #[test]
    fn the_lean_kernel_with_x_through_l1_runs_where_one_unsplit_wave_holds_the_columns() {
        // Its built-in recipe on an H100, with the 48 registers of __maxnreg__(48).
        use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
        let device = DeviceModel::h100_sxm();
        let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
        let model = KernelModel { registers_per_thread: 48, static_shared_bytes: 8193, max_threads_per_block: 1024 };
        let plan = |m: u64, n: u64| tuner.plan(&GEMV_T_LEAN_L1, &model, &Problem { m, n, k: 0 });
        for (n, threads) in [(1000u64, 256u32), (2000, 480), (3000, 512), (4096, 512), (5000, 608)] {
            let square = plan(n, n);
            assert_eq!(square.shape.tx, threads, "{n}²");
            assert!(lean_l1_pays(&device, &square), "{n}²: {square:?}");
        }
        // Past 40 warps × 132 SMs of columns, two waves: the default kernels keep them.
        for n in [5300u64, 8192, 16384] {
            assert!(!lean_l1_pays(&device, &plan(n, n)), "{n}²");
        }
        // A tall matrix that the optimizer splits keeps the default too.
        let tall = plan(1 << 20, 64);
        assert!(tall.geometry.grid.1 > 1 && !lean_l1_pays(&device, &tall), "{tall:?}");
    }

    #[test]
    fn the_t_kernel_for_any_a_serves_unsplit_plans_of_2000_columns_or_more() {
        use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
        let device = DeviceModel::h100_sxm();
        let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
        let model = KernelModel { registers_per_thread: 64, static_shared_bytes: 8193, max_threads_per_block: 1024 };
        let serves = |default: &KernelSpec, m: i64, n: i64| {
            let plan = tuner.plan(default, &model, &problem(m, n));
            l1_any_serves(default, m, n, &plan)
        };
        for default in [&GEMV_T, &GEMV_T_SCALAR] {
            for (m, n) in [(2000, 2000), (4096, 4096), (8192, 8192), (1024, 65536), (2048, 8192)] {
                assert!(serves(default, m, n), "{} {m} × {n}", default.name);
            }
            assert!(!serves(default, 1999, 1999), "{}: fewer than 2000 columns", default.name);
            assert!(!serves(default, 1 << 20, 16), "{}: the default splits", default.name);
        }
        // Long float4 columns stay with the default's 8 loads in flight; scalar ones do not.
        assert!(!serves(&GEMV_T, 16384, 16384));
        assert!(serves(&GEMV_T_SCALAR, 16384, 16384));
    }

    #[test]
    fn the_paired_t_kernel_serves_768_columns_or_more_split_or_not() {
        for (m, n) in [(130, 768), (1000, 1000), (2048, 2048), (20000, 20000), (65536, 1024), (1 << 24, 768)] {
            assert!(paired_serves(m, n), "{m} × {n}");
        }
        for (m, n) in [(512, 512), (100_000, 767), (1 << 20, 16)] {
            assert!(!paired_serves(m, n), "{m} × {n}: too few columns");
        }
        // From 256 columns, more rows than columns and fewer than 16 times as many.
        for (m, n) in [(2048, 512), (4095, 256), (8192, 700), (1024, 767), (257, 256)] {
            assert!(paired_serves(m, n) && !paired_split_serves(&DeviceModel::h200(), m, n), "{m} × {n}");
        }
        for (m, n) in [(8192, 512), (4096, 256), (4000, 255), (512, 512), (700, 767), (6000, 300)] {
            assert!(!paired_serves(m, n), "{m} × {n}");
        }
        assert!(paired_serves(PAIRED_MAX_ROWS, 768) && !paired_serves(PAIRED_MAX_ROWS + 1, 768), "32-bit rows");
        // Tiny matrices: at most 512 rows on at most 32 columns.
        for (m, n) in [(65, 1), (128, 2), (512, 8), (512, 32)] {
            assert!(paired_serves(m, n), "{m} × {n}: tiny");
        }
        for (m, n) in [(513, 8), (512, 33), (1024, 2)] {
            assert!(!paired_serves(m, n), "{m} × {n}: not tiny");
        }
        // Its only block shape: 256 threads, 8 columns a block, never split.
        assert_eq!((PAIRED_SPACE.tx_min, PAIRED_SPACE.tx_max, PAIRED_SPACE.splits), (256, 256, &[1][..]));
        let geometry = t_geometry(&problem(1000, 1000), &LaunchShape { tx: 256, ty: 1, split: 1 });
        assert_eq!(geometry.grid, (125, 1, 1));
    }

    #[test]
    fn the_stacked_kernel_gives_each_warp_a_round_of_rows_and_halves_its_warps_until_one_wave() {
        // The stacked kernel as ptxas compiles it for sm_90 (102 registers): 16 warps per SM, so 1, 2, 4 and
        // 8 blocks of 16, 8, 4 and 2 warps.
        let device = DeviceModel::h200();
        let kernel = KernelModel { registers_per_thread: 102, static_shared_bytes: 128, max_threads_per_block: 512 };
        // (m, n, warps a column = blocks' Ty): from a warp per 1024 rows (a power of two, at most 16).
        for (m, n, ty) in [
            (1500u64, 33u64, 2),
            (2049, 100, 4),
            (3001, 512, 4),
            (4093, 256, 4),
            (8191, 32, 8),
            (20001, 3, 16),
            (32768, 17, 16),
            // Halved to fit one wave: 16 → 8 (200 blocks), 8 → 4 (511).
            (16383, 200, 8),
            (8189, 511, 4),
        ] {
            let plan = stacked_plan(&device, &kernel, &GEMV_T_STACKED, &problem(m as i64, n as i64));
            assert_eq!(
                (plan.shape.tx, plan.shape.ty, plan.geometry.grid, optimizer::waves(&device, &plan)),
                (32, ty, (n as u32, 1, 1), 1),
                "{m} × {n}"
            );
            assert!(stacked_serves(m as i64, n as i64), "{m} × {n}");
            assert!(stacked_pays(&device, m as i64, &plan), "{m} × {n}");
        }
        // One round for one warp; 2 warps on more than 128 columns; more than 512 columns or 32768 rows, or
        // 24576 on fewer than 16 columns.
        assert!(stacked_serves(24576, 1) && stacked_serves(32768, 16));
        for (m, n) in [(1024, 32), (2048, 129), (2048, 256), (4096, 513), (32769, 32), (24577, 15), (32768, 1)] {
            assert!(!stacked_serves(m, n), "{m} × {n}");
        }
        // More than 2048 rows a warp once halved to one wave: the split paired kernel's.
        for (m, n) in [(8195, 511), (16384, 512)] {
            let plan = stacked_plan(&device, &kernel, &GEMV_T_STACKED, &problem(m, n));
            assert_eq!(plan.shape.ty, 4, "{m} × {n}");
            assert!(stacked_serves(m, n) && !stacked_pays(&device, m, &plan), "{m} × {n}");
        }
    }

    #[test]
    fn the_few_columns_kernel_halves_its_thread_rows_until_one_wave_holds_the_grid() {
        // The wide kernel's code as the driver reports it on sm_90 (94 registers, 8 KiB of x): on 132 SMs,
        // 1, 2, 5, 10 and 21 blocks of 64, 32, 16, 8 and 4 thread rows of 8 threads per SM.
        let device = DeviceModel::h200();
        let [kernel, _] = wide_models();
        // (m, n, thread rows, blocks): 32-row tiles, from one thread row per 8 columns (a power of two, 4 to 64).
        for (m, n, ty, blocks) in [
            (1024u64, 128u64, 16, 32),
            (4096, 512, 64, 128),
            (4096, 1536, 64, 128),
            (8192, 512, 32, 256),
            (6000, 384, 32, 188),
            (12000, 512, 16, 375),
            (16384, 128, 16, 512),
            (20000, 128, 16, 625),
            (32768, 128, 8, 1024),
            (50000, 128, 4, 1563),
            // No grid in one wave: the fewest thread rows, in two or three waves.
            (100_000, 64, 4, 3125),
            (200_000, 256, 4, 6250),
        ] {
            let plan = few_plan(&device, &kernel, &GEMV_N_FEW, &problem(m as i64, n as i64));
            assert_eq!(
                (plan.shape.tx, plan.shape.ty, plan.geometry.grid.1, plan.geometry.blocks()),
                (8, ty, 1, blocks),
                "{m} × {n}"
            );
            assert!(few_serves(&device, &GEMV_N, m as i64, n as i64), "{m} × {n}");
            assert!(few_pays(&device, n as i64, &plan), "{m} × {n}");
        }
        // More waves on more columns: not taken.
        let plan = few_plan(&device, &kernel, &GEMV_N_FEW, &problem(200_000, 257));
        assert_eq!((plan.shape.ty, optimizer::waves(&device, &plan)), (4, 3));
        assert!(!few_pays(&device, 257, &plan));
        // Only on fast DRAM, and only where it was timed.
        assert!(!few_serves(&DeviceModel::h100_sxm(), &GEMV_N, 4096, 512));
        assert!(few_serves(&device, &GEMV_N, 256, 1536));
        assert!(few_serves(&device, &GEMV_N, 200_000, 16));
        for (m, n) in [(255, 513), (4096, 1537), (200_001, 16)] {
            assert!(!few_serves(&device, &GEMV_N, m, n), "{m} × {n}");
        }
        // From 9 rows on the columns that no narrow or short kernel splits, for the short kernels too.
        for (default, m, n) in
            [(&GEMV_N, 255, 100), (&GEMV_N, 65, 512), (&GEMV_N_SHORT, 9, 512), (&GEMV_N_SHORT, 64, 32)]
        {
            assert!(few_serves(&device, default, m, n), "{} {m} × {n}", default.name);
        }
        for (default, m, n) in [(&GEMV_N_SHORT, 8, 512), (&GEMV_N_SHORT, 64, 513), (&GEMV_N_SHORT_SCALAR, 8, 100)] {
            assert!(!few_serves(&device, default, m, n), "{} {m} × {n}", default.name);
        }
        assert!(few_serves(&device, &GEMV_N_SHORT_SCALAR, 33, 512));
        // For any A: up to the columns the narrow kernels do not split on up to 24576 rows, 64 past them.
        for (m, n) in [(256, 512), (24_576, 512), (24_577, 64), (200_000, 64)] {
            assert!(few_serves(&device, &GEMV_N_SCALAR, m, n), "{m} × {n}");
        }
        for (m, n) in [(256, 513), (8, 16), (24_577, 65), (200_001, 16)] {
            assert!(!few_serves(&device, &GEMV_N_SCALAR, m, n), "{m} × {n}");
        }
        // Its plan, with the scalar code's 102 registers (the GPU test's shapes): 9 blocks of 8 × 8 per SM,
        // 19 of 8 × 4.
        let [_, scalar] = wide_models();
        for (m, n, ty) in [(257, 64, 8), (2049, 16, 4), (16385, 13, 4), (30001, 40, 8), (100_001, 64, 4)] {
            let plan = few_plan(&device, &scalar, &GEMV_N_SCALAR_FEW, &problem(m, n));
            assert_eq!((plan.shape.tx, plan.shape.ty), (8, ty), "{m} × {n}");
        }
    }

    #[test]
    fn the_split_paired_t_kernel_fills_the_fewest_blocks_per_sm_that_hold_its_grid() {
        // The kernel as ptxas builds it for sm_90 (80 registers, no shared memory): three blocks of 256 per SM.
        let device = DeviceModel::h200();
        let kernel = KernelModel { registers_per_thread: 80, static_shared_bytes: 0, max_threads_per_block: 256 };
        let split_plan =
            |m: u64, n: u64| paired_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT, &problem(m as i64, n as i64));
        // (m, n, split, blocks) on 132 SMs: n / 8 blocks a range.
        for (m, n, split, blocks) in [
            (200_000u64, 768u64, 4, 384),
            (32768, 768, 4, 384),
            (100_000, 1024, 2, 256),
            (1_000_000, 1024, 2, 256),
            (100_000, 1584, 2, 396),
            (65536, 512, 4, 256),
            (8192, 512, 4, 256),
            (8195, 300, 6, 228),
            (100_000, 256, 8, 256),
            (1_000_000, 128, 16, 256),
            (50000, 384, 8, 384),
            (300_000, 64, 33, 264),
            // 132 ranges of 8064 rows would leave the last empty: 131.
            (1 << 20, 16, 131, 262),
        ] {
            let plan = split_plan(m, n);
            assert_eq!(
                (plan.shape.tx, plan.geometry.grid.1, plan.geometry.blocks()),
                (256, split, blocks),
                "{m} × {n}"
            );
            assert!(paired_split_pays(&device, &plan), "{m} × {n}");
            assert!(paired_split_serves(&device, m as i64, n as i64), "{m} × {n}");
        }
        // Too small for two blocks per SM: the fullest grid of one, on a quarter of the SMs at least.
        for (m, n, split, blocks) in [(2048u64, 512u64, 2, 128), (4096, 256, 4, 128), (16384, 64, 16, 128)] {
            let plan = split_plan(m, n);
            assert_eq!((plan.geometry.grid.1, plan.geometry.blocks()), (split, blocks), "{m} × {n}");
            assert!(paired_split_pays(&device, &plan), "{m} × {n}");
        }
        // No split in one wave past 12 × 132 columns; none on a quarter of the SMs on ranges of 1024 rows or
        // more for 2048 × 128 (16 blocks, 2 ranges), nor of 512 for 4096 × 32 (4 blocks, 8 ranges) or 2048 × 64.
        for (m, n) in [(100_000, 1585), (2048, 128), (4096, 32), (2048, 64)] {
            assert!(!paired_split_pays(&device, &split_plan(m, n)), "{m} × {n}");
        }
        // Ranges of 512 rows on at most 64 columns where those of 1024 give no grid that pays.
        for (m, n, split) in [(4096u64, 64u64, 8), (3000, 64, 6), (8192, 32, 16), (6000, 32, 12)] {
            let plan = split_plan(m, n);
            assert_eq!(plan.geometry.grid.1, split, "{m} × {n}");
            assert!(paired_split_pays(&device, &plan), "{m} × {n}");
        }
        // On a quarter to half of them: 4096 × 128 in 4 ranges (64 blocks), 3000 × 128 in 3 (48).
        for (m, n, split) in [(4096u64, 128u64, 4), (3000, 128, 3)] {
            let plan = split_plan(m, n);
            assert_eq!(plan.geometry.grid.1, split, "{m} × {n}");
            assert!(paired_split_pays(&device, &plan), "{m} × {n}");
        }
        // Fewer than two ranges of 1024 rows, 32-bit rows, and where the unsplit paired kernel serves, fewer than
        // 32768 rows, or 100000 where its 8-column blocks fill more than 7/8 of the SMs (921 columns on 132 SMs).
        for (m, n) in [(2047, 512), (PAIRED_MAX_ROWS + 1, 512), (32767, 768), (99_999, 921), (65536, 1024)] {
            assert!(!paired_split_serves(&device, m, n), "{m} × {n}");
        }
        assert!(paired_split_serves(&device, 32768, 920) && paired_split_serves(&device, 100_000, 921));
        // Ranges of whole 128-row stretches, none empty: 32771 rows in 4 ranges of 8320.
        let shape = LaunchShape { tx: 256, ty: 1, split: 4 };
        assert_eq!(reduction_split(Layout::TPaired, &problem(32771, 768), &shape), (8320, 4));
        assert_eq!(Layout::of_kernel(&GEMV_T_PAIRED_SPLIT, Op::T, 32771), Layout::TPaired);
        assert_eq!(Layout::of_kernel(&GEMV_T_PAIRED, Op::T, 32771), Layout::T);
    }

    #[test]
    fn the_split_paired_t_kernel_takes_the_tail_of_a_part_filled_last_wave_in_4_ranges() {
        // Both paired kernels as ptxas builds them for sm_90 (80 registers): three blocks of 256 per SM, 396 a wave.
        let device = DeviceModel::h200();
        let kernel = KernelModel { registers_per_thread: 80, static_shared_bytes: 0, max_threads_per_block: 256 };
        let unsplit = |m: i64, n: i64| {
            let shape = LaunchShape { tx: 256, ty: 1, split: 1 };
            LaunchPlan::of_shape(&device, &kernel, &GEMV_T_PAIRED, &problem(m, n), shape)
        };
        let serves = |m: i64, n: i64| paired_tail_split_serves(&device, m, n, || Ok(unsplit(m, n))).unwrap();
        // (m, n, unsplit blocks, last wave's fill in blocks): two or three waves, the last under 0.85 full.
        for (m, n, blocks, last) in [
            (65536, 3200, 400, 4),
            (65536, 5120, 640, 244),
            (32768, 4000, 500, 104),
            (200_000, 3456, 432, 36),
            (65536, 7040, 880, 88),
        ] {
            let plan = unsplit(m, n);
            assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
            assert!((optimizer::last_wave_fill(&device, &plan) - last as f64 / 396.0).abs() < 1e-9, "{m} × {n}");
            assert!(serves(m, n), "{m} × {n}");
            let split = paired_tail_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT, &problem(m, n));
            assert_eq!((split.shape.tx, split.geometry.grid.1, split.geometry.blocks()), (256, 4, 4 * blocks));
        }
        // One wave (3168 columns at most), a last wave 0.85 full or more (6040: 359 of 396; 9504: three full
        // waves), four waves or more, fewer than 32768 rows, or rows past 32 bits: the unsplit kernel keeps the call.
        for (m, n) in [(65536, 3168), (65536, 6144), (65536, 6040), (65536, 9504), (65536, 9505), (32767, 4000)] {
            assert!(!serves(m, n), "{m} × {n}");
        }
        assert!(serves(PAIRED_MAX_ROWS, 4000) && !serves(PAIRED_MAX_ROWS + 1, 4000));
        assert!((optimizer::last_wave_fill(&device, &unsplit(65536, 9504)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_split_paired_t_kernel_for_any_a_cuts_long_columns_into_ranges_of_at_most_48000_rows() {
        // The kernel as ptxas builds it for sm_90 (128 registers): two blocks of 256 per SM.
        let device = DeviceModel::h200();
        let kernel = KernelModel { registers_per_thread: 128, static_shared_bytes: 0, max_threads_per_block: 256 };
        let float4_rule = |m: u64, n: u64| {
            paired_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT_ANY, &problem(m as i64, n as i64))
        };
        let long_plan = |m: u64, n: u64| {
            let problem = problem(m as i64, n as i64);
            long_any_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT_ANY, &problem, float4_rule(m, n), true)
        };
        // (m, n, split, rows a range) for long columns: the smallest split of the space with ranges that
        // short, in as many waves as it takes (131073 × 1001 fits one wave split 2, on ranges of 65536 rows).
        for (m, n, split, range) in [
            (60_001u64, 2001u64, 2, 30_080),
            (65_537, 4001, 2, 32_896),
            (100_001, 2001, 3, 33_408),
            (131_073, 1001, 3, 43_776),
            (200_001, 1001, 5, 40_064),
            (400_001, 2001, 12, 33_408),
        ] {
            let long = long_plan(m, n);
            let rows = reduction_split(Layout::TPaired, &problem(m as i64, n as i64), &long.shape).0;
            assert_eq!((long.geometry.grid.1, rows), (split, range), "{m} × {n}");
            assert!(long_any_split_serves(m as i64, n as i64, true), "{m} × {n}");
            assert!(!long_any_split_serves(m as i64, n as i64, false), "{m} × {n}: x 0 or 2 floats off A's float4s");
        }
        // With lda even, the float4 kernel's split wherever it pays (200000 × 1001: 2 ranges in one wave)…
        let problem_200k = problem(200_000, 1001);
        let one_wave = float4_rule(200_000, 1001);
        assert_eq!(one_wave.geometry.grid.1, 2);
        let even_lda = long_any_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT_ANY, &problem_200k, one_wave, false);
        assert_eq!(even_lda, one_wave);
        // …and where none pays, short ranges (100000 × 2048: 3 ranges in two waves).
        let unpaid = float4_rule(100_000, 2048);
        assert!(!paired_split_pays(&device, &unpaid));
        let problem_100k = problem(100_000, 2048);
        let split = long_any_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT_ANY, &problem_100k, unpaid, false);
        assert_eq!(split.geometry.grid.1, 3);
        // Where the float4 kernel's split pays on ranges that short, that split (1048577 × 16: 131 ranges).
        let short = long_plan(1 << 20 | 1, 16);
        assert_eq!(short.geometry.grid.1, 131);
        assert!(paired_split_pays(&device, &short));
        // 60000 rows or fewer, past 32-bit rows or the split's counters: not long.
        for (m, n) in
            [(60_000, 2001), (50_001, 2001), (PAIRED_MAX_ROWS + 1, 2001), (100_001, SPLIT_COUNTER_SLOTS as i64 + 1)]
        {
            assert!(!long_any_split_serves(m, n, true), "{m} × {n}");
        }
        // x an odd number of floats off A's float4s: lda odd, or A and x at floats of different parity.
        use XReads::{Float4, Strided, UnitStride};
        let (even_x, odd_x) = (UnitStride { odd_float: false }, UnitStride { odd_float: true });
        assert!(x_off_a_by_odd_floats(4096, 65537, Float4) && x_off_a_by_odd_floats(4096, 65537, even_x));
        assert!(x_off_a_by_odd_floats(4096, 65536, odd_x) && x_off_a_by_odd_floats(4100, 65536, Float4));
        assert!(x_off_a_by_odd_floats(4100, 65538, even_x) && !x_off_a_by_odd_floats(4100, 65538, odd_x));
        assert!(!x_off_a_by_odd_floats(4096, 65536, Float4) && !x_off_a_by_odd_floats(4104, 65538, even_x));
        assert!(!x_off_a_by_odd_floats(4096, 65536, Strided));
    }

    fn position(result: Result<Op>) -> u32 {
        match result {
            Err(Error::InvalidArgument { routine: "SGEMV", position }) => position,
            other => panic!("expected an SGEMV argument error, got {other:?}"),
        }
    }

    #[test]
    fn trans_values() {
        assert_eq!(check_arguments(0, 3, 4, 3, 1, 1).unwrap(), Op::N);
        assert_eq!(check_arguments(1, 3, 4, 3, 1, 1).unwrap(), Op::T);
        assert_eq!(check_arguments(2, 3, 4, 3, 1, 1).unwrap(), Op::T, "C is T for real data");
        for trans in [3, 4, -1, i32::MAX, i32::MIN, 78] {
            assert_eq!(position(check_arguments(trans, 3, 4, 3, 1, 1)), 1, "trans = {trans}");
        }
    }

    #[test]
    fn each_bad_argument_has_its_reference_position() {
        assert_eq!(position(check_arguments(0, -1, 4, 3, 1, 1)), 2);
        assert_eq!(position(check_arguments(0, 3, -1, 3, 1, 1)), 3);
        assert_eq!(position(check_arguments(0, 3, 4, 2, 1, 1)), 6);
        assert_eq!(position(check_arguments(1, 3, 4, 2, 1, 1)), 6, "lda ≥ m for T too");
        assert_eq!(position(check_arguments(0, 3, 4, 3, 0, 1)), 8);
        assert_eq!(position(check_arguments(0, 3, 4, 3, 1, 0)), 11);
    }

    #[test]
    fn lda_must_be_at_least_one_even_for_empty_matrices() {
        assert_eq!(position(check_arguments(0, 0, 4, 0, 1, 1)), 6);
        assert_eq!(position(check_arguments(0, 0, 0, 0, 1, 1)), 6);
        assert!(check_arguments(0, 0, 0, 1, 1, 1).is_ok());
        assert!(check_arguments(0, 5, 0, 5, 1, 1).is_ok());
        assert_eq!(position(check_arguments(0, 5, 0, 4, 1, 1)), 6);
    }

    #[test]
    fn first_bad_argument_wins() {
        assert_eq!(position(check_arguments(9, -1, -1, 0, 0, 0)), 1);
        assert_eq!(position(check_arguments(0, -1, -1, 0, 0, 0)), 2);
        assert_eq!(position(check_arguments(0, 1, -1, 0, 0, 0)), 3);
        assert_eq!(position(check_arguments(0, 1, 1, 0, 0, 0)), 6);
        assert_eq!(position(check_arguments(0, 1, 1, 1, 0, 0)), 8);
        assert_eq!(position(check_arguments(0, 1, 1, 1, 1, 0)), 11);
    }

    #[test]
    fn negative_increments_are_valid() {
        assert!(check_arguments(0, 3, 4, 3, -1, -3).is_ok());
    }

    #[test]
    fn argument_errors_come_before_quick_returns() {
        // m == 0 is a quick return, but only after lda and the increments are checked.
        let handle_free = Call::new(0, 0, 5, Scalar::Host(1.0), 0, 0, 0, 1, Scalar::Host(0.0), 0, 1);
        assert!(matches!(handle_free, Err(Error::InvalidArgument { position: 6, .. })));
        let handle_free = Call::new(0, 0, 5, Scalar::Host(1.0), 0, 1, 0, 0, Scalar::Host(0.0), 0, 1);
        assert!(matches!(handle_free, Err(Error::InvalidArgument { position: 8, .. })));
    }

    #[test]
    fn quick_returns() {
        let (one, zero, half) = (Scalar::Host(1.0), Scalar::Host(0.0), Scalar::Host(0.5));
        assert!(quick_return(0, 5, half, half));
        assert!(quick_return(5, 0, half, half));
        assert!(quick_return(5, 5, zero, one));
        assert!(!quick_return(5, 5, zero, half), "alpha = 0 still scales y");
        assert!(!quick_return(5, 5, half, one));
        assert!(!quick_return(5, 5, Scalar::Device(64), one), "device scalars are unknown to the host");
        assert!(!quick_return(5, 5, zero, Scalar::Device(64)));
    }

    #[test]
    fn quick_returns_accept_null_pointers_and_nothing_else_does() {
        let (one, zero, half) = (Scalar::Host(1.0), Scalar::Host(0.0), Scalar::Host(0.5));
        assert!(Call::new(0, 0, 5, half, 0, 1, 0, 1, half, 0, 1).unwrap().is_none());
        assert!(Call::new(1, 5, 5, zero, 0, 5, 0, 1, one, 0, 1).unwrap().is_none());
        // alpha = 0: A and x are not read, so they may be null; y may not.
        assert!(Call::new(0, 5, 5, zero, 0, 5, 0, 1, half, 4096, 1).unwrap().is_some());
        assert!(matches!(Call::new(0, 5, 5, zero, 0, 5, 0, 1, half, 0, 1), Err(Error::InvalidValue(_))));
        assert!(matches!(Call::new(0, 5, 5, half, 0, 5, 4096, 1, half, 4096, 1), Err(Error::InvalidValue(_))));
        assert!(matches!(Call::new(0, 5, 5, half, 4096, 5, 0, 1, half, 4096, 1), Err(Error::InvalidValue(_))));
    }

    #[test]
    fn vector_lengths_follow_op() {
        let call =
            Call::new(0, 7, 3, Scalar::Host(1.0), 4096, 7, 8192, -2, Scalar::Host(0.0), 16384, 3).unwrap().unwrap();
        assert_eq!((call.x.len, call.y.len), (3, 7));
        let call =
            Call::new(2, 7, 3, Scalar::Host(1.0), 4096, 7, 8192, -2, Scalar::Host(0.0), 16384, 3).unwrap().unwrap();
        assert_eq!((call.op, call.x.len, call.y.len), (Op::T, 7, 3));
    }

    #[test]
    fn kernel_selection_needs_aligned_columns() {
        assert_eq!(select_kernel(Op::N, 1000, 4096, 1024).name, "gemv_n_f32");
        assert_eq!(select_kernel(Op::N, 1000, 4100, 1024).name, "gemv_n_f32_scalar");
        assert_eq!(select_kernel(Op::N, 1000, 4096, 1027).name, "gemv_n_f32_scalar");
        assert_eq!(select_kernel(Op::N, 1000, 4096, 1026).name, "gemv_n_f32_scalar");
        assert_eq!(select_kernel(Op::T, 1000, 4096, 1000).name, "gemv_t_f32");
        assert_eq!(select_kernel(Op::T, 1000, 4104, 1000).name, "gemv_t_f32_scalar");
        assert_eq!(select_kernel(Op::T, 1000, 4096, 1001).name, "gemv_t_f32_scalar");
        assert_eq!(select_kernel(Op::T, 8, 4096, 8).name, "gemv_t_f32_short");
        assert_eq!(select_kernel(Op::T, 8, 4104, 8).name, "gemv_t_f32_short_scalar");
        assert_eq!(select_kernel(Op::T, 7, 4096, 7).name, "gemv_t_f32_short_scalar");
        for spec in [
            &GEMV_N,
            &GEMV_N_SCALAR,
            &GEMV_N_NARROW,
            &GEMV_N_SCALAR_NARROW,
            &GEMV_N_WIDE,
            &GEMV_N_SCALAR_WIDE,
            &GEMV_N_SCALAR_LONG,
            &GEMV_N_SCALAR_THIN,
            &GEMV_N_WIDE_STAGED,
            &GEMV_N_FEW,
            &GEMV_N_SCALAR_LANES,
            &GEMV_N_SHORT,
            &GEMV_N_SHORT_SCALAR,
            &GEMV_T,
            &GEMV_T_SCALAR,
            &GEMV_T_LEAN,
            &GEMV_T_SCALAR_LEAN,
            &GEMV_T_LEAN_L1,
            &GEMV_T_L1_ANY,
            &GEMV_T_PAIRED,
            &GEMV_T_PAIRED_ANY,
            &GEMV_T_PAIRED_SPLIT,
            &GEMV_T_PAIRED_SPLIT_ANY,
            &GEMV_T_STACKED,
            &GEMV_T_STACKED_ANY,
            &GEMV_T_SHORT,
            &GEMV_T_SHORT_SCALAR,
            &GEMV_T_GROUPS4,
            &GEMV_T_GROUPS6,
            &GEMV_T_SCALAR_GROUPS4,
            &GEMV_T_SCALAR_GROUPS6,
        ] {
            assert!(KERNEL_NAMES.contains(&spec.name));
        }
        // The T kernels have lean variants (the float4 one also with x through L1, and the paired kernels
        // first, stacked, split and not, for x as float4), the
        // scalar one a kernel for any A with x through L1 (for x with unit stride); the N kernels narrow and
        // wide ones, offered after the default.
        let names = |kernels: Vec<&KernelSpec>| kernels.iter().map(|k| k.name).collect::<Vec<_>>();
        use XReads::{Float4, Strided};
        const UNIT_STRIDE: XReads = XReads::UnitStride { odd_float: false };
        assert_eq!(
            names(candidate_kernels(Op::T, 1000, 4096, 1000, Float4)),
            [
                "gemv_t_f32",
                "gemv_t_f32_stacked",
                "gemv_t_f32_stacked_any",
                "gemv_t_f32_paired_split",
                "gemv_t_f32_paired_split_any",
                "gemv_t_f32_paired",
                "gemv_t_f32_paired_any",
                "gemv_t_f32_lean_l1",
                "gemv_t_f32_lean",
                "gemv_t_f32_l1_any"
            ]
        );
        assert_eq!(
            names(candidate_kernels(Op::T, 1000, 4096, 1000, UNIT_STRIDE)),
            [
                "gemv_t_f32",
                "gemv_t_f32_stacked_any",
                "gemv_t_f32_paired_split_any",
                "gemv_t_f32_paired_any",
                "gemv_t_f32_lean",
                "gemv_t_f32_l1_any"
            ]
        );
        assert_eq!(names(candidate_kernels(Op::T, 1000, 4096, 1000, Strided)), ["gemv_t_f32", "gemv_t_f32_lean"]);
        let scalar_default = [
            "gemv_t_f32_scalar",
            "gemv_t_f32_stacked_any",
            "gemv_t_f32_paired_split_any",
            "gemv_t_f32_paired_any",
            "gemv_t_f32_scalar_lean",
            "gemv_t_f32_l1_any",
        ];
        for x in [Float4, UNIT_STRIDE] {
            // Odd lda, then A off its 16-byte boundary.
            assert_eq!(names(candidate_kernels(Op::T, 1000, 4096, 1001, x)), scalar_default);
            assert_eq!(names(candidate_kernels(Op::T, 1000, 4100, 1000, x)), scalar_default);
        }
        assert_eq!(
            names(candidate_kernels(Op::T, 1000, 4096, 1001, Strided)),
            ["gemv_t_f32_scalar", "gemv_t_f32_scalar_lean"]
        );
        for x in [Float4, UNIT_STRIDE, Strided] {
            assert_eq!(names(candidate_kernels(Op::T, 8, 4096, 8, x)), ["gemv_t_f32_short"]);
            assert_eq!(
                names(candidate_kernels(Op::N, 1000, 4096, 1000, x)),
                [
                    "gemv_n_f32",
                    "gemv_n_f32_cluster16",
                    "gemv_n_f32_cluster32",
                    "gemv_n_f32_cluster64",
                    "gemv_n_f32_sweep",
                    "gemv_n_f32_few",
                    "gemv_n_f32_narrow",
                    "gemv_n_f32_wide",
                    "gemv_n_f32_wide_staged"
                ]
            );
            assert_eq!(
                names(candidate_kernels(Op::N, 1000, 4096, 1001, x)),
                [
                    "gemv_n_f32_scalar",
                    "gemv_n_f32_scalar_cluster16",
                    "gemv_n_f32_scalar_cluster32",
                    "gemv_n_f32_scalar_cluster64",
                    "gemv_n_f32_scalar_long",
                    "gemv_n_f32_wide_any",
                    "gemv_n_f32_sweep",
                    "gemv_n_f32_scalar_few",
                    "gemv_n_f32_scalar_narrow",
                    "gemv_n_f32_scalar_lanes",
                    "gemv_n_f32_scalar_wide",
                    "gemv_n_f32_scalar_thin"
                ]
            );
            assert_eq!(
                names(candidate_kernels(Op::N, 64, 4096, 64, x)),
                [
                    "gemv_n_f32_short",
                    "gemv_n_f32_cluster16",
                    "gemv_n_f32_cluster32",
                    "gemv_n_f32_cluster64",
                    "gemv_n_f32_few"
                ]
            );
        }
        // x as float4: 16-byte aligned, unit stride; as floats: unit stride.
        assert_eq!(x_reads(4096, 1), Float4);
        assert_eq!(x_reads(4100, 1), XReads::UnitStride { odd_float: true });
        assert_eq!(x_reads(4104, 1), XReads::UnitStride { odd_float: false });
        assert_eq!(x_reads(4096, 2), Strided);
        assert_eq!(x_reads(4096, -1), Strided);
    }

    #[test]
    fn few_rows_go_to_the_short_kernels() {
        assert_eq!(select_kernel(Op::N, 64, 4096, 64).name, "gemv_n_f32_short");
        assert_eq!(select_kernel(Op::N, 16, 4096, 17).name, "gemv_n_f32_short_scalar");
        assert_eq!(select_kernel(Op::N, 1, 4100, 1).name, "gemv_n_f32_short_scalar");
        assert_eq!(select_kernel(Op::N, 65, 4096, 68).name, "gemv_n_f32");
        assert_eq!(select_kernel(Op::T, 16, 4096, 16).name, "gemv_t_f32_short");
        assert_eq!(select_kernel(Op::T, 64, 4100, 64).name, "gemv_t_f32_short_scalar");
        assert_eq!(select_kernel(Op::T, 65, 4096, 68).name, "gemv_t_f32");
        assert_eq!(Layout::of(Op::N, SHORT_ROWS_MAX), Layout::NShort);
        assert_eq!(Layout::of(Op::N, SHORT_ROWS_MAX + 1), Layout::N);
        assert_eq!(Layout::of(Op::T, SHORT_ROWS_MAX), Layout::TShort);
        assert_eq!(Layout::of(Op::T, SHORT_ROWS_MAX + 1), Layout::T);
    }

    #[test]
    fn lanes_per_column_give_each_lane_four_rows() {
        let expected = [
            (1u64, 1u64),
            (4, 1),
            (5, 2),
            (8, 2),
            (9, 4),
            (16, 4),
            (17, 8),
            (32, 8),
            (33, 16),
            (64, 16),
            (65, 32),
            (128, 32),
            (1 << 20, 32),
        ];
        for (m, lanes) in expected {
            assert_eq!(lanes_per_column(m), lanes, "m = {m}");
        }
        assert_eq!(lanes_per_column(0), 1);
    }

    #[test]
    fn split_ranges_cover_without_empty_ranges() {
        for len in 1..600u64 {
            for split in [1u32, 2, 3, 4, 8, 16, 64, 128] {
                for granule in [4u64, 128] {
                    let (per, count) = split_ranges(len, split, granule);
                    assert!(count >= 1 && count <= split.max(1));
                    assert!(per * count as u64 >= len, "len {len} split {split}: ranges do not cover");
                    assert!((count as u64 - 1) * per < len, "len {len} split {split}: an empty range");
                    if count > 1 {
                        assert_eq!(per % granule, 0);
                    }
                }
            }
        }
        assert_eq!(split_ranges(1000, 8, 4), (128, 8));
        assert_eq!(split_ranges(3, 64, 4), (3, 1));
        assert_eq!(split_ranges(1 << 20, 64, 128), (16384, 64));
    }

    #[test]
    fn n_geometry_covers_rows_without_dynamic_shared_memory() {
        let shape = LaunchShape { tx: 32, ty: 8, split: 1 };
        let g = n_geometry(&problem(1000, 1000), &shape);
        assert_eq!(g.grid, (8, 1, 1)); // 128 rows per block
        assert_eq!(g.dynamic_shared_bytes, 0);
        let g = n_geometry(&problem(1, 1), &LaunchShape { tx: 256, ty: 1, split: 1 });
        assert_eq!((g.grid, g.dynamic_shared_bytes), ((1, 1, 1), 0));
        let g = n_geometry(&problem(4097, 4097), &LaunchShape { tx: 256, ty: 4, split: 1 });
        assert_eq!((g.grid, g.dynamic_shared_bytes), ((5, 1, 1), 0));
    }

    #[test]
    fn n_geometry_splits_columns() {
        let g = n_geometry(&problem(1000, 1000), &LaunchShape { tx: 32, ty: 8, split: 8 });
        assert_eq!(g.grid, (8, 8, 1));
        assert_eq!(
            reduction_split(Layout::N, &problem(1000, 1000), &LaunchShape { tx: 32, ty: 8, split: 8 }),
            (128, 8)
        );
        // A range holds at least 128 columns.
        let g = n_geometry(&problem(5000, 128), &LaunchShape { tx: 64, ty: 1, split: 64 });
        assert_eq!(g.grid.1, 1);
        let g = n_geometry(&problem(5000, 700), &LaunchShape { tx: 64, ty: 1, split: 64 });
        assert_eq!(g.grid.1, 6);
        // At most N_SPLIT_MIN_COLUMNS columns: never split, whatever the rows.
        for m in [1, 512, 5000, 1 << 16] {
            assert_eq!(n_geometry(&problem(m, 512), &LaunchShape { tx: 32, ty: 16, split: 4 }).grid.1, 1);
        }
        assert_eq!(n_geometry(&problem(512, 513), &LaunchShape { tx: 32, ty: 16, split: 4 }).grid.1, 3);
        // Partial vectors beyond SPLIT_SLOTS: a smaller split.
        let g = n_geometry(&problem(1 << 16, 4096), &LaunchShape { tx: 32, ty: 1, split: 64 });
        assert_eq!(g.grid.1, 16);
        assert!(split_slots(Op::N, 1 << 16, 4096, g.grid.1) <= SPLIT_SLOTS);
        // More tiles than counters: no split.
        let m = (SPLIT_COUNTER_SLOTS as i64 + 1) * 128;
        let g = n_geometry(&problem(m, 64), &LaunchShape { tx: 32, ty: 1, split: 4 });
        assert_eq!(g.grid, (SPLIT_COUNTER_SLOTS as u32 + 1, 1, 1));
    }

    #[test]
    fn the_short_n_kernels_take_no_more_threads_than_a_range_keeps_busy() {
        use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
        let device = DeviceModel::h200();
        let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
        let kernel = KernelModel { registers_per_thread: 60, static_shared_bytes: 8192, max_threads_per_block: 1024 };
        let plan = |m: u64, n: u64| {
            let problem = Problem { m, n, k: 0 };
            let optimizer = tuner.plan_uncached(&GEMV_N_SHORT, &kernel, &problem);
            (short_plan(&device, &kernel, &GEMV_N_SHORT, &problem, optimizer), optimizer)
        };
        // (m, n, threads, ranges): up to 4 rows a warp loads 128 columns a step, so ranges of 512 keep 4 busy,
        // of 1024 8; from 5 to 8 rows, 64 (8 warps on 512 columns); ranges of 4096 would keep 32 warps busy, but
        // a split takes at most SHORT_SPLIT_MAX_THREADS.
        for (m, n, tx, ranges) in
            [(1, 65536, 128, 128), (4, 262144, 256, 256), (8, 32768, 256, 64), (1, 1 << 20, 256, 256)]
        {
            let (plan, optimizer) = plan(m, n);
            assert_eq!((optimizer.shape.tx, optimizer.geometry.grid.1), (512, ranges), "{m} × {n}");
            assert_eq!((plan.shape.tx, plan.geometry.grid.1), (tx, ranges), "{m} × {n}");
        }
        // Unsplit, as many warps as the columns keep busy: 1 row, 128 columns a warp; 8 rows, 64; 64 rows, 8.
        for (m, n, tx) in [(1, 500, 128), (8, 32, 32), (8, 512, 256), (64, 512, 512)] {
            let (plan, optimizer) = plan(m, n);
            assert_eq!((optimizer.geometry.grid.1, plan.geometry.grid.1), (1, 1), "{m} × {n}");
            assert_eq!(plan.shape.tx, tx.min(optimizer.shape.tx), "{m} × {n}");
        }
    }

    #[test]
    fn short_geometry_is_one_tile_of_column_ranges() {
        let g = short_geometry(&problem(16, 1 << 20), &LaunchShape { tx: 512, ty: 1, split: 256 });
        assert_eq!((g.grid, g.dynamic_shared_bytes), ((1, 256, 1), 0));
        assert_eq!(
            reduction_split(Layout::NShort, &problem(16, 1 << 20), &LaunchShape { tx: 512, ty: 1, split: 256 }),
            (4096, 256)
        );
        // Ranges of at least SHORT_COLUMN_GRANULE = 512 columns.
        let g = short_geometry(&problem(3, 2500), &LaunchShape { tx: 64, ty: 1, split: 64 });
        assert_eq!(g.grid, (1, 5, 1));
        let g = short_geometry(&problem(64, 512), &LaunchShape { tx: 64, ty: 1, split: 64 });
        assert_eq!(g.grid, (1, 1, 1));
    }

    #[test]
    fn t_geometry_lanes_per_column() {
        // 32 lanes per column from m = 65 on: Tx / 32 columns per block.
        let g = t_geometry(&problem(1000, 1000), &LaunchShape { tx: 256, ty: 1, split: 1 });
        assert_eq!((g.grid, g.dynamic_shared_bytes), ((125, 1, 1), 0));
        let g = t_geometry(&problem(1000, 1001), &LaunchShape { tx: 256, ty: 1, split: 1 });
        assert_eq!(g.grid, (126, 1, 1));
        // The short T kernels, 16 rows: 4 lanes per column, 8 column slots per warp, 4 columns per slot.
        assert_eq!(t_columns_per_block(16, 1024), 1024);
        let g = t_short_geometry(&problem(16, 1 << 20), &LaunchShape { tx: 1024, ty: 1, split: 1 });
        assert_eq!(g.grid, (1024, 1, 1));
        assert_eq!(t_columns_per_block(1, 32), 128);
        let g = t_short_geometry(&problem(1, 1000), &LaunchShape { tx: 32, ty: 1, split: 1 });
        assert_eq!(g.grid, (8, 1, 1));
        // Few rows are never split.
        let g = t_short_geometry(&problem(64, 1000), &LaunchShape { tx: 32, ty: 1, split: 512 });
        assert_eq!(g.grid, (125, 1, 1));
        // Tall and skinny: split the rows, in ranges of at least 2048.
        let g = t_geometry(&problem(1 << 20, 16), &LaunchShape { tx: 32, ty: 1, split: 64 });
        assert_eq!(g.grid, (16, 64, 1));
        let g = t_geometry(&problem(1 << 20, 16), &LaunchShape { tx: 512, ty: 1, split: 512 });
        assert_eq!(g.grid, (1, 512, 1));
        assert_eq!(
            reduction_split(Layout::T, &problem(1 << 20, 16), &LaunchShape { tx: 512, ty: 1, split: 512 }),
            (2048, 512)
        );
        let g = t_geometry(&problem(2048, 16), &LaunchShape { tx: 32, ty: 1, split: 64 });
        assert_eq!(g.grid.1, 1);
        let g = t_geometry(&problem(5000, 16), &LaunchShape { tx: 32, ty: 1, split: 64 });
        assert_eq!(g.grid.1, 3);
    }

    #[test]
    fn geometry_agrees_with_the_launch_split_for_every_candidate() {
        let specs = [
            (&GEMV_N, Layout::N),
            (&GEMV_N_SCALAR, Layout::N),
            (&GEMV_N_NARROW, Layout::N),
            (&GEMV_N_SCALAR_NARROW, Layout::N),
            (&GEMV_N_WIDE, Layout::N),
            (&GEMV_N_SCALAR_WIDE, Layout::N),
            (&GEMV_N_SCALAR_LONG, Layout::N),
            (&GEMV_N_SCALAR_THIN, Layout::N),
            (&GEMV_N_WIDE_STAGED, Layout::N),
            (&GEMV_N_FEW, Layout::N),
            (&GEMV_N_SCALAR_FEW, Layout::N),
            (&GEMV_N_SHORT, Layout::NShort),
            (&GEMV_N_SHORT_SCALAR, Layout::NShort),
            (&GEMV_T, Layout::T),
            (&GEMV_T_SCALAR, Layout::T),
            (&GEMV_T_LEAN, Layout::T),
            (&GEMV_T_SCALAR_LEAN, Layout::T),
            (&GEMV_T_LEAN_L1, Layout::T),
            (&GEMV_T_L1_ANY, Layout::T),
            (&GEMV_T_PAIRED, Layout::T),
            (&GEMV_T_PAIRED_ANY, Layout::T),
            (&GEMV_T_PAIRED_SPLIT, Layout::TPaired),
            (&GEMV_T_PAIRED_SPLIT_ANY, Layout::TPaired),
            (&GEMV_T_STACKED, Layout::T),
            (&GEMV_T_STACKED_ANY, Layout::T),
            (&GEMV_T_SHORT, Layout::TShort),
            (&GEMV_T_SHORT_SCALAR, Layout::TShort),
            (&GEMV_T_GROUPS4, Layout::TGroups(4)),
            (&GEMV_T_SCALAR_GROUPS4, Layout::TGroups(4)),
            (&GEMV_T_GROUPS6, Layout::TGroups(6)),
            (&GEMV_T_SCALAR_GROUPS6, Layout::TGroups(6)),
            (&GEMV_N_CLUSTER16, Layout::NCluster(16)),
            (&GEMV_N_SCALAR_CLUSTER16, Layout::NCluster(16)),
            (&GEMV_N_CLUSTER32, Layout::NCluster(32)),
            (&GEMV_N_SCALAR_CLUSTER32, Layout::NCluster(32)),
            (&GEMV_N_CLUSTER64, Layout::NCluster(64)),
            (&GEMV_N_SCALAR_CLUSTER64, Layout::NCluster(64)),
        ];
        for (spec, layout) in specs {
            let space = spec.space;
            for (m, n) in
                [(1u64, 1u64), (7, 33), (1000, 1000), (5000, 3), (3, 5000), (1 << 20, 16), (16, 1 << 20), (64, 100_000)]
            {
                let problem = Problem { m, n, k: 0 };
                let mut tx = space.tx_min;
                while tx <= space.tx_max {
                    for ty in (space.ty_min..=space.ty_max).filter(|ty| tx * ty <= 1024) {
                        for &split in space.splits {
                            let shape = LaunchShape { tx, ty, split };
                            let g = (spec.geometry)(&problem, &shape);
                            let (per, splits) = reduction_split(layout, &problem, &shape);
                            assert_eq!(g.grid.1, splits);
                            let op = if matches!(
                                layout,
                                Layout::T | Layout::TShort | Layout::TPaired | Layout::TGroups(_)
                            ) {
                                Op::T
                            } else {
                                Op::N
                            };
                            if !matches!(layout, Layout::NShort | Layout::TShort) {
                                assert_eq!(Layout::of_kernel(spec, op, 65), layout, "{}", spec.name);
                            }
                            let len = if op == Op::T { m } else { n };
                            if let Layout::NCluster(_) = layout {
                                // Whole clusters of ranges (fewer where their partial vectors would not fit),
                                // the last ones empty where n is smaller than their count.
                                assert!(splits.is_multiple_of(CLUSTER_BLOCKS) && splits <= split);
                                assert!(splits == split || m * (splits / CLUSTER_BLOCKS + 1) as u64 > SPLIT_SLOTS);
                                assert_eq!(per, n.div_ceil(splits as u64).max(1));
                            } else {
                                assert!(per * splits as u64 >= len && (splits as u64 - 1) * per < len);
                            }
                            let tiles = match layout {
                                Layout::N => m.div_ceil(4 * tx as u64),
                                Layout::NShort => 1,
                                Layout::T | Layout::TShort | Layout::TPaired => n.div_ceil(t_columns_per_block(m, tx)),
                                Layout::TGroups(groups) => {
                                    n.div_ceil(tx as u64 / lanes_per_column(m.div_ceil(groups)) * 2)
                                }
                                Layout::NCluster(rows) => m.div_ceil(rows),
                            };
                            assert_eq!(g.grid.0 as u64, tiles.max(1));
                            assert_eq!(g.dynamic_shared_bytes, 0, "{shape:?}");
                            // The N kernels fold Ty / 2 slots of 4·Tx floats through their x chunk (GEMV_N_XCHUNK).
                            assert!(2 * tx * ty <= 2048);
                            // (The cluster kernels take a partial vector a cluster.)
                            let vectors =
                                if matches!(layout, Layout::NCluster(_)) { splits / CLUSTER_BLOCKS } else { splits };
                            assert!(split_slots(op, m as i64, n as i64, vectors) <= SPLIT_SLOTS);
                        }
                    }
                    tx += space.tx_step;
                }
            }
        }
    }

    #[test]
    fn the_cluster_kernels_take_few_rows_on_many_columns() {
        // 1 to 1024 rows on 513 to 8 × 2048 columns, and from 256 rows on only past 1536 (the few-columns kernel);
        // past 8 × 2048 columns 9 to 128 rows.
        for (m, n) in [
            (1, 513),
            (64, 4096),
            (65, 513),
            (255, 513),
            (200, 16384),
            (256, 1537),
            (1024, 16384),
            (9, 16385),
            (100, 16385),
            (128, 1 << 24),
        ] {
            assert!(cluster_serves(|| true, m, n), "{m} x {n}");
            assert!(!cluster_serves(|| false, m, n), "{m} x {n}: no clusters");
        }
        for (m, n) in [(16, 512), (1025, 4096), (100, 512), (129, 16385), (8, 16385), (256, 1536), (1024, 600)] {
            assert!(!cluster_serves(|| true, m, n), "{m} x {n}");
        }
        // In one cluster a tile: 16-row tiles while their 8 blocks each fit one per SM (132 on the H100: 16 tiles,
        // 256 rows), then 32.
        let device = DeviceModel::h100_sxm();
        for (m, rows) in [(1, 16), (65, 16), (256, 16), (257, 32), (1024, 32)] {
            assert_eq!(cluster_tile_rows(&device, m, 16384), rows, "{m} rows");
            assert_eq!(clusters_per_tile(&device, m, 16384, rows), 1, "{m} rows");
        }
        // In several: 16 rows up to 16, 32 up to 32 (64 up to 2^22 elements of A), then 64; clusters for a block
        // per SM up to 2^22 elements, two past that.
        for (m, n, rows, clusters) in [
            (9, 16385, 16, 8),
            (16, 32768, 16, 8),
            (16, 32769, 16, 17),
            (16, 262144, 16, 17),
            (16, 262145, 16, 33),
            (17, 262144, 32, 33),
            (64, 65536, 32, 8),
            (64, 65537, 64, 33),
            (33, 262144, 64, 33),
            (65, 262144, 64, 17),
            (100, 16385, 64, 8),
            (128, 262144, 64, 17),
        ] {
            assert_eq!(cluster_tile_rows(&device, m, n), rows, "{m} x {n}");
            assert_eq!(clusters_per_tile(&device, m, n, rows), clusters, "{m} x {n}");
        }
        // Only calls of such rows list them, the float4 pair for float4 A, the scalar pair otherwise.
        let names = |m: i64, lda: i64| {
            candidate_kernels(Op::N, m, 4096, lda, XReads::Float4).iter().map(|k| k.name).collect::<Vec<_>>()
        };
        assert_eq!(names(300, 300)[..3], ["gemv_n_f32", "gemv_n_f32_cluster16", "gemv_n_f32_cluster32"]);
        assert_eq!(
            names(300, 301)[..3],
            ["gemv_n_f32_scalar", "gemv_n_f32_scalar_cluster16", "gemv_n_f32_scalar_cluster32"]
        );
        assert_eq!(names(33, 36)[..3], ["gemv_n_f32_short", "gemv_n_f32_cluster16", "gemv_n_f32_cluster32"]);
        assert!(!names(1025, 1028).iter().any(|name| name.contains("cluster")));
        assert!(needs_clusters(&GEMV_N_SCALAR_CLUSTER32) && !needs_clusters(&GEMV_N_NARROW));
    }

    #[test]
    fn the_groups_kernels_cover_their_rows_with_the_fewest_lanes() {
        // 6 groups where 4 would need twice the lanes, 4 elsewhere.
        for (rows, groups) in [(65..=96, 6), (97..=128, 4), (129..=192, 6), (193..=256, 4), (257..=384, 6)] {
            for m in rows {
                assert_eq!(groups_of_rows(m), groups, "{m} rows");
                let lanes = lanes_per_column((m as u64).div_ceil(groups));
                // Every row has a lane, and at most 32 lanes share a column.
                assert!(4 * lanes * groups >= m as u64 && lanes <= 32, "{m} rows");
                assert_eq!(groups_columns_per_block(m as u64, 256, groups), 256 / lanes * GROUPS_COLUMNS_PER_LANE);
            }
        }
        // Served from 65 rows (the short kernel's end) to GROUPS_MAX_ROWS, on GROUPS_MIN_COLUMNS columns or more.
        let serves = |m, n| groups_serves(&GEMV_T, m, n);
        assert!(serves(65, 4096) && serves(384, 1 << 20) && serves(128, 262_144));
        assert!(!serves(64, 262_144) && !serves(385, 262_144) && !serves(128, 4095));
        // For A that is not float4, to 512 rows (4 groups on 32 lanes).
        let scalar = |m, n| groups_serves(&GEMV_T_SCALAR, m, n);
        assert!(scalar(65, 4096) && scalar(385, 4096) && scalar(512, 262_144));
        assert!(!scalar(64, 262_144) && !scalar(513, 262_144) && !scalar(512, 4095));
        assert_eq!(groups_of_rows(385), 4);
        assert_eq!(groups_of_rows(512), 4);
        // Only calls with such rows list them (their lanes hold at most 128 · groups rows).
        let names = |m: i64| {
            let lda = (m + 3) / 4 * 4;
            candidate_kernels(Op::T, m, 4096, lda, XReads::Strided).iter().map(|k| k.name).collect::<Vec<_>>()
        };
        assert_eq!(names(200), ["gemv_t_f32", "gemv_t_f32_groups4", "gemv_t_f32_groups6", "gemv_t_f32_lean"]);
        assert_eq!(names(385), ["gemv_t_f32", "gemv_t_f32_lean"]);
        let listed = |m: i64| candidate_kernels(Op::T, m, 4096, m + 1, XReads::Strided).len();
        assert_eq!((listed(512), listed(513)), (4, 2), "odd lda: the scalar kernel, its groups twins, the lean one");
        let scalar = candidate_kernels(Op::T, 101, 4096, 101, XReads::Strided);
        assert_eq!(
            scalar.iter().map(|k| k.name).collect::<Vec<_>>()[..3],
            ["gemv_t_f32_scalar", "gemv_t_f32_scalar_groups4", "gemv_t_f32_scalar_groups6"]
        );
    }

    #[test]
    fn the_groups_kernels_take_smaller_blocks_where_larger_leave_sms_idle() {
        let device = DeviceModel::h100_sxm();
        let kernel = KernelModel { registers_per_thread: 64, static_shared_bytes: 2048, max_threads_per_block: 256 };
        for (m, n, tx, blocks) in [
            // 4 lanes a column: 128 columns a block of 256 threads.
            (65i64, 4096i64, 128u32, 64u64),
            (65, 16_384, 128, 256),
            (65, 32_768, 256, 256),
            (65, 262_144, 256, 2048),
            // 16 lanes: 32 columns a block.
            (300, 4096, 128, 256),
            (300, 8192, 256, 256),
            (256, 8192, 256, 256),
        ] {
            let spec = if groups_of_rows(m) == 6 { &GEMV_T_GROUPS6 } else { &GEMV_T_GROUPS4 };
            let plan = groups_plan(&device, &kernel, spec, &problem(m, n));
            assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (tx, 1, 1), "{m} × {n}");
            assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
        }
    }

    #[test]
    fn split_slots_hold_a_partial_vector_per_range() {
        assert_eq!(split_slots(Op::N, 1000, 1000, 1), 0);
        assert_eq!(split_slots(Op::N, 1000, 50, 8), 8 * 1000);
        assert_eq!(split_slots(Op::T, 1000, 50, 8), 8 * 50);
    }

    #[test]
    fn bytes_moved_counts_a_x_and_y_twice() {
        assert_eq!(bytes_moved(Op::N, 1000, 1000), (1e6 + 3000.0) * 4.0);
        assert_eq!(bytes_moved(Op::N, 10, 20), (200.0 + 20.0 + 20.0) * 4.0);
        assert_eq!(bytes_moved(Op::T, 10, 20), (200.0 + 10.0 + 40.0) * 4.0);
    }
}
