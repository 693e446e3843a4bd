//! `mublas bench overhead`: where the time of a tiny call goes. For SAXPY with
//! n = 1024 (the kernel itself is ~1 µs): host time per call of mublas and of
//! cuBLAS back to back, and the event-timed cost of the full mublas call, of
//! the same kernel launched directly (no argument handling, no tuner), and of
//! cuBLAS.

use crate::workload::{AxpyLayout, Timing, Workload};
use mublas::capi::types::mublasHandle_t;
use mublas::harness::{EventTimer, Random};
use mublas::launch::KernelArg::{F32, Ptr};
use mublas::real_cublas::RealCublas;
use mublas::routines::axpy;
use std::time::Instant;

pub fn run(
    h: &mublas::Handle,
    handle: mublasHandle_t,
    cublas: Option<&RealCublas>,
    timing: Timing,
) -> Result<(), String> {
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
    // n = 1024 with x and y 16-byte aligned: the single-pass float4 kernel, no head, 256 groups.
    assert_eq!(workload.spec.name, axpy::AXPY_VEC4_SINGLE.name);
    let direct = |i: usize| {
        let (x, y) = workload.addresses(i);
        let args = axpy::single_pass_args(n as i64, x, y, F32(0.5), Ptr(0));
        // SAFETY: the argument list of axpy_f32_vec4_single; x and y hold n floats.
        unsafe { kernel.launch(h.stream(), &plan.geometry, &plan.shape, &args) }
    };
    let started = Instant::now();
    for i in 0..calls {
        direct(i).map_err(|e| e.to_string())?;
    }
    let direct_host = started.elapsed().as_secs_f64() * 1e6 / calls as f64;
    mublas::harness::stream::synchronize(ctx, h.stream()).map_err(|e| e.to_string())?;

    // Event-timed, the mublas call and the direct launch alternating, so that a
    // drift of the GPU's clocks or of the host does not favour either.
    let (mut mublas_times, mut direct_times) = (Vec::new(), Vec::new());
    for i in 0..210 {
        let ours = timer
            .time_us(|| workload.call_mublas(2 * i).map_err(mublas::Error::ExecutionFailed))
            .map_err(|e| e.to_string())?;
        let bare = timer.time_us(|| direct(2 * i + 1)).map_err(|e| e.to_string())?;
        if i >= 10 {
            mublas_times.push(ours);
            direct_times.push(bare);
        }
    }
    let mublas_event = mublas::harness::timing::median(&mut mublas_times);
    let direct_event = mublas::harness::timing::median(&mut direct_times);
    println!("SAXPY n = {n}, plan {}x{} grid {:?}:", plan.shape.tx, plan.shape.ty, plan.geometry.grid);
    println!("  host µs per call, 20000 back to back: mublas {mublas_host:.2}, direct launch {direct_host:.2}");
    println!(
        "  event-timed µs (median of 200, alternating): mublas {mublas_event:.2}, direct launch {direct_event:.2}"
    );
    print_host_breakdown(h, handle, &workload)?;
    print_cold_host_breakdown(h, handle, &workload, &timer, &direct)?;
    if let Some(c) = cublas {
        let host = workload.cublas_host_us(c, calls)?;
        let (ours, theirs) = workload.time_against_cublas(c, &timer, 10, 200, timing)?;
        println!(
            "  cuBLAS: host µs per call {host:.2}; event-timed beside mublas's (see \"timing\" above): cuBLAS {:.2}, mublas {ours:.2}",
            theirs.unwrap_or(f64::NAN)
        );
    }
    Ok(())
}

/// Host ns of each step of a mublas call but the launch, each alone in a hot
/// loop: what the steps cost at best.
fn print_host_breakdown(h: &mublas::Handle, handle: mublasHandle_t, workload: &Workload) -> Result<(), String> {
    const ROUNDS: u32 = 200_000;
    let [api, bind, lookup, plan] = time_host_steps(h, handle, workload, &mut |step| {
        let started = Instant::now();
        for _ in 0..ROUNDS {
            step();
        }
        Ok(started.elapsed().as_secs_f64() * 1e9 / ROUNDS as f64)
    })?;
    println!(
        "  host ns per step ({ROUNDS} rounds): C-ABI entry + handle check {api:.0}, context bind {bind:.0}, kernel lookup {lookup:.0}, plan {plan:.0}"
    );
    Ok(())
}

/// Host ns of each step, of the whole mublas call and of the bare launch as the
/// benchmark meets them: once per event-timed call, right after the previous
/// call's synchronisation, when the driver's wait has left the caches and
/// branch predictors cold. A step is timed alone, then the direct launch runs
/// between the events; the medians of 200.
fn print_cold_host_breakdown(
    h: &mublas::Handle,
    handle: mublasHandle_t,
    workload: &Workload,
    timer: &EventTimer,
    direct: &dyn Fn(usize) -> mublas::Result<()>,
) -> Result<(), String> {
    // `step` returns whether the call it timed launched already (else the direct launch follows).
    let cold_ns = |step: &mut dyn FnMut(usize) -> bool| -> Result<f64, String> {
        let mut times = Vec::with_capacity(200);
        for i in 0..210 {
            let mut elapsed = 0.0;
            timer
                .time_us(|| {
                    let started = Instant::now();
                    let launched = step(i);
                    elapsed = started.elapsed().as_secs_f64() * 1e9;
                    if launched { Ok(()) } else { direct(i) }
                })
                .map_err(|e| e.to_string())?;
            if i >= 10 {
                times.push(elapsed);
            }
        }
        Ok(mublas::harness::timing::median(&mut times))
    };
    let launch = cold_ns(&mut |i| direct(i).is_ok())?;
    let call = cold_ns(&mut |i| workload.call_mublas(i).is_ok())?;
    let [api, bind, lookup, plan] = time_host_steps(h, handle, workload, &mut |step| {
        cold_ns(&mut |_| {
            step();
            false
        })
    })?;
    let clock = cold_ns(&mut |_| false)?;
    println!(
        "  host ns after a synchronised call (median of 200, each with the clock's own {clock:.0}): bare launch {launch:.0}, \
         full mublas call {call:.0}; C-ABI entry + handle check {api:.0}, context bind {bind:.0}, kernel lookup {lookup:.0}, plan {plan:.0}"
    );
    Ok(())
}

/// Times one host step (called as often as it likes), in ns.
type StepTimer<'a> = dyn FnMut(&mut dyn FnMut()) -> Result<f64, String> + 'a;

/// The host steps of a mublas call before its launch, each timed by `time`:
/// C-ABI entry + handle check, context bind, kernel lookup, plan.
fn time_host_steps(
    h: &mublas::Handle,
    handle: mublasHandle_t,
    workload: &Workload,
    time: &mut StepTimer,
) -> Result<[f64; 4], String> {
    let ctx = h.device.context();
    let kernel = h.device.kernel(workload.spec.name).map_err(|e| e.to_string())?;
    let mut stream = std::ptr::null_mut();
    let api = time(&mut || {
        // SAFETY: a live handle and a place for the stream.
        std::hint::black_box(unsafe { mublas::capi::handle::mublasGetStream(handle, &mut stream) });
    })?;
    let bind = time(&mut || {
        std::hint::black_box(mublas::launch::context::ContextGuard::bind(ctx).is_ok());
    })?;
    let lookup = time(&mut || {
        std::hint::black_box(h.device.kernel(std::hint::black_box(workload.spec.name)).is_ok());
    })?;
    let plan = time(&mut || {
        std::hint::black_box(h.device.tuner.plan(
            workload.spec,
            &kernel.model,
            std::hint::black_box(&workload.problem),
        ));
    })?;
    Ok([api, bind, lookup, plan])
}
