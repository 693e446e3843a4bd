//! op N on few rows or columns: the narrow kernels (smaller row tiles, or
//! few rows split over many columns) and the few-columns kernels; where each
//! serves and pays, and the shapes they take.

use super::geometry::{N_COLUMN_GRANULE, N_SPLIT_MIN_COLUMNS, n_row_tiles, split_ranges};
use super::kernels::{GEMV_N, GEMV_N_SHORT};
use super::wide::fast_dram;
use crate::tuner::optimizer;
use crate::tuner::{DeviceModel, KernelModel, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

/// The narrow N kernels: row tiles of 32 to 128 rows (Tx 8 to 32). They give
/// more blocks to an unsplit grid of few row tiles (see `plan`), and on fast
/// DRAM run few rows on many columns split (`narrow_split_serves`). Ty up to 128: with few blocks, the threads per block are
/// what keeps loads in flight. On the H100 (`mublas bench sgemv`, shapes
/// forced, two runs) N 512² took 10.5–10.6 µs at 8×64, 11.0 at 8×128,
/// 11.5–12.3 at 8×32; the optimizer's 8×65 10.3–10.8.
pub(super) const NARROW_SPACE: LaunchSpace =
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

/// Whether the narrow kernels take a split N call from the default (`plan`,
/// where it always pays): on fast DRAM, at most NARROW_SPLIT_MAX_ROWS rows
/// on more than N_SPLIT_MIN_COLUMNS columns, in ranges ([`narrow_split`])
/// of at most NARROW_SPLIT_MAX_RANGE_COLUMNS columns.
pub(super) fn narrow_split_serves(device: &DeviceModel, m: i64, n: i64) -> bool {
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
pub(super) fn narrow_split_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> LaunchPlan {
    let shape =
        LaunchShape { tx: NARROW_SPACE.tx_min, ty: NARROW_SPLIT_THREAD_ROWS, split: narrow_split(device, problem.m) };
    LaunchPlan::of_shape(device, kernel, spec, problem, shape)
}

/// Columns a thread row of the wide kernels has in flight (`gemv_n<VEC, 8, …>` in kernels/gemv.cu).
const WIDE_GROUP_COLUMNS: u64 = 8;

/// The few-columns N kernel (`gemv_n_f32_few`, the float4 wide kernel's
/// code): row tiles of FEW_TX · 4 = 32 rows, unsplit, Ty thread rows of 8
/// columns each; [`few_plan`] chooses Ty.
const FEW_TX: u32 = 8;
pub(super) const FEW_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 8, tx_min: FEW_TX, tx_max: FEW_TX, ty_min: 4, ty_max: 64, splits: &[1] };
/// Where it serves ([`few_serves`]): on fast DRAM (only an H200 measured), at
/// most FEW_MAX_COLUMNS columns, FEW_MIN_ROWS to FEW_MAX_ROWS rows, the
/// range timed (H200, kernel time, `scripts/gemv-ab.py` and
/// `scripts/sgemv-builds.py`, µs, the routine's kernel before / this one /
/// cuBLAS): 4096 × 768 8.31 / 5.93 / 6.42, 4096 × 1536 11.20 / 8.68 /
/// 8.64, 8192 × 128 3.93 / 3.48 / 3.20, 20000 × 256 8.14 / 7.45 / 7.35,
/// 100000 × 32 10.18 / 5.66 / 7.30, 512 × 128 2.94 / 2.38 / 2.74.
pub(super) const FEW_MAX_COLUMNS: i64 = 1536;
pub(super) const FEW_MIN_ROWS: i64 = 256;
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

/// Whether a few-columns N kernel takes an N call from `default` (`plan`,
/// after the sweep): on fast DRAM, FEW_MIN_ROWS to FEW_MAX_ROWS rows (from
/// FEW_SHORT_MIN_ROWS on at most N_SPLIT_MIN_COLUMNS columns) and at most
/// FEW_MAX_COLUMNS columns; for A that is not float4 ([`few_any_serves`])
/// fewer.
pub(super) fn few_serves(device: &DeviceModel, default: &KernelSpec, m: i64, n: i64) -> bool {
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
pub(super) fn few_pays(device: &DeviceModel, n: i64, plan: &LaunchPlan) -> bool {
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
pub(super) fn few_plan(device: &DeviceModel, kernel: &KernelModel, spec: &KernelSpec, problem: &Problem) -> LaunchPlan {
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
