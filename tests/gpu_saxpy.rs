//! SAXPY on the GPU against a float64 CPU reference and against real cuBLAS,
//! over the case matrix of shared/docs/testing.md. Skipped, saying so, when
//! there is no GPU.

mod common;

use common::*;
use mublas::capi::blas1::mublasSaxpy;
use mublas::capi::handle::*;
use mublas::capi::types::*;
use mublas::harness::{GuardedBuffer, Random, Stream};
use mublas::real_cublas::RealCublas;

struct Case {
    n: usize,
    incx: i64,
    incy: i64,
    offset: usize,
    alpha: f32,
    device_alpha: bool,
}

/// Runs one case through mublasSaxpy (and cuBLAS when given), checking the
/// result, the untouched storage between strided elements, and the guards.
fn run_case(gpu: &Gpu, random: &mut Random, case: &Case, cublas: Option<&CublasSession>) {
    let ctx = gpu.context();
    let (xs, ys) = (span(case.n, case.incx), span(case.n, case.incy));
    let x = random.vector(xs);
    let y = random.vector(ys);
    let dx = GuardedBuffer::from_slice(ctx, &x, case.offset).unwrap();
    let dy = GuardedBuffer::from_slice(ctx, &y, case.offset).unwrap();
    let alpha_dev = GuardedBuffer::from_slice(ctx, &[case.alpha], 0).unwrap();
    let mode = if case.device_alpha { MUBLAS_POINTER_MODE_DEVICE } else { MUBLAS_POINTER_MODE_HOST };
    let alpha_ptr: *const f32 = if case.device_alpha { alpha_dev.address() as *const f32 } else { &case.alpha };
    let what = format!(
        "n={} incx={} incy={} offset={} alpha={} device_alpha={}",
        case.n, case.incx, case.incy, case.offset, case.alpha, case.device_alpha
    );
    unsafe {
        assert_eq!(mublasSetPointerMode(gpu.handle, mode), MUBLAS_STATUS_SUCCESS);
        let status = mublasSaxpy(
            gpu.handle,
            case.n as i32,
            alpha_ptr,
            dx.address() as *const f32,
            case.incx as i32,
            dy.address() as *mut f32,
            case.incy as i32,
        );
        assert_eq!(status, MUBLAS_STATUS_SUCCESS, "{what}");
        assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_SUCCESS);
    }
    mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
    let got = dy.read().unwrap();
    assert!(dx.guards_intact().unwrap() && dy.guards_intact().unwrap(), "{what}: guard zone overwritten");
    assert_eq!(dx.read().unwrap(), x, "{what}: x was modified");

    // Expected storage: every element updated (with incy = 0 all n terms on y[0]), the gaps between strided
    // elements untouched.
    let (expected, magnitude) = saxpy_reference(case.n, case.alpha, &x, case.incx, &y, case.incy);
    if case.alpha == 0.0 {
        assert_eq!(got, y, "{what}: alpha = 0 must leave y bitwise untouched");
    }
    let ulps = if case.incy == 0 { sum_to_y0_roundings(case.n) } else { 2.0 };
    assert_close(&what, &got, &expected, &magnitude, ulps);

    if let Some(cublas) = cublas {
        let dy2 = GuardedBuffer::from_slice(ctx, &y, case.offset).unwrap();
        let (lib, handle) = cublas.pair();
        unsafe {
            assert_eq!((lib.set_pointer_mode)(handle, mode), 0);
            assert_eq!(
                (lib.saxpy)(
                    handle,
                    case.n as i32,
                    alpha_ptr,
                    dx.address() as *const f32,
                    case.incx as i32,
                    dy2.address() as *mut f32,
                    case.incy as i32
                ),
                0
            );
            mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
        }
        let theirs = dy2.read().unwrap();
        if case.incy == 0 {
            // cuBLAS adds the n terms into y[0] in an order of its own (atomic adds, as its times suggest:
            // docs/performance.md), so only any order's bound holds for it, which for large n is loose;
            // mublas's own y[0] is held to its fixed order's much tighter bound above.
            assert_close(&format!("{what}: {}", lib.soname), &theirs, &expected, &magnitude, case.n as f64 + 1.0);
        } else {
            // Both compute one fused multiply-add per element: the same bits.
            assert_eq!(got, theirs, "{what}: differs from {}", lib.soname);
        }
    }
}

#[test]
fn gpu_saxpy_case_matrix() {
    let Some(gpu) = gpu_or_skip("gpu_saxpy_case_matrix") else { return };
    let mut random = random("gpu_saxpy_case_matrix");
    let session = CublasSession::open("gpu_saxpy_case_matrix");
    let cublas = session.as_ref();
    let increments = [1i64, -1, 3, -3];
    let mut cases = 0;
    for n in [1usize, 2, 3, 4, 5, 7, 31, 33, 1000, 4097, 65541] {
        for incx in increments {
            for incy in increments {
                for (k, offset) in [0usize, 1, 2, 3].into_iter().enumerate() {
                    let alpha = [1.5f32, -0.75, 0.0][(n + k) % 3];
                    let device_alpha = (n + k + incx as usize).is_multiple_of(2);
                    let case = Case { n, incx, incy, offset, alpha, device_alpha };
                    // cuBLAS on a subset: it is slow to create a handle per case.
                    let compare = if k == 0 && incx == incy { cublas } else { None };
                    run_case(&gpu, &mut random, &case, compare);
                    cases += 1;
                }
            }
        }
    }
    say(&format!("gpu_saxpy_case_matrix: {cases} cases passed"));
}

/// Random cases, 30 on each of six other GPUs' plans (`DeviceModel::other_gpus`: 114 to 28 SMs, cc 8.x and
/// 7.x code and limits), run on this GPU: the tuner sizes SAXPY's grids by the SM count and the per-SM limits.
/// n to 2^22, unit, strided and negative increments, incy = 0 one case in five, unaligned vectors.
#[test]
fn gpu_saxpy_random_cases_planned_for_other_gpus() {
    let test = "gpu_saxpy_random_cases_planned_for_other_gpus";
    run_random_shape_test(PlannedFor::OtherGpus, test, 30, "cases", CublasSession::open, |gpu, random, cublas| {
        let unit = below(random, 3) == 0;
        let incy = if below(random, 5) == 0 {
            0
        } else if unit {
            1
        } else {
            random_increment(random)
        };
        let case = Case {
            n: log_uniform(random, 1 << 22),
            incx: if unit { 1 } else { random_increment(random) },
            incy,
            offset: if unit { 0 } else { below(random, 4) },
            alpha: random_alpha(random),
            device_alpha: below(random, 2) == 0,
        };
        run_case(gpu, random, &case, cublas.as_ref());
        match (case.incy, unit) {
            (0, _) => "incy = 0",
            (_, true) => "unit strides",
            _ => "strided or unaligned",
        }
        .to_string()
    });
}

#[test]
fn gpu_saxpy_with_incy_zero_adds_every_term_into_y0() {
    // Reference BLAS (and cuBLAS): y[0] + alpha * (x_0 + ... + x_{n-1}), not a race between the terms.
    let test = "gpu_saxpy_with_incy_zero_adds_every_term_into_y0";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let mut random = random(test);
    let session = CublasSession::open(test);
    let cublas = session.as_ref();
    let mut cases = 0;
    for n in [1usize, 2, 33, 1000, 4097, 65541, 1_000_003, 3_000_017] {
        for (k, incx) in [1i64, -1, 3, 0].into_iter().enumerate() {
            for offset in [0usize, 1] {
                let alpha = [1.5f32, -0.75, 0.0][(n + k + offset) % 3];
                let device_alpha = (n + k).is_multiple_of(2);
                let case = Case { n, incx, incy: 0, offset, alpha, device_alpha };
                run_case(&gpu, &mut random, &case, if offset == 0 { cublas } else { None });
                cases += 1;
            }
        }
    }
    // The same bits on repeated calls (several blocks: partial sums, the arrival counter reset by the last).
    let ctx = gpu.context();
    let n = 1_000_003;
    let (x, y) = (random.vector(n), random.vector(1));
    let dx = GuardedBuffer::from_slice(ctx, &x, 1).unwrap();
    let call = |dy: &GuardedBuffer| unsafe {
        assert_eq!(
            mublasSaxpy(gpu.handle, n as i32, &0.3, dx.address() as *const f32, 1, dy.address() as *mut f32, 0),
            0
        );
        dy.read().unwrap()
    };
    let first = call(&GuardedBuffer::from_slice(ctx, &y, 0).unwrap());
    for _ in 0..4 {
        assert!(same_bits(&first, &call(&GuardedBuffer::from_slice(ctx, &y, 0).unwrap())), "{test}: other bits");
    }
    // Without room in the work buffer for the partial sums: one block, the same sum within its bound.
    gpu.inner().set_work_limit(mublas::handle::SPLIT_COUNTER_BYTES as usize);
    let case = Case { n: 65541, incx: -3, incy: 0, offset: 1, alpha: 0.625, device_alpha: false };
    run_case(&gpu, &mut random, &case, None);
    gpu.inner().set_work_limit(mublas::handle::work_limit_bytes());
    say(&format!("{test}: {} cases passed, 5 calls with the same bits", cases + 1));
}

#[test]
fn gpu_saxpy_large_vectors_use_every_path() {
    let Some(gpu) = gpu_or_skip("gpu_saxpy_large_vectors_use_every_path") else { return };
    let mut random = random("gpu_saxpy_large_vectors_use_every_path");
    let n = (1 << 22) + 3;
    for (offset, incx, incy) in [(0, 1, 1), (1, 1, 1), (3, 1, 1), (0, 1, -1), (1, 2, 1)] {
        run_case(&gpu, &mut random, &Case { n, incx, incy, offset, alpha: 0.625, device_alpha: false }, None);
    }
}

#[test]
fn gpu_saxpy_quick_returns_touch_nothing() {
    let Some(gpu) = gpu_or_skip("gpu_saxpy_quick_returns_touch_nothing") else { return };
    let mut random = random("gpu_saxpy_quick_returns_touch_nothing");
    let ctx = gpu.context();
    let y = random.vector(16);
    let dy = GuardedBuffer::from_slice(ctx, &y, 0).unwrap();
    let alpha = 2.0f32;
    unsafe {
        // n = 0 and n < 0: success, nothing read or written, even through null vectors.
        assert_eq!(
            mublasSaxpy(gpu.handle, 0, &alpha, std::ptr::null(), 1, std::ptr::null_mut(), 1),
            MUBLAS_STATUS_SUCCESS
        );
        assert_eq!(
            mublasSaxpy(gpu.handle, -5, &alpha, std::ptr::null(), 1, std::ptr::null_mut(), 1),
            MUBLAS_STATUS_SUCCESS
        );
        // Host alpha = 0: nothing read, so null x is fine.
        assert_eq!(
            mublasSaxpy(gpu.handle, 16, &0.0, std::ptr::null(), 1, dy.address() as *mut f32, 1),
            MUBLAS_STATUS_SUCCESS
        );
        // A null alpha is INVALID_VALUE (cuBLAS crashes).
        assert_eq!(
            mublasSaxpy(gpu.handle, 16, std::ptr::null(), dy.address() as *const f32, 1, dy.address() as *mut f32, 1),
            MUBLAS_STATUS_INVALID_VALUE
        );
    }
    mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
    assert_eq!(dy.read().unwrap(), y);
    assert!(dy.guards_intact().unwrap());
}

#[test]
fn gpu_saxpy_on_a_created_stream() {
    let Some(gpu) = gpu_alone_or_skip("gpu_saxpy_on_a_created_stream") else { return };
    let mut random = random("gpu_saxpy_on_a_created_stream");
    let ctx = gpu.context();
    let stream = Stream::new(ctx).unwrap();
    let n = 100_003;
    let (x, y) = (random.vector(n), random.vector(n));
    let (dx, dy) = (GuardedBuffer::from_slice(ctx, &x, 0).unwrap(), GuardedBuffer::from_slice(ctx, &y, 0).unwrap());
    let alpha = -1.25f32;
    unsafe {
        assert_eq!(mublasSetStream(gpu.handle, stream.raw() as *mut CUstream_st), MUBLAS_STATUS_SUCCESS);
        let mut got = std::ptr::null_mut();
        assert_eq!(mublasGetStream(gpu.handle, &mut got), MUBLAS_STATUS_SUCCESS);
        assert_eq!(got as usize, stream.raw() as usize);
        assert_eq!(
            mublasSaxpy(gpu.handle, n as i32, &alpha, dx.address() as *const f32, 1, dy.address() as *mut f32, 1),
            MUBLAS_STATUS_SUCCESS
        );
    }
    stream.synchronize().unwrap();
    let expected: Vec<f64> = (0..n).map(|i| alpha as f64 * x[i] as f64 + y[i] as f64).collect();
    let magnitude: Vec<f64> = (0..n).map(|i| (alpha * x[i]).abs() as f64 + y[i].abs() as f64).collect();
    assert_close("created stream", &dy.read().unwrap(), &expected, &magnitude, 2.0);
    // Again with the stream held back: nothing lands before it runs.
    dy.write(&y).unwrap();
    call_behind_a_gate("created stream", &gpu, stream.raw(), &[&dy], || unsafe {
        assert_eq!(
            mublasSaxpy(gpu.handle, n as i32, &alpha, dx.address() as *const f32, 1, dy.address() as *mut f32, 1),
            MUBLAS_STATUS_SUCCESS
        );
    });
    assert_close("created stream, gated", &dy.read().unwrap(), &expected, &magnitude, 2.0);
    set_stream(&gpu, std::ptr::null_mut());
}

#[test]
fn gpu_saxpy_same_bits_on_repeated_calls() {
    let Some(gpu) = gpu_or_skip("gpu_saxpy_same_bits_on_repeated_calls") else { return };
    let mut random = random("gpu_saxpy_same_bits_on_repeated_calls");
    let ctx = gpu.context();
    let n = 300_001;
    let (x, y) = (random.vector(n), random.vector(n));
    let dx = GuardedBuffer::from_slice(ctx, &x, 1).unwrap();
    let mut first: Option<Vec<f32>> = None;
    for _ in 0..10 {
        let dy = GuardedBuffer::from_slice(ctx, &y, 1).unwrap();
        unsafe {
            assert_eq!(
                mublasSaxpy(gpu.handle, n as i32, &0.3, dx.address() as *const f32, 1, dy.address() as *mut f32, 1),
                0
            )
        };
        let got = dy.read().unwrap();
        match &first {
            None => first = Some(got),
            Some(f) => assert!(same_bits(f, &got)),
        }
    }
}

/// One handle on CU_STREAM_PER_THREAD, called from two threads at once: each
/// call runs on its own thread's default stream, and the work buffer's
/// counter and partial sums (SAXPY with incy = 0 over many blocks) must be
/// ordered between the two threads' streams as between any two streams, or
/// the sums mix. Every call must give the bits of the same call made alone.
#[test]
fn gpu_one_handle_on_per_thread_default_streams_from_two_threads() {
    let test = "gpu_one_handle_on_per_thread_default_streams_from_two_threads";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let mut random = random(test);
    let ctx = gpu.context();
    let n = 3_000_017;
    let (x, y) = (random.vector(n), random.vector(1));
    let dx = GuardedBuffer::from_slice(ctx, &x, 0).unwrap();
    const PER_THREAD: usize = 2; // CU_STREAM_PER_THREAD
    unsafe { assert_eq!(mublasSetStream(gpu.handle, PER_THREAD as *mut CUstream_st), MUBLAS_STATUS_SUCCESS) };
    // Raw handles as numbers, for the threads (the driver's handles are usable from any thread).
    let (handle, context, x_address) = (gpu.handle as usize, ctx as usize, dx.address());
    // Sums into y[0] of `calls` buffers, each call's result read after its stream has finished.
    let sums = |calls: usize| -> Vec<Vec<f32>> {
        let ctx = context as mublas::launch::CUcontext;
        let outputs: Vec<GuardedBuffer> = (0..calls).map(|_| GuardedBuffer::from_slice(ctx, &y, 0).unwrap()).collect();
        for dy in &outputs {
            let (x, y) = (x_address as *const f32, dy.address() as *mut f32);
            let status = unsafe { mublasSaxpy(handle as mublasHandle_t, n as i32, &0.3, x, 1, y, 0) };
            assert_eq!(status, MUBLAS_STATUS_SUCCESS);
        }
        mublas::harness::stream::synchronize(ctx, PER_THREAD as mublas::launch::CUstream).unwrap();
        outputs.iter().map(|dy| dy.read().unwrap()).collect()
    };
    let alone = sums(1).remove(0);
    // Both threads' calls overlap: each queues all of its calls before it waits for its stream.
    let results: Vec<Vec<Vec<f32>>> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..2).map(|_| scope.spawn(|| sums(40))).collect();
        threads.into_iter().map(|thread| thread.join().unwrap()).collect()
    });
    unsafe { assert_eq!(mublasSetStream(gpu.handle, std::ptr::null_mut()), MUBLAS_STATUS_SUCCESS) };
    for (thread, sums) in results.iter().enumerate() {
        for (call, got) in sums.iter().enumerate() {
            assert!(same_bits(got, &alone), "{test}: thread {thread}, call {call}: {got:?} against {alone:?} alone");
        }
    }
    let (counters, slots) = gpu.inner().split_state_left_over().unwrap();
    assert_eq!((counters, slots), (0, 0), "{test}: split counters or slots left set");
}

#[test]
fn gpu_handle_api() {
    let Some(gpu) = gpu_or_skip("gpu_handle_api") else { return };
    unsafe {
        let mut mode = -1;
        assert_eq!(mublasGetPointerMode(gpu.handle, &mut mode), MUBLAS_STATUS_SUCCESS);
        assert_eq!(mode, MUBLAS_POINTER_MODE_HOST);
        assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_DEVICE), MUBLAS_STATUS_SUCCESS);
        assert_eq!(mublasGetPointerMode(gpu.handle, &mut mode), MUBLAS_STATUS_SUCCESS);
        assert_eq!(mode, MUBLAS_POINTER_MODE_DEVICE);
        assert_eq!(mublasSetPointerMode(gpu.handle, 2), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(mublasSetPointerMode(gpu.handle, -1), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(mublasGetPointerMode(gpu.handle, std::ptr::null_mut()), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(mublasGetStream(gpu.handle, std::ptr::null_mut()), MUBLAS_STATUS_INVALID_VALUE);
        let mut stream = std::ptr::dangling_mut::<CUstream_st>(); // not null: the call must overwrite it
        assert_eq!(mublasGetStream(gpu.handle, &mut stream), MUBLAS_STATUS_SUCCESS);
        assert!(stream.is_null(), "a new handle uses the legacy default stream");
    }
    // A second handle on the same device shares its kernels and works independently.
    let second = gpu_or_skip("gpu_handle_api").unwrap();
    assert!(std::sync::Arc::ptr_eq(&second.inner().device, &gpu.inner().device));
    assert!(
        second.inner().work_buffer_size() >= mublas::handle::work_buffer_bytes(gpu.inner().device.model().sm_count)
    );
}

#[test]
fn gpu_calls_from_a_thread_without_a_current_context() {
    let Some(gpu) = gpu_or_skip("gpu_calls_from_a_thread_without_a_current_context") else { return };
    let mut random = random("gpu_calls_from_a_thread_without_a_current_context");
    let ctx = gpu.context();
    let n = 4097;
    let (x, y) = (random.vector(n), random.vector(n));
    let (dx, dy) = (GuardedBuffer::from_slice(ctx, &x, 0).unwrap(), GuardedBuffer::from_slice(ctx, &y, 0).unwrap());
    let handle = gpu.handle as usize;
    let (ax, ay) = (dx.address(), dy.address());
    std::thread::spawn(move || {
        // This thread has no current context: the handle's own must be used, and
        // none left current afterwards.
        let status =
            unsafe { mublasSaxpy(handle as mublasHandle_t, n as i32, &2.0, ax as *const f32, 1, ay as *mut f32, 1) };
        assert_eq!(status, MUBLAS_STATUS_SUCCESS);
        assert_eq!(cudarc::driver::result::ctx::get_current().unwrap(), None);
    })
    .join()
    .unwrap();
    mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
    let expected: Vec<f64> = (0..n).map(|i| 2.0 * x[i] as f64 + y[i] as f64).collect();
    let magnitude: Vec<f64> = (0..n).map(|i| (2.0 * x[i]).abs() as f64 + y[i].abs() as f64).collect();
    assert_close("other thread", &dy.read().unwrap(), &expected, &magnitude, 2.0);
}

/// Interposition on the real library's handles: each handle mublas serves
/// gets a shadow (with its own work buffer), and the interposed
/// `cublasDestroy_v2` releases it with the handle; a mublas handle given to
/// that name is destroyed as by `mublasDestroy`.
#[test]
fn gpu_interposed_destroy_releases_the_shadow() {
    let test = "gpu_interposed_destroy_releases_the_shadow";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let real = match RealCublas::get() {
        Ok(real) => real,
        Err(why) => {
            say(&format!("{test}: SKIPPED, no cuBLAS to take handles from ({why})"));
            return;
        }
    };
    use mublas::interpose::{blas1::cublasSaxpy_v2, cublasDestroy_v2, mublasInterposedShadows};
    let mut random = random(test);
    let ctx = gpu.context();
    let n = 1001;
    let (x, y) = (random.vector(n), random.vector(n));
    let (dx, dy) = (GuardedBuffer::from_slice(ctx, &x, 1).unwrap(), GuardedBuffer::from_slice(ctx, &y, 1).unwrap());
    let alpha = 0.75f32;
    let before = mublasInterposedShadows();
    let mut handles = [std::ptr::null_mut(); 3];
    unsafe {
        for h in &mut handles {
            assert_eq!((real.create)(h), 0);
        }
        for &h in &handles {
            assert_eq!(
                cublasSaxpy_v2(h, n as i32, &alpha, dx.address() as *const f32, 1, dy.address() as *mut f32, 1),
                MUBLAS_STATUS_SUCCESS
            );
        }
        assert_eq!(mublasInterposedShadows(), before + 3, "one shadow per served handle");
        for &h in &handles {
            assert_eq!(cublasDestroy_v2(h), MUBLAS_STATUS_SUCCESS);
        }
    }
    assert_eq!(mublasInterposedShadows(), before, "cublasDestroy_v2 released the shadows");
    // The three calls, one after the other on the legacy default stream: y + αx + αx + αx.
    let expected: Vec<f64> = (0..n).map(|i| y[i] as f64 + 3.0 * alpha as f64 * x[i] as f64).collect();
    let magnitude: Vec<f64> = (0..n).map(|i| y[i].abs() as f64 + 3.0 * (alpha * x[i]).abs() as f64).collect();
    assert_close("three served handles", &dy.read().unwrap(), &expected, &magnitude, 6.0);
    assert!(dy.guards_intact().unwrap() && dx.guards_intact().unwrap());

    // One of ours under cuBLAS's name.
    let mut ours: mublasHandle_t = std::ptr::null_mut();
    unsafe {
        assert_eq!(mublasCreate(&mut ours), MUBLAS_STATUS_SUCCESS);
        assert_eq!(cublasDestroy_v2(ours as *mut std::ffi::c_void), MUBLAS_STATUS_SUCCESS);
        assert_eq!(mublasSetStream(ours, std::ptr::null_mut()), MUBLAS_STATUS_NOT_INITIALIZED, "destroyed");
    }
    say(&format!("{test}: 3 foreign handles served and released, shadows {before} -> {} -> {before}", before + 3));
}
