//! op T, unsplit, x through L1: the paired kernels (each round's loads of A
//! and x requested together) and their twin for any A, the lean kernel with x
//! through L1 and the kernel for any A (`gemv_t_f32_l1_any`); where each
//! serves and pays.

use super::kernels::GEMV_T_SCALAR;
use crate::tuner::optimizer;
use crate::tuner::{DeviceModel, KernelSpec, LaunchPlan, LaunchSpace};

/// `gemv_t_f32_l1_any`: blocks of 256 threads (8 columns), unsplit. 256 was
/// the fastest block timed on the H100 (kernel time, `scripts/gemv-ab.py`,
/// µs): 2001² 8.32 against 8.99 on the 480 threads an optimizer recipe took,
/// 4097² 26.20 / 26.16 on 512, 8191² 93.19 / 93.29 on 512 and 94.34 on 1024,
/// 10001² 140.97 / 146.81 on 1024, 1023 × 65536 88.85 / 99.89 on 1024.
pub(super) const L1_ANY_SPACE: LaunchSpace =
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
pub(super) const PAIRED_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 256, tx_max: 256, ty_min: 1, ty_max: 1, splits: &[1] };
/// `gemv_t_f32_paired_any` on blocks of 64 threads: 2 columns a block, so that
/// 600 columns fill every SM (300 blocks, not 75), and 1-4 % faster than 256
/// on squares too (H200, kernel time, odd lda, µs, 64 / 256: 3001² 12.17 /
/// 12.68, 4097² 18.76 / 19.13, 5001² 27.24 / 28.40, 10001² 93.5 / 95.3).
pub(super) const PAIRED_ANY_SPACE: LaunchSpace =
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
pub(super) const PAIRED_ANY_OVER_L1_ANY_MIN_ROWS: i64 = 2000;
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
pub(super) const PAIRED_MAX_ROWS: i64 = i32::MAX as i64 - 1024;
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

/// Whether the lean T kernel with x through L1 replaces the default (`plan`):
/// where its grid runs unsplit in one wave.
pub(super) fn lean_l1_pays(device: &DeviceModel, plan: &LaunchPlan) -> bool {
    optimizer::waves(device, plan) == 1 && plan.geometry.grid.1 == 1
}

/// Whether `gemv_t_f32_paired` can take a T call from `gemv_t_f32` (`plan`;
/// x as float4 is the caller's check): at least PAIRED_MIN_COLUMNS columns
/// and at most PAIRED_MAX_ROWS rows, split or not (65536 × 1024 ran 68.5 µs
/// unsplit against 70.6 on the default's split of 4, H200), or at least
/// PAIRED_SHORT_MIN_COLUMNS, with more rows than columns and fewer than
/// PAIRED_SHORT_ROWS_PER_COLUMN times as many, or at most
/// PAIRED_TINY_MAX_ROWS × PAIRED_TINY_MAX_COLUMNS; where the split paired
/// kernel does not take it.
pub(super) fn paired_serves(m: i64, n: i64) -> bool {
    (n >= PAIRED_MIN_COLUMNS && m <= PAIRED_MAX_ROWS)
        || (n >= PAIRED_SHORT_MIN_COLUMNS && n < m && m < PAIRED_SHORT_ROWS_PER_COLUMN * n)
        || (m <= PAIRED_TINY_MAX_ROWS && n <= PAIRED_TINY_MAX_COLUMNS)
}

/// Whether `gemv_t_f32_l1_any` can take a T call from its default kernel
/// (`plan`; x with unit stride is the caller's check): the default's plan
/// unsplit on at least L1_ANY_MIN_COLUMNS columns, and for float4 A at most
/// L1_ANY_FLOAT4_MAX_ROWS rows.
pub(super) fn l1_any_serves(default: &KernelSpec, m: i64, n: i64, default_plan: &LaunchPlan) -> bool {
    default_plan.geometry.grid.1 == 1
        && n >= L1_ANY_MIN_COLUMNS
        && (std::ptr::eq(default, &GEMV_T_SCALAR) || m <= L1_ANY_FLOAT4_MAX_ROWS)
}

/// Whether the unsplit paired kernel for any A (`paired_any`) takes a call
/// that `gemv_t_f32_l1_any` (`l1_any`) serves, on columns of at least
/// PAIRED_ANY_OVER_L1_ANY_MIN_ROWS rows (the caller's check): unless
/// `l1_any` runs in one wave filled to less than
/// L1_ANY_KEEPS_BELOW_GRID_OCCUPANCY where `paired_any` needs more.
pub(super) fn paired_any_over_l1_any(device: &DeviceModel, l1_any: &LaunchPlan, paired_any: &LaunchPlan) -> bool {
    let l1_any_keeps = optimizer::waves(device, l1_any) == 1
        && optimizer::waves(device, paired_any) > 1
        && l1_any.occupancy.grid < L1_ANY_KEEPS_BELOW_GRID_OCCUPANCY;
    !l1_any_keeps
}
