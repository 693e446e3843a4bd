//! STRMV: x := op(A)·x, A an n × n triangular matrix (cuBLAS `cublasStrmv`).
//!
//! Two launches (method.md §6, kernels/trmv.cu):
//!
//! 1. `trmv_{n,t}_f32_{vec4,scalar}` read the referenced triangle once, in
//!    balanced work items, and write partial results into the handle's work
//!    buffer; x is only read.
//! 2. `trmv_sum_f32` adds each output's partials in a fixed order and writes x.
//!
//! No atomics: the same call on the same device gives the same bits.
//!
//! # Work items ([`Layout`])
//!
//! "Outputs" are rows of A for op N and columns for op T; the "reduction" index
//! is the other one. Outputs come in tiles of P (op N: P = 4·Tx rows; op T:
//! P = 4·Ty columns). Tile t reduces over a prefix `[0, min(tP+P, n))` (lower-N,
//! upper-T) or a suffix `[tP, n)` (upper-N, lower-T), cut into chunks of
//! W = q·P. With tiles ranked u = t (prefix) or u = tiles-1-t (suffix), rank u
//! has exactly u/q + 1 chunks (a chunk boundary never splits a tile's diagonal
//! square, and the last, short tile still fits: see [`Layout::chunks_of_rank`]),
//! so every work item but a tile's last reads about P·W elements, and a block
//! finds its item from its index in closed form.
//!
//! # Work buffer
//!
//! Chunk k of every tile writes partial vector k, so the buffer holds
//! `(tiles-1)/q + 1` vectors of n floats ([`Layout::work_bytes`]). q is at least
//! `tiles / MAX_PARTIAL_VECTORS`, so the buffer is at most 64 vectors: 256·n bytes
//! (8 MiB at n = 32768, within the 8.25 MiB every H100 handle starts with).

use super::Scalar;
use super::gemv;
use super::vector::StridedVector;
use crate::handle::Handle;
use crate::launch::Kernel;
use crate::launch::KernelArg::{I32, I64, Ptr};
use crate::launch::context::ContextGuard;
use crate::status::{Error, Result};
use crate::tuner::{Geometry, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

/// Outputs per thread (rows for op N, columns for op T), and reduction
/// indices per thread and step: the 4 of float4.
const PER_THREAD: u64 = 4;
/// At most this many partial vectors: bounds the work buffer at 256·n bytes.
pub const MAX_PARTIAL_VECTORS: u64 = 64;
/// Column groups (op N) or row steps (op T) per thread in a chunk, per unit of
/// the launch shape's split: enough loads per block to hide its start and its
/// final reduction.
const STEPS_PER_SPLIT: u64 = 16;

/// Both pass-1 spaces stop at 512 threads, so that at ≤ 64 registers at least
/// two blocks share an SM: with one, the SM idles while a block drains and the
/// next starts. Tx ≤ 128 also keeps op N's tiles (4·Tx rows) small enough for
/// several waves of items at n = 16384.
///
/// Op N: Tx threads own 4·Tx rows; Ty thread rows share the chunk's columns.
const N_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 128, ty_min: 1, ty_max: 4, splits: &[1, 2, 4] };
/// Op T: Tx threads walk the rows (whole warps, for the shuffle), Ty thread rows own 4 columns each.
const T_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 128, ty_min: 1, ty_max: 4, splits: &[1, 2, 4] };
/// Pass 2: one thread per output.
const SUM_SPACE: LaunchSpace = LaunchSpace { tx_step: 64, tx_min: 64, tx_max: 512, ty_min: 1, ty_max: 1, splits: &[1] };

/// op N, A 16-byte aligned and lda a multiple of 4. problem.n = n.
pub static TRMV_N_VEC4: KernelSpec = KernelSpec { name: "trmv_n_f32_vec4", space: N_SPACE, geometry: n_geometry };
/// op N, any alignment and lda.
pub static TRMV_N_SCALAR: KernelSpec = KernelSpec { name: "trmv_n_f32_scalar", space: N_SPACE, geometry: n_geometry };
/// op T (and C), A 16-byte aligned and lda a multiple of 4.
pub static TRMV_T_VEC4: KernelSpec = KernelSpec { name: "trmv_t_f32_vec4", space: T_SPACE, geometry: t_geometry };
/// op T (and C), any alignment and lda.
pub static TRMV_T_SCALAR: KernelSpec = KernelSpec { name: "trmv_t_f32_scalar", space: T_SPACE, geometry: t_geometry };
/// Pass 2 of every variant. problem.n = n.
pub static TRMV_SUM: KernelSpec = KernelSpec { name: "trmv_sum_f32", space: SUM_SPACE, geometry: sum_geometry };

pub const KERNEL_NAMES: &[&str] =
    &[TRMV_N_VEC4.name, TRMV_N_SCALAR.name, TRMV_T_VEC4.name, TRMV_T_SCALAR.name, TRMV_SUM.name];

/// op(A): A or its transpose (C is T for real data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    N,
    T,
}

/// A valid STRMV argument list, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub lower: bool,
    pub op: Op,
    pub unit: bool,
}

impl Variant {
    /// Whether tiles reduce over suffixes [tP, n) (upper-N, lower-T) rather than prefixes.
    pub fn suffix(&self) -> bool {
        match self.op {
            Op::N => !self.lower,
            Op::T => self.lower,
        }
    }
}

/// Reference-BLAS checks in reference order (the handle not counted), first bad
/// one wins: 1 uplo, 2 trans, 3 diag, 4 n < 0, 6 lda < max(1, n), 8 incx = 0.
pub fn check_arguments(uplo: i32, trans: i32, diag: i32, n: i64, lda: i64, incx: i64) -> Result<Variant> {
    let bad = |position| Err(Error::InvalidArgument { routine: "STRMV", position });
    let lower = match uplo {
        0 => true,
        1 => false,
        _ => return bad(1),
    };
    let op = match trans {
        0 => Op::N,
        1 | 2 => Op::T,
        _ => return bad(2),
    };
    let unit = match diag {
        0 => false,
        1 => true,
        _ => return bad(3),
    };
    if n < 0 {
        return bad(4);
    }
    if lda < n.max(1) {
        return bad(6);
    }
    if incx == 0 {
        return bad(8);
    }
    Ok(Variant { lower, op, unit })
}

/// How one launch shape cuts the triangle (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub n: u64,
    /// P: outputs per tile.
    pub tile: u64,
    /// Chunks are q·P reduction indices long.
    pub q: u64,
    /// ceil(n / P).
    pub tiles: u64,
}

/// One work item: the tile's first output, its chunk (= partial vector), and
/// its reduction range split into the part wholly inside the referenced
/// triangle (`rect`, the kernels' fast loop) and the part that meets the
/// tile's diagonal square (`diag`, tested element by element).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub tile_start: u64,
    pub chunk: u64,
    pub rect: std::ops::Range<u64>,
    pub diag: std::ops::Range<u64>,
}

impl Layout {
    pub fn new(op: Op, n: u64, shape: &LaunchShape) -> Layout {
        let (tile, chunk_target) = match op {
            Op::N => {
                (PER_THREAD * shape.tx as u64, PER_THREAD * shape.ty as u64 * STEPS_PER_SPLIT * shape.split as u64)
            }
            Op::T => {
                (PER_THREAD * shape.ty as u64, PER_THREAD * shape.tx as u64 * STEPS_PER_SPLIT * shape.split as u64)
            }
        };
        let tile = tile.max(1);
        let tiles = n.div_ceil(tile);
        let q = chunk_target.div_ceil(tile).max(tiles.div_ceil(MAX_PARTIAL_VECTORS)).max(1);
        Layout { n, tile, q, tiles }
    }

    /// W = q·P.
    pub fn chunk(&self) -> u64 {
        self.q * self.tile
    }

    /// Chunks of the tile ranked u: ceil(len / W) where len = (u+1)·P for a prefix
    /// tile (or n for the last one: n > uP, and W is a multiple of P, so the same
    /// count) and len = n - tP = (tiles-1-t)·P + (n - (tiles-1)·P) = u·P + (0, P]
    /// for a suffix tile: both u/q + 1.
    pub fn chunks_of_rank(&self, u: u64) -> u64 {
        u / self.q + 1
    }

    /// Items of the ranks before u (u = a·q + r): q·a(a+1)/2 + r·(a+1).
    pub fn items_before(&self, u: u64) -> u64 {
        let (a, r) = (u / self.q, u % self.q);
        self.q * (a * (a + 1) / 2) + r * (a + 1)
    }

    /// All work items: the grid.
    pub fn items(&self) -> u64 {
        self.items_before(self.tiles)
    }

    /// Partial vectors of n floats in the work buffer.
    pub fn partial_vectors(&self) -> u64 {
        if self.tiles == 0 { 0 } else { self.chunks_of_rank(self.tiles - 1) }
    }

    /// The work buffer this layout needs.
    pub fn work_bytes(&self) -> u64 {
        self.partial_vectors() * self.n * 4
    }

    /// (rank, chunk) of item b, as kernels/trmv.cu `trmv_locate` finds it:
    /// rank group a = ⌊u/q⌋ from a square root, corrected, then the rest.
    pub fn locate(&self, b: u64) -> (u64, u64) {
        let q = self.q;
        let group_start = |a: u64| q * (a * (a + 1) / 2);
        let mut a = (((1.0 + 8.0 * b as f64 / q as f64).sqrt() - 1.0) * 0.5).max(0.0) as u64;
        while a > 0 && group_start(a) > b {
            a -= 1;
        }
        while group_start(a + 1) <= b {
            a += 1;
        }
        let rem = b - group_start(a);
        (a * q + rem / (a + 1), rem % (a + 1))
    }

    /// Item b (in rank order; the kernels take b = items-1-blockIdx, largest first).
    pub fn item(&self, b: u64, suffix: bool) -> Item {
        let (u, k) = self.locate(b);
        let t = if suffix { self.tiles - 1 - u } else { u };
        let (p0, p, w, n) = (t * self.tile, self.tile, self.chunk(), self.n);
        if suffix {
            let lo = p0 + k * w;
            let hi = (lo + w).min(n);
            Item { tile_start: p0, chunk: k, diag: span(lo, hi.min(p0 + p)), rect: span(lo.max(p0 + p), hi) }
        } else {
            let lo = k * w;
            let hi = (lo + w).min((p0 + p).min(n));
            Item { tile_start: p0, chunk: k, rect: span(lo, hi.min(p0)), diag: span(lo.max(p0), hi) }
        }
    }
}

/// `lo..hi`, empty (not reversed) when hi < lo, as the kernels' loops see it.
fn span(lo: u64, hi: u64) -> std::ops::Range<u64> {
    lo..hi.max(lo)
}

fn pass_one_geometry(op: Op, problem: &Problem, shape: &LaunchShape) -> Geometry {
    let layout = Layout::new(op, problem.n, shape);
    let (tx, ty) = (shape.tx, shape.ty);
    let dynamic_shared_bytes = match op {
        // Ty partial rows of P = 4·Tx floats.
        Op::N if ty > 1 => 16 * tx * ty,
        // Tx/32 warp sums for each of P = 4·Ty columns.
        Op::T if tx > 32 => 4 * ty * (tx / 32) * 4,
        _ => 0,
    };
    Geometry { grid: (layout.items().min(i32::MAX as u64) as u32, 1, 1), dynamic_shared_bytes }
}

fn n_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    pass_one_geometry(Op::N, problem, shape)
}

fn t_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    pass_one_geometry(Op::T, problem, shape)
}

fn sum_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    let blocks = problem.n.div_ceil(shape.tx.max(1) as u64).max(1);
    Geometry { grid: (blocks.min(i32::MAX as u64) as u32, 1, 1), dynamic_shared_bytes: 0 }
}

/// The 16-byte kernels need every column 16-byte aligned.
pub fn vec4_applies(a: u64, lda: i64) -> bool {
    a.is_multiple_of(16) && lda % 4 == 0
}

/// The pass-1 kernel for an op and a matrix, and the problem the tuner sees.
pub fn select_kernel(op: Op, n: i64, a: u64, lda: i64) -> (&'static KernelSpec, Problem) {
    let spec = match (op, vec4_applies(a, lda)) {
        (Op::N, true) => &TRMV_N_VEC4,
        (Op::N, false) => &TRMV_N_SCALAR,
        (Op::T, true) => &TRMV_T_VEC4,
        (Op::T, false) => &TRMV_T_SCALAR,
    };
    (spec, Problem { m: n as u64, n: n as u64, k: 0 })
}

/// Bytes a call moves, for the benchmark: the triangle once, x read and written.
pub fn bytes_moved(n: u64) -> f64 {
    let n = n as f64;
    (n * n / 2.0 + 2.0 * n) * 4.0
}

/// x := op(A)·x. Arguments as cuBLAS's (uplo, trans, diag are its enum
/// values); `a` and `x` are device addresses.
#[allow(clippy::too_many_arguments)]
pub fn strmv(
    handle: &Handle,
    uplo: i32,
    trans: i32,
    diag: i32,
    n: i64,
    a: u64,
    lda: i64,
    x: u64,
    incx: i64,
) -> Result<()> {
    let variant = check_arguments(uplo, trans, diag, n, lda, incx)?;
    if n == 0 {
        return Ok(());
    }
    if a == 0 || x == 0 {
        return Err(Error::InvalidValue("STRMV: A or x is NULL".into()));
    }
    let x = StridedVector { base: x, len: n, inc: incx };
    match multiply_in_place(handle, variant, n, a, lda, x) {
        Err(Error::AllocFailed(why)) => {
            log::info!("STRMV: n = {n} in diagonal blocks ({why})");
            multiply_in_blocks(handle, variant, n, a, lda, x, why)
        }
        done => done,
    }
}

/// The smallest diagonal block `multiply_in_blocks` cuts.
pub const MIN_DIAGONAL_BLOCK: i64 = 64;

/// The diagonal blocks `multiply_in_blocks` tries, largest first: half of
/// n, then halves again, in whole blocks of [`MIN_DIAGONAL_BLOCK`] and down to
/// one (which 64 < n < 128 gets too, where half of n is less).
pub fn diagonal_block_sizes(n: i64) -> impl Iterator<Item = i64> {
    let half_in_whole_blocks = |size: i64| size / 2 / MIN_DIAGONAL_BLOCK * MIN_DIAGONAL_BLOCK;
    let first = if n > MIN_DIAGONAL_BLOCK { half_in_whole_blocks(n).max(MIN_DIAGONAL_BLOCK) } else { 0 };
    std::iter::successors(Some(first), move |&block| Some(half_in_whole_blocks(block)))
        .take_while(|&block| block >= MIN_DIAGONAL_BLOCK)
}

/// One step of `multiply_in_blocks`: `x[diag] := op(A)[diag, diag]·x[diag]`,
/// then `x[diag] += op(A)[diag, rest]·x[rest]`, where rest is every index
/// outside diag that outputs in diag read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockStep {
    pub diag: std::ops::Range<i64>,
    pub rest: std::ops::Range<i64>,
}

/// The steps for diagonal blocks of `block`, in the order that reads every x
/// before it is overwritten: where outputs read suffixes (upper-N, lower-T)
/// output i reads x[i..], so the blocks go front to back; else back to front.
pub fn block_steps(variant: Variant, n: i64, block: i64) -> Vec<BlockStep> {
    let mut steps: Vec<BlockStep> = (0..n)
        .step_by(block.max(1) as usize)
        .map(|start| {
            let end = (start + block).min(n);
            let rest = if variant.suffix() { end..n } else { 0..start };
            BlockStep { diag: start..end, rest }
        })
        .collect();
    if !variant.suffix() {
        steps.reverse();
    }
    steps
}

/// SGEMV's (trans, m, n, offset of the first element of A in floats) for
/// `x[rows] += op(A)[rows, cols]·x[cols]`.
pub fn off_diagonal_gemv(
    op: Op,
    rows: &std::ops::Range<i64>,
    cols: &std::ops::Range<i64>,
    lda: i64,
) -> (i32, i64, i64, i64) {
    let (row_count, col_count) = (rows.end - rows.start, cols.end - cols.start);
    match op {
        Op::N => (0, row_count, col_count, rows.start + cols.start * lda),
        // op(A)[i][j] = A[j][i]: the block of A at (cols, rows), transposed.
        Op::T => (1, col_count, row_count, cols.start + rows.start * lda),
    }
}

/// x := op(A)·x where the work buffer cannot hold the partial sums of the
/// whole n (its limit, no memory to grow it, or a CUDA graph being captured,
/// during which it may not grow): diagonal blocks as large as it can hold,
/// each multiplied in place by the two launches of [`multiply_in_place`], and
/// the rest of their rows added by SGEMV (beta 1). The blocks go in a fixed
/// order, so the bits are the same on every call with the same block.
fn multiply_in_blocks(
    handle: &Handle,
    variant: Variant,
    n: i64,
    a: u64,
    lda: i64,
    x: StridedVector,
    why: String,
) -> Result<()> {
    let element = |i: i64| a.wrapping_add((i as u64).wrapping_mul(4));
    // Every block planned as it will run, for blocks of `block`.
    let planned_steps = |block: i64| -> Result<Vec<(BlockStep, Planned)>> {
        block_steps(variant, n, block)
            .into_iter()
            .map(|step| {
                let len = step.diag.end - step.diag.start;
                let planned = plan(handle, variant.op, len, element(step.diag.start * (lda + 1)), lda)?;
                Ok((step, planned))
            })
            .collect()
    };
    let mut blocks = diagonal_block_sizes(n);
    let steps = loop {
        let Some(block) = blocks.next() else { return Err(Error::AllocFailed(why)) };
        let steps = planned_steps(block)?;
        // What the hungriest block's pass needs, held once before anything is
        // written, so that no later block can fail for want of it (the buffer
        // never shrinks, and each block runs the plan it was measured by).
        let need = steps.iter().map(|(_, (_, _, layout))| layout.work_bytes()).max().unwrap_or(0);
        match handle.work_area(need) {
            Ok(_) => break steps,
            Err(Error::AllocFailed(_)) => continue,
            Err(e) => return Err(e),
        }
    };
    let one = Scalar::Host(1.0);
    for (step, planned) in steps {
        let diag = &step.diag;
        let diag_x = x.sub(diag.start, diag.end - diag.start);
        launch_in_place(handle, variant, planned, diag.end - diag.start, element(diag.start * (lda + 1)), lda, diag_x)?;
        if step.rest.is_empty() {
            continue;
        }
        let (trans, m, cols, offset) = off_diagonal_gemv(variant.op, diag, &step.rest, lda);
        let rest_x = x.sub(step.rest.start, step.rest.end - step.rest.start);
        gemv::sgemv(
            handle,
            trans,
            m,
            cols,
            one,
            element(offset),
            lda,
            rest_x.base,
            rest_x.inc,
            one,
            diag_x.base,
            diag_x.inc,
        )?;
    }
    Ok(())
}

/// The pass-1 kernel of a call, its plan, and how that cuts the triangle.
pub type Planned<'h> = (&'h Kernel, LaunchPlan, Layout);

/// The pass-1 kernel of a call, its plan, and how that cuts the triangle
/// (`layout.work_bytes()`: the partial sums one pass needs).
pub fn plan(handle: &Handle, op: Op, n: i64, a: u64, lda: i64) -> Result<Planned<'_>> {
    let device = &handle.device;
    let (spec, problem) = select_kernel(op, n, a, lda);
    let kernel = device.kernel(spec.name)?;
    let plan = device.tuner.plan(spec, &kernel.model, &problem);
    Ok((kernel, plan, Layout::new(op, n as u64, &plan.shape)))
}

/// x := op(A)·x by the two launches of the module documentation, with the
/// partial sums of the whole n in the work buffer (AllocFailed, before any
/// launch, where it cannot hold them).
fn multiply_in_place(handle: &Handle, variant: Variant, n: i64, a: u64, lda: i64, x: StridedVector) -> Result<()> {
    let planned = plan(handle, variant.op, n, a, lda)?;
    launch_in_place(handle, variant, planned, n, a, lda, x)
}

/// The two launches of [`multiply_in_place`] by a plan made before.
fn launch_in_place(
    handle: &Handle,
    variant: Variant,
    (kernel, plan, layout): Planned,
    n: i64,
    a: u64,
    lda: i64,
    x: StridedVector,
) -> Result<()> {
    let device = &handle.device;
    let sum = device.kernel(TRMV_SUM.name)?;
    let sum_plan = device.tuner.plan(&TRMV_SUM, &sum.model, &Problem { n: n as u64, ..Problem::default() });
    // Held over both launches: no other call on this handle reuses the buffer meanwhile.
    let work = handle.work_area(layout.work_bytes())?;
    let layout_args = [I64(n), I64(layout.tile as i64), I64(layout.q as i64), I64(layout.tiles as i64)];
    let unit = I32(variant.unit as i32);
    let _bound = ContextGuard::bind(device.context())?;
    // SAFETY: the argument lists match kernels/trmv.cu. A holds the referenced
    // triangle of an n × n matrix with leading dimension lda and x n elements
    // with increment incx, which the caller vouches for as cuBLAS's does; the
    // work buffer holds layout.work_bytes(), and the kernels touch no more.
    unsafe {
        let [n_arg, tile, q, tiles] = layout_args;
        kernel.launch(
            handle.stream(),
            &plan.geometry,
            &plan.shape,
            &[
                n_arg,
                tile,
                q,
                tiles,
                I32(variant.lower as i32),
                unit,
                Ptr(a),
                I64(lda),
                Ptr(x.first_element()),
                I64(x.inc),
                Ptr(work.scratch()),
            ],
        )?;
        sum.launch(
            handle.stream(),
            &sum_plan.geometry,
            &sum_plan.shape,
            &[
                n_arg,
                tile,
                q,
                tiles,
                I32(variant.suffix() as i32),
                unit,
                Ptr(work.scratch()),
                Ptr(x.first_element()),
                I64(x.inc),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuner::optimizer::candidates;
    use crate::tuner::{DeviceModel, KernelModel};

    fn shape(tx: u32, ty: u32, split: u32) -> LaunchShape {
        LaunchShape { tx, ty, split }
    }

    fn bad(position: u32) -> Result<Variant> {
        Err(Error::InvalidArgument { routine: "STRMV", position })
    }

    #[test]
    fn arguments_are_checked_in_reference_order() {
        let ok = Variant { lower: true, op: Op::N, unit: false };
        assert_eq!(check_arguments(0, 0, 0, 5, 5, 1), Ok(ok));
        assert_eq!(check_arguments(1, 2, 1, 5, 7, -3), Ok(Variant { lower: false, op: Op::T, unit: true }));
        assert_eq!(check_arguments(0, 1, 0, 0, 1, 1).unwrap().op, Op::T);
        // Each bad argument alone.
        assert_eq!(check_arguments(2, 0, 0, 5, 5, 1), bad(1)); // FULL is not a triangle
        assert_eq!(check_arguments(-1, 0, 0, 5, 5, 1), bad(1));
        assert_eq!(check_arguments(0, 3, 0, 5, 5, 1), bad(2)); // CONJG
        assert_eq!(check_arguments(0, -1, 0, 5, 5, 1), bad(2));
        assert_eq!(check_arguments(0, 0, 2, 5, 5, 1), bad(3));
        assert_eq!(check_arguments(0, 0, 0, -1, 5, 1), bad(4));
        assert_eq!(check_arguments(0, 0, 0, 5, 4, 1), bad(6));
        assert_eq!(check_arguments(0, 0, 0, 0, 0, 1), bad(6)); // lda ≥ max(1, n) even for n = 0
        assert_eq!(check_arguments(0, 0, 0, 5, 5, 0), bad(8));
        // The first bad one wins.
        assert_eq!(check_arguments(7, 7, 7, -1, 0, 0), bad(1));
        assert_eq!(check_arguments(0, 7, 7, -1, 0, 0), bad(2));
        assert_eq!(check_arguments(0, 0, 7, -1, 0, 0), bad(3));
        assert_eq!(check_arguments(0, 0, 0, -1, 0, 0), bad(4));
        assert_eq!(check_arguments(0, 0, 0, 3, 2, 0), bad(6));
    }

    fn referenced(i: u64, j: u64, lower: bool, unit: bool) -> bool {
        if lower {
            if unit { i > j } else { i >= j }
        } else if unit {
            i < j
        } else {
            i <= j
        }
    }

    /// Every shape of both spaces, a few splits' worth of n, every variant:
    /// the items cover each referenced element exactly once (in rect or diag),
    /// rect holds only referenced elements, chunk k < the tile's chunk count,
    /// and the enumeration agrees with its closed forms.
    #[test]
    fn items_cover_the_triangle_exactly_once() {
        let shapes =
            [shape(32, 1, 1), shape(32, 3, 2), shape(64, 2, 1), shape(96, 1, 4), shape(32, 8, 1), shape(256, 4, 4)];
        let mut checked = 0;
        for n in [1u64, 2, 3, 4, 5, 7, 33, 127, 128, 129, 300, 513, 1000] {
            for s in &shapes {
                for op in [Op::N, Op::T] {
                    let layout = Layout::new(op, n, s);
                    for lower in [true, false] {
                        let variant = Variant { lower, op, unit: false };
                        let suffix = variant.suffix();
                        for unit in [false, true] {
                            let mut count = vec![0u8; (n * n) as usize];
                            for b in 0..layout.items() {
                                let item = layout.item(b, suffix);
                                assert!(item.chunk < layout.partial_vectors());
                                let (u, k) = layout.locate(b);
                                assert!(k < layout.chunks_of_rank(u) && u < layout.tiles);
                                assert_eq!(layout.items_before(u) + k, b);
                                let outputs = item.tile_start..(item.tile_start + layout.tile).min(n);
                                for o in outputs {
                                    for r in item.rect.clone() {
                                        let (i, j) = if op == Op::N { (o, r) } else { (r, o) };
                                        assert!(
                                            referenced(i, j, lower, unit),
                                            "{op:?} lower={lower} unit={unit} n={n} {s:?} rect has ({i}, {j})"
                                        );
                                        count[(i * n + j) as usize] += 1;
                                    }
                                    for r in item.diag.clone() {
                                        let (i, j) = if op == Op::N { (o, r) } else { (r, o) };
                                        if referenced(i, j, lower, unit) {
                                            count[(i * n + j) as usize] += 1;
                                        }
                                    }
                                }
                                assert!(
                                    item.diag.end - item.diag.start <= layout.tile,
                                    "diag ranges stay within the square"
                                );
                            }
                            for i in 0..n {
                                for j in 0..n {
                                    let expected = referenced(i, j, lower, unit) as u8;
                                    assert_eq!(
                                        count[(i * n + j) as usize],
                                        expected,
                                        "{op:?} lower={lower} unit={unit} n={n} {s:?} ({i}, {j})"
                                    );
                                }
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 0);
    }

    /// Every tile's chunk count is what pass 2 assumes, and chunks tile the
    /// tile's reduction range with no gap or overlap.
    #[test]
    fn chunk_counts_match_the_ranges() {
        for n in [1u64, 5, 64, 65, 1000, 4097, 10_000] {
            for s in [shape(32, 1, 1), shape(64, 4, 2), shape(256, 1, 4), shape(128, 8, 1)] {
                for op in [Op::N, Op::T] {
                    let layout = Layout::new(op, n, &s);
                    for suffix in [false, true] {
                        let mut per_tile: Vec<Vec<(u64, std::ops::Range<u64>)>> =
                            vec![Vec::new(); layout.tiles as usize];
                        for b in 0..layout.items() {
                            let item = layout.item(b, suffix);
                            // rect and diag are adjacent: their union, ignoring an empty one.
                            let parts: Vec<_> =
                                [item.rect.clone(), item.diag.clone()].into_iter().filter(|r| !r.is_empty()).collect();
                            let lo = parts.iter().map(|r| r.start).min().unwrap();
                            let hi = parts.iter().map(|r| r.end).max().unwrap();
                            assert_eq!(parts.iter().map(|r| r.end - r.start).sum::<u64>(), hi - lo);
                            per_tile[(item.tile_start / layout.tile) as usize].push((item.chunk, lo..hi));
                        }
                        for (t, chunks) in per_tile.iter_mut().enumerate() {
                            let t = t as u64;
                            let u = if suffix { layout.tiles - 1 - t } else { t };
                            chunks.sort_by_key(|(k, _)| *k);
                            assert_eq!(
                                chunks.len() as u64,
                                layout.chunks_of_rank(u),
                                "n={n} {s:?} {op:?} suffix={suffix} tile {t}"
                            );
                            let (lo, hi) =
                                if suffix { (t * layout.tile, n) } else { (0, ((t + 1) * layout.tile).min(n)) };
                            let mut at = lo;
                            for (k, (kk, range)) in chunks.iter().enumerate() {
                                assert_eq!(*kk, k as u64);
                                assert_eq!(range.start, at);
                                assert!(range.end > range.start && range.end - range.start <= layout.chunk());
                                at = range.end;
                            }
                            assert_eq!(at, hi);
                        }
                    }
                }
            }
        }
    }

    /// Items are balanced: all but each tile's last chunk read exactly P·W
    /// elements of the rectangle-or-square, so the largest item is P·W.
    #[test]
    fn items_are_balanced() {
        for (op, s) in [(Op::N, shape(128, 2, 1)), (Op::T, shape(128, 2, 1))] {
            let n = 8192;
            let layout = Layout::new(op, n, &s);
            let sizes: Vec<u64> = (0..layout.items())
                .map(|b| {
                    let item = layout.item(b, false);
                    (item.rect.end - item.rect.start + item.diag.end - item.diag.start) * layout.tile
                })
                .collect();
            let full = layout.tile * layout.chunk();
            let full_items = sizes.iter().filter(|&&w| w == full).count() as u64;
            assert!(sizes.iter().all(|&w| w <= full));
            // Tiles whose range is longer than one chunk: all chunks but the last are full.
            let expected_full: u64 = (0..layout.tiles).map(|u| layout.chunks_of_rank(u) - 1).sum();
            assert!(full_items >= expected_full, "{op:?}: {full_items} full items, expected at least {expected_full}");
        }
    }

    #[test]
    fn locate_inverts_items_before() {
        for q in [1u64, 2, 3, 7, 64, 1000] {
            for tiles in [1u64, 2, 5, 63, 64, 65, 1000] {
                let layout = Layout { n: tiles, tile: 1, q, tiles };
                let mut b = 0;
                for u in 0..tiles {
                    for k in 0..layout.chunks_of_rank(u) {
                        assert_eq!(layout.locate(b), (u, k), "q={q} tiles={tiles} b={b}");
                        b += 1;
                    }
                }
                assert_eq!(b, layout.items());
            }
        }
        // Large indices: the square root's rounding is corrected.
        let layout = Layout { n: 1 << 20, tile: 1, q: 3, tiles: 1 << 20 };
        for u in [(1u64 << 20) - 1, 999_999, 123_457, 65_536] {
            let b = layout.items_before(u);
            assert_eq!(layout.locate(b), (u, 0));
            assert_eq!(layout.locate(b + u / 3), (u, u / 3));
            assert_eq!(layout.locate(b - 1), (u - 1, (u - 1) / 3));
        }
    }

    #[test]
    fn work_buffer_size_rule() {
        // n = 32768 with the smallest tiles: at most 64 partial vectors.
        for op in [Op::N, Op::T] {
            for s in [shape(32, 1, 1), shape(32, 8, 4), shape(256, 4, 4), shape(256, 1, 1)] {
                for n in [1u64, 1000, 32_768, 100_000, 1 << 24] {
                    let layout = Layout::new(op, n, &s);
                    assert!(
                        layout.partial_vectors() >= 1 && layout.partial_vectors() <= MAX_PARTIAL_VECTORS,
                        "{op:?} {s:?} n={n}"
                    );
                    assert_eq!(layout.work_bytes(), layout.partial_vectors() * n * 4);
                    assert!(layout.work_bytes() <= 256 * n);
                    // Chunks are whole tiles, and at least the shape's own target.
                    assert_eq!(layout.chunk() % layout.tile, 0);
                }
            }
        }
        // n = 32768 fits the 8.25 MiB buffer an H100 handle starts with.
        assert!(Layout::new(Op::N, 32_768, &shape(32, 1, 1)).work_bytes() <= 8 << 20);
        assert_eq!(Layout::new(Op::N, 1000, &shape(32, 1, 1)), Layout { n: 1000, tile: 128, q: 1, tiles: 8 });
        // op T, Tx = 64, split 2: target 4·64·16·2 = 8192 rows over tiles of 4·2 = 8 columns.
        assert_eq!(Layout::new(Op::T, 1000, &shape(64, 2, 2)), Layout { n: 1000, tile: 8, q: 1024, tiles: 125 });
    }

    #[test]
    fn geometry_matches_the_layout_and_fits_in_shared_memory() {
        let device = DeviceModel::h100_sxm();
        let model = KernelModel { registers_per_thread: 64, static_shared_bytes: 0, max_threads_per_block: 1024 };
        for spec in [&TRMV_N_VEC4, &TRMV_N_SCALAR, &TRMV_T_VEC4, &TRMV_T_SCALAR] {
            let op = if spec.name.starts_with("trmv_n") { Op::N } else { Op::T };
            for n in [1u64, 4097, 16_384] {
                let problem = Problem { m: n, n, k: 0 };
                let all = candidates(&device, &model, spec, &problem);
                assert!(!all.is_empty());
                for (s, geometry, _) in all {
                    assert_eq!(geometry.blocks(), Layout::new(op, n, &s).items(), "{} {s:?}", spec.name);
                    assert!(geometry.dynamic_shared_bytes <= 48 << 10);
                    assert_eq!(s.tx % 32, 0, "whole warps along x");
                }
            }
        }
        let sum = sum_geometry(&Problem { n: 1000, ..Problem::default() }, &shape(64, 1, 1));
        assert_eq!(sum.grid, (16, 1, 1));
    }

    #[test]
    fn kernel_selection() {
        assert_eq!(select_kernel(Op::N, 10, 4096, 12).0.name, "trmv_n_f32_vec4");
        assert_eq!(select_kernel(Op::N, 10, 4100, 12).0.name, "trmv_n_f32_scalar");
        assert_eq!(select_kernel(Op::T, 10, 4096, 13).0.name, "trmv_t_f32_scalar");
        assert_eq!(select_kernel(Op::T, 10, 4096, 16).0.name, "trmv_t_f32_vec4");
        assert!(!Variant { lower: true, op: Op::N, unit: false }.suffix());
        assert!(Variant { lower: false, op: Op::N, unit: false }.suffix());
        assert!(Variant { lower: true, op: Op::T, unit: false }.suffix());
        assert!(!Variant { lower: false, op: Op::T, unit: false }.suffix());
    }

    #[test]
    fn bytes_moved_counts_half_the_matrix_and_x_twice() {
        assert_eq!(bytes_moved(1000), (500_000.0 + 2000.0) * 4.0);
    }

    /// x := op(A)·x on the CPU from column-major storage, reading only the
    /// referenced triangle (the diagonal as 1 where it is unit).
    fn trmv_on_cpu(variant: Variant, n: usize, a: &[f64], lda: usize, x: &mut [f64]) {
        let op_a = |i: usize, j: usize| if variant.op == Op::N { a[i + j * lda] } else { a[j + i * lda] };
        // op(A) keeps the triangle's side for N and swaps it for T.
        let lower = variant.lower == (variant.op == Op::N);
        let result: Vec<f64> = (0..n)
            .map(|i| {
                (0..n)
                    .filter(|&j| if lower { j <= i } else { j >= i })
                    .map(|j| if j == i && variant.unit { x[j] } else { op_a(i, j) * x[j] })
                    .sum()
            })
            .collect();
        x.copy_from_slice(&result);
    }

    /// y += op(A)·x on the CPU from SGEMV's (trans, m, n, offset of A).
    fn gemv_add_on_cpu((trans, m, n, offset): (i32, i64, i64, i64), a: &[f64], lda: usize, x: &[f64], y: &mut [f64]) {
        let (m, n, offset) = (m as usize, n as usize, offset as usize);
        let at = |i: usize, j: usize| a[offset + i + j * lda];
        if trans == 0 {
            for (i, yi) in y.iter_mut().enumerate().take(m) {
                *yi += (0..n).map(|j| at(i, j) * x[j]).sum::<f64>();
            }
        } else {
            for (j, yj) in y.iter_mut().enumerate().take(n) {
                *yj += (0..m).map(|i| at(i, j) * x[i]).sum::<f64>();
            }
        }
    }

    /// The blocked form's steps and SGEMV arguments, carried out on the CPU
    /// with the unreferenced triangle (and a unit diagonal) NaN and rows past
    /// n in lda NaN: the same x as the whole multiply, exactly (small integers),
    /// for every variant, block sizes that do and do not divide n, and one block.
    #[test]
    fn blocks_in_their_order_give_the_whole_product() {
        let mut random = crate::harness::Random::new(0x2545_f491_4f6c_dd1d);
        let mut small = move || (random.next_u64() % 7) as f64 - 3.0;
        for lower in [false, true] {
            for op in [Op::N, Op::T] {
                for unit in [false, true] {
                    let variant = Variant { lower, op, unit };
                    for (n, lda) in [(1usize, 1usize), (5, 7), (64, 64), (130, 131), (200, 203)] {
                        let a: Vec<f64> = (0..lda * n)
                            .map(|k| {
                                let (i, j) = (k % lda, k / lda);
                                let stored = i < n && (if lower { i >= j } else { i <= j }) && !(unit && i == j);
                                if stored { small() } else { f64::NAN }
                            })
                            .collect();
                        let x: Vec<f64> = (0..n).map(|_| small()).collect();
                        let mut whole = x.clone();
                        trmv_on_cpu(variant, n, &a, lda, &mut whole);
                        assert!(whole.iter().all(|v| v.is_finite()), "the reference read NaN");
                        for block in [1i64, 3, 64, 100, n as i64] {
                            let mut blocked = x.clone();
                            let steps = block_steps(variant, n as i64, block);
                            assert_eq!(steps.len(), n.div_ceil(block as usize));
                            for step in &steps {
                                let (d0, d1) = (step.diag.start as usize, step.diag.end as usize);
                                trmv_on_cpu(variant, d1 - d0, &a[d0 * (lda + 1)..], lda, &mut blocked[d0..d1]);
                                if step.rest.is_empty() {
                                    continue;
                                }
                                let gemv = off_diagonal_gemv(op, &step.diag, &step.rest, lda as i64);
                                let rest: Vec<f64> = blocked[step.rest.start as usize..step.rest.end as usize].to_vec();
                                gemv_add_on_cpu(gemv, &a, lda, &rest, &mut blocked[d0..d1]);
                            }
                            assert_eq!(blocked, whole, "{variant:?} n = {n}, lda = {lda}, blocks of {block}");
                        }
                    }
                }
            }
        }
    }

    /// Every n past one block of 64 gets blocks of 64 last (65 to 127
    /// included, whose half is less than 64); n of 64 or less has nothing to
    /// cut, since its one pass is what failed.
    #[test]
    fn diagonal_blocks_halve_down_to_64() {
        let sizes = |n: i64| diagonal_block_sizes(n).collect::<Vec<_>>();
        assert_eq!(sizes(1), Vec::<i64>::new());
        assert_eq!(sizes(64), Vec::<i64>::new());
        assert_eq!(sizes(65), vec![64]);
        assert_eq!(sizes(127), vec![64]);
        assert_eq!(sizes(255), vec![64]);
        assert_eq!(sizes(256), vec![128, 64]);
        assert_eq!(sizes(4097), vec![2048, 1024, 512, 256, 128, 64]);
        assert_eq!(sizes(3000), vec![1472, 704, 320, 128, 64]);
    }

    #[test]
    fn blocks_go_front_to_back_where_outputs_read_suffixes() {
        let upper_n = Variant { lower: false, op: Op::N, unit: false };
        let lower_n = Variant { lower: true, op: Op::N, unit: false };
        let step = |diag: std::ops::Range<i64>, rest: std::ops::Range<i64>| BlockStep { diag, rest };
        assert_eq!(block_steps(upper_n, 10, 4), vec![step(0..4, 4..10), step(4..8, 8..10), step(8..10, 10..10)]);
        assert_eq!(block_steps(lower_n, 10, 4), vec![step(8..10, 0..8), step(4..8, 0..4), step(0..4, 0..0)]);
    }
}

#[cfg(test)]
mod choice_preview {
    use super::*;
    use crate::tuner::optimizer::choose;
    use crate::tuner::{DeviceModel, KernelModel, TuningRecipe};

    /// Prints the optimizer's choice under the permissive recipe (no recipe
    /// is stored for the trmv kernels yet). `cargo test --lib choice_preview -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn print_permissive_choices() {
        let device = DeviceModel::h100_sxm();
        for (spec, regs, op) in [(&TRMV_N_VEC4, 52, Op::N), (&TRMV_T_VEC4, 62, Op::T)] {
            let model = KernelModel { registers_per_thread: regs, static_shared_bytes: 0, max_threads_per_block: 1024 };
            for n in [256u64, 1024, 2048, 4096, 8192, 16384, 32768] {
                let problem = Problem { m: n, n, k: 0 };
                let plan = choose(&device, &model, spec, &TuningRecipe::permissive(32), &problem).unwrap();
                let layout = Layout::new(op, n, &plan.shape);
                println!(
                    "{} n={n}: {:?} grid {} occ w{:.2} b{:.2} g{:.3} P={} W={} vectors={}",
                    spec.name,
                    plan.shape,
                    plan.geometry.grid.0,
                    plan.occupancy.warp,
                    plan.occupancy.block,
                    plan.occupancy.grid,
                    layout.tile,
                    layout.chunk(),
                    layout.partial_vectors()
                );
            }
        }
    }
}
