//! Handles on two devices: each binds the device current when it was created
//! (as `cudaSetDevice` leaves it), and its calls run there from any thread,
//! whatever device that thread has current, also from two threads at once.
//! With one GPU both handles are on it (two handles, two threads); skipped,
//! saying so, without a GPU.

mod common;

use common::*;
use cudarc::driver::{result, sys};
use mublas::capi::blas1::mublasSaxpy;
use mublas::capi::blas2::mublasSgemv;
use mublas::capi::gemm::mublasSgemm;
use mublas::capi::handle::mublasCreate;
use mublas::capi::types::*;
use mublas::harness::{GuardedBuffer, Random};

/// Makes device `ordinal`'s primary context current on this thread, as the CUDA runtime's `cudaSetDevice` does.
fn make_current(ordinal: i32) -> sys::CUcontext {
    let device = result::device::get(ordinal).unwrap();
    // SAFETY: a valid device; the test process keeps the retain.
    let context = unsafe { result::primary_ctx::retain(device) }.unwrap();
    // SAFETY: a live primary context.
    unsafe { result::ctx::set_current(context) }.unwrap();
    context
}

/// One device's handle and data: SAXPY vectors, an SGEMV and an SGEMM problem.
struct OnDevice {
    gpu: Gpu,
    x: Vec<f32>,
    y: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    dx: GuardedBuffer,
    dy: GuardedBuffer,
    da: GuardedBuffer,
    db: GuardedBuffer,
    dv: GuardedBuffer,
    dc: GuardedBuffer,
}

// SAFETY: a mublas handle may be called from any thread (its state is atomics and locks); the buffers are Sync.
unsafe impl Sync for OnDevice {}

const N: usize = 100_003;
/// SGEMV is S × S (lda S + 1), SGEMM S × S × S: one split along k on an H100.
const S: usize = 1024;

impl OnDevice {
    fn new(ordinal: i32, random: &mut Random) -> OnDevice {
        make_current(ordinal);
        OnDevice::in_current_context(ordinal, random)
    }

    /// A handle made with the thread's current context (on device `ordinal`), and its data.
    fn in_current_context(ordinal: i32, random: &mut Random) -> OnDevice {
        let mut handle: mublasHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        assert_eq!(unsafe { mublasCreate(&mut handle) }, MUBLAS_STATUS_SUCCESS);
        let gpu = Gpu::from_handle(handle);
        assert_eq!(gpu.inner().device.ordinal, ordinal, "the handle binds the current device");
        let ctx = gpu.context();
        let (x, y, a, b) = (random.vector(N), random.vector(N), random.vector((S + 1) * S), random.vector(S * S));
        let buffer = |data: &[f32]| GuardedBuffer::from_slice(ctx, data, 1).unwrap();
        let (dx, dy, da, db) = (buffer(&x), buffer(&y), buffer(&a), buffer(&b));
        let (dv, dc) = (buffer(&vec![f32::NAN; S]), buffer(&vec![f32::NAN; S * S]));
        OnDevice { gpu, x, y, a, b, dx, dy, da, db, dv, dc }
    }

    /// SAXPY (y += 0.5·x), SGEMV (v = A·x[..S]) and SGEMM (C = A·B), queued on the handle's stream.
    fn call(&self) {
        let (half, one, zero) = (0.5f32, 1.0f32, 0.0f32);
        let (h, s) = (self.gpu.handle, S as i32);
        let ptr = |b: &GuardedBuffer| b.address() as *mut f32;
        // SAFETY: the buffers hold what the sizes say, on the handle's device.
        unsafe {
            assert_eq!(mublasSaxpy(h, N as i32, &half, ptr(&self.dx), 1, ptr(&self.dy), 1), MUBLAS_STATUS_SUCCESS);
            let status = mublasSgemv(h, 0, s, s, &one, ptr(&self.da), s + 1, ptr(&self.dx), 1, &zero, ptr(&self.dv), 1);
            assert_eq!(status, MUBLAS_STATUS_SUCCESS);
            let status =
                mublasSgemm(h, 0, 0, s, s, s, &one, ptr(&self.da), s + 1, ptr(&self.db), s, &zero, ptr(&self.dc), s);
            assert_eq!(status, MUBLAS_STATUS_SUCCESS);
        }
    }

    /// Checks the results of `calls` calls (SAXPY accumulates; the others overwrite).
    fn check(&self, what: &str, calls: usize, random: &mut Random) {
        mublas::harness::stream::synchronize(self.gpu.context(), std::ptr::null_mut()).unwrap();
        let r = calls as f64;
        let expected: Vec<f64> = (0..N).map(|i| self.y[i] as f64 + r * 0.5 * self.x[i] as f64).collect();
        let magnitude: Vec<f64> = (0..N).map(|i| self.y[i].abs() as f64 + r * 0.5 * self.x[i].abs() as f64).collect();
        assert_close(&format!("{what}: saxpy"), &self.dy.read().unwrap(), &expected, &magnitude, 2.0 * (r + 1.0));
        let a = |i: usize, l: usize| self.a[i + l * (S + 1)] as f64;
        let x64: Vec<f64> = self.x[..S].iter().map(|&v| v as f64).collect();
        let (expected, magnitude) = product(S, a, &x64);
        assert_close(
            &format!("{what}: sgemv"),
            &self.dv.read().unwrap(),
            &expected,
            &magnitude,
            2.0 * (S as f64 + 2.0),
        );
        let c = self.dc.read().unwrap();
        assert!(c.iter().all(|v| v.is_finite()), "{what}: sgemm left an element unwritten");
        let (mut got, mut expected, mut magnitude) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..64 {
            let (i, j) = ((random.next_u64() % S as u64) as usize, (random.next_u64() % S as u64) as usize);
            let terms: Vec<f64> = (0..S).map(|l| a(i, l) * self.b[l + j * S] as f64).collect();
            got.push(c[i + j * S]);
            expected.push(terms.iter().sum());
            magnitude.push(terms.iter().map(|t| t.abs()).sum());
        }
        assert_close(&format!("{what}: sgemm"), &got, &expected, &magnitude, 2.0 * (S as f64 + 2.0));
    }

    fn restore(&self) {
        self.dy.write(&self.y).unwrap();
    }
}

#[test]
fn gpu_handles_on_two_devices() {
    let test = "gpu_handles_on_two_devices";
    if !driver_or_skip(test) {
        return;
    }
    let devices = result::device::get_count().unwrap();
    let ordinals = if devices >= 2 {
        [0, 1]
    } else {
        say(&format!("{test}: one GPU here: both handles on device 0 (two devices only where there are two)"));
        [0, 0]
    };
    let mut random = random(test);
    let on = ordinals.map(|ordinal| OnDevice::new(ordinal, &mut random));
    // Each handle called from a thread with the other handle's device current; the thread's context is left as it was.
    for (d, other) in [(0usize, ordinals[1]), (1, ordinals[0])] {
        let current = make_current(other);
        on[d].call();
        assert_eq!(result::ctx::get_current().unwrap(), Some(current), "the caller's context is restored");
        on[d].check(&format!("handle {d} called with device {other} current"), 1, &mut random);
        on[d].restore();
    }
    // Both at once, each from a thread with the other handle's device current, 20 rounds.
    let rounds = 20;
    std::thread::scope(|scope| {
        for (d, device) in on.iter().enumerate() {
            scope.spawn(move || {
                make_current(ordinals[1 - d]);
                for _ in 0..rounds {
                    device.call();
                }
            });
        }
    });
    for (d, device) in on.iter().enumerate() {
        device.check(&format!("handle {d}, two threads at once"), rounds, &mut random);
    }
}

/// A context the program made itself (cuCtxCreate, as PyCUDA or a driver-API
/// program does), current when it creates the handle: the handle binds it,
/// as cuBLAS's does, and its calls run there (the program's memory is that
/// context's), also from a thread with the primary context current.
#[test]
fn gpu_handle_in_a_context_of_the_programs_own() {
    let test = "gpu_handle_in_a_context_of_the_programs_own";
    if !driver_or_skip(test) {
        return;
    }
    let mut random = random(test);
    let device = result::device::get(0).unwrap();
    let mut own: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: an out-pointer and a valid device; the new context becomes current on this thread.
    unsafe { sys::cuCtxCreate_v2(&mut own, 0, device) }.result().unwrap();
    let on = OnDevice::in_current_context(0, &mut random);
    assert_eq!(on.gpu.context(), own, "the handle binds the context current at its creation");
    on.call();
    on.check("in the program's own context", 1, &mut random);
    on.restore();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let primary = make_current(0);
            on.call();
            assert_eq!(result::ctx::get_current().unwrap(), Some(primary), "the caller's context is restored");
        });
    });
    on.check("called from a thread with the primary context current", 1, &mut random);
    drop(on);
    // SAFETY: made above; its handle and buffers are gone.
    unsafe { sys::cuCtxDestroy_v2(own) }.result().unwrap();
}
