//! SGEMM: C = alpha · op(A) · op(B) + beta · C, column-major (kernels/gemm.cu).
//!
//! [`sgemm`] checks its arguments in reference-BLAS order and takes the quick
//! returns; then C = beta·C where k or alpha is 0 (`gemm_scale_f32`), the
//! SGEMV routine for one column or row of C (below), the skinny kernels for
//! 2 to 32 ([`skinny`]), and otherwise a tile kernel ([`kernels`]):
//! [`tile_choice`] picks its tile and split of k, [`plan`] whether TN and TT
//! copy op(A) first ([`copied_a`]) and whether the last round of blocks is
//! split off ([`split_tail`]) or shared ([`stream_k`]), and `launch` queues
//! the kernels.
//!
//! # One column or row
//!
//! With n = 1 or m = 1, C = op(A)·op(B) is a matrix-vector product, which
//! reads its matrix once and is bound by memory, where a tile kernel computes
//! a whole tile (64 to 256 columns or rows) for the one it writes: the
//! 64×64 tiles took 57–68 µs for 4096 × 1 × 4096 on an H200 against cuBLAS's
//! 18–22. Such calls run the SGEMV routine ([`as_gemv`]), its own kernels,
//! splits and tuning, unless a tile is forced.
//!
//! # Scaling and split-K
//!
//! k == 0 or alpha == 0 (host) use `gemm_scale_f32` (C = beta·C); a split
//! launch is followed by `gemm_splitk_reduce_f32` (or `gemm_splitk_reduce4_f32`,
//! four rows a thread in float4, where C is large enough: [`reduce_spec`]),
//! which sums the partial C tiles from the work buffer in a fixed order and
//! applies alpha and beta.

pub mod copied_a;
pub mod kernels;
mod launch;
pub mod plan;
pub mod skinny;
pub mod split_tail;
pub mod stream_k;
pub mod tile_choice;

pub use copied_a::{copied_a_ld, copied_a_panel_rows, copied_a_pays, panels};
pub use kernels::*;
pub use plan::*;
pub use skinny::{Skinny, as_skinny, skinny_geometry, skinny_plan, skinny_split};
pub use split_tail::{
    Cut, SPLIT_TAIL_LAUNCH_US, SPLIT_TAIL_MAIN_FILL, SplitTail, split_tail_choice, split_tail_main, split_tail_tile,
};
pub use stream_k::{StreamK, stream_k_choice, stream_k_replaces_split};
pub use tile_choice::*;

use copied_a::{panel_operands, panel_plan};
use launch::{Operands, Partials, launch_multiply, launch_skinny, launch_stream_k, launch_with_tail};

use super::Scalar;
use crate::handle::Handle;
use crate::launch::KernelArg::{I64, Ptr};
use crate::launch::context::ContextGuard;
use crate::status::{Error, Result};
use crate::tuner::{KernelSpec, LaunchPlan, Problem};

/// op(X) for a real matrix: cuBLAS's N 0, T 1, C 2 (= T for real types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// 2·m·n·k: the flops SGEMM is credited with.
pub fn flops(m: u64, n: u64, k: u64) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64
}

/// Reference-BLAS argument checks in order, first bad wins: 1 transa,
/// 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc. The ld checks apply even
/// when a dimension is 0.
#[allow(clippy::too_many_arguments)]
pub fn check_arguments(
    transa: i32,
    transb: i32,
    m: i64,
    n: i64,
    k: i64,
    lda: i64,
    ldb: i64,
    ldc: i64,
) -> Result<(Transpose, Transpose)> {
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

/// The matrix-vector product that an SGEMM with one column of C (n = 1) or
/// one row (m = 1) is (module docs, "One column or row"): cuBLAS's GEMV
/// arguments, which then run the SGEMV kernels, since a tile kernel would
/// compute a whole tile for each column or row of C that it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsGemv {
    /// GEMV's op: 0 (N) or 1 (T).
    pub trans: i32,
    pub m: i64,
    pub n: i64,
    pub a: u64,
    pub lda: i64,
    pub x: u64,
    pub incx: i64,
    pub y: u64,
    pub incy: i64,
}

/// [`AsGemv`] for a valid call with n = 1 or m = 1, else None. With n = 1,
/// C's column is op(A) times op(B)'s one column, which is B's column (tb N)
/// or its row, ldb apart (tb T). With m = 1, C's row (ldc apart) is op(B)^T
/// times op(A)'s one row, which is A's row, lda apart (ta N), or its column
/// (ta T); op(B)^T is B^T (GEMV T on B, k × n) for tb N and B (GEMV N on B,
/// n × k) for tb T. The GEMV argument checks then hold by SGEMM's: its matrix
/// is A or B with the rows SGEMM checked its leading dimension against.
#[allow(clippy::too_many_arguments)]
pub fn as_gemv(
    ta: Transpose,
    tb: Transpose,
    m: i64,
    n: i64,
    k: i64,
    (a, lda): (u64, i64),
    (b, ldb): (u64, i64),
    (c, ldc): (u64, i64),
) -> Option<AsGemv> {
    use Transpose::{No, Yes};
    if n == 1 {
        let (x, incx) = if tb == No { (b, 1) } else { (b, ldb) };
        let (trans, rows, cols) = if ta == No { (0, m, k) } else { (1, k, m) };
        Some(AsGemv { trans, m: rows, n: cols, a, lda, x, incx, y: c, incy: 1 })
    } else if m == 1 {
        let (x, incx) = if ta == No { (a, lda) } else { (a, 1) };
        let (trans, rows, cols) = if tb == Yes { (0, n, k) } else { (1, k, n) };
        Some(AsGemv { trans, m: rows, n: cols, a: b, lda: ldb, x, incx, y: c, incy: ldc })
    } else {
        None
    }
}

/// What one call did, for tests and the tools.
#[derive(Clone, Copy, Debug)]
pub struct GemmDecision {
    pub path: GemmPath,
    /// The tile kernel and its plan (Multiply only; with op(A) copied, the first panel's).
    pub kernel: Option<&'static KernelSpec>,
    pub plan: Option<LaunchPlan>,
    /// Rows per panel when op(A) was copied first ([`copied_a`]).
    pub copied_a_panel_rows: Option<u64>,
    /// With a split tail ([`split_tail`]), its cut and what ran the rest.
    pub split_tail: Option<SplitTail>,
    /// With stream-K ([`stream_k`]), as it ran.
    pub stream_k: Option<StreamK>,
    /// One column or row of C (module docs): the SGEMV call that computed it.
    pub as_gemv: Option<AsGemv>,
    /// A few columns or rows of C ([`skinny`]): what the skinny kernel computed.
    pub skinny: Option<Skinny>,
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
    let decision = sgemm_with(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, TileChoice::Auto)?;
    log::debug!("SGEMM {transa},{transb} {m}x{n}x{k} lda {lda} ldb {ldb} ldc {ldc}: {}", decision.summary());
    Ok(())
}

impl GemmDecision {
    /// One line of what ran (`MUBLAS_LOG=debug` prints it per call): the
    /// path, kernel, grid and the plan's extras.
    pub fn summary(&self) -> String {
        let mut line = format!("{:?}", self.path);
        if let Some(g) = self.as_gemv {
            line += &format!(" as SGEMV {} {}x{}", ["N", "T"][g.trans.min(1) as usize], g.m, g.n);
        }
        if let (Some(kernel), Some(plan)) = (self.kernel, self.plan) {
            line += &format!(" {} grid {:?}", kernel.name, plan.geometry.grid);
        }
        if let Some(rows) = self.copied_a_panel_rows {
            line += &format!(", op(A) copied in panels of {rows} rows");
        }
        if let Some(t) = self.split_tail {
            line += &format!(
                ", split tail {:?} after {} on {} grid {:?}",
                t.cut, t.main, t.kernel.name, t.plan.geometry.grid
            );
        }
        if let Some(s) = self.stream_k {
            line += &format!(", stream-K {} tiles over {} blocks", s.tiles, s.blocks);
        }
        line
    }
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
    let mut decision = GemmDecision {
        path,
        kernel: None,
        plan: None,
        copied_a_panel_rows: None,
        split_tail: None,
        stream_k: None,
        as_gemv: None,
        skinny: None,
    };
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
        unsafe {
            kernel.launch(
                handle.stream(),
                &plan.geometry,
                &plan.shape,
                &[I64(m), I64(n), beta_value, beta_address, Ptr(c), I64(ldc)],
            )?
        };
        return Ok(decision);
    }
    if choice == TileChoice::Auto
        && let Some(g) = as_gemv(ta, tb, m, n, k, (a, lda), (b, ldb), (c, ldc))
    {
        decision.as_gemv = Some(g);
        return super::gemv::sgemv(handle, g.trans, g.m, g.n, alpha, g.a, g.lda, g.x, g.incx, beta, g.y, g.incy)
            .map(|()| decision);
    }
    if choice == TileChoice::Auto
        && let Some(skinny) = as_skinny(ta, tb, m, n, k, (a, lda), (b, ldb), (c, ldc))
        && let Some((kernel, plan)) = skinny.plan(handle)?
    {
        let plan = launch_skinny(handle, &skinny, kernel, plan, alpha, beta)?;
        (decision.skinny, decision.kernel, decision.plan) = (Some(skinny), Some(skinny.spec()), Some(plan));
        return Ok(decision);
    }

    let MultiplyPlan { kernel: mut spec, mut plan, copied_a_panel_rows, mut split_tail, first_panel, mut stream_k } =
        plan_call(handle, ta, tb, um, un, uk, a, lda, b, ldb, c, ldc, choice)?;
    let operands = Operands { ta, a, lda, tb, b, ldb, c, ldc, a_rows_padded: false };
    let (alpha_value, alpha_address) = alpha.kernel_args();
    let scalars = [alpha_value, alpha_address, beta_value, beta_address];
    // The panel of op(A), then room for the panels' split tails' partial sums.
    // Panels have at most two heights (the last may be shorter): their plans,
    // once (the work buffer's address, 256-byte aligned, does not change them);
    // plan_call has made the first panel's.
    let panel_bytes = copied_a_panel_rows.map_or(0, |rows| (copied_a_ld(rows) * uk * 4).next_multiple_of(256));
    let mut panel_plans = Vec::with_capacity(2);
    if let (Some(panel_rows), Some(first)) = (copied_a_panel_rows, first_panel) {
        panel_plans.push(first);
        if let Some((_, rows)) = panels(um, panel_rows).last().filter(|&(_, rows)| rows != first.rows) {
            panel_plans.push(panel_plan(handle, (ta, tb), rows, un, uk, 256, b, ldb, (c, ldc))?);
        }
    }
    let tail_bytes = panel_plans.iter().map(|p| p.after_panel_bytes(un)).max().unwrap_or(0);
    // Without the work buffer for op(A) (its limit, or no memory to grow it):
    // panels without split tails or stream-K, or else the direct plan.
    let mut panel_tails = true;
    let mut copy_area = None;
    if copied_a_panel_rows.is_some() {
        for (bytes, tails) in [(panel_bytes + tail_bytes, true), (panel_bytes, false)] {
            match handle.work_area(bytes) {
                Ok(work) => {
                    (copy_area, panel_tails) = (Some(work), tails);
                    break;
                }
                Err(Error::AllocFailed(why)) => log::info!(
                    "SGEMM: no {bytes} bytes of work buffer for op(A){} ({why})",
                    if tails { " and split tails" } else { "" }
                ),
                Err(e) => return Err(e),
            }
            if tail_bytes == 0 {
                break; // the panel alone was what failed
            }
        }
        if copy_area.is_none() {
            log::info!("SGEMM: multiplying without copying op(A)");
            (spec, plan) =
                plan_multiply(handle, ta, tb, um, un, uk, operands.runs_vec_kernels(um, un, uk), TileChoice::Auto)?;
            (split_tail, stream_k) = (None, None);
        }
    }
    (decision.kernel, decision.plan) = (Some(spec), Some(plan));
    if let (Some(work), Some(panel_rows)) = (copy_area, copied_a_panel_rows) {
        decision.copied_a_panel_rows = Some(panel_rows);
        let copy_spec = copy_a_spec(ta);
        let copy = device.kernel(copy_spec.name)?;
        for (first, rows) in panels(um, panel_rows) {
            let panel = panel_plans
                .iter()
                .find(|p| p.rows == rows)
                .copied()
                .map_or_else(|| panel_plan(handle, (ta, tb), rows, un, uk, 256, b, ldb, (c, ldc)), Ok)?;
            let (panel_spec, panel_plan, panel_tail) =
                if panel_tails { panel.tailed } else { (panel.whole.0, panel.whole.1, None) };
            let panel_stream_k = panel.stream_k.filter(|_| panel_tails);
            let copy_plan = device.tuner.plan(copy_spec, &copy.model, &Problem { m: rows, n: 0, k: uk });
            let ldt = copied_a_ld(rows) as i64;
            // SAFETY: rows first … first + rows of op(A) lie within A: its
            // columns (TN, TT: A is k × m, lda) or its rows (NN, NT: m × k);
            // the work area's scratch holds ldt · k floats of the panel.
            unsafe {
                copy.launch(
                    handle.stream(),
                    &copy_plan.geometry,
                    &copy_plan.shape,
                    &[
                        I64(k),
                        I64(rows as i64),
                        alpha_value,
                        alpha_address,
                        Ptr(split_tail::rows_of_a(ta, a, lda, first)),
                        I64(lda),
                        Ptr(work.scratch()),
                        I64(ldt),
                    ],
                )?;
            }
            let copied = panel_operands((ta, tb), rows, work.scratch(), b, ldb, (c + first * 4, ldc));
            if let Some(stream_k) = panel_stream_k {
                let pieces = (work.counters(), work.scratch() + panel_bytes);
                decision.stream_k = launch_stream_k(
                    handle,
                    panel_spec,
                    &panel_plan,
                    stream_k,
                    (rows, un, uk),
                    scalars,
                    &copied,
                    Some(pieces),
                )?;
                continue;
            }
            let partials = Partials::At(work.scratch() + panel_bytes);
            decision.split_tail = launch_with_tail(
                handle,
                (panel_spec, &panel_plan),
                panel_tail,
                (rows, un, uk),
                scalars,
                &copied,
                partials,
            )?
            .or(decision.split_tail);
        }
        return Ok(decision);
    }

    if split_tail.is_some() {
        decision.split_tail = launch_with_tail(
            handle,
            (spec, &plan),
            split_tail,
            (um, un, uk),
            scalars,
            &operands,
            Partials::FromHandle,
        )?;
    } else if let Some(stream_k) = stream_k {
        decision.stream_k = launch_stream_k(handle, spec, &plan, stream_k, (um, un, uk), scalars, &operands, None)?;
    } else {
        decision.plan =
            Some(launch_multiply(handle, spec, &plan, (um, un, uk), scalars, &operands, Partials::FromHandle)?);
    }
    Ok(decision)
}

/// For the tools: what an automatic call with one, or 2 to
/// [`skinny::MAX_N`], columns or rows of C runs instead of a tile kernel
/// ("gemv" or "skinny"), its kernel, plan and tuner problem; None for the others.
#[allow(clippy::too_many_arguments)]
pub fn small_side_plan(
    handle: &Handle,
    ta: Transpose,
    tb: Transpose,
    m: i64,
    n: i64,
    k: i64,
    a: (u64, i64),
    b: (u64, i64),
    c: (u64, i64),
) -> Result<Option<(&'static str, &'static KernelSpec, LaunchPlan, Problem)>> {
    use super::gemv;
    if let Some(g) = as_gemv(ta, tb, m, n, k, a, b, c) {
        let op = if g.trans == 0 { gemv::Op::N } else { gemv::Op::T };
        let (spec, plan) = gemv::plan(handle, op, g.m, g.n, g.a, g.lda, gemv::x_reads(g.x, g.incx))?;
        return Ok(Some(("gemv", spec, plan, gemv::problem(g.m, g.n))));
    }
    let Some(skinny) = as_skinny(ta, tb, m, n, k, a, b, c) else { return Ok(None) };
    let Some((_, plan)) = skinny.plan(handle)? else { return Ok(None) };
    Ok(Some(("skinny", skinny.spec(), plan, skinny.problem())))
}

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
