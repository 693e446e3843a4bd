//! op T on 65 to a few hundred rows: the groups kernels, 4 or 6 groups of 4
//! rows a lane; where they serve, which of them, and their blocks.

use super::geometry::lanes_per_column;
use super::kernels::{
    GEMV_T_GROUPS4, GEMV_T_GROUPS6, GEMV_T_SCALAR, GEMV_T_SCALAR_GROUPS4, GEMV_T_SCALAR_GROUPS6, compiled_parameter,
};
use super::short::SHORT_ROWS_MAX;
use crate::tuner::{DeviceModel, KernelModel, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

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

/// Threads a block of the groups kernels: 256 (a quarter of the SM's at
/// their 64 to 97 registers), 128 where that leaves SMs without a block.
pub(super) const GROUPS_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 128, tx_min: 128, tx_max: 256, ty_min: 1, ty_max: 1, splits: &[1] };

/// Rows the groups kernels can take from a call of `default`: more than the
/// short kernel's, at most GROUPS_MAX_ROWS, or GROUPS_SCALAR_MAX_ROWS for
/// the scalar default (A not float4).
pub(super) fn groups_rows(default: &KernelSpec, m: i64) -> bool {
    let max_rows = if std::ptr::eq(default, &GEMV_T_SCALAR) { GROUPS_SCALAR_MAX_ROWS } else { GROUPS_MAX_ROWS };
    (SHORT_ROWS_MAX + 1..=max_rows).contains(&m)
}

/// Whether a groups kernel takes a T call from `default` (`plan`, first):
/// [`groups_rows`] on at least GROUPS_MIN_COLUMNS columns.
pub(super) fn groups_serves(default: &KernelSpec, m: i64, n: i64) -> bool {
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
pub(super) fn groups_of_kernel(spec: &KernelSpec) -> Option<u64> {
    compiled_parameter(
        spec,
        &[(&GEMV_T_GROUPS4, &GEMV_T_SCALAR_GROUPS4, 4), (&GEMV_T_GROUPS6, &GEMV_T_SCALAR_GROUPS6, 6)],
    )
}

/// The groups kernels' shape: blocks of GROUPS_SPACE.tx_max threads, or of
/// tx_min where that grid has fewer blocks than SMs (65 × 4096 on 4 lanes a
/// column: 32 blocks of 256 threads 2.87 µs, 64 of 128 2.67).
pub(super) fn groups_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> LaunchPlan {
    let shape = |tx| LaunchShape { tx, ty: 1, split: 1 };
    let plan = LaunchPlan::of_shape(device, kernel, spec, problem, shape(GROUPS_SPACE.tx_max));
    if plan.geometry.blocks() >= device.sm_count as u64 {
        plan
    } else {
        LaunchPlan::of_shape(device, kernel, spec, problem, shape(GROUPS_SPACE.tx_min))
    }
}
