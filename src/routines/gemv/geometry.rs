//! How a launch lies over A ([`Layout`]): its tiles (grid.x), the reduction
//! split it really uses ([`reduction_split`], grid.y) and the split slots
//! that needs, and each kernel family's grid.

use super::Op;
use super::clusters::{CLUSTER_BLOCKS, cluster_rows_of_kernel};
use super::groups::groups_of_kernel;
use super::kernels::{GEMV_T_PAIRED_SPLIT, GEMV_T_PAIRED_SPLIT_ANY};
use super::paired_split::PAIRED_ROW_GRANULE;
use super::short::SHORT_ROWS_MAX;
use crate::handle::{SPLIT_COUNTER_SLOTS, SPLIT_SLOTS};
use crate::tuner::{Geometry, KernelSpec, LaunchShape, Problem};

/// Rows per thread in the N kernels (GEMV_N_ROWS in kernels/gemv.cu).
pub(super) const N_ROWS_PER_THREAD: u64 = 4;
/// Column ranges of a split in the N kernels are multiples of this (and so of
/// the kernels' 4-column groups). On the H100, ranges shorter than about 128
/// columns cost more in partial sums than their extra blocks bring (SGEMV-N at
/// n = 512 and 1024 ran 1.3–1.6× slower with 8 to 32 columns per range than
/// with 128 or more).
pub(super) const N_COLUMN_GRANULE: u64 = 128;
/// op N splits only matrices wider than this. A split has a fixed cost (the
/// partial vectors, then a fence and a counter per block, the last block's sum;
/// measured before the split slots took the fence's place)
/// that narrow problems do not win back: on the H100 (`mublas bench
/// sgemv-shapes`), 256² took 8.0 µs unsplit against 10.1 with the 2-way split
/// the optimizer chose for SM coverage, 512² 9.6 against 10.0 with 4 ranges;
/// at 1000² the 4-way split was faster (11.7 against 13.5). Such problems
/// get their SMs from the narrow kernels' smaller row tiles instead (`plan`).
pub(super) const N_SPLIT_MIN_COLUMNS: u64 = 512;
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

/// Columns per lane in the T kernels when m ≤ 64 (GEMV_T_SMALL_COLUMNS).
const T_SMALL_COLUMNS: u64 = 4;

/// Columns a lane of the groups kernels holds (GEMV_T_GROUPS_COLUMNS).
pub(super) const GROUPS_COLUMNS_PER_LANE: u64 = 2;

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

/// Cuts `len` into at most `split` ranges whose length is a multiple of
/// `granule`: (length of each range, number of ranges). No range is empty.
pub fn split_ranges(len: u64, split: u32, granule: u64) -> (u64, u32) {
    if split <= 1 || len <= granule {
        return (len.max(1), 1);
    }
    let per = len.div_ceil(split as u64).div_ceil(granule) * granule;
    (per, len.div_ceil(per) as u32)
}

/// Row tiles of the N kernels whose threads own N_ROWS_PER_THREAD rows each (4·Tx rows a tile) that m rows need.
pub(super) fn n_row_tiles(m: u64, tx: u32) -> u64 {
    m.div_ceil(N_ROWS_PER_THREAD * tx.max(1) as u64)
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

fn grid_x(blocks: u64) -> u32 {
    blocks.min(i32::MAX as u64) as u32
}

fn geometry(layout: Layout, problem: &Problem, shape: &LaunchShape) -> Geometry {
    let (_, splits) = reduction_split(layout, problem, shape);
    // Every kernel's shared memory is static (the N kernels fold their thread rows through the x chunk).
    Geometry { grid: (grid_x(tiles(layout, problem, shape)), splits, 1), dynamic_shared_bytes: 0 }
}

pub(super) fn n_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::N, problem, shape)
}

pub(super) fn short_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::NShort, problem, shape)
}

pub(super) fn t_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::T, problem, shape)
}

pub(super) fn t_paired_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::TPaired, problem, shape)
}

/// The lanes and sweep kernels: a row per thread, Tx rows a block, unsplit.
pub(super) fn lanes_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    Geometry { grid: (grid_x(problem.m.div_ceil(shape.tx.max(1) as u64).max(1)), 1, 1), dynamic_shared_bytes: 0 }
}

pub(super) fn t_short_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::TShort, problem, shape)
}

pub(super) fn t_groups4_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::TGroups(4), problem, shape)
}

pub(super) fn t_groups6_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::TGroups(6), problem, shape)
}

pub(super) fn n_cluster16_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::NCluster(16), problem, shape)
}

pub(super) fn n_cluster32_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::NCluster(32), problem, shape)
}

pub(super) fn n_cluster64_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    geometry(Layout::NCluster(64), problem, shape)
}
