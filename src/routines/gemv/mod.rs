//! SGEMV: y = alpha·op(A)·x + beta·y, A column-major with m rows, n columns
//! and leading dimension lda; op(A) = A (N) or Aᵀ (T, and C for real data).
//!
//! Argument checks follow reference BLAS's order and numbering (the handle not
//! counted): 1 trans, 2 m, 3 n, 6 lda, 8 incx, 11 incy; the first bad one is
//! reported. Quick returns touch no memory: m == 0 or n == 0 (y not even
//! scaled), or a host alpha of 0 with a host beta of 1.
//!
//! Kernels (kernels/gemv.cu): `gemv_n_f32` / `gemv_t_f32` when A is 16-byte
//! aligned and lda a multiple of 4 (float4 loads down the columns), the
//! `_scalar` twins otherwise; for at most [`SHORT_ROWS_MAX`] rows,
//! `gemv_n_f32_short` and `gemv_t_f32_short` (and their `_scalar` twins), in
//! which a warp reads several columns at once instead of leaving most of its
//! lanes without a row; for op T on 65 to 384 rows (512 for A not float4)
//! and many columns, the same layout with 4 or 6 groups of rows a lane
//! (`gemv_t_f32_groups4`, `_groups6`); for op N on at most 1024 rows and more
//! than 512 columns on sm_90, row tiles split among the blocks of a
//! thread-block cluster (`gemv_n_f32_cluster16`, `_cluster32`, `_cluster64`),
//! which add their sums through distributed shared memory (past 16384
//! columns, several clusters a tile through partial vectors). All but the short, groups,
//! unsplit paired and stacked T kernels and the lanes and sweep N kernels take
//! a reduction split (the tuner's `LaunchShape::split`, grid.y): the columns
//! (N) or rows (T) are cut into ranges, one block per range and tile, so that a
//! short y still fills the GPU; partial vectors go to the split slots of the
//! handle's work buffer (a sum and a flag each, no fence) and the block of a
//! tile that started last adds them in a fixed order as they fill, so one
//! launch suffices and the result does not depend on timing.
//!
//! The parts: [`kernels`] (the kernels as the tuner sees them, the default
//! kernel of a call and the twins that can serve it), [`geometry`] (how a
//! launch lies over A: tiles, the reduction split, grids), [`mod@plan`] (the
//! kernel and shape a call runs, by the rules of each family: op N in
//! [`short`], [`few_and_narrow`], [`wide`] and [`clusters`], op T in
//! [`paired`], [`paired_split`], [`stacked`] and [`groups`]), and `launch`
//! (the work buffer and the argument list). This module checks the
//! arguments ([`check_arguments`]), takes the quick returns and runs the
//! call ([`sgemv`]).

pub mod clusters;
pub mod few_and_narrow;
pub mod geometry;
pub mod groups;
pub mod kernels;
mod launch;
pub mod paired;
pub mod paired_split;
pub mod plan;
pub mod short;
pub mod stacked;
pub mod wide;

pub use clusters::{CLUSTER_BLOCKS, cluster_tile_rows, clusters_per_tile, needs_clusters, runs_clusters};
pub use geometry::{
    Layout, groups_columns_per_block, lanes_per_column, reduction_split, split_ranges, split_slots, t_columns_per_block,
};
pub use groups::groups_of_rows;
pub use kernels::*;
pub use plan::{SGEMV_PLANS_CAPACITY, SgemvPlans, plan, plan_uncached};
pub use short::SHORT_ROWS_MAX;
pub use wide::fast_dram;

use launch::launch;

use super::Scalar;
use super::vector::StridedVector;
use crate::handle::Handle;
use crate::status::{Error, Result};
use crate::tuner::{KernelSpec, LaunchShape, Problem};

/// op(A), validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    N,
    T,
}

impl Op {
    /// (length of x, length of y) for an m×n A.
    pub fn vector_lengths(self, m: i64, n: i64) -> (i64, i64) {
        match self {
            Op::N => (n, m),
            Op::T => (m, n),
        }
    }
}

/// The reference-BLAS checks of SGEMV, in its order: the first bad argument's
/// position is the error. trans: 0 N, 1 T, 2 C (= T for real data); anything
/// else, CONJG (3) included, is invalid.
pub fn check_arguments(trans: i32, m: i64, n: i64, lda: i64, incx: i64, incy: i64) -> Result<Op> {
    let bad = |position| Err(Error::InvalidArgument { routine: "SGEMV", position });
    let op = match trans {
        0 => Op::N,
        1 | 2 => Op::T,
        _ => return bad(1),
    };
    if m < 0 {
        return bad(2);
    }
    if n < 0 {
        return bad(3);
    }
    if lda < m.max(1) {
        return bad(6);
    }
    if incx == 0 {
        return bad(8);
    }
    if incy == 0 {
        return bad(11);
    }
    Ok(op)
}

/// True when the call must return at once, touching nothing: an empty A, or
/// alpha = 0 with beta = 1 known on the host.
pub fn quick_return(m: i64, n: i64, alpha: Scalar, beta: Scalar) -> bool {
    m == 0 || n == 0 || (alpha.is(0.0) && beta.is(1.0))
}

/// One validated call.
#[derive(Clone, Copy, Debug)]
struct Call {
    op: Op,
    m: i64,
    n: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    x: StridedVector,
    beta: Scalar,
    y: StridedVector,
}

impl Call {
    /// Checks the arguments; None for a quick return.
    #[allow(clippy::too_many_arguments)]
    fn new(
        trans: i32,
        m: i64,
        n: i64,
        alpha: Scalar,
        a: u64,
        lda: i64,
        x: u64,
        incx: i64,
        beta: Scalar,
        y: u64,
        incy: i64,
    ) -> Result<Option<Call>> {
        let op = check_arguments(trans, m, n, lda, incx, incy)?;
        if quick_return(m, n, alpha, beta) {
            return Ok(None);
        }
        if y == 0 {
            return Err(Error::InvalidValue("SGEMV: y is NULL".into()));
        }
        // A host alpha of 0 reads neither A nor x.
        if (a == 0 || x == 0) && !alpha.is(0.0) {
            return Err(Error::InvalidValue("SGEMV: A or x is NULL".into()));
        }
        let (len_x, len_y) = op.vector_lengths(m, n);
        Ok(Some(Call {
            op,
            m,
            n,
            alpha,
            a,
            lda,
            x: StridedVector { base: x, len: len_x, inc: incx },
            beta,
            y: StridedVector { base: y, len: len_y, inc: incy },
        }))
    }
}

/// y = alpha·op(A)·x + beta·y (cuBLAS `cublasSgemv`), the launch shape chosen by the tuner.
#[allow(clippy::too_many_arguments)]
pub fn sgemv(
    handle: &Handle,
    trans: i32,
    m: i64,
    n: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    x: u64,
    incx: i64,
    beta: Scalar,
    y: u64,
    incy: i64,
) -> Result<()> {
    let Some(call) = Call::new(trans, m, n, alpha, a, lda, x, incx, beta, y, incy)? else { return Ok(()) };
    let (spec, plan) = plan(handle, call.op, m, n, a, lda, x_reads(x, incx))?;
    launch(handle, spec, &call, plan.shape)
}

/// [`sgemv`] with the kernel (one of [`candidate_kernels`]) and the launch
/// shape given instead of chosen: for tests that run every candidate of every
/// kernel. Same checks, same launch.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn sgemv_with_shape(
    handle: &Handle,
    spec: &'static KernelSpec,
    shape: LaunchShape,
    trans: i32,
    m: i64,
    n: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    x: u64,
    incx: i64,
    beta: Scalar,
    y: u64,
    incy: i64,
) -> Result<()> {
    let Some(call) = Call::new(trans, m, n, alpha, a, lda, x, incx, beta, y, incy)? else { return Ok(()) };
    if !candidate_kernels(call.op, m, a, lda, x_reads(x, incx)).iter().any(|k| std::ptr::eq(*k, spec)) {
        return Err(Error::InvalidValue(format!("{} cannot serve this call", spec.name)));
    }
    if needs_clusters(spec) && !runs_clusters(&handle.device) {
        return Err(Error::InvalidValue(format!("{} needs thread-block clusters (sm_90 machine code)", spec.name)));
    }
    // The kernels assume their declared block shapes (GEMV-T's blocks are 1-D).
    if !spec.space.contains(&shape) {
        return Err(Error::InvalidValue(format!("{shape:?} is outside the launch space of {}", spec.name)));
    }
    launch(handle, spec, &call, shape)
}

/// What the tuner sizes a launch for: A's rows and columns.
pub fn problem(m: i64, n: i64) -> Problem {
    Problem { m: m as u64, n: n as u64, k: 0 }
}

/// Bytes one call moves, for the benchmark's bandwidth figure: A once, x once,
/// y read and written: (m·n + len(x) + 2·len(y))·4, (n² + 3n)·4 when square.
pub fn bytes_moved(op: Op, m: i64, n: i64) -> f64 {
    let (len_x, len_y) = op.vector_lengths(m, n);
    (m as f64 * n as f64 + len_x as f64 + 2.0 * len_y as f64) * 4.0
}

#[cfg(test)]
mod tests;
