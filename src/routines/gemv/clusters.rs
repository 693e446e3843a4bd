//! op N on few rows and many columns: the cluster kernels, whose row tiles'
//! column ranges add their sums through distributed shared memory; which
//! devices run them, where they serve, their tile and clusters a tile.

use super::few_and_narrow::{FEW_MAX_COLUMNS, FEW_MIN_ROWS};
use super::geometry::N_SPLIT_MIN_COLUMNS;
use super::kernels::{
    GEMV_N_CLUSTER16, GEMV_N_CLUSTER32, GEMV_N_CLUSTER64, GEMV_N_SCALAR_CLUSTER16, GEMV_N_SCALAR_CLUSTER32,
    GEMV_N_SCALAR_CLUSTER64, compiled_parameter,
};
use crate::launch::device::DeviceState;
use crate::launch::images::{self, ImageChoice};
use crate::tuner::{DeviceModel, KernelModel, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

/// The cluster N kernels (`gemv_n_f32_cluster16`, `_cluster32`, `_cluster64`
/// and their `_scalar_` twins; thread-block clusters, so sm_90 machine code only,
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
/// Blocks of 256 threads (128 for `mublas tune` and the tests), and one,
/// two or five clusters a tile for them ([`cluster_plan`] takes any number).
pub(super) const CLUSTER_SPACE: LaunchSpace = LaunchSpace {
    tx_step: 128,
    tx_min: 128,
    tx_max: 256,
    ty_min: 1,
    ty_max: 1,
    splits: &[CLUSTER_BLOCKS, 2 * CLUSTER_BLOCKS, 5 * CLUSTER_BLOCKS],
};

/// Columns one cluster a tile serves: CLUSTER_BLOCKS ranges of CLUSTER_MAX_RANGE_COLUMNS.
const ONE_CLUSTER_MAX_COLUMNS: i64 = CLUSTER_BLOCKS as i64 * CLUSTER_MAX_RANGE_COLUMNS;

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
pub(super) fn cluster_rows(m: i64) -> bool {
    (1..=CLUSTER_MAX_ROWS).contains(&m)
}

/// Whether a cluster kernel takes an N call (`plan`, first), on a device
/// that runs them (`clusters`, asked last: only calls of such shapes look
/// at the loaded images): [`cluster_rows`] on more than N_SPLIT_MIN_COLUMNS
/// columns, past FEW_MAX_COLUMNS from FEW_MIN_ROWS rows on (where the
/// few-columns and narrow kernels were level or faster: 512 × 1024 3.30 µs
/// against 3.64, 1000 × 600 with odd lda 3.89 against 4.21), and past
/// ONE_CLUSTER_MAX_COLUMNS on CLUSTER_GROUPS_MIN_ROWS to CLUSTER_GROUPS_MAX_ROWS.
pub(super) fn cluster_serves(clusters: impl FnOnce() -> bool, m: i64, n: i64) -> bool {
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

/// The rows of a cluster kernel's tile; None for the other kernels.
pub(super) fn cluster_rows_of_kernel(spec: &KernelSpec) -> Option<u64> {
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
pub(super) fn cluster_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> LaunchPlan {
    let (m, n) = (problem.m as i64, problem.n as i64);
    let clusters = cluster_rows_of_kernel(spec).map_or(1, |rows| clusters_per_tile(device, m, n, rows));
    let shape = LaunchShape { tx: CLUSTER_SPACE.tx_max, ty: 1, split: clusters * CLUSTER_BLOCKS };
    LaunchPlan::of_shape(device, kernel, spec, problem, shape)
}
