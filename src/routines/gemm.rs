//! SGEMM: C = alpha · op(A) · op(B) + beta · C, column-major (kernels/gemm.cu).
//!
//! # Which kernel
//!
//! Tile kernels come in two tiles — 128×128 (256 threads) and 64×64 (64
//! threads), each thread 8×8 outputs — per transpose pair, each in a 16-byte
//! load version (`_vec`) and a generic one. Every tile kernel is its own
//! [`KernelSpec`] with a fixed block (`tx_min == tx_max`) and the split-K
//! factor as the launch space's extra dimension.
//!
//! The choice, per call (all of it pure, in [`choose_tile`]):
//!
//! 1. For each tile the tuner plans the unsplit launch (`Problem.k = 0`,
//!    which [`tile_geometry`] reads as "no split").
//! 2. If that grid has fewer blocks than one wave of the device (active
//!    blocks per SM × SMs), splitting k is worth considering: the tile is
//!    planned again with `Problem.k = k`, and the tuner's optimizer picks the
//!    split that engages the most SMs, then has the best Grid-Occupancy
//!    (ties: the smallest split). [`tile_geometry`] caps the split at
//!    `k / MIN_K_PER_SPLIT` and at `MAX_PARTIAL_BYTES` of partial sums.
//! 3. Between tiles: first the one engaging more SMs (as the optimizer does
//!    for shapes), then the larger *wave efficiency*,
//!    `GrdOcp × edge fill × tile efficiency × split cost`, where edge fill is
//!    m·n over the area the tiles cover, tile efficiency is [`TILES`]'s
//!    estimate of FFMA throughput per SM relative to 128×128, and split cost
//!    is `1 / (1 + SPLIT_COST · split / k)` (each split writes and the
//!    reduction reads a partial C: ~8 bytes per output per split, against
//!    2k flops per output at ~17 flops per byte of H100 bandwidth).
//!
//! k == 0 or alpha == 0 (host) use `gemm_scale_f32` (C = beta·C); a split
//! launch is followed by `gemm_splitk_reduce_f32`, which sums the partial
//! C tiles from the work buffer in a fixed order and applies alpha and beta.

use super::Scalar;
use crate::handle::Handle;
use crate::launch::context::ContextGuard;
use crate::launch::KernelArg::{F32, I32, I64, Ptr};
use crate::status::{Error, Result};
use crate::tuner::{DeviceModel, Geometry, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

/// op(X) for a real matrix: cuBLAS's N 0, T 1, C 2 (= T for real types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transpose {
    No,
    Yes,
}

impl Transpose {
    pub fn from_code(code: i32) -> Option<Transpose> {
        match code {
            0 => Some(Transpose::No),
            1 | 2 => Some(Transpose::Yes),
            _ => None,
        }
    }
}

/// One tile variant of the tile kernels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tile {
    pub rows: u64,
    pub cols: u64,
    pub threads: u32,
    /// FFMA throughput per SM relative to 128×128 (an estimate: smaller tiles
    /// do more shared loads per FFMA and hold fewer warps per SM).
    pub efficiency: f64,
}

/// The tiles, largest first, with their kernels in [`TILE_KERNELS`] at the same index.
pub const TILES: [Tile; 2] = [
    // rows | cols | threads | efficiency
    Tile { rows: 128, cols: 128, threads: 256, efficiency: 1.0 },
    Tile { rows: 64, cols: 64, threads: 64, efficiency: 0.75 },
];

/// Split-K factors the tuner may choose (the optimizer's extra dimension).
pub const SPLITS: &[u32] = &[1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64];
/// Each split gets at least this much of k.
pub const MIN_K_PER_SPLIT: u64 = 256;
/// Partial sums in the work buffer stay below this.
pub const MAX_PARTIAL_BYTES: u64 = 64 << 20;
/// The split cost's constant: extra bytes per output per split (8) × flops per byte (~17) / 2 flops per k.
pub const SPLIT_COST: f64 = 64.0;

const fn tile_space(threads: u32) -> LaunchSpace {
    LaunchSpace { tx_step: threads, tx_min: threads, tx_max: threads, ty_min: 1, ty_max: 1, splits: SPLITS }
}

macro_rules! tile_kernels {
    ($rows:literal, $cols:literal, $threads:literal, $($name:literal),*) => {
        [$(KernelSpec { name: $name, space: tile_space($threads), geometry: tile_geometry::<$rows, $cols> }),*]
    };
}

/// Tile kernels: `[tile][transpose pair index × 2 + vec]`, see [`kernel_index`].
pub static TILE_KERNELS: [[KernelSpec; 8]; 2] = [
    tile_kernels!(128, 128, 256,
        "gemm_f32_128x128_nn", "gemm_f32_128x128_nn_vec", "gemm_f32_128x128_nt", "gemm_f32_128x128_nt_vec",
        "gemm_f32_128x128_tn", "gemm_f32_128x128_tn_vec", "gemm_f32_128x128_tt", "gemm_f32_128x128_tt_vec"),
    tile_kernels!(64, 64, 64,
        "gemm_f32_64x64_nn", "gemm_f32_64x64_nn_vec", "gemm_f32_64x64_nt", "gemm_f32_64x64_nt_vec",
        "gemm_f32_64x64_tn", "gemm_f32_64x64_tn_vec", "gemm_f32_64x64_tt", "gemm_f32_64x64_tt_vec"),
];

const ELEMENTWISE_SPACE: LaunchSpace = LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 512, ty_min: 1, ty_max: 1, splits: &[1] };

/// C = beta·C (k == 0 or alpha == 0): problem (m, n, 0).
pub static SCALE: KernelSpec = KernelSpec { name: "gemm_scale_f32", space: ELEMENTWISE_SPACE, geometry: elementwise_geometry };
/// C = alpha·Σ partials + beta·C: problem (m, n, 0).
pub static SPLITK_REDUCE: KernelSpec =
    KernelSpec { name: "gemm_splitk_reduce_f32", space: ELEMENTWISE_SPACE, geometry: elementwise_geometry };

pub const KERNEL_NAMES: &[&str] = &[
    TILE_KERNELS[0][0].name, TILE_KERNELS[0][1].name, TILE_KERNELS[0][2].name, TILE_KERNELS[0][3].name,
    TILE_KERNELS[0][4].name, TILE_KERNELS[0][5].name, TILE_KERNELS[0][6].name, TILE_KERNELS[0][7].name,
    TILE_KERNELS[1][0].name, TILE_KERNELS[1][1].name, TILE_KERNELS[1][2].name, TILE_KERNELS[1][3].name,
    TILE_KERNELS[1][4].name, TILE_KERNELS[1][5].name, TILE_KERNELS[1][6].name, TILE_KERNELS[1][7].name,
    SCALE.name, SPLITK_REDUCE.name,
];

/// Index into a row of [`TILE_KERNELS`].
pub fn kernel_index(transa: Transpose, transb: Transpose, vec: bool) -> usize {
    ((transa == Transpose::Yes) as usize * 2 + (transb == Transpose::Yes) as usize) * 2 + vec as usize
}

/// Floats between consecutive columns of a partial C in the work buffer:
/// m rounded up to 4, so that the tile kernels store it as float4.
pub fn partial_ld(m: u64) -> u64 {
    m.div_ceil(4) * 4
}

/// The split a tile kernel really runs for `requested`: at most k / MIN_K_PER_SPLIT
/// (problem.k = 0 rules splitting out) and within MAX_PARTIAL_BYTES; at least 1.
pub fn effective_split(problem: &Problem, requested: u32) -> u32 {
    let by_k = problem.k / MIN_K_PER_SPLIT;
    let bytes_per_split = (partial_ld(problem.m) * problem.n * 4).max(1);
    let by_bytes = MAX_PARTIAL_BYTES / bytes_per_split;
    (requested as u64).min(by_k).min(by_bytes).max(1) as u32
}

/// One block per ROWS×COLS tile of C, linear in x (m fastest: the kernel
/// decodes it), the split in z.
pub fn tile_geometry<const ROWS: u64, const COLS: u64>(problem: &Problem, shape: &LaunchShape) -> Geometry {
    let tiles = problem.m.div_ceil(ROWS) * problem.n.div_ceil(COLS);
    Geometry { grid: (tiles.min(i32::MAX as u64) as u32, 1, effective_split(problem, shape.split)), dynamic_shared_bytes: 0 }
}

/// Scale and reduce kernels: a thread per row in blocks of tx, up to 65535 column strides.
fn elementwise_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    let x = problem.m.div_ceil(shape.tx as u64).max(1);
    Geometry { grid: (x.min(i32::MAX as u64) as u32, problem.n.clamp(1, 65535) as u32, 1), dynamic_shared_bytes: 0 }
}

/// 2·m·n·k: the flops SGEMM is credited with.
pub fn flops(m: u64, n: u64, k: u64) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64
}

/// Reference-BLAS argument checks in order, first bad wins: 1 transa,
/// 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc. The ld checks apply even
/// when a dimension is 0.
#[allow(clippy::too_many_arguments)]
pub fn check_arguments(transa: i32, transb: i32, m: i64, n: i64, k: i64, lda: i64, ldb: i64, ldc: i64) -> Result<(Transpose, Transpose)> {
    let bad = |position| Err(Error::InvalidArgument { routine: "SGEMM", position });
    let Some(ta) = Transpose::from_code(transa) else { return bad(1) };
    let Some(tb) = Transpose::from_code(transb) else { return bad(2) };
    if m < 0 {
        return bad(3);
    }
    if n < 0 {
        return bad(4);
    }
    if k < 0 {
        return bad(5);
    }
    let rows_a = if ta == Transpose::No { m } else { k };
    let rows_b = if tb == Transpose::No { k } else { n };
    if lda < rows_a.max(1) {
        return bad(8);
    }
    if ldb < rows_b.max(1) {
        return bad(10);
    }
    if ldc < m.max(1) {
        return bad(13);
    }
    Ok((ta, tb))
}

/// What a valid call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmPath {
    /// Touch nothing: m or n is 0, or C stays C (alpha or k is 0 and beta is 1).
    QuickReturn,
    /// C = beta·C without reading A or B (alpha or k is 0).
    ScaleOnly,
    /// The product (a device alpha of 0 is found by the kernel, which then skips A and B).
    Multiply,
}

pub fn path(m: i64, n: i64, k: i64, alpha: Scalar, beta: Scalar) -> GemmPath {
    let no_product = k == 0 || alpha.is(0.0);
    if m == 0 || n == 0 || (no_product && beta.is(1.0)) {
        GemmPath::QuickReturn
    } else if no_product {
        GemmPath::ScaleOnly
    } else {
        GemmPath::Multiply
    }
}

/// Whether an operand can be read as float4: the extent along the contiguous
/// direction (m or n for a tile laid out along d, k for one laid out along k),
/// the leading dimension and the address all multiples of 4 floats.
pub fn operand_is_vec4(address: u64, ld: i64, contiguous_extent: i64) -> bool {
    address % 16 == 0 && ld % 4 == 0 && contiguous_extent % 4 == 0
}

/// Both operands readable as float4, for a transpose pair.
#[allow(clippy::too_many_arguments)]
pub fn vec4_applies(ta: Transpose, tb: Transpose, m: i64, n: i64, k: i64, a: u64, lda: i64, b: u64, ldb: i64) -> bool {
    // A untransposed: columns of m; transposed: columns of k. B untransposed: columns of k; transposed: of n.
    let a_extent = if ta == Transpose::No { m } else { k };
    let b_extent = if tb == Transpose::No { k } else { n };
    operand_is_vec4(a, lda, a_extent) && operand_is_vec4(b, ldb, b_extent)
}

/// Whether splitting k is worth considering for an unsplit plan: its grid is
/// less than one wave of the device.
pub fn split_worthwhile(device: &DeviceModel, unsplit: &LaunchPlan) -> bool {
    let wave = unsplit.occupancy.active_blocks_per_sm as u64 * device.sm_count as u64;
    unsplit.geometry.blocks() < wave
}

/// The estimated wave efficiency of a tile's plan (module docs, step 3):
/// (SM coverage, GrdOcp × edge fill × tile efficiency × split cost).
pub fn tile_score(device: &DeviceModel, tile: &Tile, plan: &LaunchPlan, m: u64, n: u64, k: u64) -> (f64, f64) {
    let coverage = crate::tuner::optimizer::sm_coverage(device, plan);
    let covered = (m.div_ceil(tile.rows) * tile.rows) as f64 * (n.div_ceil(tile.cols) * tile.cols) as f64;
    let edge_fill = if covered > 0.0 { (m as f64 * n as f64) / covered } else { 0.0 };
    let split = plan.geometry.grid.2.max(1) as f64;
    let split_cost = if split > 1.0 { 1.0 / (1.0 + SPLIT_COST * split / k.max(1) as f64) } else { 1.0 };
    (coverage, plan.occupancy.grid * edge_fill * tile.efficiency * split_cost)
}

/// Picks the tile: `plans[i]` is the plan of `TILES[i]` (already split or
/// not). The better score wins, lexicographically; ties go to the larger tile.
pub fn choose_tile(device: &DeviceModel, plans: &[LaunchPlan], m: u64, n: u64, k: u64) -> usize {
    let mut best = 0;
    let mut best_score = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for (i, plan) in plans.iter().enumerate() {
        let score = tile_score(device, &TILES[i], plan, m, n, k);
        if plan.occupancy.is_runnable() && (score.0 > best_score.0 || (score.0 == best_score.0 && score.1 > best_score.1)) {
            best = i;
            best_score = score;
        }
    }
    best
}

/// How to run a multiply: forced (tests, experiments) or chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileChoice {
    Auto,
    /// This tile; the split still comes from the tuner (force it with `tuner.forced()`).
    Tile(usize),
}

/// What one call did, for tests and the tools.
#[derive(Clone, Copy, Debug)]
pub struct GemmDecision {
    pub path: GemmPath,
    /// The tile kernel and its plan (Multiply only).
    pub kernel: Option<&'static KernelSpec>,
    pub plan: Option<LaunchPlan>,
}

/// The problem the tuner sees for a tile kernel (module docs, steps 1–2):
/// k when splitting is worth considering, else 0.
pub fn tuner_problem(handle: &Handle, spec: &KernelSpec, m: u64, n: u64, k: u64) -> Result<Problem> {
    let device = &handle.device;
    let kernel = device.kernel(spec.name)?;
    let unsplit = device.tuner.plan(spec, &kernel.model, &Problem { m, n, k: 0 });
    Ok(if split_worthwhile(device.model(), &unsplit) { Problem { m, n, k } } else { Problem { m, n, k: 0 } })
}

/// The tile kernel and plan for a multiply, by the rule of the module docs.
#[allow(clippy::too_many_arguments)]
pub fn plan_multiply(
    handle: &Handle,
    ta: Transpose,
    tb: Transpose,
    m: u64,
    n: u64,
    k: u64,
    vec: bool,
    choice: TileChoice,
) -> Result<(&'static KernelSpec, LaunchPlan)> {
    let device = &handle.device;
    let index = kernel_index(ta, tb, vec);
    let plan_of = |tile: usize| -> Result<LaunchPlan> {
        let spec = &TILE_KERNELS[tile][index];
        let kernel = device.kernel(spec.name)?;
        let problem = tuner_problem(handle, spec, m, n, k)?;
        Ok(device.tuner.plan(spec, &kernel.model, &problem))
    };
    let tile = match choice {
        TileChoice::Tile(tile) => tile.min(TILES.len() - 1),
        TileChoice::Auto => {
            let plans = (0..TILES.len()).map(plan_of).collect::<Result<Vec<_>>>()?;
            choose_tile(device.model(), &plans, m, n, k)
        }
    };
    Ok((&TILE_KERNELS[tile][index], plan_of(tile)?))
}

/// C = alpha·op(A)·op(B) + beta·C (cuBLAS `cublasSgemm`).
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    handle: &Handle,
    transa: i32,
    transb: i32,
    m: i64,
    n: i64,
    k: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    b: u64,
    ldb: i64,
    beta: Scalar,
    c: u64,
    ldc: i64,
) -> Result<()> {
    sgemm_with(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, TileChoice::Auto).map(|_| ())
}

/// [`sgemm`] with the tile forced or chosen, saying what it did.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn sgemm_with(
    handle: &Handle,
    transa: i32,
    transb: i32,
    m: i64,
    n: i64,
    k: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    b: u64,
    ldb: i64,
    beta: Scalar,
    c: u64,
    ldc: i64,
    choice: TileChoice,
) -> Result<GemmDecision> {
    let (ta, tb) = check_arguments(transa, transb, m, n, k, lda, ldb, ldc)?;
    let path = path(m, n, k, alpha, beta);
    let mut decision = GemmDecision { path, kernel: None, plan: None };
    if path == GemmPath::QuickReturn {
        return Ok(decision);
    }
    if c == 0 || (path == GemmPath::Multiply && (a == 0 || b == 0)) {
        return Err(Error::InvalidValue("SGEMM: A, B or C is NULL".into()));
    }
    let device = &handle.device;
    let (um, un, uk) = (m as u64, n as u64, k as u64);
    let (beta_value, beta_address) = beta.kernel_args();
    let _bound = ContextGuard::bind(device.context())?;

    if path == GemmPath::ScaleOnly {
        let kernel = device.kernel(SCALE.name)?;
        let plan = device.tuner.plan(&SCALE, &kernel.model, &Problem { m: um, n: un, k: 0 });
        // SAFETY: arguments as in kernels/gemm.cu; C spans ldc·(n−1)+m floats (the caller's promise, as with cuBLAS).
        unsafe { kernel.launch(handle.stream(), &plan.geometry, &plan.shape, &[I64(m), I64(n), beta_value, beta_address, Ptr(c), I64(ldc)])? };
        return Ok(decision);
    }

    let vec = vec4_applies(ta, tb, m, n, k, a, lda, b, ldb);
    let (spec, plan) = plan_multiply(handle, ta, tb, um, un, uk, vec, choice)?;
    decision.kernel = Some(spec);
    decision.plan = Some(plan);
    let kernel = device.kernel(spec.name)?;
    let (alpha_value, alpha_address) = alpha.kernel_args();
    let splits = plan.geometry.grid.2;
    if splits <= 1 {
        let c_vec = (c % 16 == 0 && ldc % 4 == 0) as i32;
        // SAFETY: arguments as in kernels/gemm.cu; A, B, C span what their
        // dimensions and leading dimensions say (the caller's promise).
        unsafe {
            kernel.launch(
                handle.stream(),
                &plan.geometry,
                &plan.shape,
                &[I64(m), I64(n), I64(k), alpha_value, alpha_address, Ptr(a), I64(lda), Ptr(b), I64(ldb),
                  beta_value, beta_address, Ptr(c), I64(ldc), I64(0), I32(c_vec)],
            )?;
        }
        return Ok(decision);
    }

    // Split-K: partial C per split in the work buffer (alpha 1, beta 0), then the reduction.
    let ldp = partial_ld(um);
    let split_stride = ldp * un;
    let bytes = (split_stride * splits as u64 * 4) as usize;
    let work = handle.work_buffer(bytes)?;
    let reduce = device.kernel(SPLITK_REDUCE.name)?;
    let reduce_plan = device.tuner.plan(&SPLITK_REDUCE, &reduce.model, &Problem { m: um, n: un, k: 0 });
    // SAFETY: as above; the work buffer holds splits × split_stride floats,
    // 256-byte aligned, with ldp and split_stride multiples of 4 (float4 stores).
    unsafe {
        kernel.launch(
            handle.stream(),
            &plan.geometry,
            &plan.shape,
            &[I64(m), I64(n), I64(k), F32(1.0), Ptr(0), Ptr(a), I64(lda), Ptr(b), I64(ldb),
              F32(0.0), Ptr(0), Ptr(work.address()), I64(ldp as i64), I64(split_stride as i64), I32(1)],
        )?;
        reduce.launch(
            handle.stream(),
            &reduce_plan.geometry,
            &reduce_plan.shape,
            &[I64(m), I64(n), I32(splits as i32), Ptr(work.address()), I64(ldp as i64), I64(split_stride as i64),
              alpha_value, alpha_address, beta_value, beta_address, Ptr(c), I64(ldc)],
        )?;
    }
    Ok(decision)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuner::{ForcedShapes, KernelModel, RecipeBook, Tuner};

    fn args(transa: i32, transb: i32, m: i64, n: i64, k: i64, lda: i64, ldb: i64, ldc: i64) -> std::result::Result<(), u32> {
        check_arguments(transa, transb, m, n, k, lda, ldb, ldc).map(|_| ()).map_err(|e| match e {
            Error::InvalidArgument { routine: "SGEMM", position } => position,
            other => panic!("unexpected {other:?}"),
        })
    }

    #[test]
    fn argument_numbers_follow_reference_blas() {
        assert_eq!(args(0, 0, 4, 5, 6, 4, 6, 4), Ok(()));
        assert_eq!(args(2, 2, 4, 5, 6, 6, 5, 4), Ok(()), "C means T for real types");
        for bad in [-1, 3, 4, 111] {
            assert_eq!(args(bad, 0, 4, 5, 6, 4, 6, 4), Err(1));
            assert_eq!(args(0, bad, 4, 5, 6, 4, 6, 4), Err(2));
        }
        assert_eq!(args(0, 0, -1, 5, 6, 4, 6, 4), Err(3));
        assert_eq!(args(0, 0, 4, -1, 6, 4, 6, 4), Err(4));
        assert_eq!(args(0, 0, 4, 5, -1, 4, 6, 4), Err(5));
        assert_eq!(args(0, 0, 4, 5, 6, 3, 6, 4), Err(8));
        assert_eq!(args(1, 0, 4, 5, 6, 5, 6, 4), Err(8), "A^T: lda ≥ k");
        assert_eq!(args(0, 0, 4, 5, 6, 4, 5, 4), Err(10));
        assert_eq!(args(0, 1, 4, 5, 6, 4, 4, 4), Err(10), "B^T: ldb ≥ n");
        assert_eq!(args(0, 0, 4, 5, 6, 4, 6, 3), Err(13));
        // First bad wins.
        assert_eq!(args(7, 7, -1, -1, -1, 0, 0, 0), Err(1));
        assert_eq!(args(0, 0, -1, -1, -1, 0, 0, 0), Err(3));
        assert_eq!(args(0, 0, 4, 5, 6, 0, 0, 0), Err(8));
        assert_eq!(args(0, 0, 4, 5, 6, 4, 0, 0), Err(10));
    }

    #[test]
    fn leading_dimensions_are_checked_with_zero_dimensions() {
        // max(1, 0) = 1: an ld of 0 is bad even when the matrix is empty.
        assert_eq!(args(0, 0, 0, 0, 0, 0, 1, 1), Err(8));
        assert_eq!(args(0, 0, 0, 0, 0, 1, 0, 1), Err(10));
        assert_eq!(args(0, 0, 0, 0, 0, 1, 1, 0), Err(13));
        assert_eq!(args(0, 0, 0, 0, 0, 1, 1, 1), Ok(()));
        // k = 0 with A untransposed still needs lda ≥ m.
        assert_eq!(args(0, 0, 8, 8, 0, 7, 1, 8), Err(8));
        assert_eq!(args(0, 0, 8, 8, 0, 8, 1, 8), Ok(()));
    }

    #[test]
    fn quick_returns_and_the_scale_path() {
        let h = Scalar::Host;
        let d = Scalar::Device(0x1000);
        assert_eq!(path(0, 5, 5, h(1.0), h(0.0)), GemmPath::QuickReturn);
        assert_eq!(path(5, 0, 5, h(1.0), h(0.0)), GemmPath::QuickReturn);
        assert_eq!(path(5, 5, 0, h(1.0), h(1.0)), GemmPath::QuickReturn);
        assert_eq!(path(5, 5, 5, h(0.0), h(1.0)), GemmPath::QuickReturn);
        assert_eq!(path(5, 5, 0, h(2.0), h(0.5)), GemmPath::ScaleOnly);
        assert_eq!(path(5, 5, 0, h(2.0), h(0.0)), GemmPath::ScaleOnly);
        assert_eq!(path(5, 5, 5, h(0.0), h(0.0)), GemmPath::ScaleOnly);
        assert_eq!(path(5, 5, 5, h(0.0), d), GemmPath::ScaleOnly);
        assert_eq!(path(5, 5, 0, d, d), GemmPath::ScaleOnly, "a device beta may be 1: the kernel decides");
        assert_eq!(path(5, 5, 5, d, h(1.0)), GemmPath::Multiply, "a device alpha may be 0: the kernel decides");
        assert_eq!(path(5, 5, 5, h(1.0), h(1.0)), GemmPath::Multiply);
        // m or n = 0 wins over everything, device scalars included.
        assert_eq!(path(0, 5, 5, d, d), GemmPath::QuickReturn);
    }

    #[test]
    fn vec4_needs_alignment_leading_dimension_and_extent() {
        let (no, yes) = (Transpose::No, Transpose::Yes);
        assert!(vec4_applies(no, no, 128, 128, 128, 4096, 128, 8192, 128));
        assert!(!vec4_applies(no, no, 128, 128, 128, 4100, 128, 8192, 128), "A offset by one float");
        assert!(!vec4_applies(no, no, 128, 128, 128, 4096, 130, 8192, 128), "lda");
        assert!(!vec4_applies(no, no, 127, 128, 128, 4096, 128, 8192, 128), "m along A's columns");
        assert!(!vec4_applies(no, no, 128, 128, 127, 4096, 128, 8192, 128), "k along B's columns");
        // A^T and B^T: the extents swap.
        assert!(vec4_applies(yes, yes, 127, 132, 128, 4096, 128, 8192, 132), "m is along neither");
        assert!(!vec4_applies(yes, yes, 128, 127, 128, 4096, 128, 8192, 128), "n along B^T's columns");
        assert!(vec4_applies(no, yes, 128, 128, 127, 4096, 128, 8192, 128), "k is along neither");
    }

    #[test]
    fn kernel_table_matches_the_names() {
        for (tile, row) in TILE_KERNELS.iter().enumerate() {
            let prefix = format!("gemm_f32_{}x{}_", TILES[tile].rows, TILES[tile].cols);
            for (ta, a) in [(Transpose::No, 'n'), (Transpose::Yes, 't')] {
                for (tb, b) in [(Transpose::No, 'n'), (Transpose::Yes, 't')] {
                    for vec in [false, true] {
                        let name = format!("{prefix}{a}{b}{}", if vec { "_vec" } else { "" });
                        let spec = &row[kernel_index(ta, tb, vec)];
                        assert_eq!(spec.name, name);
                        assert_eq!((spec.space.tx_min, spec.space.tx_max), (TILES[tile].threads, TILES[tile].threads));
                        assert!(KERNEL_NAMES.contains(&spec.name));
                    }
                }
            }
        }
        assert_eq!(KERNEL_NAMES.len(), 18);
    }

    #[test]
    fn grid_covers_m_by_n_and_splits_are_capped() {
        let shape = |split| LaunchShape { tx: 256, ty: 1, split };
        let g = tile_geometry::<128, 128>(&Problem { m: 129, n: 257, k: 0 }, &shape(8));
        assert_eq!(g.grid, (2 * 3, 1, 1), "k = 0 rules splitting out");
        for (m, n) in [(1u64, 1u64), (127, 129), (128, 128), (1023, 1), (4096, 4096), (3000, 3000)] {
            let g = tile_geometry::<128, 128>(&Problem { m, n, k: 0 }, &shape(1));
            assert!(g.grid.0 as u64 * 128 >= m * n.div_ceil(128).min(1) && (g.grid.0 as u64) == m.div_ceil(128) * n.div_ceil(128));
            let g = tile_geometry::<64, 64>(&Problem { m, n, k: 0 }, &shape(1));
            assert_eq!(g.grid.0 as u64, m.div_ceil(64) * n.div_ceil(64));
        }
        // k / 256 caps the split; so do 64 MiB of partial sums.
        assert_eq!(effective_split(&Problem { m: 256, n: 256, k: 65536 }, 64), 64);
        assert_eq!(effective_split(&Problem { m: 256, n: 256, k: 1023 }, 64), 3);
        assert_eq!(effective_split(&Problem { m: 8192, n: 128, k: 8192 }, 64), 16);
        assert_eq!(effective_split(&Problem { m: 8192, n: 8192, k: 8192 }, 4), 1);
        assert_eq!(effective_split(&Problem { m: 1, n: 1, k: 100 }, 4), 1);
        // Partials: ld rounded to 4 floats.
        assert_eq!(partial_ld(1), 4);
        assert_eq!(partial_ld(128), 128);
        assert_eq!(partial_ld(129), 132);
        let g = elementwise_geometry(&Problem { m: 1000, n: 100_000, k: 0 }, &LaunchShape { tx: 256, ty: 1, split: 1 });
        assert_eq!(g.grid, (4, 65535, 1));
    }

    #[test]
    fn flops_are_two_m_n_k() {
        assert_eq!(flops(4096, 4096, 4096), 2.0 * 4096f64.powi(3));
        assert_eq!(flops(0, 5, 5), 0.0);
    }

    /// The H100 model with the kernels' ptxas figures (sm_90).
    fn tuner() -> Tuner {
        Tuner::new(DeviceModel::h100_sxm(), RecipeBook::built_in(), ForcedShapes::new())
    }

    fn model(tile: usize) -> KernelModel {
        match tile {
            0 => KernelModel { registers_per_thread: 128, static_shared_bytes: 16_896, max_threads_per_block: 256 },
            _ => KernelModel { registers_per_thread: 168, static_shared_bytes: 8_704, max_threads_per_block: 64 },
        }
    }

    /// plan_multiply's rule without a GPU: returns (tile, split, blocks).
    fn decide(m: u64, n: u64, k: u64) -> (usize, u32, u64) {
        let tuner = tuner();
        let device = tuner.device().clone();
        let plan_of = |tile: usize| {
            let spec = &TILE_KERNELS[tile][0];
            let unsplit = tuner.plan(spec, &model(tile), &Problem { m, n, k: 0 });
            if split_worthwhile(&device, &unsplit) { tuner.plan(spec, &model(tile), &Problem { m, n, k }) } else { unsplit }
        };
        let plans: Vec<LaunchPlan> = (0..TILES.len()).map(plan_of).collect();
        let tile = choose_tile(&device, &plans, m, n, k);
        (tile, plans[tile].geometry.grid.2, plans[tile].geometry.blocks())
    }

    #[test]
    fn occupancy_of_the_tiles_on_h100() {
        let tuner = tuner();
        let plan = tuner.plan(&TILE_KERNELS[0][0], &model(0), &Problem { m: 4096, n: 4096, k: 0 });
        assert_eq!(plan.occupancy.active_blocks_per_sm, 2);
        assert_eq!(plan.geometry.blocks(), 1024);
        let plan = tuner.plan(&TILE_KERNELS[1][0], &model(1), &Problem { m: 4096, n: 4096, k: 0 });
        assert_eq!(plan.occupancy.active_blocks_per_sm, 6);
    }

    #[test]
    fn large_squares_take_128x128_unsplit() {
        for n in [2048u64, 3000, 4096, 6144, 8192] {
            assert_eq!(decide(n, n, n), (0, 1, n.div_ceil(128).pow(2)), "n = {n}");
        }
        // Short k on a large C: no split either (the grid is several waves).
        assert_eq!(decide(4096, 4096, 256).1, 1);
    }

    #[test]
    fn small_c_with_long_k_splits() {
        // (256, 256, 65536): 4 tiles of 128×128 — split to fill the GPU.
        let (tile, split, blocks) = decide(256, 256, 65536);
        assert!(split >= 32 && blocks >= 132, "tile {tile} split {split} blocks {blocks}");
        // (8192, 128, 8192): 64 tiles of 128×128.
        let (_, split, blocks) = decide(8192, 128, 8192);
        assert!(split > 1 && blocks >= 132, "split {split} blocks {blocks}");
        // Odd and small: everything engages as many SMs as it can.
        let (_, split, _) = decide(127, 129, 1023);
        assert!((1..=3).contains(&split));
    }

    #[test]
    fn middle_sizes_engage_every_sm() {
        for n in [512u64, 1024] {
            let (tile, split, blocks) = decide(n, n, n);
            assert!(blocks >= 128, "n = {n}: tile {tile} split {split} blocks {blocks}");
        }
    }

    #[test]
    fn the_choice_is_deterministic() {
        for (m, n, k) in [(1u64, 1u64, 1u64), (33, 7, 129), (1000, 1000, 1000), (5000, 64, 9000)] {
            assert_eq!(decide(m, n, k), decide(m, n, k));
        }
    }

    /// Prints the decisions for the benchmark's sizes (`cargo test -- --nocapture decisions_table`).
    #[test]
    fn decisions_table() {
        for (m, n, k) in [(256u64, 256u64, 256u64), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (3000, 3000, 3000),
            (4096, 4096, 4096), (8192, 8192, 8192), (4096, 4096, 256), (256, 256, 65536), (8192, 128, 8192), (127, 129, 1023)] {
            let (tile, split, blocks) = decide(m, n, k);
            println!("({m}, {n}, {k}): {}x{} split {split}, {blocks} blocks", TILES[tile].rows, TILES[tile].cols);
        }
    }
}
