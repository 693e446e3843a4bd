//! Benchmark workloads: one routine call of one size, on inputs rotated over
//! enough memory to defeat the L2, runnable through mublas and through cuBLAS.
//! `bench`, `tune` and `report` all time these.

use mublas::capi::blas1::mublasSaxpy;
use mublas::capi::gemm::mublasSgemm;
use mublas::capi::types::mublasHandle_t;
use mublas::harness::timing::median;
use mublas::harness::{EventTimer, Random};
use mublas::launch::DeviceBuffer;
use mublas::real_cublas::{CublasHandle, RealCublas};
use mublas::routines::vector::StridedVector;
use mublas::tuner::{KernelSpec, LaunchPlan, Problem};
use mublas::{Error, Handle};

pub const WARMUPS: usize = 3;
/// Calls of one library in a row in `Workload::time_against_cublas`, the first untimed.
pub const BLOCK_CALLS: usize = 5;

/// How `Workload::time_against_cublas` times the two libraries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// Blocks of BLOCK_CALLS calls of one library, each call synchronised
    /// (the host's part of the call and the launch on an idle GPU count, as
    /// in the figures of shared/docs/baseline-h100.md); the default.
    Blocks,
    /// The same blocks, each block's calls queued back to back and
    /// synchronised once (`--queued`): a timed call's kernels and the gaps
    /// between them, without the launch from idle that every synchronised
    /// call pays (6–7 µs at SGEMM 2048 on the H100).
    Queued,
    /// Call by call, synchronised, the libraries alternating (`--alternate`).
    Alternate,
}
/// Bytes of distinct inputs each workload cycles through (the H100's L2 is 50 MB).
const ROTATION_BYTES: usize = 512 << 20;

/// Rotation slots for inputs of `slot_bytes`: enough to fill ROTATION_BYTES,
/// and never fewer than four, so that mublas (even slots) and cuBLAS (odd
/// ones) each have two and no call reads what its library's call before it
/// read. With one slot (inputs above 256 MiB, SGEMV from n = 8192), mublas and
/// cuBLAS, timed alternately, read the same matrix, and each found in the L2
/// the last 50 MB the other had just read: cuBLAS's SGEMV-N at 8192² took 88.5
/// µs that way against 100–106 µs on its own copy.
fn rotation_copies(slot_bytes: usize) -> usize {
    (ROTATION_BYTES / slot_bytes.max(1)).max(4)
}

/// Rate units: bytes moved per second for the memory-bound routines, flops
/// per second for SGEMM.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    GigabytesPerSecond,
    TeraflopsPerSecond,
}

impl Unit {
    pub fn label(self) -> &'static str {
        match self {
            Unit::GigabytesPerSecond => "GB/s",
            Unit::TeraflopsPerSecond => "TFLOP/s",
        }
    }

    /// `work` (bytes or flops) done in `us` microseconds, in this unit.
    pub fn rate(self, work: f64, us: f64) -> f64 {
        let per_second = work / (us * 1e-6);
        match self {
            Unit::GigabytesPerSecond => per_second / 1e9,
            Unit::TeraflopsPerSecond => per_second / 1e12,
        }
    }
}

/// Random device memory holding `copies` rotation slots of `slot_floats` floats each.
pub struct Pool {
    _buffer: DeviceBuffer,
    rotation: Rotation,
}

/// Where the inputs of rep `i` live; Copy, so closures can hold it.
#[derive(Clone, Copy)]
pub struct Rotation {
    base: u64,
    slot_floats: usize,
    copies: usize,
}

impl Rotation {
    /// Address of float `offset` within the slot of rep `i`.
    pub fn at(&self, i: usize, offset: usize) -> u64 {
        self.base + (((i % self.copies) * self.slot_floats + offset) * 4) as u64
    }
}

impl Pool {
    pub fn rotation(&self) -> Rotation {
        self.rotation
    }

    pub fn new(h: &Handle, slot_floats: usize, random: &mut Random) -> Result<Pool, String> {
        Pool::new_scaled(h, slot_floats, 1.0, random)
    }

    /// Random values in ±[scale/16, scale] (see [`Random::value`]).
    pub fn new_scaled(h: &Handle, slot_floats: usize, scale: f32, random: &mut Random) -> Result<Pool, String> {
        let copies = rotation_copies(slot_floats * 4);
        let floats = copies * slot_floats;
        let buffer = DeviceBuffer::new(h.device.context(), floats * 4).map_err(|e| e.to_string())?;
        // Random data for the first 64 MiB, replicated on the device beyond: distinct
        // addresses defeat the L2; the values need only be random, not unique.
        let seed_floats = floats.min(1 << 24);
        let seed: Vec<f32> = random.vector(seed_floats).into_iter().map(|v| v * scale).collect();
        buffer.write(0, &seed).map_err(|e| e.to_string())?;
        let mut offset = seed_floats;
        while offset < floats {
            let len = seed_floats.min(floats - offset);
            buffer.copy_within(0, offset * 4, len * 4).map_err(|e| e.to_string())?;
            offset += len;
        }
        let rotation = Rotation { base: buffer.address(), slot_floats, copies };
        Ok(Pool { _buffer: buffer, rotation })
    }
}

/// A cuBLAS or mublas status as a result (both libraries number them alike).
fn checked(routine: &str, status: i32) -> mublas::Result<()> {
    match status {
        0 => Ok(()),
        status => Err(Error::ExecutionFailed(format!("{routine} status {status}"))),
    }
}

/// A mublas handle made through the C ABI, as a user's program makes it, for the
/// tools' timed calls; destroyed on drop.
pub struct MublasSession(mublasHandle_t);

impl MublasSession {
    /// Initialises the driver and creates the handle, or says why there is no GPU to use.
    pub fn open() -> Result<MublasSession, String> {
        mublas::launch::driver::init().map_err(|e| format!("no usable GPU: {e}"))?;
        let mut handle: mublasHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        let status = unsafe { mublas::capi::handle::mublasCreate(&mut handle) };
        if status != mublas::capi::types::MUBLAS_STATUS_SUCCESS {
            return Err(format!("mublasCreate failed with status {status}"));
        }
        Ok(MublasSession(handle))
    }

    /// The handle as C sees it, for calls through the exports.
    pub fn raw(&self) -> mublasHandle_t {
        self.0
    }

    /// The object behind it, for the tuner and the launch layer.
    pub fn handle(&self) -> &Handle {
        // SAFETY: a live handle from mublasCreate is a Handle; it lives as long as self.
        unsafe { &*(self.0 as *const Handle) }
    }
}

impl Drop for MublasSession {
    fn drop(&mut self) {
        // SAFETY: created by `open`, destroyed once.
        unsafe { mublas::capi::handle::mublasDestroy(self.0) };
    }
}

/// A handle of the real cuBLAS for the comparisons, destroyed on drop.
struct CublasSession<'a>(CublasHandle, &'a RealCublas);

impl<'a> CublasSession<'a> {
    fn new(c: &'a RealCublas) -> Result<CublasSession<'a>, String> {
        let mut ch = std::ptr::null_mut();
        // SAFETY: cuBLAS's own create on the current device.
        if unsafe { (c.create)(&mut ch) } != 0 {
            return Err("cublasCreate failed".into());
        }
        Ok(CublasSession(ch, c))
    }
}

impl Drop for CublasSession<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `new`, destroyed once (cuBLAS waits for its work first).
        unsafe { (self.1.destroy)(self.0) };
    }
}

/// The same call through the real cuBLAS: (library, its handle, rep index) → status.
type CublasCall = Box<dyn Fn(&RealCublas, CublasHandle, usize) -> i32>;

pub struct Workload {
    pub routine: &'static str,
    pub label: String,
    /// The kernel mublas uses for this workload, and the problem the tuner sees.
    pub spec: &'static KernelSpec,
    pub problem: Problem,
    /// The plan the routine itself chose, where that is not the tuner's plan
    /// of (spec, problem) (SGEMM's split: see `routines::gemm::tile_plan`;
    /// SGEMV's twins: `routines::gemv::plan`).
    pub routine_plan: Option<LaunchPlan>,
    /// Bytes moved (or, for SGEMM, flops done) per call.
    pub work: f64,
    pub unit: Unit,
    mublas: Box<dyn Fn(usize) -> i32>,
    /// (x, y) addresses of rep i, for direct launches.
    addresses: Box<dyn Fn(usize) -> (u64, u64)>,
    cublas: Option<CublasCall>,
    _pool: Pool,
}

/// SAXPY layouts: x and y equally aligned (the float4 kernel) or x one float off (the strided kernel).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum AxpyLayout {
    Aligned,
    Misaligned,
}

impl Workload {
    pub fn saxpy(
        h: &Handle,
        handle: mublasHandle_t,
        n: usize,
        layout: AxpyLayout,
        random: &mut Random,
    ) -> Result<Workload, String> {
        let pool = Pool::new(h, 2 * n + 4, random)?;
        let r = pool.rotation;
        let x_offset = if layout == AxpyLayout::Aligned { 0 } else { 1 };
        let y_offset = n + 4;
        let x0 = StridedVector { base: r.at(0, x_offset), len: n as i64, inc: 1 };
        let y0 = StridedVector { base: r.at(0, y_offset), len: n as i64, inc: 1 };
        let (spec, problem) = mublas::routines::axpy::select_kernel(n as i64, &x0, &y0);
        let handle = handle as usize;
        let alpha = 0.5f32;
        Ok(Workload {
            routine: "saxpy",
            label: if n.is_power_of_two() { format!("n=2^{}", n.trailing_zeros()) } else { format!("n={n}") }
                + if layout == AxpyLayout::Misaligned { " misaligned" } else { "" },
            spec,
            problem,
            work: 3.0 * n as f64 * 4.0,
            unit: Unit::GigabytesPerSecond,
            // SAFETY (both closures): x and y are n floats inside the pool, which the workload owns.
            addresses: Box::new(move |i| (r.at(i, x_offset), r.at(i, y_offset))),
            mublas: Box::new(move |i| unsafe {
                mublasSaxpy(
                    handle as mublasHandle_t,
                    n as i32,
                    &alpha,
                    r.at(i, x_offset) as *const f32,
                    1,
                    r.at(i, y_offset) as *mut f32,
                    1,
                )
            }),
            cublas: Some(Box::new(move |c, ch, i| unsafe {
                (c.saxpy)(ch, n as i32, &alpha, r.at(i, x_offset) as *const f32, 1, r.at(i, y_offset) as *mut f32, 1)
            })),
            routine_plan: None,
            _pool: pool,
        })
    }

    /// y = 0.75·op(A)·x + 0.5·y with A m×n (lda = m), unit increments.
    pub fn sgemv(
        h: &Handle,
        handle: mublasHandle_t,
        op: mublas::routines::gemv::Op,
        m: usize,
        n: usize,
        random: &mut Random,
    ) -> Result<Workload, String> {
        use mublas::routines::gemv::{self, Op};
        // One slot: A, then x and y, each long enough for either op; 16-byte aligned starts.
        let xy = m.max(n).next_multiple_of(4);
        let slot = (m * n).next_multiple_of(4) + 2 * xy;
        let pool = Pool::new(h, slot, random)?;
        let r = pool.rotation;
        let (x_at, y_at) = (slot - 2 * xy, slot - xy);
        let x = gemv::x_reads(r.at(0, x_at), 1);
        let (spec, plan) = gemv::plan(h, op, m as i64, n as i64, r.at(0, 0), m as i64, x).map_err(|e| e.to_string())?;
        let trans = if op == Op::N { mublas::capi::types::MUBLAS_OP_N } else { mublas::capi::types::MUBLAS_OP_T };
        let handle = handle as usize;
        let (alpha, beta) = (0.75f32, 0.5f32);
        Ok(Workload {
            routine: "sgemv",
            label: format!("{} {m}x{n}", if op == Op::N { "N" } else { "T" }),
            spec,
            problem: gemv::problem(m as i64, n as i64),
            work: gemv::bytes_moved(op, m as i64, n as i64),
            unit: Unit::GigabytesPerSecond,
            addresses: Box::new(move |i| (r.at(i, x_at), r.at(i, y_at))),
            // SAFETY (both closures): A, x and y lie inside rotation slot i of the pool the workload owns.
            mublas: Box::new(move |i| unsafe {
                mublas::capi::blas2::mublasSgemv(
                    handle as mublasHandle_t,
                    trans,
                    m as i32,
                    n as i32,
                    &alpha,
                    r.at(i, 0) as *const f32,
                    m as i32,
                    r.at(i, x_at) as *const f32,
                    1,
                    &beta,
                    r.at(i, y_at) as *mut f32,
                    1,
                )
            }),
            cublas: Some(Box::new(move |c, ch, i| unsafe {
                (c.sgemv)(
                    ch,
                    trans,
                    m as i32,
                    n as i32,
                    &alpha,
                    r.at(i, 0) as *const f32,
                    m as i32,
                    r.at(i, x_at) as *const f32,
                    1,
                    &beta,
                    r.at(i, y_at) as *mut f32,
                    1,
                )
            })),
            routine_plan: Some(plan),
            _pool: pool,
        })
    }

    /// STRMV `x := op(A)·x` with lda = n; A (and x) at one float past 16-byte
    /// alignment when `misaligned` (the scalar kernels). x is overwritten by
    /// every call, so the pool's values are scaled by 1/n: then |op(A)·x| ≤ max|x|
    /// and nothing grows to Inf or NaN however often a slot is reused.
    #[allow(clippy::too_many_arguments)]
    pub fn strmv(
        h: &Handle,
        handle: mublasHandle_t,
        uplo: i32,
        trans: i32,
        diag: i32,
        n: usize,
        misaligned: bool,
        random: &mut Random,
    ) -> Result<Workload, String> {
        use mublas::routines::trmv;
        let a_offset = misaligned as usize;
        let x_offset = (a_offset + n * n).div_ceil(4) * 4 + a_offset;
        // Whole float4s per slot, so that every slot's A has slot 0's alignment.
        let pool = Pool::new_scaled(h, (x_offset + n + 4).div_ceil(4) * 4, 1.0 / n.max(1) as f32, random)?;
        let r = pool.rotation;
        let variant = trmv::check_arguments(uplo, trans, diag, n as i64, n as i64, 1).map_err(|e| e.to_string())?;
        let (spec, problem) = trmv::select_kernel(variant.op, n as i64, r.at(0, a_offset), n as i64);
        let name = format!(
            "{}{}{}",
            if variant.lower { "L" } else { "U" },
            if variant.op == trmv::Op::N { "N" } else { "T" },
            if variant.unit { "U" } else { "N" }
        );
        let handle = handle as usize;
        let n32 = n as i32;
        Ok(Workload {
            routine: "strmv",
            label: format!("{name} n={n}{}", if misaligned { " misaligned" } else { "" }),
            spec,
            problem,
            work: trmv::bytes_moved(n as u64),
            unit: Unit::GigabytesPerSecond,
            addresses: Box::new(move |i| (r.at(i, a_offset), r.at(i, x_offset))),
            // SAFETY (both closures): A (n × n, lda n) and x (n floats) lie inside the pool, which the workload owns.
            mublas: Box::new(move |i| unsafe {
                mublas::capi::trmv::mublasStrmv(
                    handle as mublasHandle_t,
                    uplo,
                    trans,
                    diag,
                    n32,
                    r.at(i, a_offset) as *const f32,
                    n32,
                    r.at(i, x_offset) as *mut f32,
                    1,
                )
            }),
            cublas: Some(Box::new(move |c, ch, i| unsafe {
                (c.strmv)(
                    ch,
                    uplo,
                    trans,
                    diag,
                    n32,
                    r.at(i, a_offset) as *const f32,
                    n32,
                    r.at(i, x_offset) as *mut f32,
                    1,
                )
            })),
            routine_plan: None,
            _pool: pool,
        })
    }

    /// SGEMM C = op(A)·op(B) (alpha 1, beta 0), each rep on its own A, B, C;
    /// the work unit is 2·m·n·k flops. `addresses` gives (A, C).
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm(
        h: &Handle,
        handle: mublasHandle_t,
        transa: i32,
        transb: i32,
        m: usize,
        n: usize,
        k: usize,
        random: &mut Random,
    ) -> Result<Workload, String> {
        Workload::sgemm_with(h, handle, transa, transb, m, n, k, mublas::routines::gemm::TileChoice::Auto, random)
    }

    /// [`Self::sgemm`] with the tile forced (through the routine, not the C
    /// ABI) or, with `TileChoice::Auto`, chosen as for any caller.
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm_with(
        h: &Handle,
        handle: mublasHandle_t,
        transa: i32,
        transb: i32,
        m: usize,
        n: usize,
        k: usize,
        choice: mublas::routines::gemm::TileChoice,
        random: &mut Random,
    ) -> Result<Workload, String> {
        use mublas::routines::gemm::{self, TileChoice, Transpose};
        let ta = Transpose::from_code(transa).ok_or("transa")?;
        let tb = Transpose::from_code(transb).ok_or("transb")?;
        let (lda, a_cols) = if ta == Transpose::No { (m, k) } else { (k, m) };
        let (ldb, b_cols) = if tb == Transpose::No { (k, n) } else { (n, k) };
        // Each matrix starts on a 256-byte boundary within the slot.
        let round = |floats: usize| floats.div_ceil(64) * 64;
        let (a_len, b_len, c_len) = (round(lda * a_cols), round(ldb * b_cols), round(m * n));
        let pool = Pool::new(h, a_len + b_len + c_len, random)?;
        let r = pool.rotation;
        let (b_offset, c_offset) = (a_len, a_len + b_len);
        let call = gemm::plan_call(
            h,
            ta,
            tb,
            m as u64,
            n as u64,
            k as u64,
            r.at(0, 0),
            lda as i64,
            r.at(0, b_offset),
            ldb as i64,
            r.at(0, c_offset),
            m as i64,
            choice,
        )
        .map_err(|e| e.to_string())?;
        let (mut spec, mut plan) = (call.kernel, call.plan);
        let mut problem = gemm::tuner_problem(h, spec, m as u64, n as u64, k as u64).map_err(|e| e.to_string())?;
        let ops = ["N", "T"];
        let mut label = if m == n && n == k {
            format!("{}{} {m}", ops[transa.min(1) as usize], ops[transb.min(1) as usize])
        } else {
            format!("{}{} {m}x{n}x{k}", ops[transa.min(1) as usize], ops[transb.min(1) as usize])
        };
        // One, or a few, columns or rows of C: the SGEMV or skinny kernels run instead (routines/gemm/mod.rs).
        let small_side = if choice == TileChoice::Auto {
            let (a_op, b_op) = ((r.at(0, 0), lda as i64), (r.at(0, b_offset), ldb as i64));
            gemm::small_side_plan(h, ta, tb, m as i64, n as i64, k as i64, a_op, b_op, (r.at(0, c_offset), m as i64))
                .map_err(|e| e.to_string())?
        } else {
            None
        };
        if let Some((route, route_spec, route_plan, route_problem)) = small_side {
            (spec, plan, problem) = (route_spec, route_plan, route_problem);
            label += &format!(" {route}");
        }
        if let Some(rows) = call.copied_a_panel_rows {
            // The kernel is the NN or NT one, run on op(A) copied in panels of
            // `rows`: A^T for TN and TT, A onto float4s ("A4") for NN and NT.
            let copied = if ta == Transpose::No { "A4" } else { "A^T" };
            label += &if rows >= m as u64 { format!(" {copied}") } else { format!(" {copied}/{rows}") };
        }
        if let Some(tail) = call.split_tail {
            // C's first `main` columns (n) or rows (m) unsplit, the rest split along k (gemm/split_tail.rs).
            label += &format!(" tail@{}{}", if tail.cut == gemm::Cut::Columns { "n" } else { "m" }, tail.main);
        }
        if let Some(stream_k) = call.stream_k {
            // The last `tiles` tiles shared by `blocks` blocks (gemm/stream_k.rs).
            label += &format!(" sk{}/{}", stream_k.tiles, stream_k.blocks);
        }
        let handle = handle as usize;
        let (alpha, beta) = (1.0f32, 0.0f32);
        let (mi, ni, ki, ldai, ldbi) = (m as i32, n as i32, k as i32, lda.max(1) as i32, ldb.max(1) as i32);
        let ldci = m.max(1) as i32;
        Ok(Workload {
            routine: "sgemm",
            label,
            spec,
            problem,
            work: gemm::flops(m as u64, n as u64, k as u64),
            unit: Unit::TeraflopsPerSecond,
            addresses: Box::new(move |i| (r.at(i, 0), r.at(i, c_offset))),
            // SAFETY (both closures): A, B and C lie inside the pool, which the workload owns.
            mublas: Box::new(move |i| match choice {
                TileChoice::Auto => unsafe {
                    mublasSgemm(
                        handle as mublasHandle_t,
                        transa,
                        transb,
                        mi,
                        ni,
                        ki,
                        &alpha,
                        r.at(i, 0) as *const f32,
                        ldai,
                        r.at(i, b_offset) as *const f32,
                        ldbi,
                        &beta,
                        r.at(i, c_offset) as *mut f32,
                        ldci,
                    )
                },
                TileChoice::Tile(_)
                | TileChoice::CopiedA { .. }
                | TileChoice::SplitTail { .. }
                | TileChoice::StreamK { .. } => {
                    // SAFETY: a live handle from mublasCreate is a Handle (as MublasSession::handle).
                    let h = unsafe { &*(handle as *const Handle) };
                    let (alpha, beta) = (mublas::routines::Scalar::Host(alpha), mublas::routines::Scalar::Host(beta));
                    let result = gemm::sgemm_with(
                        h,
                        transa,
                        transb,
                        mi as i64,
                        ni as i64,
                        ki as i64,
                        alpha,
                        r.at(i, 0),
                        ldai as i64,
                        r.at(i, b_offset),
                        ldbi as i64,
                        beta,
                        r.at(i, c_offset),
                        ldci as i64,
                        choice,
                    );
                    result.map_or_else(|e| e.status() as i32, |_| 0)
                }
            }),
            cublas: Some(Box::new(move |c, ch, i| unsafe {
                (c.sgemm)(
                    ch,
                    transa,
                    transb,
                    mi,
                    ni,
                    ki,
                    &alpha,
                    r.at(i, 0) as *const f32,
                    ldai,
                    r.at(i, b_offset) as *const f32,
                    ldbi,
                    &beta,
                    r.at(i, c_offset) as *mut f32,
                    ldci,
                )
            })),
            routine_plan: Some(plan),
            _pool: pool,
        })
    }

    /// One mublas call on the inputs of rep `i`, not timed.
    pub fn call_mublas(&self, i: usize) -> Result<(), String> {
        checked(self.routine, (self.mublas)(i)).map_err(|e| e.to_string())
    }

    pub fn addresses(&self, i: usize) -> (u64, u64) {
        (self.addresses)(i)
    }

    /// Host µs per cuBLAS call, `calls` back to back, then synchronised.
    pub fn cublas_host_us(&self, c: &RealCublas, calls: usize) -> Result<f64, String> {
        let Some(call) = &self.cublas else { return Ok(f64::NAN) };
        let ch = CublasSession::new(c)?;
        let started = std::time::Instant::now();
        for i in 0..calls {
            call(c, ch.0, i);
        }
        Ok(started.elapsed().as_secs_f64() * 1e6 / calls as f64)
    }

    /// Median µs of mublas over `reps` calls after `warmups`.
    pub fn time_mublas(&self, timer: &EventTimer, warmups: usize, reps: usize) -> Result<f64, String> {
        timer.median_us(warmups, reps, |i| checked(self.routine, (self.mublas)(i))).map_err(|e| e.to_string())
    }

    /// Median µs of mublas and of cuBLAS. By default in alternating blocks of
    /// BLOCK_CALLS calls of one library, the first of each block not timed:
    /// every timed call follows a call of its own library, as in a program
    /// that uses one of them, and the blocks alternate so that clock and
    /// thermal drift fall on both alike. What one library's kernel leaves
    /// behind moves the next call: at TN 2048 mublas's call took 5–11 µs
    /// longer after cuBLAS's than after its own (docs/performance.md, "The
    /// call before"). `Timing::Queued` queues each block's calls back to
    /// back instead of synchronising each. `Timing::Alternate` (the
    /// benchmark's method until the session of 2026-11-27, late evening), call
    /// by call, each library first in every other pair, so that each call
    /// pays for what the other library's call left behind. mublas's calls take the
    /// even rotation slots and cuBLAS's the odd ones, each library's in turn:
    /// no call finds its inputs in the L2.
    pub fn time_against_cublas(
        &self,
        c: &RealCublas,
        timer: &EventTimer,
        warmups: usize,
        reps: usize,
        timing: Timing,
    ) -> Result<(f64, Option<f64>), String> {
        let Some(call) = &self.cublas else { return Ok((self.time_mublas(timer, warmups, reps)?, None)) };
        let ch = CublasSession::new(c)?;
        // Library 0 is mublas, 1 cuBLAS; `i` counts that library's calls.
        let call_library = |library: usize, i: usize| {
            let status = if library == 0 { (self.mublas)(2 * i) } else { call(c, ch.0, 2 * i + 1) };
            checked(self.routine, status)
        };
        let time = |library: usize, i: usize| timer.time_us(|| call_library(library, i)).map_err(|e| e.to_string());
        let mut times = [Vec::with_capacity(reps), Vec::with_capacity(reps)];
        for i in 0..warmups {
            time(0, i)?;
            time(1, i)?;
        }
        match timing {
            Timing::Alternate => {
                for i in warmups..warmups + reps {
                    for library in if i % 2 == 0 { [0, 1] } else { [1, 0] } {
                        times[library].push(time(library, i)?);
                    }
                }
            }
            Timing::Blocks | Timing::Queued => {
                for block in 0..reps.div_ceil(BLOCK_CALLS - 1) {
                    for (library, library_times) in times.iter_mut().enumerate() {
                        let first = warmups + block * BLOCK_CALLS;
                        let block_times = if timing == Timing::Queued {
                            let queued = |j: usize| call_library(library, first + j);
                            timer.time_queued_us(BLOCK_CALLS, queued).map_err(|e| e.to_string())?
                        } else {
                            (0..BLOCK_CALLS).map(|j| time(library, first + j)).collect::<Result<Vec<_>, _>>()?
                        };
                        library_times.extend_from_slice(&block_times[1..]);
                    }
                }
            }
        }
        let [ours, theirs] = &mut times;
        Ok((median(ours), Some(median(theirs))))
    }

    /// Median µs of cuBLAS, on a cuBLAS handle of its own on the same (default) stream.
    pub fn time_cublas(
        &self,
        c: &RealCublas,
        timer: &EventTimer,
        warmups: usize,
        reps: usize,
    ) -> Result<Option<f64>, String> {
        let Some(call) = &self.cublas else { return Ok(None) };
        let ch = CublasSession::new(c)?;
        timer.median_us(warmups, reps, |i| checked(self.routine, call(c, ch.0, i))).map(Some).map_err(|e| e.to_string())
    }

    pub fn rate(&self, us: f64) -> f64 {
        self.unit.rate(self.work, us)
    }

    /// The plan a call makes: the routine's own where it chose one, else the tuner's.
    pub fn plan(&self, h: &Handle) -> Result<LaunchPlan, String> {
        if let Some(plan) = self.routine_plan {
            return Ok(plan);
        }
        let kernel = h.device.kernel(self.spec.name).map_err(|e| e.to_string())?;
        Ok(h.device.tuner.plan(self.spec, &kernel.model, &self.problem))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_fills_the_pool_and_keeps_consecutive_calls_apart() {
        assert_eq!(rotation_copies(4 << 20), 128);
        assert_eq!(rotation_copies(100 << 20), 5);
        // SGEMV at 8192²: one copy would fit, but each library needs two.
        assert_eq!(rotation_copies(8192 * 8192 * 4 + 3 * 8192 * 4), 4);
        assert_eq!(rotation_copies(1 << 32), 4);
        for slot_bytes in [4 << 20, 100 << 20, 200 << 20, 1 << 32] {
            let r = Rotation { base: 0, slot_floats: slot_bytes / 4, copies: rotation_copies(slot_bytes) };
            for call in 0..40 {
                // mublas's call `call` takes rep 2·call, cuBLAS's 2·call + 1 (Workload::time_against_cublas).
                let (mublas, cublas) = (r.at(2 * call, 0), r.at(2 * call + 1, 0));
                assert_ne!(mublas, cublas, "mublas's and cuBLAS's calls share a slot");
                assert_ne!(mublas, r.at(2 * call + 2, 0), "two mublas calls in a row share a slot");
                assert_ne!(cublas, r.at(2 * call + 3, 0), "two cuBLAS calls in a row share a slot");
            }
        }
    }
}
