//! SGEMM on the GPU against a float64 CPU reference and against real cuBLAS,
//! over the case matrix of shared/docs/testing.md. Skipped, saying so, when
//! there is no GPU.

mod common;

use common::*;
use mublas::capi::gemm::mublasSgemm;
use mublas::capi::handle::mublasSetPointerMode;
use mublas::capi::types::*;
use mublas::harness::{GuardedBuffer, Random, Stream};
use mublas::routines::Scalar;
use mublas::routines::gemm::{self, Cut, TILE_KERNELS, TILES, TileChoice};
use mublas::tuner::{LaunchShape, Problem};

#[derive(Clone, Copy, Debug)]
struct Case {
    ta: i32,
    tb: i32,
    m: usize,
    n: usize,
    k: usize,
    /// Extra rows in each leading dimension.
    pad: usize,
    /// Floats by which A, B, C start past a 16-byte boundary.
    offset: usize,
    /// Where A, B and C lie apart: their own offsets instead of `offset`.
    operand_offsets: Option<[usize; 3]>,
    alpha: f32,
    beta: f32,
    device_scalars: bool,
    /// C holds NaN before the call (only meaningful with beta = 0).
    nan_c: bool,
    /// A, B and C of ±1 and ±2 ([`small_integer`]; alpha and beta whole or
    /// halves): every partial sum exact, so C must equal the reference exactly.
    small_integers: bool,
    /// The float64 reference at `SAMPLED_ELEMENTS` elements of C drawn at random, for products too large
    /// to check whole on the CPU; every element is then held to cuBLAS's within a bound on its magnitude
    /// ([`sampled_reference`]).
    sampled: bool,
}

impl Case {
    fn new(ta: i32, tb: i32, m: usize, n: usize, k: usize) -> Case {
        Case {
            ta,
            tb,
            m,
            n,
            k,
            pad: 0,
            offset: 0,
            operand_offsets: None,
            alpha: 1.25,
            beta: -0.5,
            device_scalars: false,
            nan_c: false,
            small_integers: false,
            sampled: false,
        }
    }
    /// Floats by which A, B and C start past a 16-byte boundary.
    fn offsets(&self) -> [usize; 3] {
        self.operand_offsets.unwrap_or([self.offset; 3])
    }
    /// (rows, columns) of A and B as stored.
    fn a_shape(&self) -> (usize, usize) {
        if self.ta == 0 { (self.m, self.k) } else { (self.k, self.m) }
    }
    fn b_shape(&self) -> (usize, usize) {
        if self.tb == 0 { (self.k, self.n) } else { (self.n, self.k) }
    }
    fn lda(&self) -> usize {
        self.a_shape().0.max(1) + self.pad
    }
    fn ldb(&self) -> usize {
        self.b_shape().0.max(1) + self.pad
    }
    fn ldc(&self) -> usize {
        self.m.max(1) + self.pad
    }
    /// Variant 1: scalars from the device, alpha 0 among them where
    /// `alpha_zero`; 2: beta 0 over NaN; others as made. `pad` rows, and an
    /// offset that alternates with `turn` + variant.
    fn varied(mut self, variant: usize, pad: usize, turn: usize, alpha_zero: bool) -> Case {
        (self.pad, self.offset, self.device_scalars) = (pad, (turn + variant) % 2, variant == 1);
        match variant {
            1 if alpha_zero => (self.alpha, self.beta) = (0.0, 0.75),
            2 => (self.beta, self.nan_c) = (0.0, true),
            _ => {}
        }
        self
    }
}

/// Floats a column-major matrix of `rows × cols` with `ld` spans.
fn extent(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 { 0 } else { ld * (cols - 1) + rows }
}

/// op(X)[i][l] for X stored column-major with leading dimension ld.
fn op(x: &[f32], ld: usize, trans: i32, i: usize, l: usize) -> f64 {
    (if trans == 0 { x[i + l * ld] } else { x[l + i * ld] }) as f64
}

/// C(i, j) = alpha·Σ_l op(A)(i, l)·op(B)(l, j) + beta·C(i, j) in float64, and its magnitude (Σ|terms|),
/// with op(B)'s column j given by `b_column`; C at `index` (beta = 0: not read, whatever it holds;
/// alpha = 0: no product, A and B not read).
fn element(case: &Case, a: &[f32], c: &[f32], i: usize, index: usize, b_column: impl Fn(usize) -> f64) -> (f64, f64) {
    let (mut sum, mut size) = (0f64, 0f64);
    if case.alpha != 0.0 {
        let lda = case.lda();
        for l in 0..case.k {
            let product = op(a, lda, case.ta, i, l) * b_column(l);
            sum += product;
            size += product.abs();
        }
    }
    let old = beta_c(case, c, index);
    (case.alpha as f64 * sum + old, (case.alpha as f64).abs() * size + old.abs())
}

/// beta·C at `index` in float64: 0 with beta = 0, whatever C holds there.
fn beta_c(case: &Case, c: &[f32], index: usize) -> f64 {
    if case.beta == 0.0 { 0.0 } else { case.beta as f64 * c[index] as f64 }
}

/// The float64 reference over C's whole storage: (expected, magnitude);
/// storage between rows m and ldc is expected untouched.
fn reference(case: &Case, a: &[f32], b: &[f32], c: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let (ldb, ldc) = (case.ldb(), case.ldc());
    let mut expected: Vec<f64> = c.iter().map(|v| *v as f64).collect();
    let mut magnitude: Vec<f64> = c.iter().map(|v| v.abs() as f64).collect();
    // Runs of columns on every core (each element is its own sum, so any split gives the same values);
    // one run where the product is small.
    let parts = if case.m * case.n * case.k < 1 << 22 { 1 } else { mublas::harness::host_cores() };
    let columns_per_part = case.n.div_ceil(parts).max(1);
    let part_len = columns_per_part * ldc;
    let runs = expected.chunks_mut(part_len).zip(magnitude.chunks_mut(part_len)).enumerate();
    std::thread::scope(|scope| {
        for (part, (expected, magnitude)) in runs {
            scope.spawn(move || {
                let mut column = vec![0f64; case.k];
                for j in part * columns_per_part..((part + 1) * columns_per_part).min(case.n) {
                    for (l, slot) in column.iter_mut().enumerate() {
                        *slot = op(b, ldb, case.tb, l, j);
                    }
                    for i in 0..case.m {
                        let (index, local) = (i + j * ldc, i + (j - part * columns_per_part) * ldc);
                        (expected[local], magnitude[local]) = element(case, a, c, i, index, |l| column[l]);
                    }
                }
            });
        }
    });
    (expected, magnitude)
}

/// The reference on several cores (a product past its threshold, padded C, every pair) is, at every element,
/// that element's own sum, and the padding between C's rows m and ldc keeps C's values. Needs no GPU.
#[test]
fn reference_on_every_core_is_each_elements_own_sum() {
    let mut random = Random::new(5);
    for (ta, tb) in PAIRS {
        let mut case = Case::new(ta, tb, 203, 161, 131);
        case.pad = 3;
        assert!(case.m * case.n * case.k >= 1 << 22, "past the threshold for several cores");
        let (ar, ac) = case.a_shape();
        let (br, bc) = case.b_shape();
        let a = random.vector(extent(ar, ac, case.lda()));
        let b = random.vector(extent(br, bc, case.ldb()));
        let c = random.vector(extent(case.m, case.n, case.ldc()));
        let (expected, magnitude) = reference(&case, &a, &b, &c);
        for (index, (e, size)) in expected.iter().zip(&magnitude).enumerate() {
            let (i, j) = (index % case.ldc(), index / case.ldc());
            let alone = if i < case.m {
                element(&case, &a, &c, i, index, |l| op(&b, case.ldb(), tb, l, j))
            } else {
                (c[index] as f64, c[index].abs() as f64)
            };
            assert_eq!(
                (e.to_bits(), size.to_bits()),
                (alone.0.to_bits(), alone.1.to_bits()),
                "({ta}, {tb}) at ({i}, {j})"
            );
        }
    }
}

/// Elements of C a sampled case checks against the float64 reference.
const SAMPLED_ELEMENTS: usize = 4096;

/// [`reference`] at `SAMPLED_ELEMENTS` elements of C drawn at random (NaN at the others, which are left to
/// the comparison with cuBLAS), and for every element a magnitude no smaller than Σ|terms|: |alpha| times
/// the row's largest |op(A)| times the column's Σ|op(B)|, plus |beta·C| (the sampled ones get their own
/// Σ|terms|). O(m·k + k·n + SAMPLED_ELEMENTS·k).
fn sampled_reference(case: &Case, a: &[f32], b: &[f32], c: &[f32], random: &mut Random) -> (Vec<f64>, Vec<f64>) {
    let (lda, ldb, ldc) = (case.lda(), case.ldb(), case.ldc());
    let row_max: Vec<f64> =
        (0..case.m).map(|i| (0..case.k).map(|l| op(a, lda, case.ta, i, l).abs()).fold(0.0, f64::max)).collect();
    let column_sum: Vec<f64> =
        (0..case.n).map(|j| (0..case.k).map(|l| op(b, ldb, case.tb, l, j).abs()).sum()).collect();
    let mut expected: Vec<f64> = c.iter().map(|v| *v as f64).collect();
    let mut magnitude: Vec<f64> = c.iter().map(|v| v.abs() as f64).collect();
    for (j, column) in column_sum.iter().enumerate() {
        for (i, row) in row_max.iter().enumerate() {
            let index = i + j * ldc;
            expected[index] = f64::NAN;
            // alpha = 0: A and B hold NaN (they must not be read), and no product enters.
            let products = if case.alpha == 0.0 { 0.0 } else { (case.alpha as f64).abs() * row * column };
            magnitude[index] = products + beta_c(case, c, index).abs();
        }
    }
    for _ in 0..SAMPLED_ELEMENTS {
        let (i, j) = (below(random, case.m), below(random, case.n));
        let index = i + j * ldc;
        (expected[index], magnitude[index]) = element(case, a, c, i, index, |l| op(b, ldb, case.tb, l, j));
    }
    (expected, magnitude)
}

/// Runs one case through mublas (the C ABI, or the routine with a forced tile)
/// and, when given, through cuBLAS; checks the result, the untouched storage
/// and the guards. Returns mublas's C.
fn run_case(
    gpu: &Gpu,
    random: &mut Random,
    case: &Case,
    cublas: Option<&CublasSession>,
    choice: Option<TileChoice>,
) -> Vec<f32> {
    run_case_deciding(gpu, random, case, cublas, choice).0
}

/// `case` on `tile` with `split` forced on the tile's two kernels of the
/// case's pair (float4 and generic), after checking that the plan takes it;
/// the forcing is lifted afterwards.
fn run_case_split(
    gpu: &Gpu,
    random: &mut Random,
    case: &Case,
    cublas: Option<&CublasSession>,
    tile: usize,
    split: u32,
) {
    let device = &gpu.inner().device;
    let (ta, tb) = (gemm::Transpose::from_code(case.ta).unwrap(), gemm::Transpose::from_code(case.tb).unwrap());
    let specs = [false, true].map(|vec| (vec, &TILE_KERNELS[tile][gemm::kernel_index(ta, tb, vec)]));
    for (vec, spec) in specs {
        device.tuner.forced().set(spec.name, Some(LaunchShape { tx: TILES[tile].threads, ty: 1, split }));
        let (m, n, k) = (case.m as u64, case.n as u64, case.k as u64);
        let (_, plan) = gemm::plan_multiply(gpu.inner(), ta, tb, m, n, k, vec, TileChoice::Tile(tile)).unwrap();
        assert_eq!(plan.geometry.grid.2, split, "{}: split {split} should apply", spec.name);
    }
    run_case(gpu, random, case, cublas, Some(TileChoice::Tile(tile)));
    for (_, spec) in specs {
        device.tuner.forced().set(spec.name, None);
    }
}

/// Whether the tuner's decisions here are the ones the tests pin: those of
/// the H100 model (sm_80 on, 132 SMs), which the unit tests derive too.
fn like_h100(gpu: &Gpu) -> bool {
    let model = gpu.inner().device.model();
    model.compute_capability >= (8, 0) && model.sm_count == 132
}

/// Whether the routine split k on its tile plan.
fn splits_k(decision: &gemm::GemmDecision) -> bool {
    decision.plan.is_some_and(|plan| plan.geometry.grid.2 > 1)
}

/// [`run_case`] on the routine's own choices, returning what it did.
fn run_case_choosing(
    gpu: &Gpu,
    random: &mut Random,
    case: &Case,
    cublas: Option<&CublasSession>,
) -> gemm::GemmDecision {
    run_case_deciding(gpu, random, case, cublas, Some(TileChoice::Auto)).1.expect("a choice reports its decision")
}

/// [`run_case`], also returning what the routine did (with a `choice` only).
fn run_case_deciding(
    gpu: &Gpu,
    random: &mut Random,
    case: &Case,
    cublas: Option<&CublasSession>,
    choice: Option<TileChoice>,
) -> (Vec<f32>, Option<gemm::GemmDecision>) {
    let ctx = gpu.context();
    let (ar, ac) = case.a_shape();
    let (br, bc) = case.b_shape();
    // alpha = 0 (either pointer mode): A and B must not be read, so they hold NaN, which any read would carry into C.
    let unread = |v: Vec<f32>| if case.alpha == 0.0 { vec![f32::NAN; v.len()] } else { v };
    let value = if case.small_integers { small_integer } else { Random::value };
    let mut draw = |len: usize| random.values(len, value);
    let a = unread(draw(extent(ar, ac, case.lda()).max(1)));
    let b = unread(draw(extent(br, bc, case.ldb()).max(1)));
    let mut c = draw(extent(case.m, case.n, case.ldc()).max(1));
    if case.nan_c {
        c.iter_mut().for_each(|v| *v = f32::NAN);
    }
    let [a_offset, b_offset, c_offset] = case.offsets();
    let da = GuardedBuffer::from_slice(ctx, &a, a_offset).unwrap();
    let db = GuardedBuffer::from_slice(ctx, &b, b_offset).unwrap();
    let dc = GuardedBuffer::from_slice(ctx, &c, c_offset).unwrap();
    let scalars = GuardedBuffer::from_slice(ctx, &[case.alpha, case.beta], 0).unwrap();
    let what = format!("{case:?} choice={choice:?}");
    let (alpha_ptr, beta_ptr): (*const f32, *const f32) = if case.device_scalars {
        (scalars.address() as *const f32, (scalars.address() + 4) as *const f32)
    } else {
        (&case.alpha, &case.beta)
    };
    let mode = if case.device_scalars { MUBLAS_POINTER_MODE_DEVICE } else { MUBLAS_POINTER_MODE_HOST };
    let (m, n, k) = (case.m as i32, case.n as i32, case.k as i32);
    let (lda, ldb, ldc) = (case.lda() as i32, case.ldb() as i32, case.ldc() as i32);
    let call = || match choice {
        None => unsafe {
            assert_eq!(mublasSetPointerMode(gpu.handle, mode), MUBLAS_STATUS_SUCCESS);
            let status = mublasSgemm(
                gpu.handle,
                case.ta,
                case.tb,
                m,
                n,
                k,
                alpha_ptr,
                da.address() as *const f32,
                lda,
                db.address() as *const f32,
                ldb,
                beta_ptr,
                dc.address() as *mut f32,
                ldc,
            );
            assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_SUCCESS);
            assert_eq!(status, MUBLAS_STATUS_SUCCESS, "{what}");
            None
        },
        Some(choice) => {
            let scalar = |value: f32, address: *const f32| {
                if case.device_scalars { Scalar::Device(address as u64) } else { Scalar::Host(value) }
            };
            Some(
                gemm::sgemm_with(
                    gpu.inner(),
                    case.ta,
                    case.tb,
                    m as i64,
                    n as i64,
                    k as i64,
                    scalar(case.alpha, alpha_ptr),
                    da.address(),
                    lda as i64,
                    db.address(),
                    ldb as i64,
                    scalar(case.beta, beta_ptr),
                    dc.address(),
                    ldc as i64,
                    choice,
                )
                .unwrap_or_else(|e| panic!("{what}: {e}")),
            )
        }
    };
    // On a created stream (gpu_sgemm_on_a_created_stream), with the stream held back while the call is made.
    let stream = gpu.inner().stream();
    let decision = if stream.is_null() { call() } else { call_behind_a_gate(&what, gpu, stream, &[&dc], call) };
    mublas::harness::stream::synchronize(ctx, stream).unwrap();
    let got = dc.read().unwrap();
    assert!(
        da.guards_intact().unwrap() && db.guards_intact().unwrap() && dc.guards_intact().unwrap(),
        "{what}: guard zone overwritten"
    );
    assert!(same_bits(&da.read().unwrap(), &a), "{what}: A was modified");
    assert!(same_bits(&db.read().unwrap(), &b), "{what}: B was modified");

    let (expected, magnitude) =
        if case.sampled { sampled_reference(case, &a, &b, &c, random) } else { reference(case, &a, &b, &c) };
    let ulps = 2.0 * (case.k as f64 + 2.0);
    let ldc = case.ldc();
    for (index, (g, e)) in got.iter().zip(&expected).enumerate() {
        let (row, col) = (index % ldc, index / ldc);
        if row >= case.m || col >= case.n {
            assert_eq!(g.to_bits(), c[index].to_bits(), "{what}: storage outside C's m rows changed at ({row}, {col})");
            continue;
        }
        assert!(g.is_finite(), "{what}: C({row}, {col}) = {g}");
        if e.is_nan() {
            continue; // not sampled (a sampled case): held to cuBLAS's below
        }
        let bound = ulps * f32::EPSILON as f64 * 0.5 * magnitude[index] + f32::MIN_POSITIVE as f64;
        assert!((*g as f64 - e).abs() <= bound, "{what}: C({row}, {col}) = {g}, expected {e} (bound {bound:e})");
        assert!(!case.small_integers || *g as f64 == *e, "{what}: C({row}, {col}) = {g}, exactly {e}");
    }

    // cuBLAS gets NaN-filled A and B only where alpha = 0, and nothing obliges it not to read them.
    if let Some(cublas) = cublas.filter(|_| case.alpha != 0.0) {
        let dc2 = GuardedBuffer::from_slice(ctx, &c, c_offset).unwrap();
        let (lib, handle) = cublas.pair();
        unsafe {
            assert_eq!((lib.set_pointer_mode)(handle, mode), 0);
            let status = (lib.sgemm)(
                handle,
                case.ta,
                case.tb,
                m,
                n,
                k,
                alpha_ptr,
                da.address() as *const f32,
                lda,
                db.address() as *const f32,
                ldb,
                beta_ptr,
                dc2.address() as *mut f32,
                ldc as i32,
            );
            assert_eq!(status, 0, "{what}: cuBLAS status");
            mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
        }
        let theirs = dc2.read().unwrap();
        for (index, (g, t)) in got.iter().zip(&theirs).enumerate() {
            // Storage past C's m rows (padding, NaN where C was NaN-filled) was checked unchanged above.
            if index % ldc >= case.m {
                continue;
            }
            let bound = 2.0 * ulps * f32::EPSILON as f64 * 0.5 * magnitude[index] + f32::MIN_POSITIVE as f64;
            assert!((*g as f64 - *t as f64).abs() <= bound, "{what}: element {index}: mublas {g}, {} {t}", lib.soname);
        }
    }
    (got, decision)
}

const PAIRS: [(i32, i32); 4] = [(0, 0), (0, 1), (1, 0), (1, 1)];
/// What plan_call decides for a multiply with A, B and C aligned and stored
/// without padding (ldc rounded up to 4: C takes float4 stores): the decision tests' calls.
fn planned(gpu: &Gpu, ta: gemm::Transpose, tb: gemm::Transpose, m: u64, n: u64, k: u64) -> gemm::MultiplyPlan {
    let lda = if ta == gemm::Transpose::No { m } else { k } as i64;
    let ldb = if tb == gemm::Transpose::No { k } else { n } as i64;
    let ldc = m.next_multiple_of(4) as i64;
    gemm::plan_call(gpu.inner(), ta, tb, m, n, k, 1 << 20, lda, 1 << 21, ldb, 1 << 22, ldc, TileChoice::Auto).unwrap()
}

/// A repeated automatic call takes its plan from the handle's cache
/// (`SgemmPlans`), and that plan is the one deciding anew gives, for the
/// same sizes with each operand on or off its 16-byte boundary (which
/// decides float4 operands, op(A)'s panels and split tails): a key that
/// missed a pointer's offset would hand one layout's plan to another.
#[test]
fn gpu_sgemm_repeated_calls_reuse_their_plan() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_repeated_calls_reuse_their_plan") else { return };
    let h = gpu.inner();
    let shapes = [(128u64, 256u64, 1024u64), (127, 129, 1023), (4096, 4096, 256), (2048, 192, 4096), (8192, 64, 512)];
    // Byte offsets of A, B and C from 16-byte aligned addresses.
    let offsets = [(0u64, 0u64, 0u64), (4, 0, 0), (0, 8, 0), (0, 0, 12)];
    let mut decided_differently = 0;
    for &(ta, tb) in &PAIRS {
        let (ta, tb) = (gemm::Transpose::from_code(ta).unwrap(), gemm::Transpose::from_code(tb).unwrap());
        for &(m, n, k) in &shapes {
            let lda = if ta == gemm::Transpose::No { m } else { k } as i64;
            let ldb = if tb == gemm::Transpose::No { k } else { n } as i64;
            let ldc = m as i64;
            let mut first = None;
            for &(oa, ob, oc) in &offsets {
                let (a, b, c) = ((1 << 20) + oa, (1 << 28) + ob, (1 << 29) + oc);
                let call = || gemm::plan_call(h, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, TileChoice::Auto).unwrap();
                let what = format!("{ta:?}{tb:?} {m}x{n}x{k}, offsets {oa}/{ob}/{oc}");
                let before = h.sgemm_plans.len();
                let planned = format!("{:?}", call());
                assert_eq!(h.sgemm_plans.len(), before + 1, "{what}: a new call's plan is kept");
                assert_eq!(format!("{:?}", call()), planned, "{what}: the repeated call");
                assert_eq!(h.sgemm_plans.len(), before + 1, "{what}: the repeated call decides nothing new");
                let anew = gemm::plan_call_uncached(h, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, TileChoice::Auto);
                assert_eq!(format!("{:?}", anew.unwrap()), planned, "{what}: the cached plan against deciding anew");
                decided_differently += (*first.get_or_insert_with(|| planned.clone()) != planned) as usize;
            }
        }
    }
    // The offsets must matter somewhere, or the comparison above proves nothing about the key.
    assert!(decided_differently > 0, "no offset changed a plan");
    say(&format!(
        "gpu_sgemm_repeated_calls_reuse_their_plan: {} plans, {decided_differently} differing from their shape's aligned plan",
        h.sgemm_plans.len()
    ));
}

#[test]
fn gpu_sgemm_case_matrix() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_case_matrix") else { return };
    let mut random = random("gpu_sgemm_case_matrix");
    let session = CublasSession::open("gpu_sgemm_case_matrix");
    let cublas = session.as_ref();
    let sizes = [1usize, 7, 33, 127, 129];
    let mut cases = 0;
    for (p, &(ta, tb)) in PAIRS.iter().enumerate() {
        for (i, &m) in sizes.iter().enumerate() {
            for (j, &n) in sizes.iter().enumerate() {
                // k over the sizes too, rotated so that every (m, n) meets several k.
                for &k in &[sizes[(i + j + p) % 5], sizes[(i + 2 * j + 1) % 5], 1023] {
                    let mut case = Case::new(ta, tb, m, n, k);
                    case.pad = [0, 3, 4][(i + j) % 3];
                    case.offset = (i + j + p) % 2;
                    case.device_scalars = (i + 2 * j + p) % 3 == 0;
                    let compare = if (i + j) % 4 == 0 { cublas } else { None };
                    run_case(&gpu, &mut random, &case, compare, None);
                    cases += 1;
                }
            }
        }
    }
    say(&format!("gpu_sgemm_case_matrix: {cases} cases passed"));
}

/// Shapes, layouts and scalars drawn at random (the seed is printed; `MUBLAS_TEST_SEED` replays the draws),
/// each on the routine's own choices (tile, split, split tail, stream-K, A^T copied, the skinny and SGEMV
/// paths), against the float64 reference and cuBLAS: the rules meet shapes no fixed list names (tile edges
/// give or take 3, short sides from 1, k to 20000, padded and unaligned operands). Ends by saying how many
/// cases each path took.
#[test]
fn gpu_sgemm_random_shapes_through_the_routine() {
    run_random_cases(PlannedFor::ThisGpu, "gpu_sgemm_random_shapes_through_the_routine", 150, random_case);
}

/// [`gpu_sgemm_random_shapes_through_the_routine`]'s cases, 20 on each of six other GPUs' plans
/// (`DeviceModel::other_gpus`: 114 to 28 SMs, cc 8.x and 7.x code, tiles and limits), run on this GPU: the
/// tile, split and stream-K rules read the SM count and the per-SM limits, and were measured on an H100.
#[test]
fn gpu_sgemm_random_shapes_planned_for_other_gpus() {
    run_random_cases(PlannedFor::OtherGpus, "gpu_sgemm_random_shapes_planned_for_other_gpus", 20, random_case);
}

/// `cases` cases drawn by `draw` on each handle of `planned_for`, each on the routine's own choices through
/// [`run_case_choosing`] (against float64 and cuBLAS), then the paths they took.
fn run_random_cases(planned_for: PlannedFor, test: &str, cases: usize, mut draw: impl FnMut(&mut Random) -> Case) {
    run_random_shape_test(planned_for, test, cases, "paths taken", CublasSession::open, |gpu, random, cublas| {
        let case = draw(random);
        path_taken(&run_case_choosing(gpu, random, &case, cublas.as_ref()))
    });
}

/// One case for [`gpu_sgemm_random_shapes_through_the_routine`], at most 2^23 elements of C: a quarter with
/// one side short (to 40: the SGEMV and skinny paths), a quarter with both sides from 256 (the large tiles,
/// to 2^29 multiply-adds, the float64 reference's time), the rest with sides from 33, to 2^27; laid out by
/// [`random_layout`].
fn random_case(random: &mut Random) -> Case {
    let (m, n, k) = loop {
        // Short sides (to 32: the skinny kernels) come from the first two arms only.
        let (mut m, mut n) = (32 + random_dimension(random, 8160), 32 + random_dimension(random, 8160));
        let mut most = 1 << 27;
        match below(random, 8) {
            0 => m = log_uniform(random, 40),
            1 => n = log_uniform(random, 40),
            2 | 3 => {
                (m, n) = (255 + random_dimension(random, 3841), 255 + random_dimension(random, 3841));
                most = 1 << 29;
            }
            _ => {}
        }
        let k = random_dimension(random, 20000);
        if m * n <= 1 << 23 && m * n * k <= most {
            break (m, n, k);
        }
    };
    random_layout(random, m, n, k)
}

/// A random case on (m, n, k): transposes, and two in five laid out for float4 loads (sides and leading
/// dimensions multiples of 4, operands aligned), the others padded and unaligned at random; scalars and
/// pointer mode at random, beta = 0 over NaN.
fn random_layout(random: &mut Random, m: usize, n: usize, k: usize) -> Case {
    let float4 = below(random, 5) < 2;
    layout(random, m, n, k, float4)
}

/// [`random_layout`] with float4 loads taken or not as `float4` says.
fn layout(random: &mut Random, m: usize, n: usize, k: usize, float4: bool) -> Case {
    let trans = |random: &mut Random| [0, 1, 0, 1, 2][below(random, 5)];
    let offset = |random: &mut Random| if float4 { 0 } else { random_offset(random) };
    let (m, n, k) =
        if float4 { (m.next_multiple_of(4), n.next_multiple_of(4), k.next_multiple_of(4)) } else { (m, n, k) };
    let mut case = Case::new(trans(random), trans(random), m, n, k);
    case.pad = if float4 { 4 * below(random, 3) } else { [0, 0, 0, 1, 3, 4, below(random, 64)][below(random, 7)] };
    case.operand_offsets = Some([offset(random), offset(random), offset(random)]);
    case.alpha = random_alpha(random);
    case.beta = random_beta(random);
    case.nan_c = case.beta == 0.0;
    case.device_scalars = below(random, 2) == 0;
    case
}

/// [`gpu_sgemm_random_shapes_through_the_routine`] on products too large for the float64 reference whole
/// (sides 2048 to 6144, k 64 to 2112): where the tuner takes split tails, A^T copied in panels and the large
/// tiles. A quarter are whole 256×128 tiles laid out for float4 with k 1024 to 4096, where it can take
/// stream-K (on the H100's model, about one in eight of them; the split tail most of the others). Each C is
/// checked at [`SAMPLED_ELEMENTS`] elements against float64 and whole against cuBLAS
/// ([`sampled_reference`]), the guards, the padding and the inputs as in every case.
#[test]
fn gpu_sgemm_random_large_shapes_through_the_routine() {
    run_random_cases(PlannedFor::ThisGpu, "gpu_sgemm_random_large_shapes_through_the_routine", 32, |random| {
        let case = if below(random, 4) == 0 {
            let (m, n) = (256 * (8 + below(random, 17)), 128 * (16 + below(random, 33)));
            let k = 1024 + 4 * below(random, 769);
            layout(random, m, n, k, true)
        } else {
            let (m, n) = (2047 + random_dimension(random, 4097), 2047 + random_dimension(random, 4097));
            let k = 63 + random_dimension(random, 2049);
            random_layout(random, m, n, k)
        };
        Case { sampled: true, ..case }
    });
}

/// What the routine did, in words, for the random-shape test's tally.
fn path_taken(decision: &gemm::GemmDecision) -> String {
    let mut words = vec![format!("{:?}", decision.path)];
    words.extend(decision.kernel.map(|kernel| kernel.name.to_string()));
    let features = [
        (decision.as_gemv.is_some(), "as SGEMV"),
        (decision.skinny.is_some(), "skinny"),
        (splits_k(decision), "split k"),
        (decision.split_tail.is_some(), "split tail"),
        (decision.stream_k.is_some(), "stream-K"),
        (decision.copied_a_panel_rows.is_some(), "A^T copied"),
    ];
    words.extend(features.iter().filter(|(taken, _)| *taken).map(|(_, word)| word.to_string()));
    words.join(" ")
}

/// n = 1 or m = 1 runs the SGEMV routine (routines/gemm/mod.rs, "One column or
/// row"): every pair, k from 1 to split lengths, padded leading dimensions
/// (C's row lies ldc apart), unaligned operands, both pointer modes, alpha =
/// 0 from the device (A and B then hold NaN), beta = 0 over NaN.
#[test]
fn gpu_sgemm_one_column_or_row() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_one_column_or_row") else { return };
    let mut random = random("gpu_sgemm_one_column_or_row");
    let session = CublasSession::open("gpu_sgemm_one_column_or_row");
    let cublas = session.as_ref();
    let mut cases = 0;
    for (p, &(ta, tb)) in PAIRS.iter().enumerate() {
        for (s, &(m, n, k)) in [
            (1usize, 1usize, 1usize),
            (1, 1, 4099),
            (1, 300, 7),
            (1, 4097, 1000),
            (513, 1, 33),
            (3000, 1, 20000),
            (1, 70, 65536),
        ]
        .iter()
        .enumerate()
        {
            for variant in 0..3 {
                let case = Case::new(ta, tb, m, n, k).varied(variant, [0, 1, 5][(p + s + variant) % 3], p, s % 2 == 0);
                let decision = run_case_choosing(&gpu, &mut random, &case, if variant == 0 { cublas } else { None });
                // A host alpha of 0 only scales C.
                let expect_gemv = case.alpha != 0.0 || case.device_scalars;
                assert_eq!(decision.as_gemv.is_some(), expect_gemv, "{case:?}: {decision:?}");
                assert!(decision.kernel.is_none(), "{case:?}: no tile kernel runs: {decision:?}");
                cases += 1;
            }
        }
    }
    say(&format!("gpu_sgemm_one_column_or_row: {cases} cases passed"));
}

/// 2 to 32 columns or rows of C run the skinny kernels
/// (routines/gemm/skinny.rs): every pair, P along k and along m, float4 and unaligned
/// operands (the `_vec` kernels and the others), N of 2 to 32 (each NB, and
/// N below it), k over chunk edges, padded leading dimensions, both pointer
/// modes, alpha = 0 from the device, beta = 0 over NaN, and every split
/// forced in turn, against the float64 reference and cuBLAS.
#[test]
fn gpu_sgemm_few_columns_or_rows() {
    let _shapes = forcing_shapes();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_few_columns_or_rows") else { return };
    let mut random = random("gpu_sgemm_few_columns_or_rows");
    let session = CublasSession::open("gpu_sgemm_few_columns_or_rows");
    let cublas = session.as_ref();
    let device = &gpu.inner().device;
    let shapes = [
        (300usize, 2usize, 255usize),
        (4097, 3, 257),
        (17, 5, 1000),
        (2, 33, 513),
        (8, 700, 4100),
        (129, 9, 77),
        (16, 16, 600),
        (1000, 16, 2000),
        (6, 4099, 300),
        // 17 to 32: the wide kernels.
        (4097, 32, 1025),
        (70, 17, 3000),
        (24, 2001, 259),
        (32, 32, 100),
    ];
    let (mut cases, mut forced) = (0, 0);
    for (p, &(ta, tb)) in PAIRS.iter().enumerate() {
        for (s, &(m, n, k)) in shapes.iter().enumerate() {
            for variant in 0..4 {
                let case = Case::new(ta, tb, m, n, k).varied(variant, [0, 1, 4][(p + s + variant) % 3], s, s % 3 == 0);
                let split =
                    (variant == 3).then(|| gemm::SKINNY_SPLITS[(p * shapes.len() + s) % gemm::SKINNY_SPLITS.len()]);
                for spec in gemm::SKINNY_KERNELS.iter().flatten() {
                    let shape = LaunchShape { tx: spec.space.tx_min, ty: spec.space.ty_min, split: split.unwrap_or(1) };
                    device.tuner.forced().set(spec.name, split.map(|_| shape));
                }
                let (_, decision) = run_case_deciding(
                    &gpu,
                    &mut random,
                    &case,
                    if variant == 0 { cublas } else { None },
                    Some(TileChoice::Auto),
                );
                for spec in gemm::SKINNY_KERNELS.iter().flatten() {
                    device.tuner.forced().set(spec.name, None);
                }
                let decision = decision.unwrap();
                let skinny = decision.skinny.unwrap_or_else(|| panic!("{case:?}: not skinny: {decision:?}"));
                assert_eq!(skinny.n as usize, m.min(n), "{case:?}");
                if let Some(split) = split {
                    let (_, splits) = gemm::skinny_split(&skinny.problem(), skinny.rows_per_block(), split);
                    assert_eq!(decision.plan.unwrap().geometry.grid.1, splits, "{case:?}: split {split}");
                    forced += 1;
                }
                cases += 1;
            }
        }
    }
    say(&format!("gpu_sgemm_few_columns_or_rows: {cases} cases passed, {forced} with a forced split"));
}

/// 33 to 64 columns of C, and TN with a long k per block: the tuner's own
/// choices (the 128×64 and 256×64 tiles, split; TN off the 64×64 tile), over both
/// alignments, padded leading dimensions, device scalars, alpha = 0 and
/// beta = 0 over NaN, against the float64 reference and cuBLAS.
#[test]
fn gpu_sgemm_medium_columns_on_the_tuners_tiles() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_medium_columns_on_the_tuners_tiles") else { return };
    let mut random = random("gpu_sgemm_medium_columns_on_the_tuners_tiles");
    let session = CublasSession::open("gpu_sgemm_medium_columns_on_the_tuners_tiles");
    let cublas = session.as_ref();
    let like_h100 = like_h100(&gpu);
    let shapes =
        [(4096usize, 33usize, 4096usize), (2003, 64, 1500), (1100, 47, 4100), (4096, 192, 1024), (64, 1000, 3000)];
    let mut cases = 0;
    for (p, &(ta, tb)) in PAIRS.iter().enumerate() {
        for (s, &(m, n, k)) in shapes.iter().enumerate() {
            // The two largest once each: their float64 references take most of the time.
            let variants = if m * n * k > 250_000_000 { 1 } else { 3 };
            for variant in 0..variants {
                let case = Case::new(ta, tb, m, n, k).varied(variant, [0, 1, 4][(p + s + variant) % 3], s, s % 2 == 0);
                let decision = run_case_choosing(&gpu, &mut random, &case, if variant == 0 { cublas } else { None });
                let kernel = decision.kernel.map(|spec| spec.name).unwrap_or("");
                // A 64-column tile: 256×64 for NN and TN (op(B) along k), 128×64 for NT and TT.
                if like_h100 && (m, n, k) == (4096, 33, 4096) && case.alpha != 0.0 {
                    let tile = if tb == 0 { "gemm_f32_256x64_" } else { "gemm_f32_128x64_" };
                    assert!(kernel.starts_with(tile), "{case:?}: {kernel}");
                }
                // TN 4096 × 192: 48 tiles of 256×64 split 5, 240 blocks of a wave of 264, as cuBLAS runs it
                // (routines/gemm/tile_choice.rs, SPLITS).
                if like_h100 && (ta, tb, m, n, k) == (1, 0, 4096, 192, 1024) && case.alpha != 0.0 {
                    assert!(kernel.starts_with("gemm_f32_256x64_"), "{case:?}: {kernel}");
                    assert_eq!(decision.plan.map(|plan| plan.geometry.grid.2), Some(5), "{case:?}");
                }
                cases += 1;
            }
        }
    }
    say(&format!("gpu_sgemm_medium_columns_on_the_tuners_tiles: {cases} cases passed"));
}

/// Splits that fill a round of blocks (routines/gemm/tile_choice.rs,
/// `candidate_splits`): on a 132-SM GPU, 256 × 1536 is 12 tiles of 256×128,
/// split 11 ways into one round of 132 blocks, and TN 3000 × 96 likewise;
/// against the float64 reference and cuBLAS, with padded leading dimensions,
/// an operand off its 16-byte boundary and beta = 0 over NaN.
#[test]
fn gpu_sgemm_round_filling_split() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_round_filling_split") else { return };
    let mut random = random("gpu_sgemm_round_filling_split");
    let session = CublasSession::open("gpu_sgemm_round_filling_split");
    let cublas = session.as_ref();
    let like_h100 = like_h100(&gpu);
    let mut cases = 0;
    for (p, &(ta, tb)) in PAIRS.iter().enumerate() {
        for (m, n, k) in [(256usize, 1536usize, 2048usize), (3000, 96, 4096)] {
            if (m, n) == (3000, 96) && (ta, tb) != (1, 0) {
                continue; // one pair of the larger product: its float64 reference takes the time
            }
            let case = Case::new(ta, tb, m, n, k).varied([0, 2][p % 2], p % 3, p, false);
            let decision = run_case_choosing(&gpu, &mut random, &case, cublas);
            if like_h100 {
                let kernel = decision.kernel.map(|spec| spec.name).unwrap_or("");
                assert!(kernel.starts_with("gemm_f32_256x128_"), "{case:?}: {kernel}");
                let plan = decision.plan.expect("a tile plan");
                assert_eq!((plan.geometry.grid.2, plan.geometry.blocks()), (11, 132), "{case:?}");
            }
            cases += 1;
        }
    }
    say(&format!("gpu_sgemm_round_filling_split: {cases} cases passed"));
}

#[test]
fn gpu_sgemm_full_tiles_and_long_k() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_full_tiles_and_long_k") else { return };
    let mut random = random("gpu_sgemm_full_tiles_and_long_k");
    let session = CublasSession::open("gpu_sgemm_full_tiles_and_long_k");
    let cublas = session.as_ref();
    for &(ta, tb) in &PAIRS {
        for &(m, n, k) in
            &[(1024usize, 1024usize, 64usize), (1023, 1025, 129), (256, 128, 1024), (128, 64, 8192), (33, 65, 4100)]
        {
            for offset in [0, 1] {
                let mut case = Case::new(ta, tb, m, n, k);
                case.offset = offset;
                run_case(&gpu, &mut random, &case, if offset == 0 { cublas } else { None }, None);
            }
        }
    }
}

/// A, B and C off their 16-byte boundaries one at a time (a slice of a
/// tensor): each operand's float4 decision is its own (`vec4_applies`,
/// `c_is_vec4`, the skinny and SGEMV paths' checks), so one operand off by a
/// float must not send another's aligned loads, or its own, through float4.
/// Shapes that take float4 when all three are aligned: a tile, a tile past
/// STAGED_C_MAX_K, the skinny kernels, one row (SGEMV), and A^T copied first.
#[test]
fn gpu_sgemm_operands_aligned_one_at_a_time() {
    let _shapes = tuner_choices();
    let test = "gpu_sgemm_operands_aligned_one_at_a_time";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let session = CublasSession::open(test);
    let cublas = session.as_ref();
    let offsets = [[0, 0, 1], [0, 1, 0], [1, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 2, 0], [2, 0, 3]];
    let mut cases = 0;
    for &(ta, tb) in &PAIRS {
        for (m, n, k, choice) in [
            (128usize, 128usize, 128usize, None),
            (300, 260, 1024, None),
            (1000, 16, 2000, None),
            (1, 4097, 1000, None),
            (260, 200, 300, Some(TileChoice::CopiedA { panel_rows: 64 })),
        ] {
            // A^T copied first is TN's and TT's.
            if choice.is_some() && ta == 0 {
                continue;
            }
            for operand_offsets in offsets {
                let mut case = Case::new(ta, tb, m, n, k);
                case.operand_offsets = Some(operand_offsets);
                case.device_scalars = cases % 3 == 0;
                run_case(&gpu, &mut random, &case, cublas, choice);
                cases += 1;
            }
        }
    }
    say(&format!("{test}: {cases} cases passed"));
}

#[test]
fn gpu_sgemm_special_scalars() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_special_scalars") else { return };
    let mut random = random("gpu_sgemm_special_scalars");
    for device_scalars in [false, true] {
        for &(ta, tb) in &PAIRS {
            for (alpha, beta, nan_c, k) in [
                (0.0f32, 0.5f32, false, 37usize),
                (0.0, 0.0, true, 37),
                (1.5, 0.0, true, 37),
                (1.5, 1.0, false, 37),
                (-2.0, 0.0, true, 0),
                (-2.0, 0.25, false, 0),
                (0.0, 1.0, false, 37),
                (1.0, 1.0, false, 0),
            ] {
                for (m, n) in [(7usize, 9usize), (130, 70)] {
                    let mut case = Case::new(ta, tb, m, n, k);
                    (case.alpha, case.beta, case.nan_c, case.device_scalars) = (alpha, beta, nan_c, device_scalars);
                    case.pad = 2;
                    run_case(&gpu, &mut random, &case, None, None);
                }
            }
        }
    }
}

/// A NaN in A reaches only its row of C, and one in B only its column, as
/// IEEE arithmetic (and cuBLAS) carries them: on a tile, a long k split,
/// the skinny kernels and one row through SGEMV, in both pointer modes, the
/// NaN at the first or the last k.
#[test]
fn gpu_sgemm_nan_in_a_reaches_only_its_row() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_nan_in_a_reaches_only_its_row") else { return };
    let mut random = random("gpu_sgemm_nan_in_a_reaches_only_its_row");
    let ctx = gpu.context();
    let scalars = GuardedBuffer::from_slice(ctx, &[1.0f32, 0.5], 0).unwrap();
    let mut turn = 0;
    for &(ta, tb) in &PAIRS {
        for (m, n, k) in [(129usize, 67usize, 300usize), (8, 8, 2048), (64, 64, 8192), (1000, 16, 2000), (1, 300, 500)]
        {
            turn += 1;
            let case = Case::new(ta, tb, m, n, k);
            let (ar, ac) = case.a_shape();
            let mut a = random.vector(extent(ar, ac, case.lda()));
            // A's NaN at the first k or the last, in turn; B's in the middle of k.
            let (bad_row, bad_l) = (m / 2, if turn % 2 == 0 { 0 } else { k - 1 });
            let index = if ta == 0 { bad_row + bad_l * case.lda() } else { bad_l + bad_row * case.lda() };
            a[index] = f32::NAN;
            let (br, bc) = case.b_shape();
            let mut b = random.vector(extent(br, bc, case.ldb()));
            let (bad_col, b_l) = (n / 3, k / 2);
            b[if tb == 0 { b_l + bad_col * case.ldb() } else { bad_col + b_l * case.ldb() }] = f32::NAN;
            let c = random.vector(extent(m, n, case.ldc()));
            let (da, db, dc) = (
                GuardedBuffer::from_slice(ctx, &a, 0).unwrap(),
                GuardedBuffer::from_slice(ctx, &b, 0).unwrap(),
                GuardedBuffer::from_slice(ctx, &c, 0).unwrap(),
            );
            let device_scalars = turn % 3 == 0;
            let (alpha, beta): (*const f32, *const f32) = if device_scalars {
                (scalars.address() as *const f32, (scalars.address() + 4) as *const f32)
            } else {
                (&1.0, &0.5)
            };
            let mode = if device_scalars { MUBLAS_POINTER_MODE_DEVICE } else { MUBLAS_POINTER_MODE_HOST };
            let status = unsafe {
                assert_eq!(mublasSetPointerMode(gpu.handle, mode), MUBLAS_STATUS_SUCCESS);
                let status = mublasSgemm(
                    gpu.handle,
                    ta,
                    tb,
                    m as i32,
                    n as i32,
                    k as i32,
                    alpha,
                    da.address() as *const f32,
                    case.lda() as i32,
                    db.address() as *const f32,
                    case.ldb() as i32,
                    beta,
                    dc.address() as *mut f32,
                    case.ldc() as i32,
                );
                assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_SUCCESS);
                status
            };
            assert_eq!(status, 0);
            let got = dc.read().unwrap();
            for j in 0..n {
                for i in 0..m {
                    let v = got[i + j * case.ldc()];
                    let what = format!("({ta},{tb}) {m}x{n}x{k} NaN at A({bad_row}, {bad_l}), B({b_l}, {bad_col})");
                    assert_eq!(v.is_nan(), i == bad_row || j == bad_col, "{what}: C({i}, {j}) = {v}");
                }
            }
        }
    }
}

/// op(A) copied into the work buffer first (TN and TT: A^T; NN and NT: A
/// onto a leading dimension of float4s): forced, over odd sizes, unaligned
/// A and several panels, and where the rule takes it by itself.
#[test]
fn gpu_sgemm_with_a_copied_first() {
    let _shapes = tuner_choices();
    let test = "gpu_sgemm_with_a_copied_first";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let session = CublasSession::open(test);
    let cublas = session.as_ref();
    let mut cases = 0;
    for &(ta, tb) in &[(1, 0), (1, 1), (2, 0), (2, 2), (0, 0), (0, 1)] {
        // (m, n, k, panel rows, pad, offset, device scalars)
        for (m, n, k, panel_rows, pad, offset, device_scalars) in [
            (127usize, 129usize, 1023usize, 64u64, 3usize, 1usize, false),
            (300, 200, 500, 256, 0, 0, true),
            (7, 9, 37, 3, 2, 1, false),
            (1024, 64, 64, 1024, 0, 0, false),
            (33, 65, 1, 16, 1, 0, true),
            (5, 300, 4100, 2, 0, 1, false),
        ] {
            let mut case = Case::new(ta, tb, m, n, k);
            (case.pad, case.offset, case.device_scalars) = (pad, offset, device_scalars);
            run_case(
                &gpu,
                &mut random,
                &case,
                if offset == 0 { cublas } else { None },
                Some(TileChoice::CopiedA { panel_rows }),
            );
            cases += 1;
        }
        // Device alpha = 0: neither the copy nor the multiply reads A; beta = 0 over NaN in C.
        for (alpha, beta, nan_c) in [(0.0f32, 0.0f32, true), (0.0, 0.75, false), (1.5, 0.0, true)] {
            let mut case = Case::new(ta, tb, 130, 70, 37);
            (case.alpha, case.beta, case.nan_c, case.device_scalars) = (alpha, beta, nan_c, true);
            run_case(&gpu, &mut random, &case, None, Some(TileChoice::CopiedA { panel_rows: 64 }));
            cases += 1;
        }
    }
    say(&format!("{test}: {cases} forced cases passed"));

    // The rule on this GPU: large TN and TT copy A^T (8192² in 2048-row
    // panels), 1024² does not, nor TN at 2048² (its direct kernel is within
    // 4 % of NN's there); before sm_80 (not measured there) nothing does.
    let measured_here = gpu.inner().device.model().compute_capability >= (8, 0);
    let [ta, tb] = [gemm::Transpose::Yes, gemm::Transpose::No];
    let plan = |m: u64, n: u64, k: u64, tb: gemm::Transpose| planned(&gpu, ta, tb, m, n, k).copied_a_panel_rows;
    for tb in [tb, gemm::Transpose::Yes] {
        assert_eq!(plan(4096, 4096, 4096, tb), measured_here.then_some(4096), "{tb:?}");
        assert_eq!(plan(8192, 8192, 8192, tb), measured_here.then_some(2048), "{tb:?}");
        assert_eq!(plan(1024, 1024, 1024, tb), None, "{tb:?}");
        let copies_at_2048 = measured_here && tb == gemm::Transpose::Yes;
        assert_eq!(plan(2048, 2048, 2048, tb), copies_at_2048.then_some(2048), "{tb:?}");
    }
    // NN and NT: A copied where it takes no float4 (m odd, lda = m) and B
    // does, at sizes where the copy pays; never where A takes float4s.
    let untransposed = |m: u64, n: u64, k: u64, tb: gemm::Transpose| {
        planned(&gpu, gemm::Transpose::No, tb, m, n, k).copied_a_panel_rows
    };
    for tb in [gemm::Transpose::No, gemm::Transpose::Yes] {
        assert_eq!(untransposed(4095, 4096, 4096, tb), measured_here.then_some(4095), "{tb:?}");
        assert_eq!(untransposed(4096, 4096, 4096, tb), None, "{tb:?}");
        assert_eq!(untransposed(127, 129, 1023, tb), None, "{tb:?}");
    }
    // And the routine on its own, through the C ABI, at sizes it copies op(A) for.
    for (ta, tb, m, n, k) in [
        (1, 0, 1024usize, 8192usize, 1024usize),
        (1, 1, 1024, 8192, 1024),
        (0, 0, 1023, 8192, 1024),
        (0, 1, 1023, 8192, 1024),
    ] {
        let (transa, transb) = (gemm::Transpose::from_code(ta).unwrap(), gemm::Transpose::from_code(tb).unwrap());
        let taken = planned(&gpu, transa, transb, m as u64, n as u64, k as u64).copied_a_panel_rows;
        say(&format!("{test}: ({ta}, {tb}) {m}x{n}x{k}: op(A) panel rows {taken:?}"));
        assert_eq!(taken.is_some(), measured_here, "({ta}, {tb}) {m}x{n}x{k}");
        // lda = m = 1023 for NN and NT: A takes no float4. (C neither, which
        // at k = 1024 leaves the _vec kernels to the panels as planned() found.)
        run_case(&gpu, &mut random, &Case::new(ta, tb, m, n, k), cublas, None);
    }
}

/// The split tail (routines/gemm/split_tail.rs): C's first columns by one
/// launch, the rest by another, split along k where the rule says; forced on odd cuts (unaligned
/// B for the rest, device scalars, NaN in C), then the rule on this GPU and
/// a call that takes it through the C ABI.
#[test]
fn gpu_sgemm_split_tail() {
    let _shapes = tuner_choices();
    let test = "gpu_sgemm_split_tail";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let session = CublasSession::open(test);
    let cublas = session.as_ref();
    let mut cases = 0;
    for &(ta, tb) in &PAIRS {
        // (m, n, k, main tile, cut, main length, pad, offset, device scalars)
        for (m, n, k, tile, cut, main, pad, offset, device_scalars) in [
            (127usize, 129usize, 1023usize, 3usize, Cut::Columns, 64u64, 3usize, 1usize, false),
            (300, 200, 500, 2, Cut::Columns, 77, 0, 0, true),
            (33, 300, 4100, 0, Cut::Columns, 128, 1, 0, false),
            (260, 131, 9, 1, Cut::Columns, 128, 0, 1, true),
            (129, 127, 1023, 3, Cut::Rows, 64, 3, 1, false),
            (300, 200, 500, 2, Cut::Rows, 77, 0, 0, true),
            (600, 33, 4100, 0, Cut::Rows, 256, 1, 0, false),
        ] {
            let mut case = Case::new(ta, tb, m, n, k);
            (case.pad, case.offset, case.device_scalars) = (pad, offset, device_scalars);
            let (_, decision) = run_case_deciding(
                &gpu,
                &mut random,
                &case,
                if offset == 0 { cublas } else { None },
                Some(TileChoice::SplitTail { tile, cut, main }),
            );
            let tail = decision.unwrap().split_tail.expect("forced split tail not taken");
            assert_eq!((tail.cut, tail.main), (cut, main));
            cases += 1;
        }
        for cut in [Cut::Columns, Cut::Rows] {
            let mut case = Case::new(ta, tb, 200, 150, 300);
            (case.beta, case.nan_c, case.device_scalars) = (0.0, true, true);
            run_case(&gpu, &mut random, &case, None, Some(TileChoice::SplitTail { tile: 3, cut, main: 128 }));
            cases += 1;
        }
    }
    // The rest past the work-buffer limit: unsplit, the same product.
    gpu.inner().set_work_limit(mublas::handle::WORK_FIXED_BYTES as usize);
    let forced = TileChoice::SplitTail { tile: 3, cut: Cut::Columns, main: 128 };
    let (_, decision) = run_case_deciding(&gpu, &mut random, &Case::new(0, 0, 64, 200, 16384), None, Some(forced));
    assert_eq!(decision.unwrap().split_tail.unwrap().plan.geometry.grid.2, 1, "rest split past the limit");
    gpu.inner().set_work_limit(usize::MAX);
    say(&format!("{test}: {} forced cases passed", cases + 1));

    // The rule on a 132-SM GPU of sm_80 or later (the H100's time model):
    // 3000² and 1024 × 8488 end in a round of 24 and 4 blocks of 256×128,
    // and split them off by columns; 20000 × 256 (rounds of 132 and 26) by
    // rows; 4096² (last round 116 of 132) not at all.
    let like_h100 = like_h100(&gpu);
    let tail = |m: u64, n: u64, k: u64| {
        let plan = planned(&gpu, gemm::Transpose::No, gemm::Transpose::No, m, n, k);
        plan.split_tail.map(|tail| (tail.cut, tail.main))
    };
    let shapes = [(3000, 3000, 3000), (1024, 8488, 256), (20000, 256, 512), (4096, 4096, 4096)];
    say(&format!("{test}: on this GPU {:?}", shapes.map(|(m, n, k)| ((m, n, k), tail(m, n, k)))));
    if like_h100 {
        assert_eq!(tail(3000, 3000, 3000), Some((Cut::Columns, 2816)));
        assert_eq!(tail(1024, 8488, 256), Some((Cut::Columns, 8448)));
        assert_eq!(tail(20000, 256, 512), Some((Cut::Rows, 16896)));
        assert_eq!(tail(4096, 4096, 4096), None);
    }
    for (ta, tb) in [(0, 0), (0, 1)] {
        run_case(&gpu, &mut random, &Case::new(ta, tb, 1024, 8488, 256), cublas, None);
        run_case(&gpu, &mut random, &Case::new(ta, tb, 20000, 256, 512), cublas, None);
    }
    // Panels of A^T with split tails (their partial sums after the panel in
    // the work buffer), and without them where only the panel fits.
    for (ta, tb) in [(1, 0), (1, 1)] {
        for panel_rows in [1024u64, 512] {
            let (_, decision) = run_case_deciding(
                &gpu,
                &mut random,
                &Case::new(ta, tb, 1024, 8488, 256),
                cublas,
                Some(TileChoice::CopiedA { panel_rows }),
            );
            let decision = decision.unwrap();
            say(&format!(
                "{test}: ({ta}, {tb}) A^T/{panel_rows}: split tail at {:?}",
                decision.split_tail.map(|t| (t.cut, t.main))
            ));
            assert_eq!(decision.copied_a_panel_rows, Some(panel_rows));
            if like_h100 && panel_rows == 1024 {
                assert_eq!(decision.split_tail.map(|t| (t.cut, t.main)), Some((Cut::Columns, 8448)));
            }
        }
        let panel_bytes = 1024 * 256 * 4;
        gpu.inner().set_work_limit(mublas::handle::WORK_FIXED_BYTES as usize + panel_bytes);
        let (_, decision) = run_case_deciding(
            &gpu,
            &mut random,
            &Case::new(ta, tb, 1024, 8488, 256),
            None,
            Some(TileChoice::CopiedA { panel_rows: 1024 }),
        );
        let decision = decision.unwrap();
        assert_eq!(
            (decision.copied_a_panel_rows, decision.split_tail.map(|t| t.main)),
            (Some(1024), None),
            "only the panel fits"
        );
        gpu.inner().set_work_limit(usize::MAX);
    }
}

/// Stream-K (gemm/stream_k.rs), forced on shapes small enough to check:
/// tiles cut into 2–8 pieces, a share across three tiles, whole tiles
/// first, the k residue, the scalars' special values; the same bits on
/// repeated calls; no work buffer → the plain grid; and the rule's choices.
#[test]
fn gpu_sgemm_stream_k() {
    let _shapes = tuner_choices();
    let test = "gpu_sgemm_stream_k";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let session = CublasSession::open(test);
    let cublas = session.as_ref();
    let mut cases = 0;
    // The pairs with stream-K kernels; sizes and pads keep the _vec kernels.
    for &(ta, tb) in &PAIRS[..3] {
        // (m, n, k, stream-K tiles, blocks, pad, device scalars)
        for (m, n, k, tiles, blocks, pad, device_scalars) in [
            (300usize, 200usize, 204usize, 4u64, 7u32, 0usize, false),
            (300, 200, 204, 3, 5, 4, true),
            (520, 260, 16, 9, 5, 0, false),
            (256, 128, 80, 1, 5, 0, false),
            (768, 384, 64, 6, 16, 0, true),
            (1000, 600, 1004, 20, 132, 0, false),
            (2048, 384, 508, 10, 13, 8, false),
        ] {
            let mut case = Case::new(ta, tb, m, n, k);
            (case.pad, case.device_scalars) = (pad, device_scalars);
            let (_, decision) =
                run_case_deciding(&gpu, &mut random, &case, cublas, Some(TileChoice::StreamK { tiles, blocks }));
            let stream_k = decision.unwrap().stream_k.unwrap_or_else(|| panic!("{case:?}: forced stream-K not taken"));
            assert_eq!((stream_k.tiles, stream_k.blocks), (tiles, blocks), "{case:?}");
            cases += 1;
        }
        for (alpha, beta, nan_c) in [(1.25f32, 0.0f32, true), (0.0, 0.5, false), (0.0, 1.0, false)] {
            let mut case = Case::new(ta, tb, 300, 200, 204);
            (case.alpha, case.beta, case.nan_c, case.device_scalars) = (alpha, beta, nan_c, true);
            run_case(&gpu, &mut random, &case, None, Some(TileChoice::StreamK { tiles: 4, blocks: 9 }));
            cases += 1;
        }
    }
    // No stream-K kernel: TT, or operands that rule out the _vec kernels.
    let mut unaligned = Case::new(0, 0, 300, 200, 204);
    unaligned.offset = 1;
    for case in [Case::new(1, 1, 300, 200, 204), unaligned] {
        let (_, decision) =
            run_case_deciding(&gpu, &mut random, &case, None, Some(TileChoice::StreamK { tiles: 4, blocks: 7 }));
        assert!(decision.unwrap().stream_k.is_none(), "{case:?}: stream-K without its kernel");
    }
    // The same bits on repeated calls, whichever block finishes first.
    let mut first: Option<Vec<f32>> = None;
    for _ in 0..5 {
        let mut random = Random::new(78);
        let got = run_case(
            &gpu,
            &mut random,
            &Case::new(0, 1, 1000, 600, 1004),
            None,
            Some(TileChoice::StreamK { tiles: 20, blocks: 132 }),
        );
        match &first {
            None => first = Some(got),
            Some(f) => assert!(same_bits(f, &got), "stream-K result changed between calls"),
        }
    }
    // Without room for the pieces: the plain grid, the same product.
    gpu.inner().set_work_limit(mublas::handle::WORK_FIXED_BYTES as usize);
    let (_, decision) = run_case_deciding(
        &gpu,
        &mut random,
        &Case::new(0, 0, 300, 200, 204),
        None,
        Some(TileChoice::StreamK { tiles: 4, blocks: 7 }),
    );
    assert!(decision.unwrap().stream_k.is_none(), "stream-K past the work-buffer limit");
    gpu.inner().set_work_limit(usize::MAX);
    say(&format!("{test}: {} forced cases passed", cases + 1));

    // The rule on a 132-SM GPU of sm_80 or later (the H100's time model):
    // 4096² (rounds of 132, 132, 132 and 116 tiles of 256×128) and 8192² (15
    // rounds and 68) share their last round; 2048²'s one round of 128 does
    // not pay; 3000² takes a split tail instead.
    let like_h100 = like_h100(&gpu);
    let stream_k = |ta: gemm::Transpose, tb: gemm::Transpose, n: u64| {
        planned(&gpu, ta, tb, n, n, n).stream_k.map(|s| (s.tiles, s.blocks))
    };
    use gemm::Transpose::{No, Yes};
    let sizes = [2048u64, 3000, 4096, 8192];
    say(&format!("{test}: NN on this GPU {:?}", sizes.map(|n| (n, stream_k(No, No, n)))));
    if like_h100 {
        assert_eq!(stream_k(No, No, 2048), None);
        assert_eq!(stream_k(No, Yes, 4096), Some((116, 132)));
        assert_eq!(stream_k(No, No, 8192), Some((68, 132)));
        assert_eq!(stream_k(No, No, 3000), None);
        // TT copies A^T: its one panel of 4096 rows shares its last round.
        assert_eq!(stream_k(Yes, Yes, 4096), Some((116, 132)));
        assert_eq!(stream_k(Yes, Yes, 2048), None);
        // NT over long k at its own stream-K efficiency: 8192 × 384 × 8192
        // (96 tiles) runs stream-K in place of its split, where NN keeps the
        // split, and 6144 × 640 × 4096 shares its one round of 120 tiles.
        let plan = |tb: gemm::Transpose, m: u64, n: u64, k: u64| planned(&gpu, No, tb, m, n, k);
        assert_eq!(plan(Yes, 8192, 384, 8192).stream_k.map(|s| (s.tiles, s.blocks)), Some((96, 132)));
        let nn = plan(No, 8192, 384, 8192);
        assert!(nn.stream_k.is_none() && nn.plan.geometry.grid.2 > 1);
        assert_eq!(plan(Yes, 6144, 640, 4096).stream_k.map(|s| (s.tiles, s.blocks)), Some((120, 132)));
        assert!(plan(No, 6144, 640, 4096).stream_k.is_none());
    }
    // Stream-K in place of a split: 1536 × 1024 is 48 tiles of 256×128,
    // which the tuner splits along k; on a 132-SM GPU the rule shares all
    // of them among one round of stream-K blocks instead. Against the
    // float64 reference and cuBLAS (TN may copy A^T instead).
    for (ta, tb) in [(0, 0), (0, 1), (1, 0)] {
        let case = Case::new(ta, tb, 1536, 1024, 2048);
        let (_, decision) = run_case_deciding(&gpu, &mut random, &case, cublas, Some(TileChoice::Auto));
        let decision = decision.unwrap();
        say(&format!(
            "{test}: ({ta}, {tb}) 1536x1024x2048: stream-K {:?}",
            decision.stream_k.map(|s| (s.tiles, s.blocks))
        ));
        if like_h100 && ta == 0 {
            assert_eq!(decision.stream_k.map(|s| (s.tiles, s.blocks)), Some((48, 132)), "({ta}, {tb})");
        }
    }
    // Panels of A^T with stream-K, its pieces after the panel in the work
    // buffer: two panels of 512 rows, each 40 tiles of 256×128 (unsplit, as
    // panels run) shared by 132 blocks (the rule's choice on a 132-SM GPU);
    // then where only the panel fits.
    for (ta, tb) in [(1, 0), (1, 1)] {
        let case = Case::new(ta, tb, 1024, 2560, 1024);
        let (_, decision) =
            run_case_deciding(&gpu, &mut random, &case, cublas, Some(TileChoice::CopiedA { panel_rows: 512 }));
        let decision = decision.unwrap();
        say(&format!("{test}: ({ta}, {tb}) A^T/512: stream-K {:?}", decision.stream_k.map(|s| (s.tiles, s.blocks))));
        assert_eq!(decision.copied_a_panel_rows, Some(512));
        if like_h100 {
            assert_eq!(decision.stream_k.map(|s| (s.tiles, s.blocks)), Some((40, 132)));
        }
        gpu.inner().set_work_limit(mublas::handle::WORK_FIXED_BYTES as usize + 512 * 1024 * 4);
        let (_, decision) =
            run_case_deciding(&gpu, &mut random, &case, None, Some(TileChoice::CopiedA { panel_rows: 512 }));
        let decision = decision.unwrap();
        assert_eq!(
            (decision.copied_a_panel_rows, decision.stream_k.is_some()),
            (Some(512), false),
            "only the panel fits"
        );
        gpu.inner().set_work_limit(usize::MAX);
    }
}

/// With no work buffer beyond the split counters (the handle's limit, as when
/// the driver cannot grow it), the A^T copy and split-K give way: the same
/// product, directly and unsplit.
#[test]
fn gpu_sgemm_without_work_buffer_multiplies_directly_and_unsplit() {
    let _shapes = tuner_choices();
    let test = "gpu_sgemm_without_work_buffer_multiplies_directly_and_unsplit";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    gpu.inner().set_work_limit(mublas::handle::WORK_FIXED_BYTES as usize);
    for (ta, tb) in [(1, 0), (1, 1)] {
        let case = Case::new(ta, tb, 300, 64, 700);
        let (_, decision) =
            run_case_deciding(&gpu, &mut random, &case, None, Some(TileChoice::CopiedA { panel_rows: 128 }));
        let decision = decision.unwrap();
        assert_eq!(decision.copied_a_panel_rows, None, "({ta}, {tb}): A^T copied past the limit");
        assert!(
            decision.kernel.unwrap().name.contains(if tb == 0 { "_tn" } else { "_tt" }),
            "{:?}",
            decision.kernel.map(|k| k.name)
        );
    }
    for &(ta, tb) in &PAIRS {
        let (_, decision) =
            run_case_deciding(&gpu, &mut random, &Case::new(ta, tb, 64, 64, 16384), None, Some(TileChoice::Auto));
        assert_eq!(decision.unwrap().plan.unwrap().geometry.grid.2, 1, "({ta}, {tb}): split past the limit");
        // The skinny kernels' split (grid.y) likewise.
        let (_, decision) =
            run_case_deciding(&gpu, &mut random, &Case::new(ta, tb, 64, 8, 16384), None, Some(TileChoice::Auto));
        let decision = decision.unwrap();
        assert!(decision.skinny.is_some());
        assert_eq!(decision.plan.unwrap().geometry.grid.1, 1, "({ta}, {tb}): skinny split past the limit");
    }
    // Without the limit, the same calls copy A^T and split k again.
    gpu.inner().set_work_limit(usize::MAX);
    let (_, decision) = run_case_deciding(
        &gpu,
        &mut random,
        &Case::new(1, 0, 300, 64, 700),
        None,
        Some(TileChoice::CopiedA { panel_rows: 128 }),
    );
    assert_eq!(decision.unwrap().copied_a_panel_rows, Some(128));
    let (_, decision) =
        run_case_deciding(&gpu, &mut random, &Case::new(0, 0, 64, 64, 16384), None, Some(TileChoice::Auto));
    assert!(decision.unwrap().plan.unwrap().geometry.grid.2 > 1);
    let (_, decision) =
        run_case_deciding(&gpu, &mut random, &Case::new(1, 0, 64, 8, 16384), None, Some(TileChoice::Auto));
    assert!(decision.unwrap().plan.unwrap().geometry.grid.1 > 1);
}

/// Every path's launches on a created stream, held back while each call is
/// made (nothing may land before it runs), against the float64 reference.
#[test]
fn gpu_sgemm_on_a_created_stream() {
    let _shapes = tuner_choices();
    let test = "gpu_sgemm_on_a_created_stream";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let mut random = random(test);
    let stream = Stream::new(gpu.context()).unwrap();
    // Each path's launches (copies, multiplies, partial sums, their sum, the scaling) on the handle's stream.
    let mut device_alpha_zero = Case::new(1, 0, 130, 70, 37);
    (device_alpha_zero.alpha, device_alpha_zero.beta, device_alpha_zero.device_scalars) = (0.0, 0.5, true);
    let mut nan_c = Case::new(0, 1, 300, 260, 77);
    (nan_c.beta, nan_c.nan_c, nan_c.offset) = (0.0, true, 1);
    let cases = [
        (Case::new(0, 0, 300, 260, 77), TileChoice::Auto),
        (nan_c, TileChoice::Auto),
        (Case::new(0, 0, 64, 64, 16384), TileChoice::Auto),
        (Case::new(1, 0, 130, 70, 300), TileChoice::CopiedA { panel_rows: 64 }),
        (Case::new(0, 0, 600, 300, 64), TileChoice::SplitTail { tile: 3, cut: Cut::Columns, main: 128 }),
        (Case::new(1, 0, 600, 300, 200), TileChoice::StreamK { tiles: 4, blocks: 7 }),
        (device_alpha_zero, TileChoice::Auto),
        // The skinny kernels (16 columns, k split over the grid) and one row through SGEMV.
        (Case::new(0, 0, 1000, 16, 2000), TileChoice::Auto),
        (Case::new(1, 0, 1, 4097, 1000), TileChoice::Auto),
    ];
    // Once on the default stream first: a call that grows the work buffer frees the old one, which waits for the
    // device, the held-back stream included.
    for (case, choice) in &cases {
        run_case(&gpu, &mut random, case, None, Some(*choice));
    }
    set_stream(&gpu, stream.raw());
    for (i, (case, choice)) in cases.iter().enumerate() {
        let decision = run_case_deciding(&gpu, &mut random, case, None, Some(*choice)).1.unwrap();
        let path = match i {
            2 => splits_k(&decision),
            7 => decision.skinny.is_some(),
            8 => decision.as_gemv.is_some(),
            _ => true,
        };
        assert!(path, "{case:?}: not the path meant ({})", decision.summary());
    }
    set_stream(&gpu, std::ptr::null_mut());
    say(&format!("{test}: {} cases correct on a created stream, each held back while the call was made", cases.len()));
}

/// Every tile, vec and generic, every transpose pair, unsplit and split,
/// forced: each must be correct, split ones on problems that really split.
#[test]
fn gpu_sgemm_every_tile_kernel_and_split() {
    let _shapes = forcing_shapes();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_every_tile_kernel_and_split") else { return };
    let mut random = random("gpu_sgemm_every_tile_kernel_and_split");
    let mut checked = 0;
    for tile in 0..TILE_KERNELS.len() {
        for &(ta, tb) in &PAIRS {
            for offset in [0usize, 1] {
                // Three of gemm::SPLITS per pair and offset, in turn, so that each tile runs every split at least once
                // (k = 2052: 64 ranges of 32, MIN_K_PER_SPLIT, the last); one with device scalars, one with
                // beta = 0 over NaN in C.
                let turn = 2 * PAIRS.iter().position(|&p| p == (ta, tb)).unwrap() + offset;
                for j in 0..3 {
                    let split = gemm::SPLITS[(3 * turn + j) % gemm::SPLITS.len()];
                    let mut case = Case::new(ta, tb, 100, 72, 2052);
                    case.offset = offset;
                    case.device_scalars = j == 1;
                    if j == 2 {
                        (case.beta, case.nan_c) = (0.0, true);
                    }
                    run_case_split(&gpu, &mut random, &case, None, tile, split);
                    checked += 1;
                }
                // A split outside SPLITS, as the round fillers are (tile_choice::candidate_splits).
                if offset == 0 {
                    run_case_split(&gpu, &mut random, &Case::new(ta, tb, 100, 72, 2052), None, tile, 11);
                    checked += 1;
                }
                // Several blocks each way with partial ones at both far edges, padded leading dimensions.
                let mut case = Case::new(ta, tb, 300, 260, 77);
                case.offset = offset;
                case.pad = if offset == 0 { 4 } else { 3 };
                run_case(&gpu, &mut random, &case, None, Some(TileChoice::Tile(tile)));
                checked += 1;
                // A^T and B in float4s but C not (ldc = m = 301), beta -0.5 and 0 over NaN: past
                // STAGED_C_MAX_K the _vec kernels with their scalar stores of C, up to it the
                // others, which store C through shared memory.
                if ta == 1 && offset == 0 {
                    for (k, vec) in [(gemm::STAGED_C_MAX_K as usize + 4, true), (76, false)] {
                        for nan_c in [false, true] {
                            let mut case = Case::new(ta, tb, 301, 260, k);
                            if nan_c {
                                (case.beta, case.nan_c) = (0.0, true);
                            }
                            let (_, decision) =
                                run_case_deciding(&gpu, &mut random, &case, None, Some(TileChoice::Tile(tile)));
                            let name = decision.unwrap().kernel.unwrap().name;
                            assert_eq!(name.ends_with("_vec"), vec, "{name} at k = {k}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    say(&format!("gpu_sgemm_every_tile_kernel_and_split: {checked} forced launches correct"));
}

#[test]
fn gpu_sgemm_split_reduction_four_rows_a_thread() {
    let _shapes = forcing_shapes();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_split_reduction_four_rows_a_thread") else { return };
    let mut random = random("gpu_sgemm_split_reduction_four_rows_a_thread");
    let session = CublasSession::open("gpu_sgemm_split_reduction_four_rows_a_thread");
    let cublas = session.as_ref();
    let device = &gpu.inner().device;
    let tile = TILES.iter().position(|tile| tile.name == "128x64").unwrap();
    let mut checked = 0;
    // C whose four-row threads just fill half the device's resident threads (routines/gemm.rs,
    // reduce_spec; splits 2, 3 and 5), of 2048 rows and of 2051 (a last group of three): the four-row reduction, over C
    // aligned and not (offset 1: scalar stores), padded, device scalars, beta = 0 over NaN, alpha = 0.
    let model = device.model();
    let half_resident = (model.sm_count * model.max_threads_per_sm / 2) as usize;
    for m in [2048usize, 2051] {
        let n = half_resident.div_ceil(m.div_ceil(4)) + m % 2;
        let rule = |n: usize| gemm::reduce_spec(model, m as u64, n as u64, gemm::REDUCE4_MAX_SPLITS).name;
        assert_eq!(rule(n), gemm::SPLITK_REDUCE4.name, "({m}, {n})");
        assert_eq!(rule(n / 2), gemm::SPLITK_REDUCE.name, "({m}, {n} / 2)");
        for (turn, &(ta, tb)) in PAIRS.iter().enumerate() {
            for variant in 0..3 {
                let split = [2u32, 3, 5][variant];
                let case = Case::new(ta, tb, m, n, 160).varied(variant, variant, turn, turn % 2 == 1);
                run_case_split(&gpu, &mut random, &case, cublas, tile, split);
                checked += 1;
            }
        }
    }
    say(&format!("gpu_sgemm_split_reduction_four_rows_a_thread: {checked} split calls correct"));
}

#[test]
fn gpu_sgemm_split_k_like_256_256_65536_scaled_down() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_split_k_like_256_256_65536_scaled_down") else { return };
    let mut random = random("gpu_sgemm_split_k_like_256_256_65536_scaled_down");
    let session = CublasSession::open("gpu_sgemm_split_k_like_256_256_65536_scaled_down");
    let cublas = session.as_ref();
    for &(ta, tb) in &PAIRS {
        let case = Case::new(ta, tb, 64, 64, 16384);
        let decision = gemm::sgemm_with(
            gpu.inner(),
            ta,
            tb,
            64,
            64,
            16384,
            Scalar::Host(1.0),
            0,
            64,
            0,
            16384,
            Scalar::Host(0.0),
            0,
            64,
            TileChoice::Auto,
        );
        assert!(decision.is_err(), "NULL matrices are refused");
        let decision = run_case_choosing(&gpu, &mut random, &case, cublas);
        assert!(splits_k(&decision), "{case:?}: k not split ({})", decision.summary());
    }
}

/// Long k, exact: on A, B and C of ±1 and ±2 with alpha 2 and beta -1 or 0
/// ([`small_integer`]), every partial sum a split, the reduction, the skinny
/// kernels or SGEMV forms is exact, so C must equal the reference exactly. The
/// other tests' bound grows with k (the worst case of any order) and, on
/// random signs, passes C itself from about k = 50 000: a split's partial
/// tile lost or added twice would pass there, not here. The routine's own
/// choices; the one-tile products must split k.
#[test]
fn gpu_sgemm_long_k_exact_on_small_integers() {
    let _shapes = tuner_choices();
    let test = "gpu_sgemm_long_k_exact_on_small_integers";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    // (ta, tb, m, n, k, one tile: must split)
    let shapes = [
        (0, 0, 64, 64, 65536, true),
        (1, 0, 64, 64, 65536, true),
        (0, 1, 64, 64, 32768, true),
        (1, 1, 64, 64, 32768, true),
        (1, 0, 128, 96, 32768, false),
        (0, 0, 200, 130, 16384, false),
        (0, 0, 1, 70, 65536, false),
        (1, 0, 70, 1, 65536, false),
        (0, 0, 1000, 8, 30000, false),
        (1, 0, 16, 1000, 30000, false),
        // Whole tiles at k of thousands, every pair (the other tests' bound allows a few percent there).
        (0, 0, 512, 384, 4096, false),
        (0, 1, 384, 512, 4096, false),
        (1, 0, 300, 260, 5000, false),
        (1, 1, 260, 300, 5000, false),
    ];
    for (i, &(ta, tb, m, n, k, one_tile)) in shapes.iter().enumerate() {
        let mut case = Case::new(ta, tb, m, n, k);
        (case.small_integers, case.alpha, case.beta) = (true, 2.0, -1.0);
        // beta = 0 over NaN in C in every other case.
        if i % 2 == 1 {
            (case.beta, case.nan_c) = (0.0, true);
        }
        let decision = run_case_choosing(&gpu, &mut random, &case, None);
        assert!(!one_tile || splits_k(&decision), "{case:?}: k not split ({})", decision.summary());
        say(&format!("{test}: {case:?}: {}: exact", decision.summary()));
    }
}

#[test]
fn gpu_sgemm_same_bits_on_repeated_calls() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_same_bits_on_repeated_calls") else { return };
    // The tuner's choice (direct, split-K, the skinny kernels, one row through SGEMV, alpha and beta from the
    // device), and the paths it takes elsewhere: A^T panels, a split tail, stream-K.
    let mut from_device = Case::new(0, 1, 300, 200, 500);
    from_device.device_scalars = true;
    for (case, choice) in [
        (Case::new(0, 1, 300, 200, 500), None),
        (from_device, None),
        (Case::new(1, 0, 1000, 16, 2000), None),
        (Case::new(0, 0, 1, 4097, 1000), None),
        (Case::new(0, 1, 64, 64, 8192), None),
        (Case::new(1, 0, 130, 70, 300), Some(TileChoice::CopiedA { panel_rows: 64 })),
        (Case::new(0, 0, 600, 300, 64), Some(TileChoice::SplitTail { tile: 3, cut: Cut::Columns, main: 128 })),
        (Case::new(1, 0, 600, 300, 200), Some(TileChoice::StreamK { tiles: 4, blocks: 7 })),
    ] {
        let mut first: Option<Vec<f32>> = None;
        for _ in 0..5 {
            // The same seed each time: the same inputs.
            let mut random = Random::new(77);
            let got = run_case(&gpu, &mut random, &case, None, choice);
            match &first {
                None => first = Some(got),
                Some(f) => assert!(same_bits(f, &got), "{case:?} {choice:?} changed between calls"),
            }
        }
    }
}

#[test]
fn gpu_sgemm_bad_arguments_write_nothing() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_sgemm_bad_arguments_write_nothing") else { return };
    let mut random = random("gpu_sgemm_bad_arguments_write_nothing");
    let ctx = gpu.context();
    let c = random.vector(64);
    let dc = GuardedBuffer::from_slice(ctx, &c, 0).unwrap();
    let cp = dc.address() as *mut f32;
    let x = dc.address() as *const f32;
    let one = 1.0f32;
    unsafe {
        for (ta, tb, m, n, k, lda, ldb, ldc) in [
            (3, 0, 8, 8, 8, 8, 8, 8),
            (0, -1, 8, 8, 8, 8, 8, 8),
            (0, 0, -1, 8, 8, 8, 8, 8),
            (0, 0, 8, -1, 8, 8, 8, 8),
            (0, 0, 8, 8, -1, 8, 8, 8),
            (0, 0, 8, 8, 8, 7, 8, 8),
            (0, 0, 8, 8, 8, 8, 7, 8),
            (0, 0, 8, 8, 8, 8, 8, 7),
            (0, 0, 0, 0, 0, 0, 1, 1),
        ] {
            assert_eq!(
                mublasSgemm(gpu.handle, ta, tb, m, n, k, &one, x, lda, x, ldb, &one, cp, ldc),
                MUBLAS_STATUS_INVALID_VALUE
            );
        }
        // m = 0: success with NULL everything; NULL alpha on a real call: INVALID_VALUE.
        assert_eq!(
            mublasSgemm(
                gpu.handle,
                0,
                0,
                0,
                8,
                8,
                std::ptr::null(),
                std::ptr::null(),
                1,
                std::ptr::null(),
                8,
                std::ptr::null(),
                std::ptr::null_mut(),
                1
            ),
            0
        );
        assert_eq!(
            mublasSgemm(gpu.handle, 0, 0, 8, 8, 8, std::ptr::null(), x, 8, x, 8, &one, cp, 8),
            MUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            mublasSgemm(std::ptr::null_mut(), 0, 0, 8, 8, 8, &one, x, 8, x, 8, &one, cp, 8),
            MUBLAS_STATUS_NOT_INITIALIZED
        );
    }
    mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
    assert_eq!(dc.read().unwrap(), c);
    assert!(dc.guards_intact().unwrap());
}

#[test]
fn gpu_gemm_occupancy_model_matches_the_driver() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_gemm_occupancy_model_matches_the_driver") else { return };
    let device = &gpu.inner().device;
    let _bound = mublas::launch::context::ContextGuard::bind(device.context()).unwrap();
    let specs = TILE_KERNELS
        .iter()
        .flatten()
        .chain(gemm::STREAM_K_KERNELS.iter())
        .chain(gemm::SKINNY_KERNELS.iter().flatten())
        .chain([&gemm::SCALE, &gemm::SPLITK_REDUCE, &gemm::SPLITK_REDUCE4, &gemm::TRANSPOSE_A, &gemm::COPY_A]);
    for spec in specs {
        let kernel = device.kernel(spec.name).unwrap();
        say(&format!(
            "{}: {} registers, {} B static shared",
            spec.name, kernel.model.registers_per_thread, kernel.model.static_shared_bytes
        ));
        for (shape, geometry, occupancy) in mublas::tuner::optimizer::candidates(
            device.model(),
            &kernel.model,
            spec,
            &Problem { m: 1000, n: 1000, k: 4096 },
        ) {
            let driver =
                kernel.driver_max_active_blocks_per_sm(shape.tx * shape.ty, geometry.dynamic_shared_bytes).unwrap();
            assert_eq!(occupancy.active_blocks_per_sm, driver, "{} {shape:?}", spec.name);
        }
    }
}
