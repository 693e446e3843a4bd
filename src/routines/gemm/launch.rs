//! The SGEMM kernels' launches: their argument lists, the work buffer held
//! until they are queued.

use super::Transpose;
use super::kernels::{c_is_vec4, partial_ld, reduce_spec, runs_vec_kernels, vec4_applies};
use super::plan::unsplit;
use super::skinny::{Skinny, skinny_split};
use super::split_tail::{Cut, SplitTail, columns_of_b, rows_of_a};
use super::stream_k::StreamK;
use crate::handle::Handle;
use crate::launch::KernelArg::{self, F32, I32, I64, Ptr};
use crate::launch::context::ContextGuard;
use crate::routines::Scalar;
use crate::status::{Error, Result};
use crate::tuner::{Geometry, KernelSpec, LaunchPlan, Problem};

/// Where a split multiply's partial sums go.
#[derive(Clone, Copy)]
pub(super) enum Partials {
    /// The handle's work area, asked for at the launch.
    FromHandle,
    /// This address in a work area the caller holds, with room for them.
    At(u64),
}

/// Runs a [`Skinny`] multiply with its kernel and plan ([`Skinny::plan`]):
/// the plan's split, its partial sums in the work buffer, unsplit without
/// one. Returns the plan that ran.
pub(super) fn launch_skinny(
    handle: &Handle,
    skinny: &Skinny,
    kernel: &crate::launch::Kernel,
    mut plan: LaunchPlan,
    alpha: Scalar,
    beta: Scalar,
) -> Result<LaunchPlan> {
    let device = &handle.device;
    let problem = skinny.problem();
    let (mut per_split, splits) = skinny_split(&problem, skinny.rows_per_block(), plan.shape.split);
    // Held until the launch is queued (as SGEMV's): the counters and partial sums are this launch's.
    let work = if splits <= 1 {
        None
    } else {
        match handle.work_area(splits as u64 * problem.m * problem.n * 4) {
            Ok(work) => Some(work),
            Err(Error::AllocFailed(why)) => {
                log::info!("SGEMM: skinny multiply not split ({why})");
                plan.shape.split = 1;
                plan.geometry = (skinny.spec().geometry)(&problem, &plan.shape);
                (per_split, _) = skinny_split(&problem, skinny.rows_per_block(), 1);
                None
            }
            Err(e) => return Err(e),
        }
    };
    let (counters, partials) = work.as_ref().map_or((0, 0), |work| (work.counters(), work.scratch()));
    let (alpha_value, alpha_address) = alpha.kernel_args();
    let (beta_value, beta_address) = beta.kernel_args();
    let _bound = ContextGuard::bind(device.context())?;
    // SAFETY: the argument list matches SKINNY_PARAMS in kernels/gemm.cu; P, Q
    // and D span what their strides and sizes say (SGEMM's operands, checked
    // as cuBLAS checks them); the work area holds splits · M · N floats.
    unsafe {
        kernel.launch(
            handle.stream(),
            &plan.geometry,
            &plan.shape,
            &[
                I64(skinny.m),
                I32(skinny.n as i32),
                I64(skinny.k),
                I64(per_split as i64),
                alpha_value,
                alpha_address,
                Ptr(skinny.p),
                I64(skinny.ldp),
                Ptr(skinny.q),
                I64(skinny.qsl),
                I64(skinny.qsj),
                beta_value,
                beta_address,
                Ptr(skinny.d),
                I64(skinny.dsi),
                I64(skinny.dsj),
                Ptr(counters),
                Ptr(partials),
            ],
        )?;
    }
    Ok(plan)
}

/// `main` over the first columns or rows of C (all of C without a split
/// tail), then the split tail's rest. Returns the tail with the plan its rest ran.
pub(super) fn launch_with_tail(
    handle: &Handle,
    main: (&'static KernelSpec, &LaunchPlan),
    tail: Option<SplitTail>,
    (m, n, k): (u64, u64, u64),
    scalars: [KernelArg; 4],
    x: &Operands,
    partials: Partials,
) -> Result<Option<SplitTail>> {
    let Some(mut tail) = tail else {
        launch_unsplit(handle, main.0, main.1, (m, n, k), scalars, x)?;
        return Ok(None);
    };
    let [(main_m, main_n), (rest_m, rest_n)] = tail.cut.parts(m, n, tail.main);
    launch_unsplit(handle, main.0, main.1, (main_m, main_n, k), scalars, x)?;
    tail.plan = launch_multiply(
        handle,
        tail.kernel,
        &tail.plan,
        (rest_m, rest_n, k),
        scalars,
        &x.part(tail.cut, tail.main),
        partials,
    )?;
    Ok(Some(tail))
}

/// A multiply by one tile kernel, split along k as `plan` says (the partial
/// C tiles in the work buffer, then the reduction) or not; unsplit when the
/// work buffer cannot be had. Returns the plan that ran.
pub(super) fn launch_multiply(
    handle: &Handle,
    spec: &'static KernelSpec,
    plan: &LaunchPlan,
    (m, n, k): (u64, u64, u64),
    scalars: [KernelArg; 4],
    x: &Operands,
    partials: Partials,
) -> Result<LaunchPlan> {
    let splits = plan.geometry.grid.2;
    if splits <= 1 {
        return launch_unsplit(handle, spec, plan, (m, n, k), scalars, x).map(|_| *plan);
    }
    // Split-K: alpha·(partial C) per split in the work buffer (beta 0), then the reduction, which
    // adds them and beta·C. alpha goes to the tile kernels so that alpha 0 from the device skips
    // their k loop, as unsplit: A and B are not read; and to the reduction, which then leaves the
    // partial sums unread and, with beta 1, C untouched.
    let device = &handle.device;
    let kernel = device.kernel(spec.name)?;
    let ldp = partial_ld(m);
    let split_stride = ldp * n;
    // Held until the launches are queued: nothing may regrow the buffer under them.
    let held;
    let scratch = match partials {
        Partials::At(address) => address,
        Partials::FromHandle => {
            held = match handle.work_area(split_stride * splits as u64 * 4) {
                Err(Error::AllocFailed(why)) => {
                    log::info!("SGEMM: not splitting k ({why})");
                    let unsplit = unsplit(handle, spec, plan, m, n)?;
                    return launch_unsplit(handle, spec, &unsplit, (m, n, k), scalars, x).map(|_| unsplit);
                }
                other => other?,
            };
            held.scratch()
        }
    };
    let [alpha_value, alpha_address, beta_value, beta_address] = scalars;
    let reduce_spec = reduce_spec(device.model(), m, n, splits);
    let reduce = device.kernel(reduce_spec.name)?;
    let reduce_plan = device.tuner.plan(reduce_spec, &reduce.model, &Problem { m, n, k: 0 });
    let partial_sums = Operands { c: scratch, ldc: ldp as i64, ..*x };
    let scaled_sums = [alpha_value, alpha_address, F32(0.0), Ptr(0)];
    // SAFETY: as in launch_unsplit; the work buffer holds splits × split_stride
    // floats, 256-byte aligned, with ldp and split_stride multiples of 4 (float4 stores).
    unsafe {
        kernel.launch(
            handle.stream(),
            &plan.geometry,
            &plan.shape,
            &gemm_params(&partial_sums, (m, n, k), scaled_sums, split_stride),
        )?;
        reduce.launch(
            handle.stream(),
            &reduce_plan.geometry,
            &reduce_plan.shape,
            &[
                I64(m as i64),
                I64(n as i64),
                I32(splits as i32),
                Ptr(scratch),
                I64(ldp as i64),
                I64(split_stride as i64),
                alpha_value,
                alpha_address,
                beta_value,
                beta_address,
                Ptr(x.c),
                I64(x.ldc),
            ],
        )?;
    }
    Ok(*plan)
}

/// A multiply with stream-K ([`stream_k`](super::stream_k)): the pieces and the counters in
/// the work buffer, in the area `held` gives (counters, pieces) of a work
/// area the caller holds, or else asked for here. Without the work buffer,
/// `spec`'s plain launch instead. Returns the stream-K that ran, if it did.
#[allow(clippy::too_many_arguments)]
pub(super) fn launch_stream_k(
    handle: &Handle,
    spec: &KernelSpec,
    plan: &LaunchPlan,
    stream_k: StreamK,
    (m, n, k): (u64, u64, u64),
    scalars: [KernelArg; 4],
    x: &Operands,
    held: Option<(u64, u64)>,
) -> Result<Option<StreamK>> {
    // Held until the launches are queued: nothing may regrow the buffer under them.
    let work;
    let (counters, pieces) = match held {
        Some(area) => area,
        None => {
            work = match handle.work_area(stream_k.piece_bytes()) {
                Err(Error::AllocFailed(why)) => {
                    log::info!("SGEMM: no stream-K ({why})");
                    return launch_unsplit(handle, spec, plan, (m, n, k), scalars, x).map(|_| None);
                }
                other => other?,
            };
            (work.counters(), work.scratch())
        }
    };
    let kernel = handle.device.kernel(stream_k.kernel.name)?;
    // The tiles before the stream-K ones run whole, on the plain kernel.
    let whole = plan.geometry.blocks() - stream_k.tiles;
    if whole > 0 {
        let whole_plan = LaunchPlan { geometry: Geometry { grid: (whole as u32, 1, 1), ..plan.geometry }, ..*plan };
        launch_unsplit(handle, spec, &whole_plan, (m, n, k), scalars, x)?;
    }
    let geometry = Geometry { grid: (stream_k.blocks, 1, 1), ..plan.geometry };
    // GEMM_PARAMS, then the stream-K kernels' own three, on the stack as every launch's.
    let mut args = [I32(0); 18];
    args[..15].copy_from_slice(&gemm_params(x, (m, n, k), scalars, 0));
    args[15..].copy_from_slice(&[I32(whole as i32), Ptr(counters), Ptr(pieces)]);
    // SAFETY: as in launch_unsplit; the work area holds the counters (all 0,
    // more than `tiles`) and a piece slot per stream-K tile and block at
    // `pieces`, and stays held until the launch is queued.
    unsafe { kernel.launch(handle.stream(), &geometry, &plan.shape, &args)? };
    Ok(Some(stream_k))
}

/// Device addresses and leading dimensions of a multiply's A, B and C, and the transposes.
#[derive(Clone, Copy)]
pub(super) struct Operands {
    pub(super) ta: Transpose,
    pub(super) a: u64,
    pub(super) lda: i64,
    pub(super) tb: Transpose,
    pub(super) b: u64,
    pub(super) ldb: i64,
    pub(super) c: u64,
    pub(super) ldc: i64,
    /// A is a copy of op(A) in the work buffer, zeros to a whole float4 past
    /// its last row ([`copied_a`](super::copied_a)): the `_vec` kernels may
    /// read that float4 whole, so an m not a multiple of 4 keeps them.
    pub(super) a_rows_padded: bool,
}

impl Operands {
    /// 1 when the tile kernels may store C as float4 (16-byte aligned, ldc a multiple of 4).
    pub(super) fn c_vec(&self) -> i32 {
        c_is_vec4(self.c, self.ldc) as i32
    }

    /// Whether an m × n × k multiply of these operands runs the `_vec` tile kernels ([`runs_vec_kernels`]).
    pub(super) fn runs_vec_kernels(&self, m: u64, n: u64, k: u64) -> bool {
        let a_rows = if self.a_rows_padded { m.next_multiple_of(4) } else { m };
        let operands =
            vec4_applies(self.ta, self.tb, a_rows as i64, n as i64, k as i64, self.a, self.lda, self.b, self.ldb);
        runs_vec_kernels(operands, self.c_vec() != 0, k)
    }

    /// The sub-matrices from column `first` of op(B) and C on, or from row `first` of op(A) and C on.
    pub(super) fn part(&self, cut: Cut, first: u64) -> Operands {
        match cut {
            Cut::Columns => Operands {
                b: columns_of_b(self.tb, self.b, self.ldb, first),
                c: self.c + first * self.ldc as u64 * 4,
                ..*self
            },
            Cut::Rows => Operands { a: rows_of_a(self.ta, self.a, self.lda, first), c: self.c + first * 4, ..*self },
        }
    }
}

/// One unsplit tile-kernel launch: C = alpha·op(A)·op(B) + beta·C over (m, n,
/// k); `scalars` are alpha's and beta's kernel arguments.
pub(super) fn launch_unsplit(
    handle: &Handle,
    spec: &KernelSpec,
    plan: &LaunchPlan,
    (m, n, k): (u64, u64, u64),
    scalars: [KernelArg; 4],
    x: &Operands,
) -> Result<()> {
    let kernel = handle.device.kernel(spec.name)?;
    // SAFETY: arguments as in kernels/gemm.cu; A, B, C span what their
    // dimensions and leading dimensions say (the caller's promise).
    unsafe { kernel.launch(handle.stream(), &plan.geometry, &plan.shape, &gemm_params(x, (m, n, k), scalars, 0)) }
}

/// The tile kernels' GEMM_PARAMS (kernels/gemm.cu; the stream-K kernels take
/// three more): C = alpha·op(A)·op(B) + beta·C over (m, n, k), `scalars`
/// alpha's and beta's arguments, C advancing by `c_split_stride` floats per
/// split (0 unsplit).
fn gemm_params(
    x: &Operands,
    (m, n, k): (u64, u64, u64),
    scalars: [KernelArg; 4],
    c_split_stride: u64,
) -> [KernelArg; 15] {
    let [alpha_value, alpha_address, beta_value, beta_address] = scalars;
    [
        I64(m as i64),
        I64(n as i64),
        I64(k as i64),
        alpha_value,
        alpha_address,
        Ptr(x.a),
        I64(x.lda),
        Ptr(x.b),
        I64(x.ldb),
        beta_value,
        beta_address,
        Ptr(x.c),
        I64(x.ldc),
        I64(c_split_stride as i64),
        I32(x.c_vec()),
    ]
}
