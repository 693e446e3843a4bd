//! `mublas bench overhead`: where the time of a tiny call goes. For SAXPY with
//! n = 1024 (the kernel itself is ~1 µs): host time per call of mublas and of
//! cuBLAS back to back, and the event-timed cost of the full mublas call, of
//! the same kernel launched directly (no argument handling, no tuner), and of
//! cuBLAS.

use crate::workload::{AxpyLayout, Workload};
use mublas::capi::types::mublasHandle_t;
use mublas::harness::{EventTimer, Random};
use mublas::launch::KernelArg::{F32, I64, Ptr};
use mublas::real_cublas::RealCublas;
use std::time::Instant;

pub fn run(h: &mublas::Handle, handle: mublasHandle_t, cublas: Option<&RealCublas>) -> Result<(), String> {
    let n = 1024usize;
    let mut random = Random::new(5);
    let workload = Workload::saxpy(h, handle, n, AxpyLayout::Aligned, &mut random)?;
    let timer = EventTimer::new(h.device.context(), h.stream()).map_err(|e| e.to_string())?;
    let calls = 20_000;
    let ctx = h.device.context();

    let started = Instant::now();
    for i in 0..calls {
        workload.call_mublas(i)?;
    }
    let mublas_host = started.elapsed().as_secs_f64() * 1e6 / calls as f64;
    mublas::harness::stream::synchronize(ctx, h.stream()).map_err(|e| e.to_string())?;

    let kernel = h.device.kernel(workload.spec.name).map_err(|e| e.to_string())?;
    let plan = h.device.tuner.plan(workload.spec, &kernel.model, &workload.problem);
    let _bound = mublas::launch::context::ContextGuard::bind(ctx).map_err(|e| e.to_string())?;
    // The same rotation of inputs as the mublas calls: reusing one x and y would
    // keep them in the L2 and time a faster kernel, not a cheaper host path.
    let direct = |i: usize| {
        let (x, y) = workload.addresses(i);
        // SAFETY: the argument list of axpy_f32_vec4; x and y hold n floats.
        unsafe { kernel.launch(h.stream(), &plan.geometry, &plan.shape, &[I64(n as i64), F32(0.5), Ptr(0), Ptr(x), Ptr(y)]) }
    };
    let started = Instant::now();
    for i in 0..calls {
        direct(i).map_err(|e| e.to_string())?;
    }
    let direct_host = started.elapsed().as_secs_f64() * 1e6 / calls as f64;
    mublas::harness::stream::synchronize(ctx, h.stream()).map_err(|e| e.to_string())?;

    let mublas_event = workload.time_mublas(&timer, 10, 200)?;
    let direct_event = timer.median_us(10, 200, direct).map_err(|e| e.to_string())?;
    println!("SAXPY n = {n}, plan {}x{} grid {:?}:", plan.shape.tx, plan.shape.ty, plan.geometry.grid);
    println!("  host µs per call, 20000 back to back: mublas {mublas_host:.2}, direct launch {direct_host:.2}");
    println!("  event-timed µs (median of 200):      mublas {mublas_event:.2}, direct launch {direct_event:.2}");
    if let Some(c) = cublas {
        let cublas_event = workload.time_cublas(c, &timer, 10, 200)?.unwrap_or(f64::NAN);
        let host = workload.cublas_host_us(c, calls)?;
        println!("  cuBLAS: host µs per call {host:.2}, event-timed {cublas_event:.2}");
    }
    Ok(())
}
