//! The SGEMV kernels (kernels/gemv.cu) as the tuner sees them: their specs and
//! names, the default kernels' launch spaces (a twin's is beside the rules
//! that shape it), the default kernel for a call ([`select_kernel`]) and
//! every kernel that can serve it ([`candidate_kernels`]).

use super::Op;
use super::clusters::{CLUSTER_SPACE, cluster_rows};
use super::few_and_narrow::{FEW_SPACE, NARROW_SPACE};
use super::geometry::{
    Layout, lanes_geometry, n_cluster16_geometry, n_cluster32_geometry, n_cluster64_geometry, n_geometry,
    short_geometry, t_geometry, t_groups4_geometry, t_groups6_geometry, t_paired_geometry, t_short_geometry,
};
use super::groups::{GROUPS_SPACE, groups_rows};
use super::paired::{L1_ANY_SPACE, PAIRED_ANY_SPACE, PAIRED_SPACE};
use super::paired_split::PAIRED_SPLIT_SPACE;
use super::plan::Twin;
use super::short::{SHORT_SPACE, T_SHORT_SPACE};
use super::stacked::STACKED_SPACE;
use super::wide::{LANES_SPACE, LONG_SPACE, SWEEP_SPACE, THIN_SPACE, WIDE_SPACE};
use crate::tuner::{KernelSpec, LaunchSpace};

pub(super) const SPLITS: &[u32] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

const N_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 256, ty_min: 1, ty_max: 16, splits: SPLITS };

const T_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 1024, ty_min: 1, ty_max: 1, splits: SPLITS };

/// op N, A 16-byte aligned and lda % 4 == 0. problem.m = rows, problem.n = columns of A.
pub static GEMV_N: KernelSpec = KernelSpec { name: "gemv_n_f32", space: N_SPACE, geometry: n_geometry };
/// op N, any alignment and lda.
pub static GEMV_N_SCALAR: KernelSpec = KernelSpec { name: "gemv_n_f32_scalar", space: N_SPACE, geometry: n_geometry };
/// GEMV_N and GEMV_N_SCALAR in row tiles of 32 to 128 rows: unsplit, or split
/// where `narrow_split_serves` (fast DRAM).
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
/// lane (see [`groups_of_rows`](super::groups_of_rows)), A 16-byte aligned and lda % 4 == 0, or any
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

/// Every kernel the routine launches: what it loads, and what the GPU tests
/// set against the driver's occupancy calculator.
pub const KERNEL_SPECS: [&KernelSpec; 40] = [
    &GEMV_N,
    &GEMV_N_SCALAR,
    &GEMV_N_NARROW,
    &GEMV_N_SCALAR_NARROW,
    &GEMV_N_WIDE,
    &GEMV_N_SCALAR_WIDE,
    &GEMV_N_SCALAR_LONG,
    &GEMV_N_SCALAR_THIN,
    &GEMV_N_WIDE_STAGED,
    &GEMV_N_WIDE_ANY,
    &GEMV_N_FEW,
    &GEMV_N_SCALAR_FEW,
    &GEMV_N_SCALAR_LANES,
    &GEMV_N_SWEEP,
    &GEMV_N_SHORT,
    &GEMV_N_SHORT_SCALAR,
    &GEMV_N_CLUSTER16,
    &GEMV_N_CLUSTER32,
    &GEMV_N_SCALAR_CLUSTER16,
    &GEMV_N_SCALAR_CLUSTER32,
    &GEMV_N_CLUSTER64,
    &GEMV_N_SCALAR_CLUSTER64,
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
];

/// Every kernel of kernels/gemv.cu by name: the routine's, and `mublas bench floor`'s.
pub const KERNEL_NAMES: &[&str] = &{
    let mut names = [READ_FLOOR_NAME; KERNEL_SPECS.len() + 1];
    let mut i = 0;
    while i < KERNEL_SPECS.len() {
        names[i + 1] = KERNEL_SPECS[i].name;
        i += 1;
    }
    names
};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    // The any-A wide kernel first: past 16384 rows off fast DRAM it takes
    // wide matrices that the long kernel would (`wide_any_serves`).
    (&GEMV_N_SCALAR, &GEMV_N_WIDE_ANY, Twin::WideAny),
    (&GEMV_N_SCALAR, &GEMV_N_SCALAR_LONG, Twin::Long),
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
pub(super) fn twins(
    default: &'static KernelSpec,
    m: i64,
    x: XReads,
) -> impl Iterator<Item = (&'static KernelSpec, Twin)> {
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

/// The value `table` gives `spec`, one of its kernels (a float4 kernel, its
/// twin for any A, and what both are compiled for); None for the other kernels.
pub(super) fn compiled_parameter(spec: &KernelSpec, table: &[(&KernelSpec, &KernelSpec, u64)]) -> Option<u64> {
    table.iter().find(|(vec, any, _)| std::ptr::eq(spec, *vec) || std::ptr::eq(spec, *any)).map(|(.., v)| *v)
}
