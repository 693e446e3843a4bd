//! The short kernels (op N and T on at most [`SHORT_ROWS_MAX`] rows): their
//! launch spaces and the short N kernels' shape (`short_plan`).

use super::geometry::{Layout, lanes_per_column, reduction_split};
use super::kernels::{GEMV_N_SHORT, GEMV_N_SHORT_SCALAR, SPLITS};
use crate::tuner::{DeviceModel, KernelModel, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

/// op N with at most this many rows goes to the short kernels (GEMV_SHORT_ROWS):
/// a row tile of the N kernels has at least 128 rows.
pub const SHORT_ROWS_MAX: i64 = 64;

/// Columns a lane of the short N kernels loads at once (GEMV_SHORT_UNROLL).
const SHORT_UNROLL: u64 = 4;

/// At most 512 threads: a block of 1024 holds an SM alone (60 registers), so
/// the 256 ranges that fill the GPU would run in two waves (H100, m = 16,
/// n = 2^20: 39 µs against 36 µs with 512 threads).
pub(super) const SHORT_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 512, ty_min: 1, ty_max: 1, splits: SPLITS };
/// Split, at most this many threads: on the 256 ranges of 1 × 2^20, 512
/// threads took 7.39 µs and 256 7.00, on those of 1 × 262144 5.67 against
/// 4.88 (H200, kernel time, `scripts/gemv-ab.py`; cuBLAS 7.33 and 4.49).
const SHORT_SPLIT_MAX_THREADS: u32 = 256;

/// The short T kernels never split: a column's rows are one lane group's. At
/// most 64 threads: a block reads its columns in one round and exits, and
/// on the H100 (m = 16, n = 2^20, every block size timed in one run) time grew
/// with the block: 37.8 µs at 32 threads, 41.9 at 64, 43–44 at 128 and 256,
/// 46–62 from 288 to 1024; among 32 to 128 the optimizer's largest
/// Grid-Occupancy fell on 96 threads (51.0 µs).
pub(super) const T_SHORT_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 64, ty_min: 1, ty_max: 1, splits: &[1] };

/// Whether `spec` is one of the short N kernels.
pub(super) fn is_short_n(spec: &KernelSpec) -> bool {
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
pub(super) fn short_plan(
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
