//! `mublas bench floor`: the least time an SGEMV of each benchmarked shape can
//! take on this GPU, measured: a kernel that only reads the m·n floats of A
//! (kernels/gemv.cu, gemv_read_floor_f32), timed like the routines (CUDA
//! events, median of `reps`, inputs rotated past the L2), at the fastest of
//! several launch configurations. Beside it, what cuBLAS takes and the time
//! 1.2× and 1.5× cuBLAS would need: a target below the floor cannot be met by
//! any kernel under this way of timing.

use crate::workload::{Pool, WARMUPS, Workload};
use mublas::capi::types::mublasHandle_t;
use mublas::harness::{EventTimer, Random};
use mublas::launch::KernelArg::{I64, Ptr};
use mublas::real_cublas::RealCublas;
use mublas::tuner::{Geometry, LaunchShape};

pub fn run(
    h: &mublas::Handle,
    handle: mublasHandle_t,
    cublas: Option<&RealCublas>,
    timer: &EventTimer,
    random: &mut Random,
    quick: bool,
    reps: usize,
) -> Result<(), String> {
    use mublas::routines::gemv::Op;
    let kernel = h.device.kernel(mublas::routines::gemv::READ_FLOOR_NAME).map_err(|e| e.to_string())?;
    let sms = h.device.model().sm_count;
    let _bound = mublas::launch::context::ContextGuard::bind(h.device.context()).map_err(|e| e.to_string())?;
    println!(
        "floor: µs to read A once (m·n floats) and nothing else, fastest of: threads 256/512/1024 × 1…8 blocks per SM (grid-stride), or one block per 4 float4 per thread"
    );
    println!(
        "{:<16} {:>9} {:>7} {:>26} {:>11} {:>11} {:>11} {:>11}",
        "m×n", "floor µs", "GB/s", "fastest launch", "cuBLAS N", "cuBLAS T", "N 1.2x/1.5x", "T 1.2x/1.5x"
    );
    for (m, n) in crate::bench::sgemv_sizes(quick) {
        let floats = m * n;
        let n4 = floats / 4;
        // A, then one float for the sink (never written: see the kernel).
        let sink_at = floats.next_multiple_of(4);
        let pool = Pool::new(h, sink_at + 4, random)?;
        let r = pool.rotation();
        let mut configs: Vec<(u32, u32)> = Vec::new();
        for threads in [256u32, 512, 1024] {
            for per_sm in [1u32, 2, 4, 8] {
                if threads * per_sm <= 2048 {
                    configs.push((threads, per_sm * sms));
                }
            }
            configs.push((threads, (n4 as u64).div_ceil(4 * threads as u64).clamp(1, i32::MAX as u64) as u32));
        }
        let mut best = (f64::INFINITY, 0u32, 0u32);
        for (threads, blocks) in configs {
            let geometry = Geometry { grid: (blocks, 1, 1), dynamic_shared_bytes: 0 };
            let shape = LaunchShape { tx: threads, ty: 1, split: 1 };
            let us = timer
                .median_us(WARMUPS, reps, |i| {
                    // SAFETY: gemv_read_floor_f32(n4, A, sink): the slot holds n4 float4s of A, then the sink.
                    unsafe {
                        kernel.launch(
                            h.stream(),
                            &geometry,
                            &shape,
                            &[I64(n4 as i64), Ptr(r.at(i, 0)), Ptr(r.at(i, sink_at))],
                        )
                    }
                })
                .map_err(|e| e.to_string())?;
            if us < best.0 {
                best = (us, threads, blocks);
            }
        }
        drop(pool);
        // cuBLAS's time for the same SGEMV, in a run of its own.
        let mut cublas_us = [None, None];
        if let Some(c) = cublas {
            for (slot, op) in [Op::N, Op::T].into_iter().enumerate() {
                cublas_us[slot] = Workload::sgemv(h, handle, op, m, n, random)?.time_cublas(c, timer, WARMUPS, reps)?;
            }
        }
        let show = |us: Option<f64>| us.map_or("-".to_string(), |us| format!("{us:.1}"));
        let needs = |us: Option<f64>| us.map_or("-".to_string(), |us| format!("{:.1}/{:.1}", us / 1.2, us / 1.5));
        println!(
            "{:<16} {:>9.1} {:>7.0} {:>26} {:>11} {:>11} {:>11} {:>11}",
            format!("{m}x{n}"),
            best.0,
            (n4 * 16) as f64 / best.0 / 1e3,
            format!("{} threads × {} blocks", best.1, best.2),
            show(cublas_us[0]),
            show(cublas_us[1]),
            needs(cublas_us[0]),
            needs(cublas_us[1])
        );
    }
    println!(
        "(N/T 1.2x/1.5x: the µs a call must take to be 1.2 or 1.5 times as fast as cuBLAS; below the floor it cannot)"
    );
    Ok(())
}
