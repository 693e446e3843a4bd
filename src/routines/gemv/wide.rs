//! op N on long columns: the wide kernels (float4, scalar, for any A, x
//! staged), the scalar lanes, long and thin kernels and the sweep; where each
//! serves and pays, and the shapes they take.

use super::few_and_narrow::FEW_MAX_COLUMNS;
use super::geometry::{N_ROWS_PER_THREAD, n_row_tiles};
use super::kernels::{GEMV_N_SCALAR, GEMV_N_WIDE, SPLITS};
use super::plan::Twin;
use crate::tuner::optimizer;
use crate::tuner::{DeviceModel, KernelModel, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

/// The wide N kernels (8 columns in flight per thread): unsplit, row tiles of
/// 32 to 256 rows. Their shape is chosen by [`wide_plan`], not the optimizer.
pub(super) const WIDE_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 8, tx_min: 8, tx_max: 64, ty_min: 8, ty_max: 64, splits: &[1] };
/// The scalar N kernel for long columns: unsplit, one block of LONG_THREADS
/// per SM, row tiles of 256 to 512 rows (Tx 64, 96 or 128: whole warps on
/// each thread row). Its shape is chosen by [`wide_plan`] with
/// [`long_thread_rows`] (`long_serves` says where).
pub(super) const LONG_SPACE: LaunchSpace =
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
pub(super) const LONG_MIN_COLUMNS: i64 = 2048;
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
pub(super) const THIN_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 256, ty_min: 1, ty_max: 8, splits: SPLITS };
/// The scalar lanes kernel: a row per lane (Tx = 32 lanes, a 32-row tile),
/// Ty thread rows of 8 columns in flight each, unsplit. Its recipe asks for
/// blocks of 1024 threads, the fastest timed (`gemv_n_lanes` in kernels/gemv.cu).
pub(super) const LANES_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 32, ty_min: 1, ty_max: 32, splits: &[1] };
/// The sweep kernel: a row per thread, row tiles of Tx = 32 to 1024 rows, Ty
/// thread rows over contiguous column ranges, unsplit. Its shape is chosen by
/// [`wide_plan`] with [`sweep_thread_rows`] (`sweep_serves` says where).
pub(super) const SWEEP_SPACE: LaunchSpace =
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
pub(super) const SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND: f64 = 30e9;
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
pub(super) const WIDE_THREADS: u32 = 512;
/// Past one wave of 32-row tiles (off fast DRAM up to
/// WIDE_FINE_MAX_ROWS_SLOW_DRAM rows), the float4 wide kernel's row tiles
/// are any multiple of 8 rows (`wide_fine_plan`): Tx even, the
/// fewest rows that still give every block an SM of its own, and blocks of at
/// most this many threads (off fast DRAM at least
/// WIDE_FINE_MIN_THREAD_ROWS_SLOW_DRAM thread rows, up to WIDE_THREADS).
/// Against [`wide_plan`]'s shapes (H200, kernel time,
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
/// against 18.58). The any-A wide kernel takes these shapes on any DRAM, and
/// 32-row tiles of this many threads where they engage nearly every SM
/// ([`wide_any_plan`]).
const WIDE_FINE_THREADS: u32 = 384;
/// Off fast DRAM the float4 wide kernel takes wide_fine_plan's shapes up to
/// this many rows (Tx 30; from Tx 32 wide_plan's 32 × 16 engages as many
/// SMs), past which wide_plan's stay. On an H100 (kernel time, `scripts/gemv-ab.py`,
/// beta 0, two rounds, µs, this rule's shape / wide_plan's / cuBLAS;
/// docs/runs/2026-12-06-h100-gemv-any-a-library.txt): 4228² 25.9 (10 × 32)
/// / 26.2 (16 × 32) / 34.6, 5000² 34.8 / 35.0–35.1 / 37.7, 6000² 48.8 /
/// 49.2 / 51.6, 6500² 57.0–57.1 / 57.9–58.1 / 60.5–60.7, 7000² 65.5–65.6
/// / 66.4–66.9 / 70.0, 7600² 76.6–76.7 / 78.0 / 81.0, 9000² 106.7 (18 × 16)
/// / 108.0–108.3 (24 × 21) / 126.2, 10000² 130.7–130.8 / 132.0–132.6 /
/// 148.8, 11000² 156.8–156.9 / 164.6–165.9 / 176.9, 12000² 187.6 / 190.8 /
/// 197.9, 6000 × 16384 128.2–128.3 / 129.7–130.0 / 138.6; level at 4500²
/// (29.0 / 29.0–29.1); 0.3 % slower at 8192² (88.2 on 16 × 24 / 87.9 on
/// 16 × 32 / 91.2) and 8000 × 2000 (23.3 / 23.2 / 23.4). Past 12672 rows
/// on WIDE_FINE_MIN_THREAD_ROWS_SLOW_DRAM thread rows, up to the last rows
/// of Tx 30: at Tx 32 the tiles are wide_plan's, and its 16 thread rows ran
/// 16384² 0.7 % faster than 12 (337.3 against 339.5 µs) and 16000² level.
const WIDE_FINE_MAX_ROWS_SLOW_DRAM: i64 = 15840;
/// There its blocks have at least this many thread rows: past 12672 rows
/// (Tx 26 to 30) the tiles of one per SM on 8 thread rows, what
/// WIDE_FINE_THREADS holds, lost to wide_plan's 32 × 16; on 16 they lost
/// too from 14000 rows, and on 12 they won or ran level. On an H100 (kernel
/// time, `scripts/gemv-ab.py`, beta 0, µs, wide_plan's 32 × 16 (blocks) /
/// Tx × 8 / Tx × 12 / Tx × 16 / cuBLAS;
/// docs/runs/2026-12-07-h100-float4-rule-86721d3.txt and
/// docs/runs/2026-12-07-h100-wide-fine-1e657f3.txt): 13000² 216.8 (102) /
/// 223.4 / 216.1 / 216.3 / 227.0, 13500² 233.6 (106) / – / 233.4 / 233.2 /
/// 245.0, 14000² 250.8–253.3 (110) / 258.0 / 251.2 / 253.9 / 258.1, 14500²
/// 278.6 (114) / – / 268.0 / 274.1 / 289.4, 15000² 300.4–301.7 (118) /
/// 294.1 / 289.6–290.7 / 304.1 / 308.6, 15500² 328.7 (122) / – / 310.0 /
/// 319.4 / 332.9, 14000 × 16384 294.0 / – / 294.6 / 298.5 / 303.0, 15000 ×
/// 4096 81.1 / – / 80.3 / 80.4 / 85.3.
const WIDE_FINE_MIN_THREAD_ROWS_SLOW_DRAM: u32 = 12;
/// Past Tx 32 (only the any-A kernel, past 16384 rows: WIDE_ANY_MAX_ROWS_SLOW_DRAM)
/// its blocks have this many: 10 ran level with 12 to 1.4 % faster at Tx 34
/// on squares (12 0.6–0.9 % faster at 17501 × 8192 and × 4096), 2.5–3.3 % at
/// Tx 36 and 6.6–10 % at Tx 38, and 8 slower than 10 at every shape but
/// 17501 × 4096 (same units; docs/runs/2026-12-07-h100-gemv-n-odd-16385-20000.txt).
const WIDE_FINE_THREAD_ROWS_PAST_TX_32_SLOW_DRAM: u32 = 10;
/// The float4 wide kernel's twin for any A (`gemv_n_f32_wide_any`) takes A
/// that is not float4 from WIDE_MIN_ROWS up to this many rows (Tx 12),
/// before the sweep and the scalar lanes and wide kernels (where:
/// [`wide_any_serves`]; shapes: [`wide_any_plan`]).
///
/// On an H100 (kernel time, `scripts/gemv-ab.py`, lda = m, beta 0, µs, two
/// rounds; docs/runs/2026-12-06-h100-gemv-n-any-a-rule.txt), up to one wave
/// of 32-row tiles against the lanes kernel (32 × 32), this on 8 × 64 / 8 ×
/// 48 / lanes / cuBLAS: 2001² 8.75 / 9.45 / 10.28 / 8.89, 2501² 11.56 /
/// 11.88 / 13.05 / 12.25, 3501² 19.79 / 19.98 / 20.91 / 20.40, 4161² 26.35 /
/// 25.94 / 27.26 / 26.99, 2001 × 4001 – / 15.02 / 17.86 / 16.64, 4001 × 3001
/// – / 19.19 / 19.73 / 20.0, 3001 × 2000 – / 12.14 / 12.05 / 10.95; but on
/// fewer columns where the tiles engage nearly every SM the lanes kernel was
/// faster (4095 × 2000 14.74 / 14.96 / 14.43 / 13.70; 4161 × 2001 – / 14.34
/// / 14.63 / 13.91). Past one wave, on wide_fine_plan's shapes against the
/// scalar wide kernel on wide_plan's (this / scalar wide / cuBLAS): 4225²
/// 26.5 / 27.6 / 34.3, 5001² 35.7 / 36.7 / 37.9, 6001² 49.8–50.0 / 59.4–59.6
/// / 52.1, 7601² 78.0–78.2 / 89.7–89.9 / 83.0, 8191² 90.4 / 104.1 / 100.8,
/// 9001² 108.5 / 132.9 / 128.7, 11001² 158.5 / 161.2 / 177.7, 12001² 191–192
/// / 195–196 / 208.0, 6001 × 16384 131–132 / 160.4 / 140.8; level at
/// 6601² (59.5 / 59.4), 7001² (66.5 / 66.3) and 10001² (132.4 / 132.3);
/// 1 % slower where this rule leaves the scalar wide kernel, past
/// WIDE_ANY_MAX_ROWS on fewer than WIDE_ANY_LONG_MIN_COLUMNS columns (8001 ×
/// 2001 24.1 / 23.9, 10001 × 4096 56.4 / 56.1).
///
/// On an H200, past one wave of
/// 32-row tiles, on wide_fine_plan's shapes (kernel time,
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
/// Off fast DRAM it also takes A on any columns past
/// WIDE_FINE_MAX_ROWS_SLOW_DRAM up to this many rows. At Tx 32 (wide_plan's
/// tiles, on 12 thread rows) the scalar wide kernel's 32 × 16 ran 9–13 %
/// slower. On an H100 (kernel time,
/// `scripts/gemv-ab.py`, lda = m, beta 0, two rounds, µs, scalar wide on 32
/// × 16 / this on 32 × 12 / on 32 × 16 / cuBLAS;
/// docs/runs/2026-12-07-h100-gemv-any-a-past-12672.txt): 15841² 369.1–371.2
/// / 321.3–322.0 / 351.8–353.8 / 356.5–359.3, 16383² 395.2–395.4 / 342.5–342.6
/// / 365.9–366.1 / 376.2–376.8, 16383 × 8192 197.4–198.3 / 172.1–172.2 /
/// 178.5–179.1 / 192.3–192.4, 16383 × 4096 99.7–100.1 / 87.9–88.0 / 88.3–88.4 /
/// 92.5–92.6, 16383 × 2048 50.8–51.0 / 45.9 / 45.6–45.7 / 45.7–45.8, 15841 ×
/// 2048 49.1–49.3 / 44.8 / 45.0–45.2 / 44.7–44.8; level at 16001 × 6144
/// (127.5–127.9 / 127.1–127.2). From 12673 to 15840 rows (Tx 26 to 30, on
/// 12 thread rows) it ran 0.3–1.1 % faster than the scalar wide kernel on
/// 13001² to 15501² and 14001 × 16384 but 1.3 % slower at 12673² (209.7–209.9
/// against 206.9–207.1), and those stay with the scalar wide kernel.
/// Past 16384 rows (Tx 34 to 38, on WIDE_FINE_THREAD_ROWS_PAST_TX_32_SLOW_DRAM
/// thread rows) it beat what the library ran there, on up to
/// WIDE_ANY_MAX_COLUMNS_SLOW_DRAM columns (same units, the library / this on Tx × 10 / on Tx × 12 / cuBLAS;
/// docs/runs/2026-12-07-h100-gemv-n-odd-16385-20000.txt): 16501² 378.2 /
/// 349.8 (32 × 10) / 347.4–347.5 (32 × 12) / 367.6, 16897² 370.3 / 369.9–370.2
/// / 372.6–372.9 / 387.7, 17001² 482.2 / 373.6–373.7 / 376.0–377.0 / 402.6,
/// 17201² 416.3 / 383.8 / 384.7–385.2 / 404.9, 17501² 431.7 / 397.6–397.8 /
/// 400.2–400.5 / 413.9, 17801² 438.0 / 410.7–410.8 / 410.6–411.6 / 430.3,
/// 17951² 432.4 / 418.3–418.6 / 423.9–424.7 / 432.9, 18001² 434.1 /
/// 424.2–424.7 / 434.8–435.6 / 433.4, 18501² 456.3 / 445.6 / 460.3 / 462.5,
/// 19201² 489.0 / 475.9–476.1 / 523.4–523.8 / 501.2, 19501² 506.3 /
/// 493.9–494.1 / 529.8–530.2 / 519.0, 19999² 530.9 / 520.0 / 554.1–554.8 /
/// 529.0, 17501 × 8192 195.6 / 184.8 / 183.7–183.8 / 210.6; 17501 × 4096
/// 93.9 / 94.9 / 94.1 / 106.7 (1 % slower).
const WIDE_ANY_MAX_ROWS_SLOW_DRAM: i64 = 20000;
/// …where it takes A on up to this many columns, past the wide kernels'
/// WIDE_L1_MAX_COLUMNS (the widest timed: 19999).
const WIDE_ANY_MAX_COLUMNS_SLOW_DRAM: i64 = 20000;
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
/// …and up to one wave of 32-row tiles also where they engage nearly every
/// SM, on at least this many columns (on fast DRAM below
/// SWEEP_MIN_ROWS_SCALAR rows; H200, same units, the lanes
/// kernel the third: 4001 × 2001 10.89 / 11.11 / 11.93, 4065 × 2001 11.03 /
/// 11.41 / 12.01, 4001 × 3001 14.97 / 14.86 / 16.31, 4001² 18.93 / 18.57 /
/// 20.46, 4065 × 6001 27.43 / 26.58 / 29.21, 4095 × 8001 36.38 / 34.31 /
/// 38.04; cuBLAS 10.53, 10.65, 15.63, 18.18, 26.36, 34.09). Off fast DRAM,
/// since its short last group went to its last thread row, down to
/// WIDE_ANY_SHORT_MIN_COLUMNS, in blocks of WIDE_THREADS below this many
/// columns. Through the library in place of the lanes kernel (H100, kernel
/// time, `scripts/sgemv-builds.py`, odd lda, µs, lanes / this / cuBLAS):
/// 4001 × 2000 13.92 / 13.72 / 13.42, 4095 × 2000 14.19 / 13.90 / 13.68,
/// 4161 × 2001 14.41 / 14.02 / 13.89, 4001 × 2500 16.68 / 16.28 / 16.16,
/// 4095 × 2999 19.96 / 19.14 / 20.28, 4224 × 2500 17.32 / 16.63 / 16.81;
/// 11 of 12 shapes 1.3–4.1 % faster, 4223 × 2047 level (15.04 / 15.02 /
/// 16.27). As kernel time 8 × 48 was within 1 % of 8 × 64 either way
/// (docs/runs/2026-12-07-h100-gemv-any-a-full-wave-2000-columns.txt).
const WIDE_ANY_FULL_WAVE_MIN_COLUMNS: i64 = 3000;

/// The wide N kernels need at least this many rows (`wide_pays`; the fewest
/// measured: at 1000² their 32 blocks were not tried)…
const WIDE_MIN_ROWS: i64 = 2000;
/// …and replace a split of at least this many ranges on at most
/// WIDE_MAX_SPLIT_COLUMNS columns, or run on at least WIDE_MIN_ROWS columns.
const WIDE_MIN_SPLIT: u32 = 8;
const WIDE_MAX_SPLIT_COLUMNS: i64 = 4096;
/// The wide kernels that read x through L1 take at most this many columns
/// (64 KiB of x); wider matrices run `gemv_n_f32_wide_staged` (kernels/gemv.cu).
pub(super) const WIDE_L1_MAX_COLUMNS: i64 = 16384;
/// The staged wide kernel needs a grid that engages at least this share of
/// the SMs (2000 × 8192, 63 blocks: 28.1 µs against 27.0 for the default's
/// 8-way split; the L1 kernel took 24.2 there).
const WIDE_STAGED_MIN_COVERAGE: f64 = 0.5;

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
pub(super) fn wide_plan(
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
/// (WIDE_FINE_THREADS): past one wave of 32-row tiles, off fast DRAM up to
/// WIDE_FINE_MAX_ROWS_SLOW_DRAM rows.
pub(super) fn wide_fine_serves(device: &DeviceModel, spec: &KernelSpec, m: i64) -> bool {
    let rows = fast_dram(device) || m <= WIDE_FINE_MAX_ROWS_SLOW_DRAM;
    std::ptr::eq(spec, &GEMV_N_WIDE) && past_one_wave_of_32_row_tiles(device, m) && rows
}

/// Whether m rows need more 32-row tiles than the device has SMs.
fn past_one_wave_of_32_row_tiles(device: &DeviceModel, m: i64) -> bool {
    tiles_of_32_rows(m) > device.sm_count as u64
}

/// Row tiles of the wide kernels' shortest tiles (Tx 8: 32 rows) that m rows need.
fn tiles_of_32_rows(m: i64) -> u64 {
    n_row_tiles(m.max(0) as u64, WIDE_SPACE.tx_min)
}

/// Whether the wide kernel for any A can take an N call from the scalar
/// default (`plan`, which then needs [`wide_pays`]): up to WIDE_ANY_MAX_ROWS
/// rows (WIDE_ANY_LONG_MAX_ROWS on at least WIDE_ANY_LONG_MIN_COLUMNS
/// columns), where the wide kernels serve; up to one wave of 32-row tiles on
/// at least WIDE_ANY_SHORT_MIN_COLUMNS columns where they engage less than
/// WIDE_ANY_32_ROW_TILES_MAX_COVERAGE of the SMs or off fast DRAM, else on
/// at least WIDE_ANY_FULL_WAVE_MIN_COLUMNS (on fast DRAM below SWEEP_MIN_ROWS_SCALAR
/// rows: the sweep takes the rest of that wave); past it on any columns;
/// and off fast DRAM past WIDE_FINE_MAX_ROWS_SLOW_DRAM up to
/// WIDE_ANY_MAX_ROWS_SLOW_DRAM rows on up to WIDE_ANY_MAX_COLUMNS_SLOW_DRAM columns.
pub(super) fn wide_any_serves(device: &DeviceModel, m: i64, n: i64) -> bool {
    if wide_any_long_rows_slow_dram(device, m) {
        return n <= WIDE_ANY_MAX_COLUMNS_SLOW_DRAM;
    }
    let max_rows = if n >= WIDE_ANY_LONG_MIN_COLUMNS { WIDE_ANY_LONG_MAX_ROWS } else { WIDE_ANY_MAX_ROWS };
    let sweep_takes = fast_dram(device) && m >= SWEEP_MIN_ROWS_SCALAR;
    let min_columns = if wide_any_32_row_tiles_leave_sms_idle(device, m) || !fast_dram(device) {
        WIDE_ANY_SHORT_MIN_COLUMNS
    } else {
        WIDE_ANY_FULL_WAVE_MIN_COLUMNS
    };
    let columns = past_one_wave_of_32_row_tiles(device, m) || (!sweep_takes && n >= min_columns);
    m <= max_rows && columns && wide_serves(Twin::WideAny, m, n)
}

/// Whether m rows are past WIDE_FINE_MAX_ROWS_SLOW_DRAM, up to
/// WIDE_ANY_MAX_ROWS_SLOW_DRAM, off fast DRAM.
fn wide_any_long_rows_slow_dram(device: &DeviceModel, m: i64) -> bool {
    !fast_dram(device) && m > WIDE_FINE_MAX_ROWS_SLOW_DRAM && m <= WIDE_ANY_MAX_ROWS_SLOW_DRAM
}

/// Whether m rows in 32-row tiles engage less than WIDE_ANY_32_ROW_TILES_MAX_COVERAGE of the SMs.
fn wide_any_32_row_tiles_leave_sms_idle(device: &DeviceModel, m: i64) -> bool {
    (tiles_of_32_rows(m) as f64) < WIDE_ANY_32_ROW_TILES_MAX_COVERAGE * device.sm_count as f64
}

/// The any-A wide kernel's shape: [`wide_fine_plan`]'s past one wave of
/// 32-row tiles, else 32-row tiles (Tx 8) of WIDE_THREADS where they leave
/// SMs idle (WIDE_ANY_32_ROW_TILES_MAX_COVERAGE) or run on fewer than
/// WIDE_ANY_FULL_WAVE_MIN_COLUMNS columns, and of WIDE_FINE_THREADS where
/// they engage nearly all.
pub(super) fn wide_any_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> LaunchPlan {
    let m = problem.m as i64;
    if past_one_wave_of_32_row_tiles(device, m) {
        return wide_fine_plan(device, kernel, spec, problem);
    }
    let tx = spec.space.tx_min;
    let few_columns = (problem.n as i64) < WIDE_ANY_FULL_WAVE_MIN_COLUMNS;
    let threads =
        if wide_any_32_row_tiles_leave_sms_idle(device, m) || few_columns { WIDE_THREADS } else { WIDE_FINE_THREADS };
    LaunchPlan::of_shape(device, kernel, spec, problem, LaunchShape { tx, ty: threads / tx, split: 1 })
}

/// The float4 wide kernel's shape where [`wide_fine_serves`], and the any-A
/// one's past one wave of 32-row tiles:
/// the smallest even Tx whose row tiles (4·Tx rows) number at most one per SM,
/// and as many thread rows, a multiple of 8, as WIDE_FINE_THREADS holds (8 at
/// least; off fast DRAM WIDE_FINE_MIN_THREAD_ROWS_SLOW_DRAM, and past Tx 32
/// WIDE_FINE_THREAD_ROWS_PAST_TX_32_SLOW_DRAM, both within WIDE_THREADS
/// up to Tx 38, WIDE_ANY_MAX_ROWS_SLOW_DRAM's). Past one wave
/// of the longest tiles (Tx 64) the grid needs two, and [`wide_pays`]
/// refuses it.
pub(super) fn wide_fine_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> LaunchPlan {
    let tx = wide_fine_tx(device, problem.m);
    let fewest_thread_rows = match (fast_dram(device), tx > 32) {
        (true, _) => 8,
        (false, false) => WIDE_FINE_MIN_THREAD_ROWS_SLOW_DRAM,
        (false, true) => WIDE_FINE_THREAD_ROWS_PAST_TX_32_SLOW_DRAM,
    };
    let ty = (WIDE_FINE_THREADS / tx / 8 * 8).max(fewest_thread_rows);
    LaunchPlan::of_shape(device, kernel, spec, problem, LaunchShape { tx, ty, split: 1 })
}

/// [`wide_fine_plan`]'s Tx for m rows.
fn wide_fine_tx(device: &DeviceModel, m: u64) -> u32 {
    let rows_per_tx_pair = 2 * N_ROWS_PER_THREAD * device.sm_count.max(1) as u64;
    (2 * m.div_ceil(rows_per_tx_pair)).min(WIDE_SPACE.tx_max as u64) as u32
}

/// [`wide_fine_plan`]'s row tiles (blocks) for m rows.
pub(super) fn wide_fine_tiles(device: &DeviceModel, m: i64) -> u64 {
    let m = m.max(0) as u64;
    n_row_tiles(m, wide_fine_tx(device, m))
}

/// Whether a wide N kernel (or the scalar lanes kernel, which takes the
/// scalar wide kernel's problems) can serve the problem at all: at least
/// WIDE_MIN_ROWS rows, and the kernels that read x through L1 at most
/// WIDE_L1_MAX_COLUMNS columns, the staged one more (`plan` skips the others'
/// plans; [`wide_pays`] starts from it).
pub(super) fn wide_serves(kind: Twin, m: i64, n: i64) -> bool {
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

/// Whether the wide N kernel `kind` (or the scalar lanes kernel) can take an
/// N call: [`wide_any_serves`] for the any-A kernel, whose rules depend on the
/// device, else [`wide_serves`].
pub(super) fn wide_kind_serves(device: &DeviceModel, kind: Twin, m: i64, n: i64) -> bool {
    if kind == Twin::WideAny { wide_any_serves(device, m, n) } else { wide_serves(kind, m, n) }
}

/// Whether the sweep kernel can take an N call from `default` (`plan`, which
/// then needs [`sweep_pays`]): on a device whose DRAM gives each SM at least
/// SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND: for float4 A SWEEP_MIN_ROWS rows on
/// at least SWEEP_MIN_COLUMNS columns, or more than one wave of 32-row tiles
/// on more than FEW_MAX_COLUMNS (and SWEEP_MIN_COLUMNS) columns;
/// for any other A the same columns from SWEEP_MIN_ROWS_SCALAR rows, and
/// below them from SWEEP_SHORT_MIN_ROWS rows on SWEEP_SHORT_MIN_COLUMNS to
/// SWEEP_SHORT_MAX_COLUMNS_PER_ROW · m columns. On the H100 the sweep
/// for odd lda was timed too and stays off (docs/performance.md, "Odd lda
/// past 4224 rows").
pub(super) fn sweep_serves(device: &DeviceModel, default: &KernelSpec, m: i64, n: i64) -> bool {
    let shape = if !std::ptr::eq(default, &GEMV_N_SCALAR) {
        let rows = m >= SWEEP_MIN_ROWS || (past_one_wave_of_32_row_tiles(device, m) && n > FEW_MAX_COLUMNS);
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
pub(super) fn sweep_pays(device: &DeviceModel, default: &KernelSpec, m: i64, plan: &LaunchPlan) -> bool {
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
pub(super) fn sweep_thread_rows(tx: u32) -> u32 {
    1 << (SWEEP_THREADS / tx).ilog2()
}

/// Whether the scalar long kernel can take an N call from the default
/// (`plan`, which then needs [`long_pays`]): at least LONG_MIN_COLUMNS
/// columns, where the scalar wide kernel's one wave of row tiles (one block
/// of at most 4 × 64 rows per SM) does not serve, and the default's plan
/// unsplit with a second block on more than 1/LONG_MIN_DOUBLED_SMS of the SMs.
pub(super) fn long_serves(device: &DeviceModel, m: i64, n: i64, default_plan: &LaunchPlan) -> bool {
    let wide_rows = device.sm_count as u64 * N_ROWS_PER_THREAD * WIDE_SPACE.tx_max as u64;
    let wide_serves = wide_serves(Twin::Wide, m, n) && m as u64 <= wide_rows;
    n >= LONG_MIN_COLUMNS && !wide_serves && default_plan.geometry.grid.1 == 1 && doubles_up(device, default_plan)
}

/// Whether a plan's grid puts a second block on more than
/// 1/LONG_MIN_DOUBLED_SMS of the SMs (where the scalar kernel's 4-byte loads
/// ran slower with more threads per SM: the long and thin kernels).
pub(super) fn doubles_up(device: &DeviceModel, plan: &LaunchPlan) -> bool {
    let sms = device.sm_count as u64;
    plan.geometry.blocks().saturating_sub(sms) * LONG_MIN_DOUBLED_SMS > sms
}

/// Whether the long kernel's plan replaces the default's: in one wave and,
/// on fast DRAM, where it goes before the sweep, on at least
/// LONG_MIN_COVERAGE_FAST_DRAM of the SMs.
pub(super) fn long_pays(device: &DeviceModel, plan: &LaunchPlan) -> bool {
    optimizer::waves(device, plan) == 1
        && (!fast_dram(device) || optimizer::sm_coverage(device, plan) >= LONG_MIN_COVERAGE_FAST_DRAM)
}

/// Thread rows of a long block of Tx: LONG_THREADS in all.
pub(super) fn long_thread_rows(tx: u32) -> u32 {
    LONG_THREADS / tx
}

/// Thread rows of a wide block of Tx: as many as WIDE_THREADS holds.
pub(super) fn wide_thread_rows(tx: u32) -> u32 {
    WIDE_THREADS / tx
}

/// Whether the device's DRAM is fast enough for its SMs that the sweep
/// kernel may serve (SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND).
pub fn fast_dram(device: &DeviceModel) -> bool {
    device.dram_bytes_per_sm_second() >= SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND
}

/// Whether a wide N kernel (or the scalar lanes kernel) replaces the
/// default's plan (`plan`, "Wide N"): one that serves the problem
/// ([`wide_kind_serves`]) in one wave; for the kernels that read x through L1, a split of WIDE_MIN_SPLIT or more replaced on at
/// most WIDE_MAX_SPLIT_COLUMNS columns, or at least WIDE_MIN_ROWS columns;
/// for the staged one, a grid on at least half the SMs.
pub(super) fn wide_pays(
    device: &DeviceModel,
    kind: Twin,
    m: i64,
    n: i64,
    default_split: u32,
    wide: &LaunchPlan,
) -> bool {
    if !wide_kind_serves(device, kind, m, n) || optimizer::waves(device, wide) != 1 {
        return false;
    }
    match kind {
        Twin::Wide | Twin::WideAny | Twin::Lanes => {
            (default_split >= WIDE_MIN_SPLIT && n <= WIDE_MAX_SPLIT_COLUMNS) || n >= WIDE_MIN_ROWS
        }
        _ => optimizer::sm_coverage(device, wide) >= WIDE_STAGED_MIN_COVERAGE,
    }
}
