//! Calls captured into a CUDA graph, as `torch.cuda.graph` or a program's own
//! `cudaStreamBeginCapture` captures them. In the global capture mode (the
//! strictest, PyTorch's default) any allocation or stream wait on the
//! capturing thread fails and invalidates the whole capture, so a call must
//! make neither, and the graph must redo every call on each launch. Each test
//! has the GPU alone: in that mode another thread's allocation (or, with a
//! blocking stream, its use of the legacy stream) is refused too and
//! invalidates the capture. Skipped, saying so, without a GPU.

mod common;

use common::*;
use mublas::capi::blas1::mublasSaxpy;
use mublas::capi::blas2::mublasSgemv;
use mublas::capi::gemm::mublasSgemm;
use mublas::capi::handle::{mublasSetPointerMode, mublasSetStream};
use mublas::capi::trmv::mublasStrmv;
use mublas::capi::types::*;
use mublas::harness::{CapturedGraph, GuardedBuffer, Random, Stream};

/// A column-major matrix on the host and the device.
struct Matrix {
    rows: usize,
    cols: usize,
    ld: usize,
    host: Vec<f32>,
    device: GuardedBuffer,
}

impl Matrix {
    fn new(gpu: &Gpu, random: &mut Random, rows: usize, cols: usize, ld: usize, scale: f32) -> Matrix {
        let host: Vec<f32> = random.vector(ld * cols).into_iter().map(|v| v * scale).collect();
        let device = GuardedBuffer::from_slice(gpu.context(), &host, 1).unwrap();
        Matrix { rows, cols, ld, host, device }
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.host[i + j * self.ld] as f64
    }

    fn ptr(&self) -> *const f32 {
        self.device.address() as *const f32
    }
}

/// A vector on the host (its value before any call) and the device.
struct Vector {
    host: Vec<f32>,
    device: GuardedBuffer,
}

impl Vector {
    fn new(gpu: &Gpu, random: &mut Random, len: usize) -> Vector {
        let host = random.vector(len);
        Vector { device: GuardedBuffer::from_slice(gpu.context(), &host, 1).unwrap(), host }
    }

    /// len floats of NaN, for outputs that beta = 0 must overwrite.
    fn nan(gpu: &Gpu, len: usize) -> Vector {
        let host = vec![f32::NAN; len];
        Vector { device: GuardedBuffer::from_slice(gpu.context(), &host, 1).unwrap(), host }
    }

    fn restore(&self) {
        self.device.write(&self.host).unwrap();
    }

    fn ptr(&self) -> *mut f32 {
        self.device.address() as *mut f32
    }
}

/// The calls every capture makes, on one handle, with what they leave after `launches` launches of the graph.
struct Workload {
    x: Vector,
    y: Vector,
    gemv_n: (Matrix, Vector, Vector),
    gemv_t: (Matrix, Vector, Vector),
    trmv: (Matrix, Vector),
    /// NN 1024 (split along k on an H100), TT 2048 (A^T copied first), NN 3000 (a split tail): each
    /// wants more work buffer than a new handle holds.
    gemms: Vec<(i32, usize, Matrix, Matrix, Vector)>,
}

const ALPHA: f32 = 0.75;

impl Workload {
    fn new(gpu: &Gpu, random: &mut Random) -> Workload {
        let n = 100_003;
        let gemv = |random: &mut Random, m: usize, k: usize, ld: usize, trans: bool| {
            let a = Matrix::new(gpu, random, m, k, ld, 1.0);
            let v = Vector::new(gpu, random, if trans { m } else { k });
            let out = Vector::nan(gpu, if trans { k } else { m });
            (a, v, out)
        };
        let trmv_n = 3001;
        let gemms = [(0, 1024), (1, 2048), (0, 3000)]
            .into_iter()
            .map(|(trans, s)| {
                let a = Matrix::new(gpu, random, s, s, s, 1.0);
                let b = Matrix::new(gpu, random, s, s, s, 1.0);
                (trans, s, a, b, Vector::nan(gpu, s * s))
            })
            .collect();
        Workload {
            x: Vector::new(gpu, random, n),
            y: Vector::new(gpu, random, n),
            gemv_n: gemv(random, 256, 8192, 257, false),
            gemv_t: gemv(random, 16384, 300, 16384, true),
            // Entries of about 1/n keep A²·x at the size of x.
            trmv: (
                Matrix::new(gpu, random, trmv_n, trmv_n, trmv_n, 2.0 / trmv_n as f32),
                Vector::new(gpu, random, trmv_n),
            ),
            gemms,
        }
    }

    /// Puts back the vectors the calls update in place.
    fn restore(&self) {
        self.y.restore();
        self.trmv.1.restore();
    }

    /// Every call, in order, with its status.
    fn call(&self, handle: mublasHandle_t) -> Vec<(String, mublasStatus_t)> {
        let (one, zero, alpha) = (1.0f32, 0.0f32, ALPHA);
        let mut statuses = Vec::new();
        // SAFETY: device buffers that outlive the calls, with the sizes passed.
        unsafe {
            let n = self.x.host.len() as i32;
            statuses.push(("saxpy".into(), mublasSaxpy(handle, n, &alpha, self.x.ptr(), 1, self.y.ptr(), 1)));
            for (what, (a, v, out), trans) in [("sgemv N", &self.gemv_n, 0), ("sgemv T", &self.gemv_t, 1)] {
                let status = mublasSgemv(
                    handle,
                    trans,
                    a.rows as i32,
                    a.cols as i32,
                    &one,
                    a.ptr(),
                    a.ld as i32,
                    v.ptr(),
                    1,
                    &zero,
                    out.ptr(),
                    1,
                );
                statuses.push((format!("{what} {}x{}", a.rows, a.cols), status));
            }
            let (a, x) = &self.trmv;
            statuses.push((
                "strmv LNN".into(),
                mublasStrmv(handle, 0, 0, 0, a.rows as i32, a.ptr(), a.ld as i32, x.ptr(), 1),
            ));
            for (trans, s, a, b, c) in &self.gemms {
                let s32 = *s as i32;
                let status = mublasSgemm(
                    handle,
                    *trans,
                    *trans,
                    s32,
                    s32,
                    s32,
                    &one,
                    a.ptr(),
                    s32,
                    b.ptr(),
                    s32,
                    &zero,
                    c.ptr(),
                    s32,
                );
                statuses.push((format!("sgemm {} {s}", if *trans == 1 { "TT" } else { "NN" }), status));
            }
        }
        statuses
    }

    /// Checks every output against float64 after the calls ran `launches` times.
    fn check(&self, what: &str, launches: usize, random: &mut Random) {
        let r = launches as f64;
        let ulps = |terms: usize| 2.0 * (terms as f64 + 2.0);
        // SAXPY accumulates: y0 + r·alpha·x.
        let expected: Vec<f64> =
            self.x.host.iter().zip(&self.y.host).map(|(&x, &y)| y as f64 + r * ALPHA as f64 * x as f64).collect();
        let magnitude: Vec<f64> = self
            .x
            .host
            .iter()
            .zip(&self.y.host)
            .map(|(&x, &y)| (y as f64).abs() + r * (ALPHA * x).abs() as f64)
            .collect();
        assert_close(&format!("{what}: saxpy"), &self.y.device.read().unwrap(), &expected, &magnitude, ulps(launches));
        for (name, (a, v, out), trans) in [("sgemv N", &self.gemv_n, false), ("sgemv T", &self.gemv_t, true)] {
            let v64: Vec<f64> = v.host.iter().map(|&e| e as f64).collect();
            let (expected, magnitude) =
                if trans { product(a.cols, |i, l| a.at(l, i), &v64) } else { product(a.rows, |i, l| a.at(i, l), &v64) };
            assert_close(
                &format!("{what}: {name}"),
                &out.device.read().unwrap(),
                &expected,
                &magnitude,
                ulps(v64.len()),
            );
        }
        // STRMV replaces x by A·x on each launch (the lower triangle): A^r·x0, the bound from |A|^r·|x0|.
        let (a, x) = &self.trmv;
        let lower = |i: usize, l: usize| if l <= i { a.at(i, l) } else { 0.0 };
        let mut value: Vec<f64> = x.host.iter().map(|&e| e as f64).collect();
        let mut magnitude: Vec<f64> = value.iter().map(|v| v.abs()).collect();
        for _ in 0..launches {
            value = product(a.rows, lower, &value).0;
            magnitude = product(a.rows, |i, l| lower(i, l).abs(), &magnitude).0;
        }
        assert_close(&format!("{what}: strmv"), &x.device.read().unwrap(), &value, &magnitude, r * ulps(a.rows));
        // SGEMM with beta = 0: every element written (no NaN left), 64 of them checked in float64.
        for (trans, s, a, b, c) in &self.gemms {
            let got = c.device.read().unwrap();
            assert!(got.iter().all(|v| v.is_finite()), "{what}: sgemm {s}: an element was not written");
            let (mut expected, mut magnitude, mut sampled) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..64 {
                let (i, j) = ((random.next_u64() % *s as u64) as usize, (random.next_u64() % *s as u64) as usize);
                let (mut sum, mut size) = (0.0, 0.0);
                for l in 0..*s {
                    let term = if *trans == 1 { a.at(l, i) * b.at(j, l) } else { a.at(i, l) * b.at(l, j) };
                    sum += term;
                    size += term.abs();
                }
                expected.push(sum);
                magnitude.push(size);
                sampled.push(got[i + j * s]);
            }
            assert_close(&format!("{what}: sgemm {trans} {s}"), &sampled, &expected, &magnitude, ulps(*s));
        }
    }
}

fn assert_all_succeeded(what: &str, statuses: &[(String, mublasStatus_t)]) {
    for (call, status) in statuses {
        assert_eq!(*status, MUBLAS_STATUS_SUCCESS, "{what}: {call}");
    }
}

/// A workload, and a stream of its own set on the handle.
fn workload_on_a_stream(gpu: &Gpu, random: &mut Random) -> (Workload, Stream) {
    let work = Workload::new(gpu, random);
    let stream = Stream::new(gpu.context()).unwrap();
    set_stream(gpu, stream.raw());
    (work, stream)
}

/// The workload's calls captured on `stream` (the handle's), each of them successful.
fn capture(gpu: &Gpu, work: &Workload, stream: &Stream, what: &str) -> CapturedGraph {
    let mut statuses = Vec::new();
    let graph = CapturedGraph::capture(gpu.context(), stream.raw(), || statuses = work.call(gpu.handle))
        .expect("the capture was not invalidated");
    assert_all_succeeded(what, &statuses);
    graph
}

#[test]
fn gpu_calls_captured_into_a_graph_replay_correctly() {
    let test = "gpu_calls_captured_into_a_graph_replay_correctly";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let mut random = random(test);
    let (work, stream) = workload_on_a_stream(&gpu, &mut random);

    // A new handle: the calls that would grow its work buffer run without it (no split along k, no A^T copy,
    // no split tail), the others use what it holds (SGEMV's split counters, STRMV's partial sums).
    let held = gpu.inner().work_buffer_size();
    let graph = capture(&gpu, &work, &stream, "captured on a new handle");
    assert_eq!(gpu.inner().work_buffer_size(), held, "nothing is allocated during a capture");
    for launches in 1..=2 {
        graph.launch(stream.raw()).unwrap();
        stream.synchronize().unwrap();
        work.check(&format!("new handle, launch {launches}"), launches, &mut random);
    }

    // The same calls outside a capture grow the buffer; captured again, they use it (PyTorch's warm-up, then capture).
    work.restore();
    assert_all_succeeded("not captured", &work.call(gpu.handle));
    stream.synchronize().unwrap();
    work.check("not captured", 1, &mut random);
    let grown = gpu.inner().work_buffer_size();
    say(&format!("{test}: work buffer {held} bytes during the first capture, {grown} after the uncaptured calls"));
    work.restore();
    let graph = capture(&gpu, &work, &stream, "captured after a warm-up");
    for launches in 1..=2 {
        graph.launch(stream.raw()).unwrap();
        stream.synchronize().unwrap();
        work.check(&format!("after a warm-up, launch {launches}"), launches, &mut random);
    }
    assert_eq!(gpu.inner().work_buffer_size(), grown);
}

/// A graph keeps the work-buffer addresses its calls were captured with for
/// every launch, so an uncaptured call that grows the buffer afterwards must
/// not free the one the graph uses. Were it freed, buffers full of 0xFF bytes
/// allocated right after would likely take its range (the driver reuses freed
/// ranges, though nothing guarantees it here): SGEMV's split counters would
/// read 2^32 − 1, and no block would add the partial sums. The graph launched
/// again must still give the right results.
#[test]
fn gpu_graph_keeps_its_work_buffer_when_the_buffer_grows() {
    let test = "gpu_graph_keeps_its_work_buffer_when_the_buffer_grows";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let mut random = random(test);
    let (work, stream) = workload_on_a_stream(&gpu, &mut random);
    let held = gpu.inner().work_buffer_size();
    let graph = capture(&gpu, &work, &stream, "captured on a new handle");
    graph.launch(stream.raw()).unwrap();
    stream.synchronize().unwrap();
    work.check("first launch", 1, &mut random);

    // Uncaptured, the same calls grow the buffer; then the old range is filled by others.
    work.restore();
    assert_all_succeeded("not captured", &work.call(gpu.handle));
    stream.synchronize().unwrap();
    let grown = gpu.inner().work_buffer_size();
    assert!(grown > held, "{test}: the uncaptured calls were to grow the work buffer ({held} bytes)");
    let ones = vec![f32::from_bits(u32::MAX); held / 4];
    let squatters: Vec<GuardedBuffer> =
        (0..4).map(|_| GuardedBuffer::from_slice(gpu.context(), &ones, 0).unwrap()).collect();

    work.restore();
    graph.launch(stream.raw()).unwrap();
    stream.synchronize().unwrap();
    work.check("launched after the buffer grew", 1, &mut random);
    drop(squatters);
    say(&format!("{test}: captured with {held} bytes of work buffer, launched again after it grew to {grown}"));
}

#[test]
fn gpu_stream_switched_inside_a_capture() {
    // torch.cuda.graph captures on a stream of its own and PyTorch sets it on its cuBLAS handle
    // inside the capture: the switch must not wait for the previous stream (that would invalidate it).
    let test = "gpu_stream_switched_inside_a_capture";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let (before, capturing) = (Stream::new(gpu.context()).unwrap(), Stream::new(gpu.context()).unwrap());
    sgemv_switched_inside_a_capture(&gpu, &mut random(test), Some(&before), &capturing);
}

/// A program that calls on the default stream and then captures on a
/// blocking stream (cudaStreamCreate's, CuPy's), setting it on the handle
/// inside the capture: leaving the default stream must not touch it (an event
/// recorded there would join the capture through the legacy stream's
/// implicit ordering and invalidate it).
#[test]
fn gpu_default_stream_left_inside_a_blocking_capture() {
    let test = "gpu_default_stream_left_inside_a_blocking_capture";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let capturing = Stream::blocking(gpu.context()).unwrap();
    sgemv_switched_inside_a_capture(&gpu, &mut random(test), None, &capturing);
}

/// An SGEMV on `first` (None: the legacy default stream); the same captured
/// on `capturing`, set on the handle inside the capture; the graph launched;
/// and the SGEMV on `first` again after the capture.
fn sgemv_switched_inside_a_capture(gpu: &Gpu, random: &mut Random, first: Option<&Stream>, capturing: &Stream) {
    let (m, k) = (777usize, 1500usize);
    let a = Matrix::new(gpu, random, m, k, m + 3, 1.0);
    let v = Vector::new(gpu, random, k);
    let out = Vector::nan(gpu, m);
    let (one, zero) = (1.0f32, 0.0f32);
    let gemv = || unsafe {
        // SAFETY: device buffers with the sizes passed, alive for the test.
        mublasSgemv(gpu.handle, 0, m as i32, k as i32, &one, a.ptr(), a.ld as i32, v.ptr(), 1, &zero, out.ptr(), 1)
    };
    let first = first.map_or(std::ptr::null_mut(), |s| s.raw());
    let set_stream = |stream: mublas::launch::CUstream| unsafe {
        // SAFETY: a live handle and a stream of its context (or null).
        mublasSetStream(gpu.handle, stream as *mut CUstream_st)
    };
    let v64: Vec<f64> = v.host.iter().map(|&e| e as f64).collect();
    let (expected, magnitude) = product(m, |i, l| a.at(i, l), &v64);
    let bound = 2.0 * (k as f64 + 2.0);
    let on_first = |what: &str| {
        assert_eq!(set_stream(first), MUBLAS_STATUS_SUCCESS);
        out.restore();
        assert_eq!(gemv(), MUBLAS_STATUS_SUCCESS);
        mublas::harness::stream::synchronize(gpu.context(), first).unwrap();
        assert_close(what, &out.device.read().unwrap(), &expected, &magnitude, bound);
        out.restore();
    };
    on_first("sgemv before the capture");
    let mut statuses = Vec::new();
    let graph = CapturedGraph::capture(gpu.context(), capturing.raw(), || {
        statuses = vec![("set stream".to_string(), set_stream(capturing.raw())), ("sgemv".to_string(), gemv())];
    })
    .expect("the capture was not invalidated");
    assert_all_succeeded("switched inside the capture", &statuses);
    assert!(out.device.read().unwrap().iter().all(|v| v.is_nan()), "a captured call runs only when the graph does");
    graph.launch(capturing.raw()).unwrap();
    capturing.synchronize().unwrap();
    assert_close("sgemv after the switch", &out.device.read().unwrap(), &expected, &magnitude, bound);
    // Switching back after the capture works as before.
    on_first("sgemv back on the first stream");
}

/// alpha and beta in device memory (1 and 0 until the test writes others),
/// with the handle on `stream` in device pointer mode: the buffer and the two
/// pointers a captured call takes.
fn device_scalars_on(gpu: &Gpu, stream: &Stream) -> (GuardedBuffer, *const f32, *const f32) {
    let scalars = GuardedBuffer::from_slice(gpu.context(), &[1.0f32, 0.0], 0).unwrap();
    let (alpha, beta) = (scalars.address() as *const f32, (scalars.address() + 4) as *const f32);
    set_stream(gpu, stream.raw());
    // SAFETY: a live handle.
    unsafe { assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_DEVICE), MUBLAS_STATUS_SUCCESS) };
    (scalars, alpha, beta)
}

#[test]
fn gpu_device_scalars_are_read_at_each_launch() {
    // With the pointer mode on device, a captured call holds the address of alpha and beta, not their values:
    // each launch of the graph reads them afresh, so a program can change them between launches.
    let test = "gpu_device_scalars_are_read_at_each_launch";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let mut random = random(test);
    let stream = Stream::new(gpu.context()).unwrap();
    let (m, k) = (3000usize, 2001usize);
    let a = Matrix::new(&gpu, &mut random, m, k, m + 1, 1.0);
    let (v, y) = (Vector::new(&gpu, &mut random, k), Vector::new(&gpu, &mut random, m));
    let (scalars, alpha, beta) = device_scalars_on(&gpu, &stream);
    let mut status = MUBLAS_STATUS_NOT_INITIALIZED;
    let graph = CapturedGraph::capture(gpu.context(), stream.raw(), || {
        // SAFETY: as above.
        status = unsafe {
            mublasSgemv(gpu.handle, 0, m as i32, k as i32, alpha, a.ptr(), a.ld as i32, v.ptr(), 1, beta, y.ptr(), 1)
        };
    })
    .expect("the capture was not invalidated");
    assert_eq!(status, MUBLAS_STATUS_SUCCESS);
    let v64: Vec<f64> = v.host.iter().map(|&e| e as f64).collect();
    let (product, size) = product(m, |i, l| a.at(i, l), &v64);
    // y = 1·A·v + 0·y, then y = 0.5·A·v − 2·y (= −1.5·A·v), then alpha = 0: y = 3·y (= −4.5·A·v, A not read).
    let mut factor = 0.0;
    for (launch, (alpha, beta)) in [(1.0f32, 0.0f32), (0.5, -2.0), (0.0, 3.0)].into_iter().enumerate() {
        scalars.write(&[alpha, beta]).unwrap();
        graph.launch(stream.raw()).unwrap();
        stream.synchronize().unwrap();
        factor = alpha as f64 + beta as f64 * factor;
        let expected: Vec<f64> = product.iter().map(|p| factor * p).collect();
        let magnitude: Vec<f64> = size.iter().map(|s| 4.5 * s).collect();
        assert_close(
            &format!("launch {launch}: alpha {alpha}, beta {beta}"),
            &y.device.read().unwrap(),
            &expected,
            &magnitude,
            2.0 * (k as f64 + 8.0),
        );
    }
    // SAFETY: a live handle.
    assert_eq!(unsafe { mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_HOST) }, MUBLAS_STATUS_SUCCESS);
}

#[test]
fn gpu_device_scalars_are_read_at_each_launch_by_saxpy_and_sgemm() {
    // As gpu_device_scalars_are_read_at_each_launch for SGEMV: a host-side look at alpha or beta (to take
    // alpha = 0 as a quick return, say) would freeze the captured calls at the values of the capture.
    let test = "gpu_device_scalars_are_read_at_each_launch_by_saxpy_and_sgemm";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let mut random = random(test);
    let stream = Stream::new(gpu.context()).unwrap();
    let n = 100_003;
    let (x, y) = (Vector::new(&gpu, &mut random, n), Vector::new(&gpu, &mut random, n));
    // A tile multiply and one split along k (64 × 64 over k = 8192), C NaN before the first launch (beta 0).
    let gemms: Vec<(usize, usize, usize, Matrix, Matrix, Vector)> = [(300, 200, 500), (64, 64, 8192)]
        .into_iter()
        .map(|(m, c, k)| {
            let (a, b) = (Matrix::new(&gpu, &mut random, m, k, m, 1.0), Matrix::new(&gpu, &mut random, k, c, k, 1.0));
            (m, c, k, a, b, Vector::nan(&gpu, m * c))
        })
        .collect();
    let (scalars, alpha, beta) = device_scalars_on(&gpu, &stream);
    let mut statuses = Vec::new();
    let graph = CapturedGraph::capture(gpu.context(), stream.raw(), || {
        // SAFETY: a live handle; every array holds what its dimensions ask.
        unsafe {
            statuses.push(mublasSaxpy(gpu.handle, n as i32, alpha, x.ptr(), 1, y.ptr(), 1));
            for (m, c, k, a, b, out) in &gemms {
                let (m, c, k) = (*m as i32, *c as i32, *k as i32);
                statuses.push(mublasSgemm(
                    gpu.handle,
                    0,
                    0,
                    m,
                    c,
                    k,
                    alpha,
                    a.ptr(),
                    m,
                    b.ptr(),
                    k,
                    beta,
                    out.ptr(),
                    m,
                ));
            }
        }
    })
    .expect("the capture was not invalidated");
    assert_eq!(statuses, vec![MUBLAS_STATUS_SUCCESS; 1 + gemms.len()]);
    // A·B in float64, column by column, with each element's Σ|terms|.
    let products: Vec<(Vec<f64>, Vec<f64>)> = gemms
        .iter()
        .map(|(m, c, k, a, b, _)| {
            let columns: Vec<(Vec<f64>, Vec<f64>)> = (0..*c)
                .map(|j| product(*m, |i, l| a.at(i, l), &(0..*k).map(|l| b.at(l, j)).collect::<Vec<_>>()))
                .collect();
            (columns.iter().flat_map(|c| c.0.clone()).collect(), columns.iter().flat_map(|c| c.1.clone()).collect())
        })
        .collect();
    // SAXPY: y += alpha·x at each launch (alpha 0: x not read, y kept); SGEMM: C = alpha·A·B + beta·C, so
    // 1·AB, then 0.5·AB − 2·C = −1.5·AB, then 0·AB + 3·C = −4.5·AB.
    let (mut x_sum, mut factor) = (0.0f64, 0.0f64);
    for (launch, (a, b)) in [(1.0f32, 0.0f32), (0.5, -2.0), (0.0, 3.0)].into_iter().enumerate() {
        scalars.write(&[a, b]).unwrap();
        graph.launch(stream.raw()).unwrap();
        stream.synchronize().unwrap();
        let what = format!("launch {launch}: alpha {a}, beta {b}");
        x_sum += a as f64;
        let expected: Vec<f64> = y.host.iter().zip(&x.host).map(|(&y, &x)| y as f64 + x_sum * x as f64).collect();
        let magnitude: Vec<f64> =
            y.host.iter().zip(&x.host).map(|(&y, &x)| y.abs() as f64 + 1.5 * x.abs() as f64).collect();
        // One rounding a launch, three launches.
        assert_close(&format!("saxpy {what}"), &y.device.read().unwrap(), &expected, &magnitude, 6.0);
        factor = a as f64 + b as f64 * factor;
        for ((m, c, k, _, _, out), (ab, size)) in gemms.iter().zip(&products) {
            let expected: Vec<f64> = ab.iter().map(|p| factor * p).collect();
            let magnitude: Vec<f64> = size.iter().map(|s| 4.5 * s).collect();
            let got = out.device.read().unwrap();
            assert_close(&format!("sgemm {m}x{c}x{k} {what}"), &got, &expected, &magnitude, 2.0 * (*k as f64 + 8.0));
        }
    }
    // SAFETY: a live handle.
    assert_eq!(unsafe { mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_HOST) }, MUBLAS_STATUS_SUCCESS);
    set_stream(&gpu, std::ptr::null_mut());
}
