//! Shared by the GPU integration tests: finding a GPU (or saying clearly that
//! the test was skipped), a handle made through the C ABI, and the float64
//! reference checks.
#![allow(dead_code)]

use mublas::capi::handle::{mublasCreate, mublasDestroy};
use mublas::capi::types::*;
use mublas::harness::{GuardedBuffer, Random, StreamGate};
use mublas::real_cublas::{CublasHandle, RealCublas};
use std::io::Write;
use std::sync::{Condvar, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A handle made by `mublasCreate`, destroyed by `mublasDestroy`, and the
/// test's turn on the GPU ([`Turn`]).
pub struct Gpu {
    pub handle: mublasHandle_t,
    _turn: Turn,
}

/// Tests that hold a stream back ([`call_behind_a_gate`]) take the GPU
/// alone; the others share it. Another thread's wait on the whole device
/// (cuMemFree waits for every stream of the context, the held one too)
/// stalls the held test's own driver calls until its gate gives up: on an
/// H200, SGEMV's created-stream test failed so once in a full run of its
/// binary, and passed on its own. An alone turn waits until no test holds
/// one, and none starts while it runs; no preference for it, so a test that
/// makes a second handle cannot deadlock against one waiting.
struct Turn {
    alone: bool,
}

struct Occupancy {
    shared: usize,
    alone: bool,
}

static OCCUPANCY: Mutex<Occupancy> = Mutex::new(Occupancy { shared: 0, alone: false });
static OCCUPANCY_CHANGED: Condvar = Condvar::new();

impl Turn {
    fn take(alone: bool) -> Turn {
        let mut occupancy = OCCUPANCY.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        while occupancy.alone || (alone && occupancy.shared > 0) {
            occupancy = OCCUPANCY_CHANGED.wait(occupancy).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        if alone {
            occupancy.alone = true;
        } else {
            occupancy.shared += 1;
        }
        Turn { alone }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut occupancy = OCCUPANCY.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if self.alone {
            occupancy.alone = false;
        } else {
            occupancy.shared -= 1;
        }
        OCCUPANCY_CHANGED.notify_all();
    }
}

impl Gpu {
    /// A handle the test made itself (on a device of its choosing), sharing the GPU.
    pub fn from_handle(handle: mublasHandle_t) -> Gpu {
        Gpu { handle, _turn: Turn::take(false) }
    }

    pub fn inner(&self) -> &mublas::Handle {
        // SAFETY: a live handle from mublasCreate is a Handle.
        unsafe { &*(self.handle as *const mublas::Handle) }
    }

    pub fn context(&self) -> mublas::launch::CUcontext {
        self.inner().device.context()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: created by mublasCreate, destroyed once.
        assert_eq!(unsafe { mublasDestroy(self.handle) }, MUBLAS_STATUS_SUCCESS);
    }
}

/// Shapes forced through the tuner (`device.tuner.forced()`) apply to every
/// handle on the device, and the tests of one binary run on parallel threads:
/// a test that forces shapes holds this lock alone ([`forcing_shapes`]), and a
/// test that relies on the tuner's own choice (the same bits over repeated
/// calls, the plan a rule takes) holds it shared ([`tuner_choices`]), so the
/// two never overlap. Without it, on an H200, STRMV's same-bits test met the
/// shape another test had forced in 2 runs of 14.
static FORCED_SHAPES: RwLock<()> = RwLock::new(());

pub fn forcing_shapes() -> RwLockWriteGuard<'static, ()> {
    FORCED_SHAPES.write().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn tuner_choices() -> RwLockReadGuard<'static, ()> {
    FORCED_SHAPES.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Written to the terminal directly: libtest captures print! and eprint!, and a
/// skip must be seen.
pub fn say(message: &str) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// A GPU handle, or None after printing why the test is skipped.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    gpu_for(test, false)
}

/// [`gpu_or_skip`] for a test that holds a stream back: the GPU to itself ([`Turn`]).
pub fn gpu_alone_or_skip(test: &str) -> Option<Gpu> {
    gpu_for(test, true)
}

/// Whether a driver and a GPU are here; false after printing why the test is
/// skipped (for tests that make their own handles or contexts).
pub fn driver_or_skip(test: &str) -> bool {
    match mublas::launch::driver::init() {
        Ok(()) => true,
        Err(e) => {
            say(&format!("SKIPPED {test}: no CUDA GPU here ({e})"));
            false
        }
    }
}

fn gpu_for(test: &str, alone: bool) -> Option<Gpu> {
    if !driver_or_skip(test) {
        return None;
    }
    let turn = Turn::take(alone);
    let mut handle: mublasHandle_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let status = unsafe { mublasCreate(&mut handle) };
    assert_eq!(status, MUBLAS_STATUS_SUCCESS, "a driver and a device are present, so mublasCreate must succeed");
    Some(Gpu { handle, _turn: turn })
}

pub fn random(test: &str) -> Random {
    let random = Random::from_env();
    say(&format!("{test}: MUBLAS_TEST_SEED={}", random.seed()));
    random
}

/// How many cases a random-shape test draws: `default`, or `MUBLAS_TEST_CASES` where it is set to 1 or more
/// (fewer under compute-sanitizer, more for a longer soak), said when it differs.
pub fn random_case_count(test: &str, default: usize) -> usize {
    match std::env::var("MUBLAS_TEST_CASES").ok().and_then(|cases| cases.parse().ok()).filter(|&cases| cases > 0) {
        Some(cases) if cases != default => {
            say(&format!("{test}: {cases} cases (MUBLAS_TEST_CASES) instead of {default}"));
            cases
        }
        _ => default,
    }
}

/// A cuBLAS handle to compare with, made once for a whole test (each cublasCreate sets up cuBLAS's
/// workspace again); the cases set its pointer mode themselves.
pub struct CublasSession {
    pub lib: &'static RealCublas,
    pub handle: CublasHandle,
}

impl CublasSession {
    /// A handle on the current device, or None after saying why the test goes without cuBLAS.
    pub fn open(test: &str) -> Option<CublasSession> {
        let lib = RealCublas::get().map_err(|e| say(&format!("{test}: not comparing with cuBLAS: {e}"))).ok()?;
        let mut handle = std::ptr::null_mut();
        // SAFETY: cuBLAS's own create on the current device.
        assert_eq!(unsafe { (lib.create)(&mut handle) }, 0, "{test}: cublasCreate");
        Some(CublasSession { lib, handle })
    }

    pub fn pair(&self) -> (&'static RealCublas, CublasHandle) {
        (self.lib, self.handle)
    }
}

impl Drop for CublasSession {
    fn drop(&mut self) {
        // SAFETY: created in open, destroyed once.
        unsafe { (self.lib.destroy)(self.handle) };
    }
}

/// Whose SMs, limits and code a random-shape test's launches are planned for.
#[derive(Clone, Copy)]
pub enum PlannedFor {
    /// This GPU's: a handle from `mublasCreate`.
    ThisGpu,
    /// Each of [`DeviceModel::other_gpus`](mublas::tuner::DeviceModel::other_gpus) in turn, on a handle of
    /// `create_planned_for`, run on this GPU; one larger than this GPU in some limit is skipped, saying so.
    OtherGpus,
}

/// A random-shape test: on the GPU (or skipped, saying so) and the tuner's own choices, `cases` cases
/// ([`random_case_count`]) from one printed seed on each handle of `planned_for`, each run by `run_case`
/// with what `open` made once for the test (a cuBLAS to compare with); `run_case` returns what the case
/// took, and the tally is said after each handle's cases under `what`.
pub fn run_random_shape_test<S>(
    planned_for: PlannedFor,
    test: &str,
    cases: usize,
    what: &str,
    open: impl FnOnce(&str) -> S,
    mut run_case: impl FnMut(&Gpu, &mut Random, &S) -> String,
) {
    let _shapes = tuner_choices();
    let Some(gpus) = gpus_planned_for(planned_for, test) else { return };
    let cases = random_case_count(test, cases);
    let mut random = random(test);
    let opened = open(test);
    for (label, gpu) in gpus {
        let mut taken = Tally::default();
        for _ in 0..cases {
            taken.add(run_case(&gpu, &mut random, &opened));
        }
        taken.say(&label, cases, what);
    }
}

/// The handles of `planned_for`, each with the label its tally is said under; None without a GPU (said).
fn gpus_planned_for(planned_for: PlannedFor, test: &str) -> Option<Vec<(String, Gpu)>> {
    match planned_for {
        PlannedFor::ThisGpu => Some(vec![(test.to_string(), gpu_or_skip(test)?)]),
        PlannedFor::OtherGpus => {
            if !driver_or_skip(test) {
                return None;
            }
            let mut gpus = Vec::new();
            for profile in mublas::tuner::DeviceModel::other_gpus() {
                let name = profile.name.clone();
                match mublas::capi::handle::create_planned_for(profile) {
                    Ok(handle) => gpus.push((format!("{test}, {name}"), Gpu::from_handle(handle))),
                    Err(mublas::Error::InvalidValue(why)) => {
                        say(&format!("{test}: SKIPPED the launches planned for {name}: {why}"))
                    }
                    Err(e) => panic!("a handle planned for {name}: {e}"),
                }
            }
            Some(gpus)
        }
    }
}

/// ±1 or ±2, evenly: a product of two is a whole number of at most 4 in
/// magnitude, so a sum of up to 2^20 of them (times 2, plus a few more) is a
/// whole number below 2^24, which float32 holds exactly in any order of
/// addition: a result from such data must equal the float64 reference.
pub fn small_integer(random: &mut Random) -> f32 {
    let bits = random.next_u64();
    let magnitude = if bits & 2 == 0 { 1.0 } else { 2.0 };
    if bits & 1 == 0 { magnitude } else { -magnitude }
}

/// Uniform in 0..n (n > 0).
pub fn below(random: &mut Random, n: usize) -> usize {
    (random.next_u64() % n as u64) as usize
}

/// Log-uniform in 1..=max: as many draws between 10 and 100 as between 1000 and 10000.
pub fn log_uniform(random: &mut Random, max: usize) -> usize {
    let unit = (random.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    ((max as f64).powf(unit).round() as usize).clamp(1, max)
}

/// A dimension in 1..=max for the random-shape tests: a third of the time a
/// multiple of 32 to 1024 floats give or take 3 (where the kernels' tiles and
/// the routines' rules change), otherwise log-uniform.
pub fn random_dimension(random: &mut Random, max: usize) -> usize {
    if below(random, 3) == 0 {
        let unit = [32, 64, 128, 256, 1024][below(random, 5)].min(max);
        let edge = unit * (1 + below(random, max / unit));
        (edge + below(random, 7)).saturating_sub(3).clamp(1, max)
    } else {
        log_uniform(random, max)
    }
}

/// Floats a random-shape test's operand starts past a 16-byte boundary: 0 half the time, else 1 to 3.
pub fn random_offset(random: &mut Random) -> usize {
    if below(random, 2) == 0 { 0 } else { 1 + below(random, 3) }
}

/// A random-shape test's vector increment: 1 half the time, else -1, ±2 or ±3.
pub fn random_increment(random: &mut Random) -> i64 {
    if below(random, 2) == 0 { 1 } else { [-1, 2, -2, 3, -3][below(random, 5)] }
}

/// alpha for the random-shape tests: 0 a tenth of the time, 1 a tenth, -1 a twentieth, else in ±[1/8, 2].
pub fn random_alpha(random: &mut Random) -> f32 {
    match below(random, 20) {
        0 | 1 => 0.0,
        2 | 3 => 1.0,
        4 => -1.0,
        _ => 2.0 * random.value(),
    }
}

/// beta for the random-shape tests: 0 a quarter of the time, 1 a sixth, -1 a tenth, else in ±[1/16, 1].
pub fn random_beta(random: &mut Random) -> f32 {
    match below(random, 60) {
        0..15 => 0.0,
        15..25 => 1.0,
        25..31 => -1.0,
        _ => random.value(),
    }
}

/// What the random-shape tests' cases took (kernels, paths), said in one line at the end.
#[derive(Default)]
pub struct Tally(std::collections::BTreeMap<String, usize>);

impl Tally {
    pub fn add(&mut self, what: impl Into<String>) {
        *self.0.entry(what.into()).or_default() += 1;
    }

    /// "`test`: N cases passed; `what`: a 3, b 1, …".
    pub fn say(&self, test: &str, cases: usize, what: &str) {
        let taken: Vec<String> = self.0.iter().map(|(name, count)| format!("{name} {count}")).collect();
        say(&format!("{test}: {cases} cases passed; {what}: {}", taken.join(", ")));
    }
}

/// Index into a strided vector's storage, reference-BLAS style.
pub fn strided_index(i: usize, n: usize, inc: i64) -> usize {
    if inc >= 0 { i * inc as usize } else { (n - 1 - i) * (-inc) as usize }
}

/// SAXPY's result in float64 over the whole storage of y (`span(n, incy)`
/// floats): element i gets alpha·x_i added (with incy = 0 all n terms land on
/// y[0]), and the magnitude [`assert_close`] scales by is |y| plus Σ|alpha·x_i|
/// on the elements written and 0 on the floats between them, which must come
/// back exactly.
pub fn saxpy_reference(n: usize, alpha: f32, x: &[f32], incx: i64, y: &[f32], incy: i64) -> (Vec<f64>, Vec<f64>) {
    let mut expected: Vec<f64> = y.iter().map(|&v| v as f64).collect();
    let mut magnitude = vec![0.0; y.len()];
    for i in 0..n {
        let iy = strided_index(i, n, incy);
        magnitude[iy] = y[iy].abs() as f64;
    }
    for i in 0..n {
        let (term, iy) = (alpha as f64 * x[strided_index(i, n, incx)] as f64, strided_index(i, n, incy));
        expected[iy] += term;
        magnitude[iy] += term.abs();
    }
    (expected, magnitude)
}

/// The roundings in y[0] after `axpy_f32_sum_to_y0` adds n terms (SAXPY with
/// incy = 0), for [`assert_close`]: a thread's terms in turn (16 with a block
/// per 16 threads' terms, more once the 1024 blocks are reached, which takes
/// n > 2^20 even with the smallest blocks of 64 threads), then the trees over
/// the warp, the block and the blocks' partial sums, and the final multiply-add.
pub fn sum_to_y0_roundings(n: usize) -> f64 {
    let per_thread = (n / (1024 * 64) + 1).max(16);
    (per_thread + 5 + 5 + 16 + 5 + 5 + 1) as f64
}

/// Floats of storage a strided vector of n elements spans.
pub fn span(n: usize, inc: i64) -> usize {
    if n == 0 { 0 } else { 1 + (n - 1) * inc.unsigned_abs() as usize }
}

/// Checks `got` against a float64 `expected` with a bound of `ulps` float32
/// roundings of `magnitude` (Σ|terms| of each element). NaN never passes.
pub fn assert_close(what: &str, got: &[f32], expected: &[f64], magnitude: &[f64], ulps: f64) {
    assert_eq!(got.len(), expected.len());
    for i in 0..got.len() {
        let bound = ulps * f32::EPSILON as f64 * 0.5 * magnitude[i] + f32::MIN_POSITIVE as f64;
        let error = (got[i] as f64 - expected[i]).abs();
        assert!(
            got[i].is_finite() && error <= bound,
            "{what}: element {i}: got {} expected {} (error {error:e} > bound {bound:e})",
            got[i],
            expected[i]
        );
    }
}

/// Σ_l entry(i, l)·v[l] for i < len in float64, with Σ|terms| per element (the
/// magnitude [`assert_close`] scales its bound by).
pub fn product(len: usize, entry: impl Fn(usize, usize) -> f64, v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    (0..len)
        .map(|i| {
            let (mut sum, mut magnitude) = (0.0, 0.0);
            for (l, &vl) in v.iter().enumerate() {
                let term = entry(i, l) * vl;
                sum += term;
                magnitude += term.abs();
            }
            (sum, magnitude)
        })
        .unzip()
}

/// mublasSetStream onto `stream` (a created stream's `raw()`, or null for the legacy default stream), which must
/// succeed.
pub fn set_stream(gpu: &Gpu, stream: mublas::launch::CUstream) {
    // SAFETY: a live handle and a stream of its context (or null).
    let status = unsafe { mublas::capi::handle::mublasSetStream(gpu.handle, stream as *mut CUstream_st) };
    assert_eq!(status, MUBLAS_STATUS_SUCCESS);
}

/// Whether two arrays hold the same floats, bit for bit (NaN equal to the same NaN).
pub fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits())
}

/// Runs `call` (mublas calls on `stream`, a created non-blocking stream, or
/// queued behind it) with the stream held back by a [`StreamGate`]: each of
/// `outputs` must read as before until the gate opens, so the work went onto
/// `stream` (or waits for it) and the calls returned without waiting for it (testing.md: results ready after that
/// stream synchronises, not before). Then the stream is let go and
/// synchronised; the caller checks the result.
pub fn call_behind_a_gate<R>(
    what: &str,
    gpu: &Gpu,
    stream: mublas::launch::CUstream,
    outputs: &[&GuardedBuffer],
    call: impl FnOnce() -> R,
) -> R {
    let before: Vec<Vec<f32>> = outputs.iter().map(|output| output.read().unwrap()).collect();
    let gate = StreamGate::close(gpu.context(), stream).unwrap();
    let result = call();
    let returned_while_held = !gate.timed_out();
    // Synchronous copies on the legacy default stream, which does not wait for `stream`.
    let during: Vec<Vec<f32>> = outputs.iter().map(|output| output.read().unwrap()).collect();
    let read_while_held = !gate.timed_out();
    gate.open();
    mublas::harness::stream::synchronize(gpu.context(), stream).unwrap();
    assert!(returned_while_held, "{what}: the call waited for its own stream (the gate opened by itself after 10 s)");
    assert!(read_while_held, "{what}: reading the output waited until the gate opened by itself (a device-wide wait?)");
    for (k, (before, during)) in before.iter().zip(&during).enumerate() {
        assert!(
            same_bits(before, during),
            "{what}: output {k} written while the stream was held back: launched on another stream, or not after it"
        );
    }
    result
}
