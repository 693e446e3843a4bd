//! `mublas bench`: mublas against the real cuBLAS in the same run.
//!
//! Method (shared/docs/testing.md): CUDA events around each call on the
//! stream, 3 warm-up calls, the median of `--reps` (default 30) timed calls,
//! inputs rotated over enough copies that the working set exceeds 512 MiB
//! (twice the H100's 50 MB L2 many times over), random data, cuBLAS measured
//! the same way right after mublas at each size.

use mublas::capi::blas1::mublasSaxpy;
use mublas::capi::blas2::mublasSgemv;
use mublas::capi::handle::{mublasCreate, mublasDestroy};
use mublas::capi::types::*;
use mublas::harness::{EventTimer, Random};
use mublas::launch::DeviceBuffer;
use mublas::real_cublas::RealCublas;
use std::fmt::Write as _;

const WARMUPS: usize = 3;
/// Bytes of distinct inputs each size cycles through.
const ROTATION_BYTES: usize = 512 << 20;

struct Options {
    routines: Vec<String>,
    reps: usize,
    quick: bool,
    csv: Option<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options { routines: Vec::new(), reps: 30, quick: false, csv: None };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--reps" => options.reps = it.next().and_then(|v| v.parse().ok()).ok_or("--reps needs a number")?,
            "--csv" => options.csv = Some(it.next().ok_or("--csv needs a file")?.clone()),
            "saxpy" | "sgemv" => options.routines.push(arg.clone()),
            other => return Err(format!("unknown benchmark argument {other:?} (routines: saxpy, sgemv)")),
        }
    }
    if options.routines.is_empty() {
        options.routines.push("saxpy".into());
        options.routines.push("sgemv".into());
    }
    Ok(options)
}

/// One measured row.
struct Row {
    routine: &'static str,
    shape: String,
    mublas_us: f64,
    cublas_us: Option<f64>,
    /// Bytes moved (or flops, for GEMM) per call.
    work: f64,
    unit: &'static str,
    plan: String,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    mublas::launch::driver::init().map_err(|e| format!("no usable GPU: {e}"))?;
    let mut handle: mublasHandle_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let status = unsafe { mublasCreate(&mut handle) };
    if status != MUBLAS_STATUS_SUCCESS {
        return Err(format!("mublasCreate failed with status {status}"));
    }
    // SAFETY: a live handle from mublasCreate is a Handle.
    let h: &mublas::Handle = unsafe { &*(handle as *const mublas::Handle) };
    let cublas = match RealCublas::get() {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("mublas bench: no cuBLAS to compare with: {e}");
            None
        }
    };
    println!("device: {} ({} SMs); cuBLAS: {}", h.device.model().name, h.device.model().sm_count, cublas.map(|c| c.soname).unwrap_or("none"));
    let mut rows = Vec::new();
    for routine in &options.routines {
        match routine.as_str() {
            "saxpy" => bench_saxpy(h, handle, cublas, &options, &mut rows)?,
            "sgemv" => bench_sgemv(h, handle, cublas, &options, &mut rows)?,
            _ => unreachable!("parse accepts only known routines"),
        }
    }
    print_table(&rows);
    if let Some(path) = &options.csv {
        std::fs::write(path, csv(&rows)).map_err(|e| format!("{path}: {e}"))?;
    }
    // SAFETY: created above, destroyed once.
    unsafe { mublasDestroy(handle) };
    Ok(())
}

/// Device memory holding `copies` rotations of the inputs of one size, filled with random data.
struct Pool {
    buffer: DeviceBuffer,
    slot_floats: usize,
    copies: usize,
}

impl Pool {
    fn new(h: &mublas::Handle, slot_floats: usize, random: &mut Random) -> Result<Pool, String> {
        let copies = (ROTATION_BYTES / (slot_floats * 4)).max(1);
        let floats = copies * slot_floats;
        let buffer = DeviceBuffer::new(h.device.context(), floats * 4).map_err(|e| e.to_string())?;
        // Fill in chunks to bound host memory.
        let chunk = 1 << 24;
        let mut offset = 0;
        while offset < floats {
            let len = chunk.min(floats - offset);
            buffer.write(offset * 4, &random.vector(len)).map_err(|e| e.to_string())?;
            offset += len;
        }
        Ok(Pool { buffer, slot_floats, copies })
    }

    /// Address of float `offset` within rotation slot `i`.
    fn at(&self, i: usize, offset: usize) -> u64 {
        self.buffer.address() + (((i % self.copies) * self.slot_floats + offset) * 4) as u64
    }
}

fn bench_saxpy(h: &mublas::Handle, handle: mublasHandle_t, cublas: Option<&RealCublas>, options: &Options, rows: &mut Vec<Row>) -> Result<(), String> {
    let mut random = Random::new(2026);
    let powers: Vec<u32> = if options.quick { vec![12, 16, 20, 24, 26] } else { (10..=28).collect() };
    let timer = EventTimer::new(h.device.context(), h.stream()).map_err(|e| e.to_string())?;
    let alpha = 0.5f32;
    for p in powers {
        let n = 1usize << p;
        let pool = Pool::new(h, 2 * n, &mut random)?;
        let mublas_us = timer
            .median_us(WARMUPS, options.reps, |i| {
                // SAFETY: x and y are n floats inside the pool.
                let status = unsafe { mublasSaxpy(handle, n as i32, &alpha, pool.at(i, 0) as *const f32, 1, pool.at(i, n) as *mut f32, 1) };
                if status == 0 { Ok(()) } else { Err(mublas::Error::ExecutionFailed(format!("mublasSaxpy status {status}"))) }
            })
            .map_err(|e| e.to_string())?;
        let cublas_us = match cublas {
            None => None,
            Some(c) => Some(time_cublas(c, &timer, options.reps, |ch, i| unsafe {
                (c.saxpy)(ch, n as i32, &alpha, pool.at(i, 0) as *const f32, 1, pool.at(i, n) as *mut f32, 1)
            })?),
        };
        let (spec, problem) = mublas::routines::axpy::select_kernel(n as i64, &vec1(pool.at(0, 0), n), &vec1(pool.at(0, n), n));
        let kernel = h.device.kernel(spec.name).map_err(|e| e.to_string())?;
        let plan = h.device.tuner.plan(spec, &kernel.model, &problem);
        rows.push(Row {
            routine: "saxpy",
            shape: format!("n=2^{p}"),
            mublas_us,
            cublas_us,
            work: 3.0 * n as f64 * 4.0,
            unit: "GB/s",
            plan: format!("{} {}x{} grid {}", spec.name, plan.shape.tx, plan.shape.ty, plan.geometry.grid.0),
        });
    }
    Ok(())
}

/// SGEMV sizes (m, n): square ones, then the tall, wide and extreme shapes.
fn sgemv_sizes(quick: bool) -> Vec<(usize, usize)> {
    if quick {
        return vec![(1024, 1024), (4096, 4096), (10000, 10000), (32768, 32768), (65536, 1024), (16, 1 << 20)];
    }
    let square = [256, 512, 1000, 1024, 2000, 2048, 3000, 4096, 4097, 5000, 8192, 10000, 16384, 20000, 32768];
    let mut sizes: Vec<(usize, usize)> = square.iter().map(|&n| (n, n)).collect();
    sizes.extend([(1024, 65536), (65536, 1024), (16, 1 << 20), (1 << 20, 16)]);
    sizes
}

fn bench_sgemv(h: &mublas::Handle, handle: mublasHandle_t, cublas: Option<&RealCublas>, options: &Options, rows: &mut Vec<Row>) -> Result<(), String> {
    use mublas::routines::gemv::{self, Op};
    let mut random = Random::new(2027);
    let timer = EventTimer::new(h.device.context(), h.stream()).map_err(|e| e.to_string())?;
    let (alpha, beta) = (0.75f32, 0.5f32);
    for (m, n) in sgemv_sizes(options.quick) {
        // One slot: A (lda = m, 16-byte aligned when m % 4 == 0), then x and y, each
        // long enough for either op; slots start 16-byte aligned.
        let xy = m.max(n).next_multiple_of(4);
        let slot = (m * n).next_multiple_of(4) + 2 * xy;
        let pool = Pool::new(h, slot, &mut random)?;
        let (a, x, y) = (|i| pool.at(i, 0), |i| pool.at(i, slot - 2 * xy), |i| pool.at(i, slot - xy));
        for (op, trans, name) in [(Op::N, MUBLAS_OP_N, "N"), (Op::T, MUBLAS_OP_T, "T")] {
            let call = |i: usize| {
                // SAFETY: A, x and y lie inside the pool's slot i.
                let status = unsafe {
                    mublasSgemv(handle, trans, m as i32, n as i32, &alpha, a(i) as *const f32, m as i32, x(i) as *const f32, 1, &beta, y(i) as *mut f32, 1)
                };
                if status == 0 { Ok(()) } else { Err(mublas::Error::ExecutionFailed(format!("mublasSgemv status {status}"))) }
            };
            let mublas_us = timer.median_us(WARMUPS, options.reps, call).map_err(|e| e.to_string())?;
            let cublas_us = match cublas {
                None => None,
                Some(c) => Some(time_cublas(c, &timer, options.reps, |ch, i| unsafe {
                    (c.sgemv)(ch, trans, m as i32, n as i32, &alpha, a(i) as *const f32, m as i32, x(i) as *const f32, 1, &beta, y(i) as *mut f32, 1)
                })?),
            };
            let (spec, plan) = gemv::plan(h, op, m as i64, n as i64, a(0), m as i64).map_err(|e| e.to_string())?;
            rows.push(Row {
                routine: "sgemv",
                shape: format!("{name} {m}x{n}"),
                mublas_us,
                cublas_us,
                work: gemv::bytes_moved(op, m as i64, n as i64),
                unit: "GB/s",
                plan: format!("{} {}x{} split {} grid {}", spec.name, plan.shape.tx, plan.shape.ty, plan.geometry.grid.1, plan.geometry.grid.0),
            });
        }
    }
    Ok(())
}

fn vec1(base: u64, n: usize) -> mublas::routines::vector::StridedVector {
    mublas::routines::vector::StridedVector { base, len: n as i64, inc: 1 }
}

/// Times a cuBLAS call by the same method, on a cuBLAS handle bound to the same stream.
fn time_cublas(c: &RealCublas, timer: &EventTimer, reps: usize, call: impl Fn(mublas::real_cublas::CublasHandle, usize) -> i32) -> Result<f64, String> {
    let mut ch = std::ptr::null_mut();
    // SAFETY: cuBLAS's own create/destroy on the current device.
    unsafe {
        if (c.create)(&mut ch) != 0 {
            return Err("cublasCreate failed".into());
        }
    }
    let result = timer.median_us(WARMUPS, reps, |i| {
        let status = call(ch, i);
        if status == 0 { Ok(()) } else { Err(mublas::Error::ExecutionFailed(format!("cuBLAS status {status}"))) }
    });
    // SAFETY: destroyed once.
    unsafe { (c.destroy)(ch) };
    result.map_err(|e| e.to_string())
}

fn rate(row: &Row, us: f64) -> f64 {
    row.work / (us * 1e-6) / if row.unit == "GB/s" { 1e9 } else { 1e12 }
}

fn print_table(rows: &[Row]) {
    println!("{:<7} {:<22} {:>10} {:>9} {:>10} {:>9} {:>8}  {}", "routine", "size", "mublas us", "rate", "cuBLAS us", "rate", "mu/cu", "mublas plan");
    for r in rows {
        let (cu_us, cu_rate, ratio) = match r.cublas_us {
            Some(c) => (format!("{c:.1}"), format!("{:.0}", rate(r, c)), format!("{:.2}", c / r.mublas_us)),
            None => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "{:<7} {:<22} {:>10.1} {:>9.0} {:>10} {:>9} {:>8}  {}  [{}]",
            r.routine, r.shape, r.mublas_us, rate(r, r.mublas_us), cu_us, cu_rate, ratio, r.plan, r.unit
        );
    }
}

fn csv(rows: &[Row]) -> String {
    let mut out = String::from("routine,size,mublas_us,cublas_us,work,unit,plan\n");
    for r in rows {
        let _ = writeln!(out, "{},{},{:.3},{},{},{},{}", r.routine, r.shape, r.mublas_us, r.cublas_us.map(|c| format!("{c:.3}")).unwrap_or_default(), r.work, r.unit, r.plan);
    }
    out
}
