//! op T on few columns: the stacked kernels, several warps a column; where
//! they serve and pay, and the warps a column they take.

use crate::tuner::optimizer;
use crate::tuner::{DeviceModel, KernelModel, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

/// `gemv_t_f32_stacked`: one column a block, Ty warps sharing its rows
/// ([`stacked_plan`]), at most 512 threads (its launch bounds). Two columns
/// a block (Tx 64) ran 1-8 % slower at Ty 4 and 8 (H200, kernel time:
/// 8192 x 128 3.60 / 3.70 µs at Ty 8, 4096 x 32 2.62 / 2.70 at Ty 4).
pub(super) const STACKED_SPACE: LaunchSpace =
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

/// Whether `gemv_t_f32_stacked` can take a T call from `gemv_t_f32` (`plan`,
/// which then needs [`stacked_pays`]; x as float4 is the caller's check):
/// more rows than one warp's round (Ty 2 at least), at most
/// STACKED_MAX_COLUMNS columns, with Ty 2 at most STACKED_PAIR_MAX_COLUMNS,
/// and on fewer than STACKED_FEW_COLUMNS at most STACKED_FEW_COLUMNS_MAX_ROWS
/// rows.
pub(super) fn stacked_serves(m: i64, n: i64) -> bool {
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
pub(super) fn stacked_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> LaunchPlan {
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
pub(super) fn stacked_pays(device: &DeviceModel, m: i64, plan: &LaunchPlan) -> bool {
    let ty = plan.shape.ty as u64;
    ty >= 2 && optimizer::waves(device, plan) == 1 && (m as u64).div_ceil(ty) <= STACKED_MAX_WARP_ROWS
}
