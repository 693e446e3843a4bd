//! SGEMV on the GPU against a float64 CPU reference and against real cuBLAS,
//! over the case matrix of shared/docs/testing.md, plus every launch shape
//! the tuner may choose. Skipped, saying so, when there is no GPU.

mod common;

use common::*;
use mublas::Error;
use mublas::capi::blas2::mublasSgemv;
use mublas::capi::handle::*;
use mublas::capi::trmv::mublasStrmv;
use mublas::capi::types::*;
use mublas::harness::{GuardedBuffer, Random, Stream};
use mublas::routines::Scalar;
use mublas::routines::gemm::{self, TileChoice};
use mublas::routines::gemv::{self, Op, XReads};
use mublas::tuner::{KernelSpec, LaunchPlan, LaunchShape};

#[derive(Clone, Copy, Debug)]
struct Case {
    trans: i32,
    m: usize,
    n: usize,
    lda: usize,
    /// Floats A is placed past a 16-byte boundary.
    a_offset: usize,
    /// The same for x (the lean T kernel that reads x through L1 needs it aligned).
    x_offset: usize,
    /// The same for y (written and, with beta != 0, read element by element).
    y_offset: usize,
    incx: i64,
    incy: i64,
    alpha: f32,
    beta: f32,
    device_scalars: bool,
}

impl Case {
    fn op(&self) -> Op {
        if self.trans == MUBLAS_OP_N { Op::N } else { Op::T }
    }
    /// (length of x, length of y).
    fn lengths(&self) -> (usize, usize) {
        if self.op() == Op::N { (self.n, self.m) } else { (self.m, self.n) }
    }
    fn a_len(&self) -> usize {
        if self.m == 0 || self.n == 0 { 0 } else { self.lda * (self.n - 1) + self.m }
    }
}

/// A case's data on the host and the device, and what y's storage must become.
struct Prepared {
    case: Case,
    a: Vec<f32>,
    x: Vec<f32>,
    y: Vec<f32>,
    da: GuardedBuffer,
    dx: GuardedBuffer,
    dy: GuardedBuffer,
    scalars: GuardedBuffer,
    /// Per float of y's storage: the exact expected value and Σ|terms| (gaps: their own value).
    expected: Vec<f64>,
    magnitude: Vec<f64>,
    is_element: Vec<bool>,
}

impl Prepared {
    /// alpha = 0 fills A and x with NaN (they must not be read); beta = 0 puts NaN
    /// in y's elements (they must be overwritten, not read).
    fn new(gpu: &Gpu, random: &mut Random, case: Case) -> Prepared {
        Prepared::with_values(gpu, random, case, Random::value)
    }

    /// [`Prepared::new`] with A, x and y drawn by `value`.
    fn with_values(gpu: &Gpu, random: &mut Random, case: Case, value: fn(&mut Random) -> f32) -> Prepared {
        let ctx = gpu.context();
        let (len_x, len_y) = case.lengths();
        let nan_unless = |keep: bool, v: Vec<f32>| if keep { v } else { vec![f32::NAN; v.len()] };
        let mut draw = |len: usize| random.values(len, value);
        let a = nan_unless(case.alpha != 0.0, draw(case.a_len()));
        let x = nan_unless(case.alpha != 0.0, draw(span(len_x, case.incx)));
        let mut y = draw(span(len_y, case.incy));
        let mut is_element = vec![false; y.len()];
        for i in 0..len_y {
            let iy = strided_index(i, len_y, case.incy);
            is_element[iy] = true;
            if case.beta == 0.0 {
                y[iy] = f32::NAN;
            }
        }
        let mut expected: Vec<f64> = y.iter().map(|v| *v as f64).collect();
        let mut magnitude: Vec<f64> = y.iter().map(|v| v.abs() as f64).collect();
        // Each element of op(A)·x summed in k order, A read in storage order (the large cases hold 2^27 floats).
        let (mut dot, mut dot_magnitude) = (vec![0f64; len_y], vec![0f64; len_y]);
        if case.alpha != 0.0 && case.a_len() > 0 {
            let x_at = |k: usize| x[strided_index(k, len_x, case.incx)] as f64;
            let mut add = |i: usize, term: f64| {
                dot[i] += term;
                dot_magnitude[i] += term.abs();
            };
            match case.op() {
                Op::N => {
                    for k in 0..len_x {
                        let (column, x_k) = (&a[k * case.lda..][..len_y], x_at(k));
                        column.iter().enumerate().for_each(|(i, a_ik)| add(i, *a_ik as f64 * x_k));
                    }
                }
                Op::T => {
                    for i in 0..len_y {
                        let row = &a[i * case.lda..][..len_x];
                        row.iter().enumerate().for_each(|(k, a_ik)| add(i, *a_ik as f64 * x_at(k)));
                    }
                }
            }
        }
        for i in 0..len_y {
            let iy = strided_index(i, len_y, case.incy);
            let y_term = if case.beta == 0.0 { 0.0 } else { case.beta as f64 * y[iy] as f64 };
            expected[iy] = case.alpha as f64 * dot[i] + y_term;
            magnitude[iy] = (case.alpha as f64).abs() * dot_magnitude[i] + y_term.abs();
        }
        Prepared {
            case,
            da: GuardedBuffer::from_slice(ctx, &a, case.a_offset).unwrap(),
            dx: GuardedBuffer::from_slice(ctx, &x, case.x_offset).unwrap(),
            dy: GuardedBuffer::from_slice(ctx, &y, case.y_offset).unwrap(),
            scalars: GuardedBuffer::from_slice(ctx, &[case.alpha, case.beta], 0).unwrap(),
            a,
            x,
            y,
            expected,
            magnitude,
            is_element,
        }
    }

    fn describe(&self, shape: Option<LaunchShape>) -> String {
        let c = &self.case;
        format!(
            "trans={} m={} n={} lda={} a_offset={} x_offset={} y_offset={} incx={} incy={} alpha={} beta={} \
             device_scalars={} shape={shape:?}",
            c.trans,
            c.m,
            c.n,
            c.lda,
            c.a_offset,
            c.x_offset,
            c.y_offset,
            c.incx,
            c.incy,
            c.alpha,
            c.beta,
            c.device_scalars
        )
    }

    fn alpha_ptr(&self) -> *const f32 {
        if self.case.device_scalars { self.scalars.address() as *const f32 } else { &self.case.alpha }
    }

    fn beta_ptr(&self) -> *const f32 {
        if self.case.device_scalars { (self.scalars.address() + 4) as *const f32 } else { &self.case.beta }
    }

    fn scalar(&self, value: f32, index: u64) -> Scalar {
        if self.case.device_scalars { Scalar::Device(self.scalars.address() + 4 * index) } else { Scalar::Host(value) }
    }

    /// The kernels that can serve this case, the default first.
    fn kernels(&self) -> Vec<&'static KernelSpec> {
        let x = gemv::x_reads(self.dx.address(), self.case.incx);
        gemv::candidate_kernels(self.case.op(), self.case.m as i64, self.da.address(), self.case.lda as i64, x)
    }

    /// The kernel and plan the routine takes for this case.
    fn plan(&self, gpu: &Gpu) -> (&'static KernelSpec, LaunchPlan) {
        let c = &self.case;
        let (m, n, lda) = (c.m as i64, c.n as i64, c.lda as i64);
        let op = gemv::check_arguments(c.trans, m, n, lda, c.incx, c.incy).unwrap();
        let x = gemv::x_reads(self.dx.address(), c.incx);
        gemv::plan(gpu.inner(), op, m, n, self.da.address(), lda, x).unwrap()
    }

    /// The column (N) or row (T) ranges the default kernel splits into at `shape`.
    fn splits(&self, shape: LaunchShape) -> u32 {
        (self.kernels()[0].geometry)(&gemv::problem(self.case.m as i64, self.case.n as i64), &shape).grid.1
    }

    /// Through the C API (shape None), or with the default kernel forced to `shape`.
    fn run(&self, gpu: &Gpu, shape: Option<LaunchShape>) -> Vec<f32> {
        self.run_kernel(gpu, shape.map(|shape| (self.kernels()[0], shape)))
    }

    /// Restores y, runs mublasSgemv (or the routine with a forced kernel and shape) and returns y's storage.
    fn run_kernel(&self, gpu: &Gpu, forced: Option<(&'static KernelSpec, LaunchShape)>) -> Vec<f32> {
        self.dy.write(&self.y).unwrap();
        self.call(gpu, forced);
        mublas::harness::stream::synchronize(gpu.context(), gpu.inner().stream()).unwrap();
        self.dy.read().unwrap()
    }

    /// [`Prepared::run`] on the handle's created stream, held back by a gate while the call is made.
    fn run_gated(&self, gpu: &Gpu, stream: &Stream) -> Vec<f32> {
        self.dy.write(&self.y).unwrap();
        call_behind_a_gate(&self.describe(None), gpu, stream.raw(), &[&self.dy], || self.call(gpu, None));
        self.dy.read().unwrap()
    }

    /// mublasSgemv, or the routine with a forced kernel and shape, on y as it stands; not waited for.
    fn call(&self, gpu: &Gpu, forced: Option<(&'static KernelSpec, LaunchShape)>) {
        let c = &self.case;
        let shape = forced.map(|(_, shape)| shape);
        let what = self.describe(shape);
        match forced {
            None => unsafe {
                let mode = if c.device_scalars { MUBLAS_POINTER_MODE_DEVICE } else { MUBLAS_POINTER_MODE_HOST };
                assert_eq!(mublasSetPointerMode(gpu.handle, mode), MUBLAS_STATUS_SUCCESS);
                let status = mublasSgemv(
                    gpu.handle,
                    c.trans,
                    c.m as i32,
                    c.n as i32,
                    self.alpha_ptr(),
                    self.da.address() as *const f32,
                    c.lda as i32,
                    self.dx.address() as *const f32,
                    c.incx as i32,
                    self.beta_ptr(),
                    self.dy.address() as *mut f32,
                    c.incy as i32,
                );
                assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_SUCCESS);
                assert_eq!(status, MUBLAS_STATUS_SUCCESS, "{what}");
            },
            Some((spec, shape)) => {
                let result = gemv::sgemv_with_shape(
                    gpu.inner(),
                    spec,
                    shape,
                    c.trans,
                    c.m as i64,
                    c.n as i64,
                    self.scalar(c.alpha, 0),
                    self.da.address(),
                    c.lda as i64,
                    self.dx.address(),
                    c.incx,
                    self.scalar(c.beta, 1),
                    self.dy.address(),
                    c.incy,
                );
                assert_eq!(result, Ok(()), "{what} [{}]", spec.name);
            }
        }
    }

    /// y against the reference (bound ∝ the dot length), the gaps of a strided y
    /// and every guard zone untouched, A and x unchanged.
    fn check(&self, what: &str, got: &[f32]) {
        let c = &self.case;
        assert!(
            self.da.guards_intact().unwrap() && self.dx.guards_intact().unwrap() && self.dy.guards_intact().unwrap(),
            "{what}: guard zone overwritten"
        );
        for (s, (g, y)) in got.iter().zip(&self.y).enumerate() {
            if !self.is_element[s] {
                assert_eq!(g.to_bits(), y.to_bits(), "{what}: storage {s} between elements of y was written");
            }
        }
        if c.alpha == 0.0 && c.beta == 1.0 {
            assert!(same_bits(got, &self.y), "{what}: alpha = 0, beta = 1 must leave y bitwise untouched");
        }
        let ulps = 2.0 * (c.lengths().0 as f64 + 2.0);
        assert_close(what, got, &self.expected, &self.magnitude, ulps);
    }

    fn check_inputs_unchanged(&self, what: &str) {
        assert!(same_bits(&self.da.read().unwrap(), &self.a), "{what}: A was modified");
        assert!(same_bits(&self.dx.read().unwrap(), &self.x), "{what}: x was modified");
    }

    /// The same inputs through real cuBLAS: within the same bound of the reference (not bitwise).
    fn check_cublas(&self, gpu: &Gpu, cublas: &CublasSession) {
        let c = &self.case;
        let (lib, ch) = cublas.pair();
        let what = format!("{} [{}]", self.describe(None), lib.soname);
        let dy = GuardedBuffer::from_slice(gpu.context(), &self.y, c.y_offset).unwrap();
        unsafe {
            let mode = if c.device_scalars { MUBLAS_POINTER_MODE_DEVICE } else { MUBLAS_POINTER_MODE_HOST };
            assert_eq!((lib.set_pointer_mode)(ch, mode), 0);
            let status = (lib.sgemv)(
                ch,
                c.trans,
                c.m as i32,
                c.n as i32,
                self.alpha_ptr(),
                self.da.address() as *const f32,
                c.lda as i32,
                self.dx.address() as *const f32,
                c.incx as i32,
                self.beta_ptr(),
                dy.address() as *mut f32,
                c.incy as i32,
            );
            assert_eq!(status, 0, "{what}");
        }
        mublas::harness::stream::synchronize(gpu.context(), std::ptr::null_mut()).unwrap();
        let ulps = 2.0 * (c.lengths().0 as f64 + 2.0);
        assert_close(&what, &dy.read().unwrap(), &self.expected, &self.magnitude, ulps);
    }
}

fn run_case(gpu: &Gpu, random: &mut Random, case: Case, cublas: Option<&CublasSession>) {
    run_prepared(gpu, &Prepared::new(gpu, random, case), cublas);
}

/// `run_case` on operands already prepared (a test that first asks which kernel the routine plans for them).
fn run_prepared(gpu: &Gpu, prepared: &Prepared, cublas: Option<&CublasSession>) {
    let got = prepared.run(gpu, None);
    let what = prepared.describe(None);
    prepared.check(&what, &got);
    prepared.check_inputs_unchanged(&what);
    // cuBLAS is given NaN-filled A and x only where alpha = 0, and nothing obliges it not to read them.
    if let Some(cublas) = cublas.filter(|_| prepared.case.alpha != 0.0) {
        prepared.check_cublas(gpu, cublas);
    }
}

const INCREMENTS: [(i64, i64); 6] = [(1, 1), (-1, 3), (3, -3), (-3, -1), (1, -1), (3, 1)];
/// (alpha, beta, device pointer mode).
const SCALARS: [(f32, f32, bool); 8] = [
    (1.5, 0.5, false),
    (0.75, 0.0, true),
    (0.0, 2.0, false),
    (0.0, 0.0, true),
    (-1.25, 1.0, false),
    (0.0, 1.0, true),
    (1.0, 0.0, false),
    (0.5, -2.0, true),
];

/// A repeated call takes its plan from the handle's cache (`SgemvPlans`),
/// and that plan is the one deciding anew gives, for the same sizes with A
/// on or off its 16-byte boundary, lda even or odd and each way x can be
/// read: a key that missed one of them would hand one layout's kernel to another.
#[test]
fn gpu_sgemv_repeated_calls_reuse_their_plan() {
    let test = "gpu_sgemv_repeated_calls_reuse_their_plan";
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip(test) else { return };
    let h = gpu.inner();
    let shapes =
        [(Op::N, 3000i64, 3000i64), (Op::N, 64, 4096), (Op::N, 100, 200000), (Op::T, 1024, 1024), (Op::T, 100000, 32)];
    let reads = [
        XReads::Float4,
        XReads::UnitStride { odd_float: true },
        XReads::UnitStride { odd_float: false },
        XReads::Strided,
    ];
    let mut decided_differently = 0;
    for &(op, m, n) in &shapes {
        let mut first = None;
        for (a_offset, lda_pad) in [(0u64, 0i64), (4, 0), (8, 0), (0, 1)] {
            for &x in &reads {
                let (a, lda) = ((1 << 24) + a_offset, m + lda_pad);
                let what = format!("{op:?} {m}x{n}, A offset {a_offset}, lda {lda}, x {x:?}");
                let before = h.sgemv_plans.len();
                let planned = format!("{:?}", gemv::plan(h, op, m, n, a, lda, x).unwrap());
                assert_eq!(h.sgemv_plans.len(), before + 1, "{what}: a new call's plan is kept");
                assert_eq!(format!("{:?}", gemv::plan(h, op, m, n, a, lda, x).unwrap()), planned, "{what}: repeated");
                assert_eq!(h.sgemv_plans.len(), before + 1, "{what}: the repeated call decides nothing new");
                let anew = gemv::plan_uncached(h, op, m, n, a, lda, x).unwrap();
                assert_eq!(format!("{anew:?}"), planned, "{what}: the cached plan against deciding anew");
                decided_differently += (*first.get_or_insert_with(|| planned.clone()) != planned) as usize;
            }
        }
    }
    // The layouts must matter somewhere, or the comparison above proves nothing about the key.
    assert!(decided_differently > 0, "no layout changed a plan");
    say(&format!(
        "{test}: {} plans, {decided_differently} differing from their shape's aligned plan",
        h.sgemv_plans.len()
    ));
}

#[test]
fn gpu_sgemv_case_matrix() {
    let test = "gpu_sgemv_case_matrix";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let cublas = CublasSession::open(test);
    let dims = [1usize, 7, 31, 33, 1000, 4097];
    let mut shapes: Vec<(usize, usize)> = dims.iter().flat_map(|&m| dims.iter().map(move |&n| (m, n))).collect();
    shapes.extend([(5000, 3), (3, 5000), (1, 4097), (4097, 1), (20000, 16), (16, 20000), (1, 70001), (4, 40000)]);
    let mut k = 0usize;
    let mut cases = 0;
    for &(m, n) in &shapes {
        let variants = if m * n > 1 << 20 { 1 } else { 2 };
        for trans in [MUBLAS_OP_N, MUBLAS_OP_T, MUBLAS_OP_C] {
            for _ in 0..variants {
                k += 1;
                let (incx, incy) = INCREMENTS[k % INCREMENTS.len()];
                let (alpha, beta, device_scalars) = SCALARS[(k / 2) % SCALARS.len()];
                // lda = m or m + 3; A aligned or one float past 16 bytes.
                let lda = m + if k.is_multiple_of(2) { 0 } else { 3 };
                let a_offset = (k / 3) % 2;
                let x_offset = (k / 4) % 2;
                let y_offset = (k / 5) % 3;
                let case =
                    Case { trans, m, n, lda, a_offset, x_offset, y_offset, incx, incy, alpha, beta, device_scalars };
                run_case(&gpu, &mut random, case, cublas.as_ref());
                cases += 1;
            }
        }
    }
    say(&format!("{test}: {cases} cases passed"));
}

/// Shapes, layouts and scalars drawn at random (the seed is printed; `MUBLAS_TEST_SEED` replays the draws),
/// each through the C ABI on the routine's own kernel and launch, against the float64 reference and cuBLAS:
/// the plan's rules meet shapes no fixed list names (tile edges give or take 3 floats, 1 to millions of rows
/// or columns, padded and unaligned A, strided x and y). Ends by saying how many cases each kernel took.
#[test]
fn gpu_sgemv_random_shapes_through_the_routine() {
    run_random_cases(PlannedFor::ThisGpu, "gpu_sgemv_random_shapes_through_the_routine", 300, random_case);
}

/// [`gpu_sgemv_random_shapes_through_the_routine`]'s cases, 40 on each of six other GPUs' plans
/// (`DeviceModel::other_gpus`: 114 to 28 SMs, cc 8.x and 7.x code and limits), run on this GPU: the rules
/// that read the SM count, the per-SM limits and DRAM's bandwidth were measured on an H100 and an H200.
#[test]
fn gpu_sgemv_random_shapes_planned_for_other_gpus() {
    run_random_cases(PlannedFor::OtherGpus, "gpu_sgemv_random_shapes_planned_for_other_gpus", 40, random_case);
}

/// Larger than [`gpu_sgemv_random_shapes_through_the_routine`]'s budget: the N kernels past one wave of row
/// tiles (wide, staged, lanes) and T's paired kernels over many waves, unaligned and strided too, where
/// the small draws rarely go.
#[test]
fn gpu_sgemv_random_large_shapes_through_the_routine() {
    run_random_cases(PlannedFor::ThisGpu, "gpu_sgemv_random_large_shapes_through_the_routine", 24, random_large_case);
}

/// `cases` cases drawn by `draw` on each handle of `planned_for`, each through the routine's own plan
/// against float64 and cuBLAS; says which kernels they took.
fn run_random_cases(planned_for: PlannedFor, test: &str, cases: usize, draw: fn(&mut Random) -> Case) {
    run_random_shape_test(planned_for, test, cases, "kernels taken", CublasSession::open, |gpu, random, cublas| {
        let case = draw(random);
        let prepared = Prepared::new(gpu, random, case);
        let quick = gemv::quick_return(
            case.m as i64,
            case.n as i64,
            prepared.scalar(case.alpha, 0),
            prepared.scalar(case.beta, 1),
        );
        let taken = if quick { "quick return" } else { prepared.plan(gpu).0.name };
        run_prepared(gpu, &prepared, cublas.as_ref());
        taken.to_string()
    });
}

/// One case for [`gpu_sgemv_random_shapes_through_the_routine`], at most 2^24 elements of A: a sixth with one
/// side short (to 64), a third with both sides from 1000 (the wide, lanes and sweep kernels), the rest of any
/// size.
fn random_case(random: &mut Random) -> Case {
    const MAX_ELEMENTS: usize = 1 << 24;
    let (m, n) = loop {
        let (m, n) = match below(random, 6) {
            0 => {
                let short = log_uniform(random, 64);
                let long = log_uniform(random, MAX_ELEMENTS / short);
                if below(random, 2) == 0 { (short, long) } else { (long, short) }
            }
            1 | 2 => (999 + random_dimension(random, 69001), 999 + random_dimension(random, 16001)),
            _ => (random_dimension(random, 70000), random_dimension(random, 70000)),
        };
        if m * n <= MAX_ELEMENTS {
            break (m, n);
        }
    };
    random_layout(random, m, n)
}

/// One case for [`gpu_sgemv_random_large_shapes_through_the_routine`]: 2^24 to 2^27 elements of A with both
/// sides from 2000, a quarter of them square in the saw-tooth's range (4096 to 4224, where N takes the lanes
/// kernel for lda not a multiple of 4).
fn random_large_case(random: &mut Random) -> Case {
    const ELEMENTS: std::ops::RangeInclusive<usize> = (1 << 24)..=(1 << 27);
    let (m, n) = if below(random, 4) == 0 {
        let side = 4096 + below(random, 129);
        (side, side)
    } else {
        loop {
            let (m, n) = (1999 + random_dimension(random, 63538), 1999 + random_dimension(random, 63538));
            if ELEMENTS.contains(&(m * n)) {
                break (m, n);
            }
        }
    };
    random_layout(random, m, n)
}

/// The rest of a random case for an m × n A: two in five laid out for float4 loads (lda a multiple of 4, A
/// and x aligned, x of unit stride), the others padded or not, off their 16-byte boundaries or not, with
/// increments ±1 to ±3; N, T or C; random scalars in either pointer mode.
fn random_layout(random: &mut Random, m: usize, n: usize) -> Case {
    let float4 = below(random, 5) < 2;
    let lda = if float4 {
        m.next_multiple_of(4) + 4 * [0, 0, 1, 5][below(random, 4)]
    } else {
        m + [0, 0, 0, 1, 2, 3, 1 + below(random, 100)][below(random, 7)]
    };
    Case {
        trans: [MUBLAS_OP_N, MUBLAS_OP_T, MUBLAS_OP_N, MUBLAS_OP_T, MUBLAS_OP_C][below(random, 5)],
        m,
        n,
        lda,
        a_offset: if float4 { 0 } else { random_offset(random) },
        x_offset: if float4 { 0 } else { random_offset(random) },
        y_offset: random_offset(random),
        incx: if float4 { 1 } else { random_increment(random) },
        incy: random_increment(random),
        alpha: random_alpha(random),
        beta: random_beta(random),
        device_scalars: below(random, 2) == 0,
    }
}

/// Each shape (m, n, lda) through the routine with A and x at their allocations' 16-byte boundaries, so
/// float4 where lda allows (the case matrix's offsets and increments never give some kernels): every scalar pair and pointer mode of the case matrix, y off its
/// 16-byte boundary by 0 to 2 floats and with increments 1, -1 and 3 in turn. `expect` checks each shape's
/// kernel and plan (its index in `shapes`, the kernel's name, the plan).
fn float4_shapes_through_the_routine(
    gpu: &Gpu,
    test: &str,
    trans: i32,
    shapes: &[(usize, usize, usize)],
    expect: impl Fn(usize, &str, &LaunchPlan),
) {
    let mut random = random(test);
    let cublas = CublasSession::open(test);
    let mut cases = 0;
    for (shape, &(m, n, lda)) in shapes.iter().enumerate() {
        for (k, &(alpha, beta, device_scalars)) in SCALARS.iter().enumerate() {
            let incy = [1, -1, 3][k % 3];
            let case = Case {
                trans,
                m,
                n,
                lda,
                a_offset: 0,
                x_offset: 0,
                y_offset: k % 3,
                incx: 1,
                incy,
                alpha,
                beta,
                device_scalars,
            };
            let prepared = Prepared::new(gpu, &mut random, case);
            let (spec, plan) = prepared.plan(gpu);
            if k == 0 {
                say(&format!("{test}: {m} × {n}: {} {:?} grid {:?}", spec.name, plan.shape, plan.geometry.grid));
            }
            expect(shape, spec.name, &plan);
            run_prepared(gpu, &prepared, cublas.as_ref());
            cases += 1;
        }
    }
    say(&format!("{test}: {cases} cases passed"));
}

/// Whether this GPU has 132 SMs and fast DRAM (an H200), where the routine's fast-DRAM rules were measured.
fn fast_on_132_sms(gpu: &Gpu) -> bool {
    gemv::fast_dram(gpu.inner().device.model()) && on_132_sms(gpu)
}
const FAST_ON_132_SMS: &str = "a 132-SM GPU with fast DRAM";

/// Whether this GPU has the 132 SMs (H100, H200) that the routine's measured rules are for.
fn on_132_sms(gpu: &Gpu) -> bool {
    gpu.inner().device.model().sm_count == 132
}

/// Each shape through the routine as `float4_shapes_through_the_routine` runs it, where the routine's rule
/// puts it on one unsplit twin: on a GPU where `checked` holds (the one the rule's figures are for, described
/// by `checked_on`), the shape's plan is `kernel` on Tx = `tx` and its Ty; elsewhere the kernels are printed.
fn unsplit_twin_through_the_routine(
    test: &str,
    trans: i32,
    kernel: &str,
    tx: u32,
    shapes: &[((usize, usize, usize), u32)],
    checked: impl FnOnce(&Gpu) -> bool,
    checked_on: &str,
) {
    let Some(gpu) = gpu_or_skip(test) else { return };
    let checked = checked(&gpu);
    let dims: Vec<_> = shapes.iter().map(|&(shape, _)| shape).collect();
    float4_shapes_through_the_routine(&gpu, test, trans, &dims, |i, name, plan| {
        if checked {
            let (plan_tx, plan_ty) = (plan.shape.tx, plan.shape.ty);
            assert_eq!(
                (name, plan_tx, plan_ty, plan.geometry.grid.1),
                (kernel, tx, shapes[i].1, 1),
                "{:?}",
                shapes[i].0
            );
        }
    });
    if !checked {
        say(&format!("{test}: not {checked_on}: kernels printed, not checked"));
    }
}

/// The paired T kernels through the routine (768 columns or more, or 256 with 1 to 16 rows per column, or
/// at most 512 rows on at most 32 columns):
/// whole and partial last blocks of 8 columns, 0 to 3 rows past the last float4, one to three rounds of
/// 1024 rows; split over rows from 32768 rows (100000 from 921 columns on, on 132 SMs), and on fewer than
/// 768 columns (short last ranges, each call finding the per-column counters the last one reset), and in 4
/// ranges where the unsplit grid would leave a part-filled last wave among two or three. The split on a
/// 132-SM GPU last.
#[test]
fn gpu_sgemv_paired_t_kernel_through_the_routine() {
    // (m, n, lda) and the split on 132 SMs.
    let shapes = [
        ((1000, 800, 1000), 1),
        ((2101, 1003, 2104), 1),
        ((130, 1100, 132), 1),
        ((3072, 768, 3072), 1),
        ((32771, 768, 32772), 4),
        ((40003, 1030, 40004), 1),
        ((40003, 900, 40004), 2),
        ((20001, 512, 20004), 4),
        ((200_003, 37, 200_004), 48),
        ((8195, 300, 8196), 6),
        // Two waves unsplit (401 blocks, a partial one last), the last nearly empty: the tail's 4 ranges.
        ((32771, 3203, 32772), 4),
        // Tiny: at most 512 rows on at most 32 columns, a partial block of 8 columns.
        ((65, 2, 68), 1),
        ((128, 8, 128), 1),
        ((511, 31, 512), 1),
    ];
    let test = "gpu_sgemv_paired_t_kernel_through_the_routine";
    let Some(gpu) = gpu_or_skip(test) else { return };
    // The split's figures are for 132 SMs (H100, H200).
    let h100_like = on_132_sms(&gpu);
    float4_shapes_through_the_routine(&gpu, test, MUBLAS_OP_T, &shapes.map(|(shape, _)| shape), |i, name, plan| {
        let split = shapes[i].1;
        if h100_like {
            let expected = if split > 1 { "gemv_t_f32_paired_split" } else { "gemv_t_f32_paired" };
            assert_eq!((name, plan.geometry.grid.1), (expected, split), "{:?}", shapes[i].0);
        } else {
            assert!(name.starts_with("gemv_t_f32_paired"), "{:?}: {name}", shapes[i].0);
        }
    });
}

/// The groups T kernels through the routine (65 to 384 rows, 512 for A that is not float4, 4096 columns or
/// more): 4 or 6 groups of 4 rows a lane on 4 to 32 lanes a column, float4 A and lda ≡ 1, 2 (mod 4),
/// part-filled last blocks and lane groups, blocks of 128 threads where 256 leave SMs idle (on 132 SMs).
#[test]
fn gpu_sgemv_groups_t_kernels_through_the_routine() {
    let test = "gpu_sgemv_groups_t_kernels_through_the_routine";
    // (m, n, lda), the groups a lane and Tx on 132 SMs.
    let shapes = [
        ((65, 4096, 68), 6, 128),
        ((96, 5001, 97), 6, 128),
        ((97, 4096, 100), 4, 128),
        ((128, 20000, 129), 4, 256),
        ((129, 8191, 132), 6, 128),
        ((200, 65537, 200), 4, 256),
        ((257, 9000, 258), 6, 256),
        ((384, 4097, 384), 6, 128),
        ((383, 30001, 385), 6, 256),
        ((449, 4096, 450), 4, 256),
        ((512, 20001, 513), 4, 256),
    ];
    let Some(gpu) = gpu_or_skip(test) else { return };
    let on_132 = on_132_sms(&gpu);
    float4_shapes_through_the_routine(&gpu, test, MUBLAS_OP_T, &shapes.map(|(shape, ..)| shape), |i, name, plan| {
        let ((_, _, lda), groups, tx) = shapes[i];
        let scalar = if lda % 4 == 0 { "" } else { "_scalar" };
        assert_eq!(name, format!("gemv_t_f32{scalar}_groups{groups}"), "{:?}", shapes[i].0);
        if on_132 {
            assert_eq!((plan.shape.tx, plan.geometry.grid.1), (tx, 1), "{:?}", shapes[i].0);
        }
    });
}

/// The stacked T kernel through the routine (1025 to 32768 rows, 24576 on fewer than 16 columns, at most
/// 512 columns, 128 with 2 warps a column): 2 to 16 warps a column, ranges of whole 128-row stretches with
/// the last one short or empty, 0 to 3 rows past the last float4, one column and 511. On a 132-SM GPU each
/// shape's warps are checked.
#[test]
fn gpu_sgemv_stacked_t_kernel_through_the_routine() {
    let test = "gpu_sgemv_stacked_t_kernel_through_the_routine";
    // (m, n, lda) and the warps a column on 132 SMs.
    let shapes = [
        ((1500, 33, 1500), 2),
        ((2049, 100, 2052), 4),
        ((3001, 512, 3004), 4),
        ((4093, 256, 4096), 4),
        ((4093, 128, 4096), 4),
        ((4093, 64, 4096), 4),
        ((5001, 1, 5004), 8),
        ((8191, 32, 8192), 8),
        ((8189, 511, 8192), 4),
        ((16383, 200, 16384), 8),
        ((20001, 3, 20004), 16),
        ((24573, 15, 24576), 16),
        ((32768, 17, 32768), 16),
    ];
    unsplit_twin_through_the_routine(test, MUBLAS_OP_T, "gemv_t_f32_stacked", 32, &shapes, on_132_sms, "a 132-SM GPU");
}

/// The stacked T kernel for any A through the routine (odd lda: the scalar default's twin, on the same rules
/// and, with its registers, the same warps a column as the float4 one): heads of 0 to 3 rows before each
/// range's first 16-byte boundary, ranges ending in fewer than 4 rows. On a 132-SM GPU the warps are checked.
#[test]
fn gpu_sgemv_stacked_t_kernel_for_any_a_through_the_routine() {
    let test = "gpu_sgemv_stacked_t_kernel_for_any_a_through_the_routine";
    // (m, n, lda) and the warps a column on 132 SMs.
    let shapes = [
        ((1501, 33, 1501), 2),
        ((2049, 100, 2051), 4),
        ((3001, 512, 3001), 4),
        ((4093, 64, 4093), 4),
        ((5001, 1, 5003), 8),
        ((8191, 32, 8191), 8),
        ((16383, 200, 16383), 8),
        ((24573, 15, 24575), 16),
        ((32767, 17, 32767), 16),
    ];
    let kernel = "gemv_t_f32_stacked_any";
    unsplit_twin_through_the_routine(test, MUBLAS_OP_T, kernel, 32, &shapes, on_132_sms, "a 132-SM GPU");
}

/// The split paired T kernel for any A through the routine (odd lda: the scalar default's twin, on the float4
/// kernel's rules, and past 60000 rows in ranges of at most 48000 in as many waves as it takes, as at 65537 × 2001):
/// tall matrices the stacked kernels do not take, split over rows. Each range starts at any
/// alignment (its head before the first 16-byte boundary) and x lies 0 to 3 floats off A's float4s, column
/// by column (lda odd); blocks of 8 columns whole and partial. On a 132-SM GPU the kernel and a split are
/// checked.
#[test]
fn gpu_sgemv_paired_split_t_kernel_for_any_a_through_the_routine() {
    let test = "gpu_sgemv_paired_split_t_kernel_for_any_a_through_the_routine";
    let shapes = [
        (32767, 8, 32767),
        (65537, 1, 65539),
        (40001, 33, 40001),
        (200_003, 37, 200_005),
        (32771, 768, 32773),
        (8195, 300, 8197),
        (65537, 2001, 65539),
    ];
    let Some(gpu) = gpu_or_skip(test) else { return };
    let checked = on_132_sms(&gpu);
    float4_shapes_through_the_routine(&gpu, test, MUBLAS_OP_T, &shapes, |i, name, plan| {
        if checked {
            assert_eq!(name, "gemv_t_f32_paired_split_any", "{:?}", shapes[i]);
            assert!(plan.geometry.grid.1 > 1, "{:?}: unsplit", shapes[i]);
        }
    });
    if !checked {
        say(&format!("{test}: not a 132-SM GPU: kernels printed, not checked"));
    }
}

/// The paired T kernel for any A through the routine (odd lda, where the stacked and split kernels and the one
/// reading x through L1 do not take the call: 256 to 1999 columns): 2 columns a block, x 0 to 3 floats off
/// A's float4s column by column, whole and partial rounds of 1024 rows. On a 132-SM GPU the kernel and its
/// blocks are checked.
#[test]
fn gpu_sgemv_paired_t_kernel_for_any_a_through_the_routine() {
    let test = "gpu_sgemv_paired_t_kernel_for_any_a_through_the_routine";
    // (m, n, lda) and the warps a column (one).
    let shapes = [
        ((1025, 256, 1027), 1),
        ((2049, 600, 2049), 1),
        ((3001, 701, 3001), 1),
        ((1001, 1001, 1003), 1),
        ((8191, 600, 8191), 1),
        ((1500, 1999, 1501), 1),
    ];
    let kernel = "gemv_t_f32_paired_any";
    unsplit_twin_through_the_routine(test, MUBLAS_OP_T, kernel, 64, &shapes, on_132_sms, "a 132-SM GPU");
}

/// The few-columns N kernel through the routine (on fast DRAM: 256 to 200000 rows, at most 1536
/// columns; from 9 rows on at most 512): partial last row tiles of 32 and groups of 8 columns, thread
/// rows past the last column, 4 to 64 thread rows (on 132 SMs), two waves of blocks where none runs in
/// one. Elsewhere the shapes run whatever the routine takes.
#[test]
fn gpu_sgemv_few_columns_n_kernel_through_the_routine() {
    let test = "gpu_sgemv_few_columns_n_kernel_through_the_routine";
    // (m, n, lda) and the thread rows on a 132-SM GPU with fast DRAM.
    let shapes = [
        ((256, 256, 256), 32),
        ((1021, 131, 1024), 32),
        ((4093, 517, 4096), 64),
        ((6001, 383, 6004), 32),
        ((8191, 700, 8192), 32),
        ((12001, 509, 12004), 16),
        ((20003, 100, 20004), 16),
        ((33001, 64, 33004), 8),
        ((100_003, 61, 100_004), 4),
        ((2000, 1536, 2000), 64),
        // From 9 rows on at most 512 columns (the short kernels' rows too): one or two row tiles of 32.
        ((9, 512, 12), 64),
        ((33, 100, 36), 16),
        ((64, 500, 64), 64),
        ((200, 37, 200), 8),
    ];
    unsplit_twin_through_the_routine(test, MUBLAS_OP_N, "gemv_n_f32_few", 8, &shapes, fast_on_132_sms, FAST_ON_132_SMS);
}

/// Its twin for any A (on fast DRAM: 9 to 24576 rows on at most 512 columns, up to 200000 on at most 64,
/// where the sweep kernel does not serve): odd lda and lda ≡ 2, 3 (mod 4), partial last row tiles of 32 and
/// groups of 8 columns, 4 and 8 thread rows, in one wave and in more.
#[test]
fn gpu_sgemv_few_columns_n_kernel_for_any_a_through_the_routine() {
    let test = "gpu_sgemv_few_columns_n_kernel_for_any_a_through_the_routine";
    // (m, n, lda) and the thread rows on a 132-SM GPU with fast DRAM.
    let shapes = [
        ((257, 64, 257), 8),
        ((1001, 61, 1003), 8),
        ((2049, 16, 2049), 4),
        ((4097, 64, 4098), 8),
        ((16385, 13, 16387), 4),
        ((30001, 40, 30003), 8),
        ((100001, 64, 100001), 4),
        // From 9 rows on at most 512 columns (the short kernels' rows too).
        ((17, 100, 19), 16),
        ((33, 512, 33), 64),
        ((65, 129, 67), 32),
    ];
    unsplit_twin_through_the_routine(
        test,
        MUBLAS_OP_N,
        "gemv_n_f32_scalar_few",
        8,
        &shapes,
        fast_on_132_sms,
        FAST_ON_132_SMS,
    );
}

/// The sweep kernel for A that is not float4 below 4096 rows on fast DRAM: 256 columns up to three times as
/// many as rows, where the wide kernel for any A does not serve (fewer than 2000 columns, or 32-row tiles
/// on nearly every SM and fewer than 3000), 32-row tiles of 32 thread rows; lda ≡ 1, 2 and 3 (mod 4),
/// partial last tiles, column ranges ending in part groups of 32.
#[test]
fn gpu_sgemv_sweep_for_any_a_below_4096_rows_on_fast_dram() {
    let test = "gpu_sgemv_sweep_for_any_a_below_4096_rows_on_fast_dram";
    // (m, n, lda) and the thread rows on a 132-SM GPU with fast DRAM.
    let shapes = [
        ((256, 256, 257), 32),
        ((300, 500, 301), 32),
        ((511, 1533, 513), 32),
        ((1001, 1001, 1001), 32),
        ((1501, 768, 1503), 32),
        ((2001, 1999, 2002), 32),
        ((3001, 300, 3003), 32),
        ((4001, 2001, 4001), 32),
        ((4095, 2999, 4097), 32),
    ];
    unsplit_twin_through_the_routine(
        test,
        MUBLAS_OP_N,
        "gemv_n_f32_sweep",
        32,
        &shapes,
        fast_on_132_sms,
        FAST_ON_132_SMS,
    );
}

/// The narrow N kernels split, on fast DRAM: at most 512 rows on more than 512 columns, 32-row tiles of 32
/// thread rows, as many column ranges (multiples of 128 columns) as keep the grid at two blocks per SM;
/// float4 A and lda ≡ 1, 2, 3 (mod 4), partial row tiles and ranges, one to three chunks of x.
#[test]
fn gpu_sgemv_narrow_n_kernels_split_on_fast_dram() {
    let test = "gpu_sgemv_narrow_n_kernels_split_on_fast_dram";
    // (m, n, lda) and (Tx, Ty, column ranges) on a 132-SM GPU with fast DRAM.
    // (Up to 16384 columns, and on 9 to 128 rows past them, the cluster kernels take these rows on an H200:
    // gpu_sgemv_cluster_n_kernels.)
    let shapes = [
        ((300, 20000, 300), (8, 32, 16)),
        ((300, 20000, 301), (8, 32, 16)),
        ((500, 30001, 503), (8, 32, 16)),
        ((400, 32768, 403), (8, 32, 16)),
        ((257, 30001, 258), (8, 32, 16)),
    ];
    n_kernels_through_the_routine(test, ["gemv_n_f32_narrow", "gemv_n_f32_scalar_narrow"], &shapes, false);
}

/// The cluster N kernels through the routine (1 to 1024 rows on 513 to 16384 columns, past 1536 from 256
/// rows on, and 9 to 128 rows past 16384 columns; sm_90 machine code): in one cluster a tile, row tiles of 16
/// rows while 8 blocks of each fit one per SM, else 32; in several, 16, 32 or 64 rows by m and n, and 8 to 33
/// clusters (the last to arrive adding their partial vectors); tiles whole and partial, ranges of 65 to 2048
/// columns; float4 A and lda ≡ 1, 2, 3 (mod 4). Checked on a GPU that runs them with 132 SMs; elsewhere the
/// kernels are printed.
#[test]
fn gpu_sgemv_cluster_n_kernels_through_the_routine() {
    let test = "gpu_sgemv_cluster_n_kernels_through_the_routine";
    // (m, n, lda), the tile's rows and the clusters a tile on 132 SMs.
    let shapes = [
        ((1, 600, 1), 16, 1),
        ((5, 1000, 7), 16, 1),
        ((16, 4096, 16), 16, 1),
        ((33, 2048, 36), 16, 1),
        ((64, 16384, 64), 16, 1),
        ((65, 513, 68), 16, 1),
        ((65, 4096, 65), 16, 1),
        ((100, 2048, 103), 16, 1),
        ((129, 16384, 132), 16, 1),
        ((200, 3001, 202), 16, 1),
        ((256, 1537, 256), 16, 1),
        ((257, 2048, 257), 32, 1),
        ((500, 6000, 503), 32, 1),
        ((777, 9999, 780), 32, 1),
        ((1000, 2000, 1001), 32, 1),
        ((1024, 16384, 1024), 32, 1),
        ((9, 16385, 11), 16, 8),
        ((16, 262145, 16), 16, 33),
        ((17, 70000, 19), 32, 17),
        ((48, 40000, 48), 32, 8),
        ((64, 65537, 64), 64, 33),
        ((65, 262144, 65), 64, 17),
        ((100, 40001, 102), 64, 8),
        ((128, 20000, 131), 64, 8),
        ((128, 65536, 128), 64, 17),
    ];
    let Some(gpu) = gpu_or_skip(test) else { return };
    let checked = gemv::runs_clusters(&gpu.inner().device) && on_132_sms(&gpu);
    float4_shapes_through_the_routine(&gpu, test, MUBLAS_OP_N, &shapes.map(|(shape, ..)| shape), |i, name, plan| {
        if checked {
            let ((_, _, lda), rows, clusters) = shapes[i];
            let scalar = if lda % 4 == 0 { "" } else { "_scalar" };
            assert_eq!(name, format!("gemv_n_f32{scalar}_cluster{rows}"), "{:?}", shapes[i].0);
            assert_eq!((plan.shape.tx, plan.geometry.grid.1), (256, 8 * clusters), "{:?}", shapes[i].0);
        }
    });
    if !checked {
        say(&format!("{test}: no cluster kernels on a 132-SM GPU here: kernels printed, not checked"));
    }
}

/// A call's (m, n, lda) and the plan's (Tx, Ty, column ranges).
type ShapeAndPlan = ((usize, usize, usize), (u32, u32, u32));

/// N calls through the routine whose plans are asserted on a 132-SM GPU with fast DRAM (on any 132-SM GPU
/// where `on_any_dram`): `kernels` for float4 A (lda % 4 == 0) and for any other A, with ((m, n, lda), (Tx,
/// Ty, column ranges)).
fn n_kernels_through_the_routine(test: &str, kernels: [&str; 2], shapes: &[ShapeAndPlan], on_any_dram: bool) {
    let Some(gpu) = gpu_or_skip(test) else { return };
    let checked = if on_any_dram { on_132_sms(&gpu) } else { fast_on_132_sms(&gpu) };
    let dims: Vec<_> = shapes.iter().map(|&(shape, _)| shape).collect();
    float4_shapes_through_the_routine(&gpu, test, MUBLAS_OP_N, &dims, |i, name, plan| {
        if checked {
            let ((_, _, lda), (tx, ty, ranges)) = shapes[i];
            let kernel = kernels[usize::from(lda % 4 != 0)];
            let got = (name, plan.shape.tx, plan.shape.ty, plan.geometry.grid.1);
            assert_eq!(got, (kernel, tx, ty, ranges), "{:?}", shapes[i].0);
        }
    });
    if !checked {
        let on = if on_any_dram { "a 132-SM GPU" } else { FAST_ON_132_SMS };
        say(&format!("{test}: not {on}: kernels printed, not checked"));
    }
}

/// The wide N kernels past one wave of 32-row tiles (`wide_fine_plan`; on the H100 up to 12672 rows): row
/// tiles of any multiple of 8 rows, one per SM, so that warps straddle two thread rows (Tx 10, 14, 18, 22),
/// with partial last tiles; float4 A, then lda ≡ 1, 2 and 3 (mod 4) on the kernel for any A (`wide_any_plan`:
/// from 2000 rows, 32-row tiles up to one wave, its last tile read as the whole tile that ends at row m). The
/// same plans on the H100 and the H200.
#[test]
fn gpu_sgemv_wide_n_kernels_through_the_routine() {
    let test = "gpu_sgemv_wide_n_kernels_through_the_routine";
    // (m, n, lda) and (Tx, Ty, column ranges) on a 132-SM GPU.
    let shapes = [
        ((4225, 2003, 4228), (10, 32, 1)),
        ((5000, 2000, 5000), (10, 32, 1)),
        ((6499, 2001, 6500), (14, 24, 1)),
        ((8999, 3001, 9000), (18, 16, 1)),
        ((11003, 2048, 11004), (22, 16, 1)),
        ((2001, 2001, 2001), (8, 64, 1)),
        ((3001, 2003, 3002), (8, 64, 1)),
        ((4000, 4001, 4001), (8, 64, 1)),
        ((4093, 3001, 4095), (8, 48, 1)),
        ((4225, 2001, 4225), (10, 32, 1)),
        ((5001, 2003, 5003), (10, 32, 1)),
        ((6001, 3001, 6002), (12, 32, 1)),
        ((6336, 2048, 6337), (12, 32, 1)),
        ((9001, 6144, 9001), (18, 16, 1)),
        ((12671, 6145, 12673), (24, 16, 1)),
    ];
    n_kernels_through_the_routine(test, ["gemv_n_f32_wide", "gemv_n_f32_wide_any"], &shapes, true);
}

#[test]
fn gpu_sgemv_aligned_and_unaligned_paths() {
    let test = "gpu_sgemv_aligned_and_unaligned_paths";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    // Each kernel on purpose: float4 (lda % 4 == 0, A aligned) and scalar (odd lda, or A offset).
    for trans in [MUBLAS_OP_N, MUBLAS_OP_T] {
        for (m, n, lda, a_offset) in [
            (1000, 1001, 1000, 0),
            (1000, 1001, 1003, 0),
            (1000, 1001, 1000, 1),
            (1002, 999, 1004, 2),
            (4, 5000, 4, 0),
            (5000, 4, 5000, 0),
        ] {
            let case = Case {
                trans,
                m,
                n,
                lda,
                a_offset,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.625,
                beta: -0.5,
                device_scalars: false,
            };
            run_case(&gpu, &mut random, case, None);
        }
    }
}

#[test]
fn gpu_sgemv_every_launch_shape() {
    let test = "gpu_sgemv_every_launch_shape";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let device = &gpu.inner().device;
    let mut launches = 0;
    // (trans, m, n, lda, a_offset, incx, incy, alpha, beta): float4 and scalar kernels each,
    // partial row tiles and column ranges, NaN y under beta = 0.
    let problems = [
        (MUBLAS_OP_N, 130, 1100, 132, 0, 1, 1, 0.75f32, 0.5f32),
        (MUBLAS_OP_N, 130, 1100, 133, 1, -2, 3, 0.75, 0.5),
        // Three chunks of x (GEMV_N_XCHUNK = 2048 columns) in every N kernel, the last one partial.
        (MUBLAS_OP_N, 130, 4500, 132, 0, 1, 1, 0.75, 0.5),
        (MUBLAS_OP_N, 130, 4500, 131, 1, -1, 2, -1.5, 0.0),
        // A partial tile of 32 rows and a partial group of 8 columns (the scalar lanes kernel).
        (MUBLAS_OP_N, 100, 77, 101, 1, 1, -1, -1.5, 0.0),
        (MUBLAS_OP_N, 5, 300, 8, 0, 3, -1, 1.5, 0.0),
        (MUBLAS_OP_N, 5, 300, 5, 0, 1, 1, 1.5, 0.0),
        (MUBLAS_OP_T, 1100, 67, 1100, 0, 1, 1, 0.75, 0.5),
        (MUBLAS_OP_T, 1100, 67, 1101, 0, 3, -2, 0.75, 0.5),
        (MUBLAS_OP_T, 2000, 3, 2000, 0, -1, 1, -1.5, 0.0),
        (MUBLAS_OP_T, 2000, 3, 2000, 1, 1, 1, -1.5, 0.0),
        // Two chunks of rows and a tail of fewer than 4 in the float4 T kernels (x through L1 in the lean one).
        (MUBLAS_OP_T, 2101, 40, 2104, 0, 1, -1, 0.75, 0.5),
        // The short N kernels (m <= 64): whole and partial lane groups, float4 and scalar.
        (MUBLAS_OP_N, 16, 3000, 16, 0, 1, 1, 0.75, 0.5),
        (MUBLAS_OP_N, 16, 3000, 17, 1, -2, 3, 0.75, 0.5),
        (MUBLAS_OP_N, 5, 700, 8, 0, 3, -1, 1.5, 0.0),
        (MUBLAS_OP_N, 61, 500, 61, 0, 1, 1, -0.5, 1.0),
        // The T kernels with fewer than 32 lanes per column (m <= 64).
        (MUBLAS_OP_T, 16, 300, 16, 0, 1, 1, 0.75, 0.5),
        (MUBLAS_OP_T, 7, 100, 9, 1, -1, 2, 1.5, 0.0),
        (MUBLAS_OP_T, 50, 90, 52, 0, 2, 1, -0.5, 1.0),
        (MUBLAS_OP_T, 1, 40, 1, 0, 1, -1, 0.75, 0.5),
        // The T kernel for any A (x with unit stride): heads of 0 to 3 rows before each column's first 16-byte
        // boundary, chunks of rows crossed, tails of fewer than 4.
        (MUBLAS_OP_T, 2101, 40, 2103, 1, 1, -1, 0.75, 0.5),
        (MUBLAS_OP_T, 4100, 9, 4102, 2, 1, 1, -1.5, 0.0),
        (MUBLAS_OP_T, 66, 20, 67, 3, 1, 2, 0.5, 1.0),
        // The groups T kernels (65 to 384 rows): part-filled lane groups and last blocks, float4 and scalar.
        (MUBLAS_OP_T, 100, 300, 100, 0, 1, 1, 0.75, 0.5),
        (MUBLAS_OP_T, 300, 130, 301, 1, -2, 3, 0.75, 0.5),
        (MUBLAS_OP_T, 65, 50, 68, 0, 3, -1, -1.5, 0.0),
        (MUBLAS_OP_T, 511, 70, 513, 1, 1, 1, 0.5, 1.0),
        // The cluster N kernels (1 to 1024 rows; the N problems above too): part-filled tiles of 16, 32 and 64
        // rows, in one, two and five clusters.
        (MUBLAS_OP_N, 300, 2000, 301, 1, 1, -1, 0.5, 0.0),
        // alpha = 0 (A and x NaN, which no kernel may use), from the host and from the device in turn.
        (MUBLAS_OP_N, 130, 1100, 133, 1, 1, 1, 0.0, 0.5),
        (MUBLAS_OP_T, 1100, 67, 1100, 0, 1, 1, 0.0, -2.0),
    ];
    for (problem, (trans, m, n, lda, a_offset, incx, incy, alpha, beta)) in problems.into_iter().enumerate() {
        // x off its 16-byte boundary wherever A's offset is odd.
        let x_offset = a_offset % 2;
        // y off its boundary by 0 to 2 floats, in turn over the problems.
        let y_offset = problem % 3;
        // alpha and beta from the device in every other problem.
        let device_scalars = problem % 2 == 1;
        let case = Case { trans, m, n, lda, a_offset, x_offset, y_offset, incx, incy, alpha, beta, device_scalars };
        let prepared = Prepared::new(&gpu, &mut random, case);
        // The cluster kernels only where the sm_90 machine code is loaded (elsewhere they trap).
        let clusters = gemv::runs_clusters(device);
        for spec in prepared.kernels().into_iter().filter(|spec| clusters || !gemv::needs_clusters(spec)) {
            let max_threads = device.kernel(spec.name).unwrap().model.max_threads_per_block;
            for shape in spec.space.shapes(max_threads) {
                let got = prepared.run_kernel(&gpu, Some((spec, shape)));
                prepared.check(&format!("{} [{}]", prepared.describe(Some(shape)), spec.name), &got);
                launches += 1;
            }
        }
        prepared.check_inputs_unchanged(&prepared.describe(None));
    }
    say(&format!("{test}: {launches} forced launches correct"));
}

/// Long sums, exact: with A, x and y of ±1 and ±2, alpha 2 and beta -1 or 0,
/// every partial sum any kernel forms is an integer below 2^24 (at most 4 per
/// term over at most 2^20 terms), which float32 holds exactly whatever the
/// order, so y must equal the reference exactly. The other tests' random data
/// is held to a bound that grows with the sum's length (the worst case of any
/// order), and on random signs that bound passes the result itself from about
/// 50 000 terms: a split's partial vector lost or added twice would pass there,
/// not here. Through the routine, on the splits, clusters and long ranges that
/// the other tests reach at those lengths.
#[test]
fn gpu_sgemv_long_sums_exact_on_small_integers() {
    let test = "gpu_sgemv_long_sums_exact_on_small_integers";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    // (trans, m, n, lda, incx, incy)
    let shapes = [
        (MUBLAS_OP_N, 1, 70001, 1, 1, 1),
        (MUBLAS_OP_N, 16, 200000, 16, 1, 1),
        (MUBLAS_OP_N, 16, 1 << 18, 17, -1, 2),
        (MUBLAS_OP_N, 9, 65537, 11, 1, 1),
        (MUBLAS_OP_N, 64, 262145, 64, 1, 1),
        (MUBLAS_OP_N, 2000, 16384, 2000, 1, 1),
        (MUBLAS_OP_T, 1 << 20, 16, 1 << 20, 1, 1),
        (MUBLAS_OP_T, 200003, 40, 200004, 1, -1),
        (MUBLAS_OP_T, 200003, 40, 200003, 1, 1),
        (MUBLAS_OP_T, 65536, 600, 65537, 2, 1),
        // The benchmark's middle sizes, float4 and not, where the splits and the wide kernels run.
        (MUBLAS_OP_N, 4096, 4096, 4096, 1, 1),
        (MUBLAS_OP_T, 4096, 4096, 4096, 1, 1),
        (MUBLAS_OP_N, 4097, 4097, 4097, 1, 1),
        (MUBLAS_OP_T, 4097, 4097, 4097, 1, 1),
        (MUBLAS_OP_N, 1024, 1024, 1024, -2, 1),
        (MUBLAS_OP_T, 1000, 1000, 1003, 1, 3),
    ];
    for (i, &(trans, m, n, lda, incx, incy)) in shapes.iter().enumerate() {
        // beta = 0 over NaN in y in every other case.
        let beta = if i % 2 == 0 { -1.0 } else { 0.0 };
        let case = Case {
            trans,
            m,
            n,
            lda,
            a_offset: 0,
            x_offset: 0,
            y_offset: 0,
            incx,
            incy,
            alpha: 2.0,
            beta,
            device_scalars: false,
        };
        let prepared = Prepared::with_values(&gpu, &mut random, case, small_integer);
        let (spec, plan) = prepared.plan(&gpu);
        let got = prepared.run(&gpu, None);
        let what =
            format!("{} [{} {:?} grid {:?}]", prepared.describe(None), spec.name, plan.shape, plan.geometry.grid);
        prepared.check(&what, &got);
        for (s, (&g, &e)) in got.iter().zip(&prepared.expected).enumerate() {
            assert!(g as f64 == e, "{what}: storage {s} of y: got {g}, exactly {e}");
        }
        say(&format!("{test}: {what}: exact"));
    }
}

#[test]
fn gpu_sgemv_same_bits_on_repeated_calls() {
    let test = "gpu_sgemv_same_bits_on_repeated_calls";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let cases = [
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 1000,
                n: 1000,
                lda: 1000,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 0.7,
                device_scalars: false,
            },
            None,
        ),
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 1000,
                n: 1000,
                lda: 1000,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 0.7,
                device_scalars: false,
            },
            Some(LaunchShape { tx: 32, ty: 4, split: 8 }),
        ),
        (
            Case {
                trans: MUBLAS_OP_T,
                m: 1000,
                n: 2000,
                lda: 1001,
                a_offset: 1,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 0.7,
                device_scalars: true,
            },
            None,
        ),
        (
            Case {
                trans: MUBLAS_OP_T,
                m: 20000,
                n: 16,
                lda: 20000,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 0.0,
                device_scalars: false,
            },
            Some(LaunchShape { tx: 64, ty: 1, split: 32 }),
        ),
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 16,
                n: 20000,
                lda: 16,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: -1,
                incy: 1,
                alpha: 0.3,
                beta: 1.0,
                device_scalars: false,
            },
            Some(LaunchShape { tx: 256, ty: 1, split: 128 }),
        ),
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 16,
                n: 200000,
                lda: 17,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 1.0,
                device_scalars: false,
            },
            None,
        ),
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 3000,
                n: 3000,
                lda: 3000,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 0.7,
                device_scalars: false,
            },
            Some(LaunchShape { tx: 32, ty: 16, split: 8 }),
        ),
        (
            Case {
                trans: MUBLAS_OP_T,
                m: 16,
                n: 20000,
                lda: 16,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 0.7,
                device_scalars: false,
            },
            None,
        ),
        // 5000 columns: more warps than an H100 holds at 64 registers, so the lean T kernel.
        (
            Case {
                trans: MUBLAS_OP_T,
                m: 2000,
                n: 5000,
                lda: 2000,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 0.7,
                device_scalars: false,
            },
            None,
        ),
        // At most 512 columns and few row tiles: the narrow N kernels.
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 512,
                n: 512,
                lda: 512,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 0.7,
                device_scalars: false,
            },
            None,
        ),
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 300,
                n: 500,
                lda: 301,
                a_offset: 1,
                x_offset: 0,
                y_offset: 0,
                incx: -2,
                incy: 1,
                alpha: 0.3,
                beta: 0.0,
                device_scalars: true,
            },
            None,
        ),
        // Mid-size N that the default kernel splits 8 ways or more (on an H100): the wide N kernels.
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 2000,
                n: 2000,
                lda: 2000,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.3,
                beta: 0.7,
                device_scalars: false,
            },
            None,
        ),
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 2001,
                n: 2003,
                lda: 2003,
                a_offset: 1,
                x_offset: 0,
                y_offset: 0,
                incx: -2,
                incy: 1,
                alpha: 0.3,
                beta: 0.0,
                device_scalars: true,
            },
            None,
        ),
        // Odd lda in one wave of 32-row tiles (on an H100): the scalar lanes kernel, with a
        // partial group of columns and a partial row tile; then alpha = 0 from device memory.
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 4127,
                n: 2500,
                lda: 4131,
                a_offset: 1,
                x_offset: 1,
                y_offset: 0,
                incx: 3,
                incy: -1,
                alpha: -0.6,
                beta: 0.5,
                device_scalars: false,
            },
            None,
        ),
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 2100,
                n: 2100,
                lda: 2101,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: 1,
                alpha: 0.0,
                beta: 0.5,
                device_scalars: true,
            },
            None,
        ),
        // Past 4096 columns, one wave of 64-row tiles (on an H100): the float4 wide kernel.
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 5000,
                n: 4100,
                lda: 5004,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy: -1,
                alpha: -0.6,
                beta: 0.5,
                device_scalars: false,
            },
            None,
        ),
        // Past 16384 columns, the staged float4 wide kernel (82 blocks of 32 rows), NaN in y under beta = 0.
        (
            Case {
                trans: MUBLAS_OP_N,
                m: 2600,
                n: 16500,
                lda: 2600,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: -1,
                incy: 2,
                alpha: 0.4,
                beta: 0.0,
                device_scalars: true,
            },
            None,
        ),
    ];
    for (case, shape) in cases {
        let prepared = Prepared::new(&gpu, &mut random, case);
        let first = prepared.run(&gpu, shape);
        prepared.check(&prepared.describe(shape), &first);
        for call in 1..10 {
            let again = prepared.run(&gpu, shape);
            assert!(same_bits(&first, &again), "{}: call {call} gave other bits", prepared.describe(shape));
        }
    }
}

#[test]
fn gpu_sgemv_plan_takes_the_narrow_kernel_where_row_tiles_leave_sms_idle() {
    let test = "gpu_sgemv_plan_takes_the_narrow_kernel_where_row_tiles_leave_sms_idle";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let model = gpu.inner().device.model();
    let sms = model.sm_count as i64;
    // On fast DRAM the few-columns kernel takes float4 A first (gpu_sgemv_few_columns_n_kernel_through_the_routine).
    let float4 = |kernel| if gemv::fast_dram(model) { "gemv_n_f32_few" } else { kernel };
    // (m, n, lda, A's address offset in bytes, expected kernel)
    let cases = [
        (512, 512, 512, 0, float4(if sms > 4 { "gemv_n_f32_narrow" } else { "gemv_n_f32" })),
        // On fast DRAM the sweep takes any other A (gpu_sgemv_sweep_for_any_a_below_4096_rows_on_fast_dram).
        (
            300,
            500,
            301,
            4,
            if gemv::fast_dram(model) {
                "gemv_n_f32_sweep"
            } else if sms > 3 {
                "gemv_n_f32_scalar_narrow"
            } else {
                "gemv_n_f32_scalar"
            },
        ),
        // More than 512 columns: the default kernel, which may split.
        (512, 513, 512, 0, float4("gemv_n_f32")),
        // Enough 128-row tiles for every SM: the default kernel.
        (128 * sms, 512, 128 * sms, 0, float4("gemv_n_f32")),
    ];
    for (m, n, lda, offset, expected) in cases {
        let op = gemv::check_arguments(MUBLAS_OP_N, m, n, lda, 1, 1).unwrap();
        let (spec, plan) = gemv::plan(gpu.inner(), op, m, n, 1 << 20 | offset, lda, XReads::Float4).unwrap();
        say(&format!("{test}: {m}x{n}: {} {:?} grid {:?}", spec.name, plan.shape, plan.geometry.grid));
        assert_eq!(spec.name, expected, "{m}x{n}");
        if n <= 512 {
            assert_eq!(plan.geometry.grid.1, 1, "{m}x{n}: at most 512 columns, no split");
        }
    }
}

#[test]
fn gpu_sgemv_plan_takes_the_wide_kernel_where_it_fills_one_wave() {
    let test = "gpu_sgemv_plan_takes_the_wide_kernel_where_it_fills_one_wave";
    let Some(gpu) = gpu_or_skip(test) else { return };
    // The rule's figures are the H100's and H200's (132 SMs, one 512-thread wide block per SM); on
    // the H200's faster DRAM the sweep kernel takes float4 A from 12000 rows (and from 4225 where it fills
    // the SMs) and odd lda from 256 rows (below 4096 rows on 256 columns up to three a row, where the
    // wide kernel for any A does not) and past 6336 (12672 on 6144 columns or more), the wide kernel for
    // any A 2000 to 4095 rows on 2000 columns or more (from 4001 rows on 3000) and 4225 to 6336 (12672).
    // On the H100 the wide kernel for any A takes odd lda from 2000 rows to 6336 (12672) too, 4096 to 4224
    // included (on 3000 columns or more), and 15841 to 20000 (on up to 20000 columns), in place of the
    // scalar lanes, wide and default kernels, and the float4 wide kernel takes one row tile per SM past one
    // wave of 32-row tiles up to 15840 rows, as on the H200 (past 12672 rows on 12 thread rows, where the
    // H200's have 8).
    let model = gpu.inner().device.model();
    let h100_like = on_132_sms(&gpu);
    let fast_dram = gemv::fast_dram(model);
    const SWEEP: &str = "gemv_n_f32_sweep";
    // From 2000 to 4000 and 4225 to 6336 rows (12672 on 6144 columns or more), and on the H100 4001 to 4224
    // too (gpu_sgemv_wide_n_kernels_through_the_routine).
    const WIDE_ANY: &str = "gemv_n_f32_wide_any";
    // (m, n, lda, A's address offset in bytes, expected kernel and the wide kernels' shape, the same on fast DRAM)
    type Expected = (&'static str, Option<(u32, u32)>);
    let cases: [(i64, i64, i64, u64, Expected, Expected); 28] = [
        (3000, 3000, 3000, 0, ("gemv_n_f32_wide", Some((8, 64))), ("gemv_n_f32_wide", Some((8, 64)))),
        (3000, 3000, 3001, 4, (WIDE_ANY, Some((8, 64))), (WIDE_ANY, Some((8, 64)))),
        // 32-row tiles on every SM: blocks of 384 threads (on fast DRAM the sweep).
        (4223, 4224, 4223, 0, (WIDE_ANY, Some((8, 48))), (SWEEP, Some((32, 32)))),
        // Past 132 tiles of 32 rows, one tile per SM.
        (4225, 4225, 4225, 0, (WIDE_ANY, Some((10, 32))), (WIDE_ANY, Some((10, 32)))),
        // One tile per SM (gpu_sgemv_wide_n_kernels_through_the_routine).
        (5000, 5000, 5000, 0, ("gemv_n_f32_wide", Some((10, 32))), ("gemv_n_f32_wide", Some((10, 32)))),
        (16384, 16384, 16384, 0, ("gemv_n_f32_wide", Some((32, 16))), (SWEEP, Some((128, 8)))),
        (13000, 13000, 13000, 0, ("gemv_n_f32_wide", Some((26, 12))), (SWEEP, Some((128, 8)))),
        // Under 12000 rows the sweep takes float4 A where its one wave has as many blocks as the wide kernel's
        // (8192²: 128 each; 10000²: 105 against 125).
        (8192, 8192, 8192, 0, ("gemv_n_f32_wide", Some((16, 24))), (SWEEP, Some((64, 16)))),
        (10000, 10000, 10000, 0, ("gemv_n_f32_wide", Some((20, 16))), ("gemv_n_f32_wide", Some((20, 16)))),
        (5000, 5001, 5001, 0, (WIDE_ANY, Some((10, 32))), (WIDE_ANY, Some((10, 32)))),
        (7001, 7001, 7001, 0, (WIDE_ANY, Some((14, 24))), (WIDE_ANY, Some((14, 24)))),
        // Past 12672 rows the scalar wide kernel (on fast DRAM the sweep).
        (12673, 12673, 12673, 0, ("gemv_n_f32_scalar_wide", Some((32, 16))), (SWEEP, Some((128, 8)))),
        // …but on the H100 the wide kernel for any A from 15841 to 16384 rows (Tx 32 tiles, 12 thread rows).
        (16383, 16383, 16383, 0, (WIDE_ANY, Some((32, 12))), (SWEEP, None)),
        (15841, 2048, 15841, 0, (WIDE_ANY, Some((32, 12))), (SWEEP, None)),
        (2000, 8192, 2000, 0, ("gemv_n_f32_wide", Some((8, 64))), ("gemv_n_f32_wide", Some((8, 64)))),
        // Past 16384 columns: the staged float4 kernel, on at least half the SMs…
        (20000, 20000, 20000, 0, ("gemv_n_f32_wide_staged", Some((40, 12))), (SWEEP, Some((160, 4)))),
        (2000, 20000, 2000, 0, ("gemv_n_f32", None), ("gemv_n_f32", None)),
        // …and no wide scalar kernel: the long one, one 768-thread block per SM, where the default's two
        // blocks of 512 per SM leave more than a few SMs with one (on fast DRAM, on 3/4 of the SMs; else
        // the sweep)…
        (20001, 20001, 20001, 0, ("gemv_n_f32_scalar_long", Some((64, 12))), (SWEEP, Some((160, 4)))),
        (
            28001,
            28001,
            28001,
            0,
            ("gemv_n_f32_scalar_long", Some((64, 12))),
            ("gemv_n_f32_scalar_long", Some((64, 12))),
        ),
        (40001, 20001, 40001, 0, ("gemv_n_f32_scalar_long", Some((96, 8))), ("gemv_n_f32_scalar_long", Some((96, 8)))),
        (65537, 4096, 65537, 0, ("gemv_n_f32_scalar_long", Some((128, 6))), ("gemv_n_f32_scalar_long", Some((128, 6)))),
        // …but not where they fit one block per SM but one…
        (16897, 20001, 16897, 0, ("gemv_n_f32_scalar", Some((32, 16))), (SWEEP, None)),
        // …and on the H100 from 16385 to 20000 rows on up to 20000 columns the wide kernel for any A, one
        // tile per SM on 10 thread rows past Tx 32.
        (16897, 16897, 16897, 0, (WIDE_ANY, Some((34, 10))), (SWEEP, None)),
        (19999, 19999, 19999, 0, (WIDE_ANY, Some((38, 10))), (SWEEP, None)),
        (16501, 16501, 16501, 0, (WIDE_ANY, Some((32, 12))), (SWEEP, None)),
        // A split grid of two blocks per SM on most SMs: the thin kernel's blocks of 256, the same split
        // of 8 (not on fast DRAM)…
        (3001, 100001, 3001, 0, ("gemv_n_f32_scalar_thin", Some((32, 8))), ("gemv_n_f32_scalar", None)),
        // …but not where most SMs hold one (64 blocks), nor on fewer than 2048 columns (on fast DRAM the sweep).
        (1001, 1001, 1001, 0, ("gemv_n_f32_scalar", Some((32, 16))), (SWEEP, Some((32, 32)))),
        (20001, 1001, 20001, 0, ("gemv_n_f32_scalar", Some((32, 16))), ("gemv_n_f32_scalar", None)),
    ];
    for (m, n, lda, offset, on_h100, on_fast_dram) in cases {
        let op = gemv::check_arguments(MUBLAS_OP_N, m, n, lda, 1, 1).unwrap();
        let (spec, plan) = gemv::plan(gpu.inner(), op, m, n, 1 << 20 | offset, lda, XReads::Float4).unwrap();
        say(&format!("{test}: {m}x{n}: {} {:?} grid {:?}", spec.name, plan.shape, plan.geometry.grid));
        if h100_like {
            let (expected, shape) = if fast_dram { on_fast_dram } else { on_h100 };
            assert_eq!(spec.name, expected, "{m}x{n}");
            if let Some((tx, ty)) = shape {
                assert_eq!((plan.shape.tx, plan.shape.ty), (tx, ty), "{m}x{n}");
                // Only the default scalar kernels split the columns; the wide kernels take them all.
                let splits_allowed = matches!(expected, "gemv_n_f32_scalar" | "gemv_n_f32_scalar_thin" | "gemv_n_f32");
                assert!(plan.geometry.grid.1 == 1 || splits_allowed, "{m}x{n}");
            }
        }
    }
    if !h100_like {
        say(&format!("{test}: not a 132-SM GPU: plans printed, not checked"));
    }
}

#[test]
fn gpu_sgemv_plan_reads_x_through_l1_where_x_allows() {
    let test = "gpu_sgemv_plan_reads_x_through_l1_where_x_allows";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let h100_like = on_132_sms(&gpu);
    // (n, lda, x_offset, incx, expected kernel on a 132-SM GPU): T n × n.
    let cases = [
        // For A and x as float4, the paired kernel from 768 columns on…
        (768, 768, 0, 1, "gemv_t_f32_paired"),
        (1000, 1000, 0, 1, "gemv_t_f32_paired"),
        (3000, 3000, 0, 1, "gemv_t_f32_paired"),
        (5000, 5000, 0, 1, "gemv_t_f32_paired"),
        (8192, 8192, 0, 1, "gemv_t_f32_paired"),
        // …the kernel for any A wherever x has unit stride, on 2000 columns or more, for float4 A…
        (3000, 3000, 1, 1, "gemv_t_f32_l1_any"),
        (4096, 4096, 3, 1, "gemv_t_f32_l1_any"),
        // …and for odd lda where it runs in one wave under 0.9 full and the paired kernel for any A needs two…
        (3001, 3001, 0, 1, "gemv_t_f32_l1_any"),
        // …elsewhere, and on fewer columns, the paired kernel for any A (x of unit stride, at any alignment)…
        (2001, 2001, 0, 1, "gemv_t_f32_paired_any"),
        (4097, 4097, 1, 1, "gemv_t_f32_paired_any"),
        (4096, 4099, 3, 1, "gemv_t_f32_paired_any"),
        (5001, 5001, 0, 1, "gemv_t_f32_paired_any"),
        (8191, 8191, 0, 1, "gemv_t_f32_paired_any"),
        (1000, 1000, 1, 1, "gemv_t_f32_paired_any"),
        (1999, 2001, 0, 1, "gemv_t_f32_paired_any"),
        // …else, for A float4, x as float4 through L1 only where it is 16-byte aligned with unit stride…
        (512, 512, 0, 1, "gemv_t_f32_lean_l1"),
        (3000, 3000, 0, -1, "gemv_t_f32"),
        (4097, 4097, 0, -1, "gemv_t_f32_scalar"),
        (4097, 4097, 0, 2, "gemv_t_f32_scalar"),
        // …and the lean kernels first where they save a wave.
        (5000, 5000, 2, 1, "gemv_t_f32_lean"),
        (5001, 5001, 0, 2, "gemv_t_f32_scalar_lean"),
    ];
    for (n, lda, x_offset, incx, expected) in cases {
        let case = Case {
            trans: MUBLAS_OP_T,
            m: n,
            n,
            lda,
            a_offset: 0,
            x_offset,
            y_offset: 0,
            incx,
            incy: 1,
            alpha: 0.5,
            beta: -1.5,
            device_scalars: false,
        };
        let prepared = Prepared::new(&gpu, &mut random, case);
        let x = gemv::x_reads(prepared.dx.address(), incx);
        let (spec, plan) = prepared.plan(&gpu);
        say(&format!(
            "{test}: {n}² lda {lda} x_offset {x_offset} incx {incx}: {} {:?} grid {:?}",
            spec.name, plan.shape, plan.geometry.grid
        ));
        assert!(
            x == XReads::Float4
                || !["gemv_t_f32_lean_l1", "gemv_t_f32_paired", "gemv_t_f32_paired_split", "gemv_t_f32_stacked"]
                    .contains(&spec.name),
            "{n}²: x is not float4"
        );
        assert!(x != XReads::Strided || !spec.name.contains("_any"), "{n}²: x is strided");
        if h100_like {
            assert_eq!(spec.name, expected, "{n}² lda {lda} x_offset {x_offset} incx {incx}");
        }
        // What the routine runs on this x: correct, inputs untouched.
        let got = prepared.run(&gpu, None);
        prepared.check(&prepared.describe(None), &got);
        prepared.check_inputs_unchanged(&prepared.describe(None));
    }
    if !h100_like {
        say(&format!("{test}: not a 132-SM GPU: kernels printed, not checked"));
    }
}

#[test]
fn gpu_sgemv_split_counters_reset_between_calls() {
    let test = "gpu_sgemv_split_counters_reset_between_calls";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    // Alternating problems and splits reuse the same counters and slots: each
    // launch must find them at 0, so each kernel must have left them there
    // (a slot left full would pass for the next launch's partial sum).
    let wide = Case {
        trans: MUBLAS_OP_N,
        m: 20000,
        n: 1024,
        lda: 20000,
        a_offset: 0,
        x_offset: 0,
        y_offset: 0,
        incx: 1,
        incy: 1,
        alpha: 1.25,
        beta: 0.5,
        device_scalars: false,
    };
    let tall = Case {
        trans: MUBLAS_OP_T,
        m: 5000,
        n: 40,
        lda: 5000,
        a_offset: 0,
        x_offset: 0,
        y_offset: 0,
        incx: 1,
        incy: 1,
        alpha: 1.25,
        beta: 0.5,
        device_scalars: false,
    };
    let skinny = Case {
        trans: MUBLAS_OP_T,
        m: 1 << 20,
        n: 16,
        lda: 1 << 20,
        a_offset: 0,
        x_offset: 0,
        y_offset: 0,
        incx: 1,
        incy: 1,
        alpha: 1.25,
        beta: 0.5,
        device_scalars: false,
    };
    let short = Case {
        trans: MUBLAS_OP_N,
        m: 16,
        n: 1 << 18,
        lda: 16,
        a_offset: 0,
        x_offset: 0,
        y_offset: 0,
        incx: 1,
        incy: 1,
        alpha: 1.25,
        beta: 0.5,
        device_scalars: false,
    };
    let (wide, tall, skinny) = (
        Prepared::new(&gpu, &mut random, wide),
        Prepared::new(&gpu, &mut random, tall),
        Prepared::new(&gpu, &mut random, skinny),
    );
    let short = Prepared::new(&gpu, &mut random, short);
    let steps = [
        (&tall, LaunchShape { tx: 64, ty: 1, split: 8 }),
        (&wide, LaunchShape { tx: 32, ty: 1, split: 64 }),
        (&tall, LaunchShape { tx: 64, ty: 1, split: 8 }),
        (&skinny, LaunchShape { tx: 32, ty: 1, split: 512 }),
        (&wide, LaunchShape { tx: 64, ty: 2, split: 16 }),
        (&skinny, LaunchShape { tx: 128, ty: 1, split: 256 }),
        (&short, LaunchShape { tx: 512, ty: 1, split: 256 }),
        (&tall, LaunchShape { tx: 32, ty: 1, split: 2 }),
        (&short, LaunchShape { tx: 256, ty: 1, split: 64 }),
        (&skinny, LaunchShape { tx: 512, ty: 1, split: 512 }),
        (&short, LaunchShape { tx: 512, ty: 1, split: 512 }),
    ];
    for (prepared, shape) in steps {
        assert!(prepared.splits(shape) > 1, "{} does not split", prepared.describe(Some(shape)));
        let got = prepared.run(&gpu, Some(shape));
        prepared.check(&prepared.describe(Some(shape)), &got);
        let left = gpu.inner().split_state_left_over().unwrap();
        assert_eq!(left, (0, 0), "{}: (counters, slots) not 0 after it", prepared.describe(Some(shape)));
    }
}

#[test]
fn gpu_sgemv_split_after_strmv_and_split_k_sgemm_on_the_same_handle() {
    let test = "gpu_sgemv_split_after_strmv_and_split_k_sgemm_on_the_same_handle";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    // STRMV's partial sums and SGEMM's split-K partial tiles live in the same
    // work buffer as the split counters, which must still read 0 afterwards.
    let case = Case {
        trans: MUBLAS_OP_N,
        m: 20000,
        n: 2048,
        lda: 20000,
        a_offset: 0,
        x_offset: 0,
        y_offset: 0,
        incx: 1,
        incy: 1,
        alpha: 1.25,
        beta: 0.5,
        device_scalars: false,
    };
    let gemv = Prepared::new(&gpu, &mut random, case);
    let shape = LaunchShape { tx: 32, ty: 1, split: 8 };
    assert_eq!(gemv.splits(shape), 8);
    let split = Some(shape);
    let counters_and_slots_clear = |after: &str| {
        let left = gpu.inner().split_state_left_over().unwrap();
        assert_eq!(left, (0, 0), "after {after}: (counters, slots) not 0");
    };
    let check_gemv = |after: &str| {
        counters_and_slots_clear(after);
        let got = gemv.run(&gpu, split);
        gemv.check(&format!("after {after}: {}", gemv.describe(split)), &got);
        counters_and_slots_clear(&format!("the SGEMV after {after}"));
    };
    check_gemv("nothing");

    let n = 3001;
    let a = GuardedBuffer::from_slice(gpu.context(), &random.vector(n * n), 0).unwrap();
    let x = GuardedBuffer::from_slice(gpu.context(), &random.vector(n), 0).unwrap();
    let status = unsafe {
        mublasStrmv(
            gpu.handle,
            MUBLAS_FILL_MODE_LOWER,
            MUBLAS_OP_N,
            MUBLAS_DIAG_NON_UNIT,
            n as i32,
            a.address() as *const f32,
            n as i32,
            x.address() as *mut f32,
            1,
        )
    };
    assert_eq!(status, MUBLAS_STATUS_SUCCESS);
    check_gemv("STRMV");

    let (m, k) = (64usize, 16384usize);
    let a = GuardedBuffer::from_slice(gpu.context(), &random.vector(m * k), 0).unwrap();
    let b = GuardedBuffer::from_slice(gpu.context(), &random.vector(k * m), 0).unwrap();
    let c = GuardedBuffer::from_slice(gpu.context(), &random.vector(m * m), 0).unwrap();
    let (alpha, beta) = (1.0f32, 0.0f32);
    let decision = gemm::sgemm_with(
        gpu.inner(),
        0,
        0,
        m as i64,
        m as i64,
        k as i64,
        Scalar::Host(alpha),
        a.address(),
        m as i64,
        b.address(),
        k as i64,
        Scalar::Host(beta),
        c.address(),
        m as i64,
        TileChoice::Auto,
    )
    .unwrap();
    assert!(decision.plan.unwrap().geometry.grid.2 > 1, "({m}, {m}, {k}) is meant to split k");
    check_gemv("split-K SGEMM");
}

#[test]
fn gpu_sgemv_without_work_buffer_runs_unsplit() {
    let test = "gpu_sgemv_without_work_buffer_runs_unsplit";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for (trans, shape) in
        [(MUBLAS_OP_N, LaunchShape { tx: 32, ty: 4, split: 8 }), (MUBLAS_OP_T, LaunchShape { tx: 64, ty: 1, split: 4 })]
    {
        let case = Case {
            trans,
            m: 5000,
            n: 3000,
            lda: 5001,
            a_offset: 1,
            x_offset: 0,
            y_offset: 0,
            incx: 1,
            incy: -1,
            alpha: 0.75,
            beta: 0.5,
            device_scalars: false,
        };
        let prepared = Prepared::new(&gpu, &mut random, case);
        assert!(prepared.splits(shape) > 1);
        // No work buffer beyond the split counters (the handle's limit, short of the split slots): the split shape runs unsplit,
        // which gives the unsplit shape's bits (each is a fixed-order sum), not the split's.
        gpu.inner().set_work_limit(mublas::handle::SPLIT_COUNTER_BYTES as usize);
        let limited = prepared.run(&gpu, Some(shape));
        prepared.check(&format!("work buffer limited: {}", prepared.describe(Some(shape))), &limited);
        let chosen = prepared.run(&gpu, None);
        prepared.check(&format!("work buffer limited: {}", prepared.describe(None)), &chosen);
        gpu.inner().set_work_limit(usize::MAX);
        let unsplit = prepared.run(&gpu, Some(LaunchShape { split: 1, ..shape }));
        let split = prepared.run(&gpu, Some(shape));
        assert_eq!(
            bits(&limited),
            bits(&unsplit),
            "{}: limited, not the unsplit shape's bits",
            prepared.describe(Some(shape))
        );
        assert_ne!(
            bits(&split),
            bits(&unsplit),
            "{}: the split should sum in another order",
            prepared.describe(Some(shape))
        );
    }
}

#[test]
fn gpu_sgemv_on_a_created_stream() {
    let test = "gpu_sgemv_on_a_created_stream";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let mut random = random(test);
    // The same cases on the default stream first, to tell a stream problem from a kernel one.
    for trans in [MUBLAS_OP_N, MUBLAS_OP_T] {
        let case = Case {
            trans,
            m: 3001,
            n: 2999,
            lda: 3004,
            a_offset: 0,
            x_offset: 0,
            y_offset: 0,
            incx: 1,
            incy: -2,
            alpha: -0.5,
            beta: 1.5,
            device_scalars: true,
        };
        let prepared = Prepared::new(&gpu, &mut random, case);
        let (spec, plan) = prepared.plan(&gpu);
        say(&format!("{test}: trans {trans}: {} {:?} grid {:?}", spec.name, plan.shape, plan.geometry.grid));
        let got = prepared.run(&gpu, None);
        prepared.check(&format!("default stream: {}", prepared.describe(None)), &got);
    }
    let stream = Stream::new(gpu.context()).unwrap();
    set_stream(&gpu, stream.raw());
    // Every combination is run and reported before the test fails, to locate a failure.
    let mut failures = Vec::new();
    for trans in [MUBLAS_OP_N, MUBLAS_OP_T] {
        for (incy, device_scalars) in [(-2, true), (1, true), (-2, false), (1, false)] {
            let case = Case {
                trans,
                m: 3001,
                n: 2999,
                lda: 3004,
                a_offset: 0,
                x_offset: 0,
                y_offset: 0,
                incx: 1,
                incy,
                alpha: -0.5,
                beta: 1.5,
                device_scalars,
            };
            let prepared = Prepared::new(&gpu, &mut random, case);
            // A split shape valid for the op: GEMV-T's blocks are 1-D.
            let split_shape = if trans == MUBLAS_OP_N {
                LaunchShape { tx: 64, ty: 2, split: 4 }
            } else {
                LaunchShape { tx: 64, ty: 1, split: 4 }
            };
            for shape in [None, Some(split_shape)] {
                let got = prepared.run(&gpu, shape);
                let what = format!("created stream: {}", prepared.describe(shape));
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| prepared.check(&what, &got))) {
                    Ok(()) => say(&format!("ok: {what}")),
                    Err(_) => failures.push(what),
                }
            }
            // The tuner's choice again with the stream held back (its work buffer has grown already).
            let what = format!("created stream, gated: {}", prepared.describe(None));
            let gated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let got = prepared.run_gated(&gpu, &stream);
                prepared.check(&what, &got);
            }));
            match gated {
                Ok(()) => say(&format!("ok: {what}")),
                Err(_) => failures.push(what),
            }
        }
    }
    assert!(failures.is_empty(), "failed on the created stream: {failures:#?}");
    set_stream(&gpu, std::ptr::null_mut());
}

#[test]
fn gpu_sgemv_quick_returns_touch_nothing() {
    let test = "gpu_sgemv_quick_returns_touch_nothing";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let y = random.vector(64);
    let dy = GuardedBuffer::from_slice(gpu.context(), &y, 0).unwrap();
    let yp = dy.address() as *mut f32;
    let null = std::ptr::null::<f32>();
    let (alpha, beta, zero, one) = (2.0f32, 3.0f32, 0.0f32, 1.0f32);
    unsafe {
        // m == 0 or n == 0: success, y not scaled, nothing read (null A and x, null scalars even).
        assert_eq!(
            mublasSgemv(gpu.handle, MUBLAS_OP_N, 0, 5, &alpha, null, 1, null, 1, &beta, yp, 1),
            MUBLAS_STATUS_SUCCESS
        );
        assert_eq!(
            mublasSgemv(gpu.handle, MUBLAS_OP_T, 5, 0, &alpha, null, 5, null, 1, &beta, yp, 1),
            MUBLAS_STATUS_SUCCESS
        );
        assert_eq!(
            mublasSgemv(gpu.handle, MUBLAS_OP_N, 0, 0, null, null, 1, null, 1, null, yp, 1),
            MUBLAS_STATUS_SUCCESS
        );
        // The same where y has all 64 elements (N: m of them, T: n), in both pointer modes: y keeps its bits.
        assert_eq!(
            mublasSgemv(gpu.handle, MUBLAS_OP_N, 64, 0, &alpha, null, 64, null, 1, &beta, yp, 1),
            MUBLAS_STATUS_SUCCESS
        );
        assert_eq!(
            mublasSgemv(gpu.handle, MUBLAS_OP_T, 0, 64, &alpha, null, 1, null, 1, &zero, yp, -1),
            MUBLAS_STATUS_SUCCESS
        );
        assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_DEVICE), MUBLAS_STATUS_SUCCESS);
        let device_mode = [
            mublasSgemv(gpu.handle, MUBLAS_OP_N, 64, 0, null, null, 64, null, 1, null, yp, 1),
            mublasSgemv(gpu.handle, MUBLAS_OP_T, 0, 64, null, null, 1, null, 1, null, yp, 1),
        ];
        assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_SUCCESS);
        assert_eq!(device_mode, [MUBLAS_STATUS_SUCCESS; 2], "empty A in device pointer mode");
        mublas::harness::stream::synchronize(gpu.context(), std::ptr::null_mut()).unwrap();
        assert!(same_bits(&dy.read().unwrap(), &y), "an empty A changed y");
        // Host alpha = 0 and beta = 1: nothing to do.
        assert_eq!(
            mublasSgemv(gpu.handle, MUBLAS_OP_N, 64, 64, &zero, null, 64, null, 1, &one, yp, 1),
            MUBLAS_STATUS_SUCCESS
        );
        // Host alpha = 0: A and x are not read (null is fine), y is scaled.
        assert_eq!(
            mublasSgemv(gpu.handle, MUBLAS_OP_T, 10, 64, &zero, null, 10, null, 1, &beta, yp, 1),
            MUBLAS_STATUS_SUCCESS
        );
    }
    mublas::harness::stream::synchronize(gpu.context(), std::ptr::null_mut()).unwrap();
    let got = dy.read().unwrap();
    assert!(dy.guards_intact().unwrap());
    for i in 0..64 {
        assert_eq!(got[i], beta * y[i], "alpha = 0 scales y by beta");
    }
}

#[test]
fn gpu_sgemv_bad_arguments_write_nothing() {
    let test = "gpu_sgemv_bad_arguments_write_nothing";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let ctx = gpu.context();
    let (m, n) = (8i32, 6i32);
    let a = GuardedBuffer::from_slice(ctx, &random.vector(64), 0).unwrap();
    let x = GuardedBuffer::from_slice(ctx, &random.vector(16), 0).unwrap();
    let y0 = random.vector(16);
    let y = GuardedBuffer::from_slice(ctx, &y0, 0).unwrap();
    let (alpha, beta) = (1.0f32, 0.0f32);
    // (trans, m, n, lda, incx, incy) → reference-BLAS position.
    let bad = [
        ((3, m, n, m, 1, 1), 1),
        ((-1, m, n, m, 1, 1), 1),
        ((0, -1, n, m, 1, 1), 2),
        ((0, m, -1, m, 1, 1), 3),
        ((0, m, n, m - 1, 1, 1), 6),
        ((1, m, n, m - 1, 1, 1), 6),
        ((0, 0, n, 0, 1, 1), 6),
        ((0, m, n, m, 0, 1), 8),
        ((0, m, n, m, 1, 0), 11),
        // The first bad one wins.
        ((7, -1, -1, 0, 0, 0), 1),
        ((0, -1, -1, 0, 0, 0), 2),
        ((0, m, -1, 0, 0, 0), 3),
        ((0, m, n, 0, 0, 0), 6),
        ((0, m, n, m, 0, 0), 8),
    ];
    for ((trans, m, n, lda, incx, incy), position) in bad {
        let status = unsafe {
            mublasSgemv(
                gpu.handle,
                trans,
                m,
                n,
                &alpha,
                a.address() as *const f32,
                lda,
                x.address() as *const f32,
                incx,
                &beta,
                y.address() as *mut f32,
                incy,
            )
        };
        assert_eq!(status, MUBLAS_STATUS_INVALID_VALUE, "trans={trans} m={m} n={n} lda={lda} incx={incx} incy={incy}");
        let result = gemv::sgemv(
            gpu.inner(),
            trans,
            m as i64,
            n as i64,
            Scalar::Host(alpha),
            a.address(),
            lda as i64,
            x.address(),
            incx as i64,
            Scalar::Host(beta),
            y.address(),
            incy as i64,
        );
        assert_eq!(result, Err(Error::InvalidArgument { routine: "SGEMV", position }));
    }
    unsafe {
        // Null scalars: INVALID_VALUE where cuBLAS would crash.
        let null = std::ptr::null::<f32>();
        assert_eq!(
            mublasSgemv(
                gpu.handle,
                0,
                m,
                n,
                null,
                a.address() as *const f32,
                m,
                x.address() as *const f32,
                1,
                &beta,
                y.address() as *mut f32,
                1
            ),
            MUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            mublasSgemv(
                gpu.handle,
                0,
                m,
                n,
                &alpha,
                a.address() as *const f32,
                m,
                x.address() as *const f32,
                1,
                null,
                y.address() as *mut f32,
                1
            ),
            MUBLAS_STATUS_INVALID_VALUE
        );
        // Null y or (with alpha ≠ 0) null A or x.
        assert_eq!(
            mublasSgemv(
                gpu.handle,
                0,
                m,
                n,
                &alpha,
                a.address() as *const f32,
                m,
                x.address() as *const f32,
                1,
                &beta,
                std::ptr::null_mut(),
                1
            ),
            MUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            mublasSgemv(
                gpu.handle,
                0,
                m,
                n,
                &alpha,
                null,
                m,
                x.address() as *const f32,
                1,
                &beta,
                y.address() as *mut f32,
                1
            ),
            MUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            mublasSgemv(
                gpu.handle,
                0,
                m,
                n,
                &alpha,
                a.address() as *const f32,
                m,
                null,
                1,
                &beta,
                y.address() as *mut f32,
                1
            ),
            MUBLAS_STATUS_INVALID_VALUE
        );
    }
    mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
    assert_eq!(y.read().unwrap(), y0, "a rejected call wrote y");
    assert!(y.guards_intact().unwrap());
}

#[test]
fn sgemv_null_handle_is_not_initialized() {
    // No GPU needed: the handle is checked first.
    let v = 1.0f32;
    let status = unsafe {
        mublasSgemv(
            std::ptr::null_mut(),
            MUBLAS_OP_N,
            4,
            4,
            &v,
            std::ptr::null(),
            4,
            std::ptr::null(),
            1,
            &v,
            std::ptr::null_mut(),
            1,
        )
    };
    assert_eq!(status, MUBLAS_STATUS_NOT_INITIALIZED);
    let status = unsafe {
        mublasSgemv(
            std::ptr::null_mut(),
            9,
            -1,
            4,
            &v,
            std::ptr::null(),
            0,
            std::ptr::null(),
            0,
            &v,
            std::ptr::null_mut(),
            0,
        )
    };
    assert_eq!(status, MUBLAS_STATUS_NOT_INITIALIZED, "the handle comes before the arguments");
}
