//! A kernel's launch: the work buffer held for a split until the launch is
//! queued, and the argument list.

use super::clusters::CLUSTER_BLOCKS;
use super::geometry::{Layout, reduction_split, split_slots};
use super::{Call, problem};
use crate::handle::{Handle, SPLIT_SLOTS};
use crate::launch::KernelArg::{I64, Ptr};
use crate::launch::context::ContextGuard;
use crate::status::{Error, Result};
use crate::tuner::{KernelSpec, LaunchShape};

pub(super) fn launch(handle: &Handle, spec: &'static KernelSpec, call: &Call, shape: LaunchShape) -> Result<()> {
    let device = &handle.device;
    let kernel = device.kernel(spec.name)?;
    let problem = problem(call.m, call.n);
    let layout = Layout::of_kernel(spec, call.op, call.m);
    let (_, splits) = reduction_split(layout, &problem, &shape);
    // The cluster kernels add their ranges in the cluster: partial vectors only for several clusters a tile.
    let in_cluster = matches!(layout, Layout::NCluster(_));
    let (partial_vectors, unsplit) = if in_cluster { (splits / CLUSTER_BLOCKS, CLUSTER_BLOCKS) } else { (splits, 1) };
    // Held until the launch is queued: calls on this handle from other threads
    // wait, and the launch is fenced against the buffer's other users on
    // other streams (Handle::work_area), so that two launches never share the
    // counters at once (outside CUDA graphs, which the program orders). Without
    // the work buffer (its limit, or no memory to grow it) the launch is
    // unsplit (one cluster a tile).
    let (work, shape) = if partial_vectors <= 1 {
        (None, shape)
    } else {
        debug_assert!(split_slots(call.op, call.m, call.n, partial_vectors) <= SPLIT_SLOTS);
        match handle.work_area(0) {
            Ok(work) => (Some(work), shape),
            Err(Error::AllocFailed(why)) => {
                log::info!("SGEMV: not splitting ({why})");
                (None, LaunchShape { split: unsplit, ..shape })
            }
            Err(e) => return Err(e),
        }
    };
    let geometry = (spec.geometry)(&problem, &shape);
    let (per_split, splits) = reduction_split(layout, &problem, &shape);
    debug_assert_eq!(splits, geometry.grid.1);
    debug_assert!(splits == unsplit || work.is_some());
    let (alpha_value, alpha_address) = call.alpha.kernel_args();
    let (beta_value, beta_address) = call.beta.kernel_args();
    let _bound = ContextGuard::bind(device.context())?;
    let (counters, slots) = work.as_ref().map_or((0, 0), |work| (work.counters(), work.slots()));
    // SAFETY: the argument list matches GEMV_PARAMS in kernels/gemv.cu; A spans
    // lda·(n-1) + m floats and x, y their lengths with their increments, which
    // the caller vouches for as cuBLAS's does; the work buffer holds the
    // counters and the slots of `partial_vectors` partial vectors (split_slots).
    unsafe {
        kernel.launch(
            handle.stream(),
            &geometry,
            &shape,
            &[
                I64(call.m),
                I64(call.n),
                alpha_value,
                alpha_address,
                Ptr(call.a),
                I64(call.lda),
                Ptr(call.x.first_element()),
                I64(call.x.inc),
                beta_value,
                beta_address,
                Ptr(call.y.first_element()),
                I64(call.y.inc),
                I64(per_split as i64),
                Ptr(counters),
                Ptr(slots),
            ],
        )
    }
}
