//! STRMV on the GPU against a float64 CPU reference and against real cuBLAS,
//! over the case matrix of shared/docs/testing.md. The triangle not
//! referenced (and the diagonal when it is unit, and the rows between n and
//! lda) hold NaN, so a kernel that reads them fails. Skipped, saying so, when
//! there is no GPU.

mod common;

use common::*;
use mublas::Error;
use mublas::capi::trmv::mublasStrmv;
use mublas::capi::types::*;
use mublas::harness::{CapturedGraph, GuardedBuffer, Random, Stream};
use mublas::routines::trmv::{self, Op, TRMV_N_SCALAR, TRMV_N_VEC4, TRMV_SUM, TRMV_T_SCALAR, TRMV_T_VEC4};
use mublas::tuner::optimizer::candidates;
use mublas::tuner::{KernelSpec, LaunchShape, Problem};

#[derive(Clone, Copy, Debug)]
struct Case {
    uplo: i32,
    trans: i32,
    diag: i32,
    n: usize,
    lda: usize,
    incx: i64,
    /// Floats by which A and x are moved off 16-byte alignment.
    offset: usize,
}

impl Case {
    fn lower(&self) -> bool {
        self.uplo == MUBLAS_FILL_MODE_LOWER
    }
    fn transposed(&self) -> bool {
        self.trans != MUBLAS_OP_N
    }
    fn unit(&self) -> bool {
        self.diag == MUBLAS_DIAG_UNIT
    }
    fn name(&self) -> String {
        let uplo = if self.lower() { "L" } else { "U" };
        let trans = ["N", "T", "C"][self.trans as usize];
        let diag = if self.unit() { "U" } else { "N" };
        format!("{uplo}{trans}{diag} n={} lda={} incx={} offset={}", self.n, self.lda, self.incx, self.offset)
    }
}

fn referenced(i: usize, j: usize, lower: bool, unit: bool) -> bool {
    if lower {
        if unit { i > j } else { i >= j }
    } else if unit {
        i < j
    } else {
        i <= j
    }
}

/// lda × n column-major storage: random in the referenced triangle, NaN elsewhere.
/// The referenced elements take their values in column-major order, drawn at once (on every core).
fn matrix(random: &mut Random, case: &Case) -> Vec<f32> {
    let mut a = vec![f32::NAN; case.lda * case.n];
    // Column j's referenced rows (`referenced`): below or above the diagonal, with it unless unit.
    let diagonal = usize::from(!case.unit());
    let rows = |j: usize| if case.lower() { j + 1 - diagonal..case.n } else { 0..j + diagonal };
    let values = random.vector((0..case.n).map(|j| rows(j).len()).sum());
    let mut drawn = values.as_slice();
    for j in 0..case.n {
        let (column, rest) = drawn.split_at(rows(j).len());
        a[j * case.lda..][rows(j)].copy_from_slice(column);
        drawn = rest;
    }
    a
}

/// `matrix` fills exactly the elements `referenced` names, in column-major order of the draws (those
/// elements taken one after another from the same seed), and NaN everywhere else. Needs no GPU.
#[test]
fn matrix_draws_the_referenced_triangle_in_column_order() {
    let variants = [MUBLAS_FILL_MODE_LOWER, MUBLAS_FILL_MODE_UPPER]
        .into_iter()
        .flat_map(|uplo| [MUBLAS_DIAG_NON_UNIT, MUBLAS_DIAG_UNIT].map(|diag| (uplo, diag)));
    for (uplo, diag) in variants {
        for n in [1usize, 2, 7, 33] {
            let case = Case { uplo, trans: MUBLAS_OP_N, diag, n, lda: n + 3, incx: 1, offset: 0 };
            let a = matrix(&mut Random::new(9), &case);
            let mut one_by_one = Random::new(9);
            for (index, v) in a.iter().enumerate() {
                let (i, j) = (index % case.lda, index / case.lda);
                if i < n && referenced(i, j, case.lower(), case.unit()) {
                    assert_eq!(v.to_bits(), one_by_one.value().to_bits(), "{} at ({i}, {j})", case.name());
                } else {
                    assert!(v.is_nan(), "{} at ({i}, {j}): {v}", case.name());
                }
            }
        }
    }
}

/// The float64 result op(A)·x and Σ|terms| per element.
fn reference(case: &Case, a: &[f32], x: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let n = case.n;
    let xe: Vec<f64> = (0..n).map(|i| x[strided_index(i, n, case.incx)] as f64).collect();
    let mut expected = vec![0f64; n];
    let mut magnitude = vec![0f64; n];
    for j in 0..n {
        for i in 0..n {
            let (value, out, input) = if !referenced(i, j, case.lower(), false) {
                continue;
            } else if i == j && case.unit() {
                (1.0, i, i)
            } else if case.transposed() {
                (a[i + j * case.lda] as f64, j, i)
            } else {
                (a[i + j * case.lda] as f64, i, j)
            };
            expected[out] += value * xe[input];
            magnitude[out] += (value * xe[input]).abs();
        }
    }
    (expected, magnitude)
}

/// The elements of x (in element order) from its storage.
fn elements(case: &Case, storage: &[f32]) -> Vec<f32> {
    (0..case.n).map(|i| storage[strided_index(i, case.n, case.incx)]).collect()
}

/// mublasStrmv on `case` with A at `da` and x at `dx`, queued on the handle's stream.
fn strmv(gpu: &Gpu, case: &Case, da: &GuardedBuffer, dx: &GuardedBuffer) -> mublasStatus_t {
    // SAFETY: device buffers that hold the case's A and x.
    unsafe {
        mublasStrmv(
            gpu.handle,
            case.uplo,
            case.trans,
            case.diag,
            case.n as i32,
            da.address() as *const f32,
            case.lda as i32,
            dx.address() as *mut f32,
            case.incx as i32,
        )
    }
}

/// Runs one case through mublasStrmv (and cuBLAS when given) on the handle's
/// stream, then waits for the legacy default stream (the handle's in these
/// cases), checking the result, the storage between strided elements, A, and
/// the guards. Returns x as computed.
fn run_case(gpu: &Gpu, random: &mut Random, case: &Case, cublas: Option<&CublasSession>) -> Vec<f32> {
    let ctx = gpu.context();
    let what = case.name();
    let a = matrix(random, case);
    let x = random.vector(span(case.n, case.incx));
    let da = GuardedBuffer::from_slice(ctx, &a, case.offset).unwrap();
    let dx = GuardedBuffer::from_slice(ctx, &x, case.offset).unwrap();
    assert_eq!(strmv(gpu, case, &da, &dx), MUBLAS_STATUS_SUCCESS, "{what}");
    mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
    let got = dx.read().unwrap();
    assert!(da.guards_intact().unwrap() && dx.guards_intact().unwrap(), "{what}: guard zone overwritten");
    assert!(same_bits(&da.read().unwrap(), &a), "{what}: A was modified");
    for k in 0..x.len() {
        if case.incx.unsigned_abs() > 1 && k % case.incx.unsigned_abs() as usize != 0 {
            assert_eq!(got[k].to_bits(), x[k].to_bits(), "{what}: storage between elements was written at {k}");
        }
    }
    let (expected, magnitude) = reference(case, &a, &x);
    let ulps = 2.0 * (case.n as f64 + 2.0);
    let ours = elements(case, &got);
    assert_close(&what, &ours, &expected, &magnitude, ulps);

    if let Some(cublas) = cublas {
        let dx2 = GuardedBuffer::from_slice(ctx, &x, case.offset).unwrap();
        let (lib, handle) = cublas.pair();
        unsafe {
            let status = (lib.strmv)(
                handle,
                case.uplo,
                case.trans,
                case.diag,
                case.n as i32,
                da.address() as *const f32,
                case.lda as i32,
                dx2.address() as *mut f32,
                case.incx as i32,
            );
            assert_eq!(status, 0, "{what}: cuBLAS status");
            mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
        }
        let theirs: Vec<f64> = elements(case, &dx2.read().unwrap()).iter().map(|v| *v as f64).collect();
        // Both are within the bound of the exact result, so within twice it of each other.
        assert_close(&format!("{what} against {}", lib.soname), &ours, &theirs, &magnitude, 2.0 * ulps);
    }
    ours
}

/// Sizes, layouts and variants drawn at random (the seed is printed; `MUBLAS_TEST_SEED` replays the draws),
/// each through the C ABI on the routine's own kernel and launch, against the float64 reference and cuBLAS:
/// n log-uniform to 8192 or at a multiple of 32 to 1024 give or take 3, lda padded or not, A and x aligned
/// or not, increments ±1 to ±3. Ends by saying how many cases each pass-1 kernel took.
#[test]
fn gpu_strmv_random_shapes_through_the_routine() {
    run_random_cases(PlannedFor::ThisGpu, "gpu_strmv_random_shapes_through_the_routine", 120, |random| {
        random_dimension(random, 8192)
    });
}

/// [`gpu_strmv_random_shapes_through_the_routine`]'s cases, 20 on each of six other GPUs' plans
/// (`DeviceModel::other_gpus`: 114 to 28 SMs, cc 8.x and 7.x code and limits), run on this GPU: the pass-1
/// grids and the blocked path's splits read the SM count, and were measured on an H100.
#[test]
fn gpu_strmv_random_shapes_planned_for_other_gpus() {
    run_random_cases(PlannedFor::OtherGpus, "gpu_strmv_random_shapes_planned_for_other_gpus", 20, |random| {
        random_dimension(random, 8192)
    });
}

/// [`gpu_strmv_random_shapes_through_the_routine`] from n = 8192 to 20191 (up to 1.6 GB of A), where the
/// pass-1 grids run many waves and each output gathers partial sums from many tiles.
#[test]
fn gpu_strmv_random_large_shapes_through_the_routine() {
    run_random_cases(PlannedFor::ThisGpu, "gpu_strmv_random_large_shapes_through_the_routine", 8, |random| {
        8191 + random_dimension(random, 12000)
    });
}

/// `cases` random cases with n drawn by `n_of`, the rest as [`gpu_strmv_random_shapes_through_the_routine`]
/// says; then the pass-1 kernels they took.
fn run_random_cases(planned_for: PlannedFor, test: &str, cases: usize, n_of: fn(&mut Random) -> usize) {
    let what = "pass-1 kernels taken";
    run_random_shape_test(planned_for, test, cases, what, CublasSession::open, |gpu, random, cublas| {
        let (uplo, trans, diag) = VARIANTS[below(random, VARIANTS.len())];
        let trans = if trans == MUBLAS_OP_T && below(random, 3) == 0 { MUBLAS_OP_C } else { trans };
        let n = n_of(random);
        let float4 = below(random, 5) < 2;
        let lda =
            if float4 { n.next_multiple_of(4) } else { n + [0, 0, 1, 2, 3, 1 + below(random, 64)][below(random, 6)] };
        let offset = if float4 { 0 } else { below(random, 4) };
        let incx = random_increment(random);
        let case = Case { uplo, trans, diag, n, lda, incx, offset };
        let op = if trans == MUBLAS_OP_N { Op::N } else { Op::T };
        // The address the case's A will have: its offset past a 16-byte boundary is what the plan reads.
        let (kernel, _, _) = trmv::plan(gpu.inner(), op, n as i64, 4 * offset as u64, lda as i64).unwrap();
        run_case(gpu, random, &case, cublas.as_ref());
        kernel.name.to_string()
    });
}

const VARIANTS: [(i32, i32, i32); 8] = [
    (MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT),
    (MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_N, MUBLAS_DIAG_UNIT),
    (MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT),
    (MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_N, MUBLAS_DIAG_UNIT),
    (MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_T, MUBLAS_DIAG_NON_UNIT),
    (MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_T, MUBLAS_DIAG_UNIT),
    (MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_T, MUBLAS_DIAG_NON_UNIT),
    (MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_T, MUBLAS_DIAG_UNIT),
];

#[test]
fn strmv_null_handle_is_not_initialized_before_argument_checks() {
    let mut x = [1.0f32; 4];
    let null: mublasHandle_t = std::ptr::null_mut();
    unsafe {
        assert_eq!(
            mublasStrmv(null, 0, 0, 0, 4, std::ptr::null(), 4, x.as_mut_ptr(), 1),
            MUBLAS_STATUS_NOT_INITIALIZED
        );
        // Every argument bad too: the handle is checked first.
        assert_eq!(
            mublasStrmv(null, 9, 9, 9, -1, std::ptr::null(), 0, x.as_mut_ptr(), 0),
            MUBLAS_STATUS_NOT_INITIALIZED
        );
    }
    assert_eq!(x, [1.0; 4]);
}

#[test]
fn gpu_strmv_case_matrix() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_strmv_case_matrix") else { return };
    let mut random = random("gpu_strmv_case_matrix");
    let session = CublasSession::open("gpu_strmv_case_matrix");
    let cublas = session.as_ref();
    let mut cases = 0;
    for n in [1usize, 2, 3, 4, 5, 7, 33, 130, 1000] {
        for (v, &(uplo, trans, diag)) in VARIANTS.iter().enumerate() {
            for incx in [1i64, -1, 3, -3] {
                for (lda, offset) in [(n, 0usize), (n + 3, 1), (n.div_ceil(4) * 4 + 4, 0)] {
                    // C is T for real data: run some T cases as C.
                    let trans = if trans == MUBLAS_OP_T && (n + offset) % 2 == 1 { MUBLAS_OP_C } else { trans };
                    let case = Case { uplo, trans, diag, n, lda, incx, offset };
                    let compare = if incx == 1 || (v + n) % 3 == 0 { cublas } else { None };
                    run_case(&gpu, &mut random, &case, compare);
                    cases += 1;
                }
            }
        }
    }
    // n = 4097: every variant once, layouts and increments rotated.
    for (v, &(uplo, trans, diag)) in VARIANTS.iter().enumerate() {
        let n = 4097;
        let (lda, offset) = [(n, 0), (n + 3, 1), (4100, 0), (4100, 1)][v % 4];
        let incx = [1i64, -1, 3, -3][(v / 2) % 4];
        run_case(&gpu, &mut random, &Case { uplo, trans, diag, n, lda, incx, offset }, cublas);
        cases += 1;
    }
    say(&format!("gpu_strmv_case_matrix: {cases} cases passed"));
}

/// n = 10000 with the smallest tiles. Op N: 79 tiles of 128 rows, more than the
/// 64 partial vectors allow, so chunks are lengthened (the work-buffer cap) and
/// tiles have up to 40 chunks. Op T: 2500 tiles of 4 columns, up to 5 chunks.
#[test]
fn gpu_strmv_large_with_capped_partials() {
    let _shapes = forcing_shapes();
    let Some(gpu) = gpu_or_skip("gpu_strmv_large_with_capped_partials") else { return };
    let mut random = random("gpu_strmv_large_with_capped_partials");
    let device = &gpu.inner().device;
    let n = 10_000;
    let smallest = LaunchShape { tx: 32, ty: 1, split: 1 };
    for (spec, uplo, trans) in [
        (&TRMV_N_VEC4, MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_N),
        (&TRMV_N_VEC4, MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_N),
        (&TRMV_T_VEC4, MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_T),
        (&TRMV_T_VEC4, MUBLAS_FILL_MODE_UPPER, MUBLAS_OP_T),
    ] {
        device.tuner.forced().set(spec.name, Some(smallest));
        run_case(
            &gpu,
            &mut random,
            &Case { uplo, trans, diag: MUBLAS_DIAG_NON_UNIT, n, lda: n, incx: 1, offset: 0 },
            None,
        );
        device.tuner.forced().set(spec.name, None);
    }
    // And the tuner's own choice, once.
    run_case(
        &gpu,
        &mut random,
        &Case {
            uplo: MUBLAS_FILL_MODE_LOWER,
            trans: MUBLAS_OP_N,
            diag: MUBLAS_DIAG_UNIT,
            n,
            lda: n + 4,
            incx: -1,
            offset: 0,
        },
        None,
    );
}

#[test]
fn gpu_strmv_same_bits_on_repeated_calls() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_strmv_same_bits_on_repeated_calls") else { return };
    let mut random = random("gpu_strmv_same_bits_on_repeated_calls");
    for &(uplo, trans, diag) in &VARIANTS[..] {
        let case = Case { uplo, trans, diag, n: 3001, lda: 3004, incx: 1, offset: 0 };
        let results = repeated_results(&gpu, &mut random, &case, 5);
        for got in &results[1..] {
            assert!(same_bits(&results[0], got), "{}: different bits on a repeated call", case.name());
        }
    }
}

/// x after each of `calls` calls on fresh copies of one random x, with one random A.
fn repeated_results(gpu: &Gpu, random: &mut Random, case: &Case, calls: usize) -> Vec<Vec<f32>> {
    let ctx = gpu.context();
    let a = matrix(random, case);
    let x = random.vector(span(case.n, case.incx));
    let da = GuardedBuffer::from_slice(ctx, &a, case.offset).unwrap();
    (0..calls)
        .map(|_| {
            let dx = GuardedBuffer::from_slice(ctx, &x, case.offset).unwrap();
            assert_eq!(strmv(gpu, case, &da, &dx), MUBLAS_STATUS_SUCCESS, "{}", case.name());
            mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
            dx.read().unwrap()
        })
        .collect()
}

/// Every candidate shape of every kernel, forced, gives a correct result.
#[test]
fn gpu_every_strmv_shape_is_correct() {
    let _shapes = forcing_shapes();
    let Some(gpu) = gpu_or_skip("gpu_every_strmv_shape_is_correct") else { return };
    let mut random = random("gpu_every_strmv_shape_is_correct");
    let device = &gpu.inner().device;
    let mut checked = 0;
    // n: op N has chunks shorter than n for small Tx; op T needs n > 2048 for two chunks at Tx = 32.
    let specs: [(&KernelSpec, i32, usize, usize, usize); 4] = [
        (&TRMV_N_VEC4, MUBLAS_OP_N, 701, 704, 0),
        (&TRMV_N_SCALAR, MUBLAS_OP_N, 701, 703, 1),
        (&TRMV_T_VEC4, MUBLAS_OP_T, 2301, 2304, 0),
        (&TRMV_T_SCALAR, MUBLAS_OP_T, 2301, 2301, 1),
    ];
    for (spec, trans, large_n, large_lda, offset) in specs {
        let kernel = device.kernel(spec.name).unwrap();
        let problem = Problem { m: large_n as u64, n: large_n as u64, k: 0 };
        for (index, (shape, _, _)) in candidates(device.model(), &kernel.model, spec, &problem).into_iter().enumerate()
        {
            // Op T: rows are chunked by 64·Tx·split, so only Tx = 32, split 1 needs the large n
            // for two chunks; the other shapes run at 701 to keep the CPU reference quick.
            let (n, lda) = if trans == MUBLAS_OP_T && shape.tx * shape.split > 32 {
                (701, 701 + (large_lda - large_n))
            } else {
                (large_n, large_lda)
            };
            // Rotate the variants and increments over the shapes.
            let uplo = if index % 2 == 0 { MUBLAS_FILL_MODE_LOWER } else { MUBLAS_FILL_MODE_UPPER };
            let diag = if index % 4 < 2 { MUBLAS_DIAG_NON_UNIT } else { MUBLAS_DIAG_UNIT };
            let incx = [1i64, -1, 3][index % 3];
            device.tuner.forced().set(spec.name, Some(shape));
            let case = Case { uplo, trans, diag, n, lda, incx, offset };
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(&gpu, &mut random, &case, None)));
            device.tuner.forced().set(spec.name, None);
            if let Err(e) = result {
                say(&format!("{} forced to {shape:?} failed", spec.name));
                std::panic::resume_unwind(e);
            }
            checked += 1;
        }
    }
    let kernel = device.kernel(TRMV_SUM.name).unwrap();
    let problem = Problem { n: 1000, ..Problem::default() };
    for (shape, _, _) in candidates(device.model(), &kernel.model, &TRMV_SUM, &problem) {
        device.tuner.forced().set(TRMV_SUM.name, Some(shape));
        let case = Case {
            uplo: MUBLAS_FILL_MODE_UPPER,
            trans: MUBLAS_OP_T,
            diag: MUBLAS_DIAG_UNIT,
            n: 1000,
            lda: 1000,
            incx: -3,
            offset: 0,
        };
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(&gpu, &mut random, &case, None)));
        device.tuner.forced().set(TRMV_SUM.name, None);
        if let Err(e) = result {
            say(&format!("{} forced to {shape:?} failed", TRMV_SUM.name));
            std::panic::resume_unwind(e);
        }
        checked += 1;
    }
    say(&format!("gpu_every_strmv_shape_is_correct: {checked} shapes correct"));
}

#[test]
fn gpu_strmv_past_the_work_buffer_limit_is_alloc_failed() {
    let _shapes = tuner_choices();
    let test = "gpu_strmv_past_the_work_buffer_limit_is_alloc_failed";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let ctx = gpu.context();
    // STRMV needs partial sums, at least those of its smallest diagonal block: with no scratch
    // allowed it fails, touching nothing.
    gpu.inner().set_work_limit(mublas::handle::WORK_FIXED_BYTES as usize);
    let n = 1000;
    let (a, x) = (random.vector(n * n), random.vector(n));
    let da = GuardedBuffer::from_slice(ctx, &a, 0).unwrap();
    let dx = GuardedBuffer::from_slice(ctx, &x, 0).unwrap();
    let status = unsafe {
        mublasStrmv(gpu.handle, 0, 0, 0, n as i32, da.address() as *const f32, n as i32, dx.address() as *mut f32, 1)
    };
    assert_eq!(status, MUBLAS_STATUS_ALLOC_FAILED);
    mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
    assert_eq!(dx.read().unwrap(), x);
    assert!(dx.guards_intact().unwrap());
    // The limit lifted, the same call succeeds.
    gpu.inner().set_work_limit(usize::MAX);
    let status = unsafe {
        mublasStrmv(gpu.handle, 0, 0, 0, n as i32, da.address() as *const f32, n as i32, dx.address() as *mut f32, 1)
    };
    assert_eq!(status, MUBLAS_STATUS_SUCCESS);
}

/// Where the work buffer cannot hold the partial sums of the whole n, STRMV
/// multiplies diagonal blocks in place with SGEMV between them
/// (routines/trmv.rs, `multiply_in_blocks`): every variant at n = 4097 with
/// the work buffer's scratch limited to what one block of 64 needs (blocks of
/// 64, 65 of them), to 16 KiB, less than any one pass at that n needs (4·n
/// bytes at least), and to 4 bytes less than the call's one pass needs (the
/// largest blocks that fit); n = 65, 100 and 127 in one block of 64 and the
/// rest by SGEMV, at the room of that block; the same bits on a second call;
/// and the blocked form captured into a CUDA graph.
#[test]
fn gpu_strmv_in_diagonal_blocks_where_the_work_buffer_is_short() {
    let _shapes = tuner_choices();
    let test = "gpu_strmv_in_diagonal_blocks_where_the_work_buffer_is_short";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let mut random = random(test);
    let ctx = gpu.context();
    let session = CublasSession::open(test);
    let cublas = session.as_ref();
    let fixed = mublas::handle::WORK_FIXED_BYTES as usize;
    let mut cases = 0;
    // At n = 4097, room for the smallest blocks (64: what one of them needs), for 16 KiB, and for just
    // under one pass; past one block of 64 but under two, room for the one block.
    for (pass, (n, room)) in [(4097, 0), (4097, 1), (4097, 2), (65, 0), (100, 0), (127, 0)].into_iter().enumerate() {
        for (v, &(uplo, trans, diag)) in VARIANTS.iter().enumerate() {
            let (lda, offset) = [(n, 0), (n + 3, 1), (4100, 0), (4100, 1)][v % 4];
            let incx = [1i64, -1, 3, -3][(v / 2 + pass) % 4];
            let case = Case { uplo, trans, diag, n, lda, incx, offset };
            let op = if case.transposed() { Op::T } else { Op::N };
            // Aligned as run_case's A will be (GuardedBuffer: 256-byte aligned, then the offset);
            // every block of 64 starts as aligned as A.
            let address = (1 << 20) + 4 * offset as u64;
            let work_bytes =
                |len: i64| trmv::plan(gpu.inner(), op, len, address, lda as i64).unwrap().2.work_bytes() as usize;
            let one_pass = work_bytes(n as i64);
            let scratch = [work_bytes(trmv::MIN_DIAGONAL_BLOCK), 16 << 10, one_pass - 4][room];
            assert!(one_pass > scratch, "{}: one pass needs {one_pass} bytes", case.name());
            gpu.inner().set_work_limit(fixed + scratch);
            run_case(&gpu, &mut random, &case, cublas);
            cases += 1;
            if v == 0 {
                // Again on the same A and x: the same bits.
                let results = repeated_results(&gpu, &mut random, &case, 2);
                assert!(same_bits(&results[0], &results[1]), "{}: two calls differ", case.name());
            }
        }
    }
    // Captured on a created stream (16 KiB of room), then replayed twice from the same x.
    gpu.inner().set_work_limit(fixed + (16 << 10));
    let n = 4097;
    let stream = Stream::new(ctx).unwrap();
    set_stream(&gpu, stream.raw());
    let case = Case {
        uplo: MUBLAS_FILL_MODE_LOWER,
        trans: MUBLAS_OP_N,
        diag: MUBLAS_DIAG_NON_UNIT,
        n,
        lda: 4100,
        incx: -1,
        offset: 0,
    };
    let a = matrix(&mut random, &case);
    let x = random.vector(n);
    let da = GuardedBuffer::from_slice(ctx, &a, 0).unwrap();
    let dx = GuardedBuffer::from_slice(ctx, &x, 0).unwrap();
    let mut status = MUBLAS_STATUS_SUCCESS;
    let graph = CapturedGraph::capture(ctx, stream.raw(), || status = strmv(&gpu, &case, &da, &dx))
        .expect("the capture was not invalidated");
    assert_eq!(status, MUBLAS_STATUS_SUCCESS, "captured");
    let (expected, magnitude) = reference(&case, &a, &x);
    for replay in 0..2 {
        dx.write(&x).unwrap();
        graph.launch(stream.raw()).unwrap();
        stream.synchronize().unwrap();
        let got = elements(&case, &dx.read().unwrap());
        assert_close(&format!("captured, replay {replay}"), &got, &expected, &magnitude, 2.0 * (n as f64 + 2.0));
        assert!(dx.guards_intact().unwrap());
    }
    set_stream(&gpu, std::ptr::null_mut());
    gpu.inner().set_work_limit(usize::MAX);
    say(&format!("{test}: {cases} cases and a captured call passed"));
}

#[test]
fn gpu_strmv_bad_arguments_touch_nothing() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_or_skip("gpu_strmv_bad_arguments_touch_nothing") else { return };
    let mut random = random("gpu_strmv_bad_arguments_touch_nothing");
    let ctx = gpu.context();
    let n = 8;
    let a = random.vector(n * n);
    let x = random.vector(n);
    let da = GuardedBuffer::from_slice(ctx, &a, 0).unwrap();
    let dx = GuardedBuffer::from_slice(ctx, &x, 0).unwrap();
    let (pa, px) = (da.address() as *const f32, dx.address() as *mut f32);
    let n = n as i32;
    unsafe {
        // (uplo, trans, diag, n, lda, incx), each with one bad argument (position in the comment).
        for (args, position) in [
            ((MUBLAS_FILL_MODE_FULL, 0, 0, n, n, 1), 1),
            ((-1, 0, 0, n, n, 1), 1),
            ((0, MUBLAS_OP_CONJG, 0, n, n, 1), 2),
            ((0, 7, 0, n, n, 1), 2),
            ((0, 0, 2, n, n, 1), 3),
            ((0, 0, -1, n, n, 1), 3),
            ((0, 0, 0, -1, n, 1), 4),
            ((0, 0, 0, n, n - 1, 1), 6),
            ((0, 0, 0, 0, 0, 1), 6),
            ((0, 0, 0, n, n, 0), 8),
            // Several bad: still INVALID_VALUE, for the first (position 1).
            ((2, 3, 2, -1, 0, 0), 1),
        ] {
            let (uplo, trans, diag, n, lda, incx) = args;
            assert_eq!(
                mublasStrmv(gpu.handle, uplo, trans, diag, n, pa, lda, px, incx),
                MUBLAS_STATUS_INVALID_VALUE,
                "position {position}: {args:?}"
            );
            let (a, x) = (pa as u64, px as u64);
            let result = trmv::strmv(gpu.inner(), uplo, trans, diag, n as i64, a, lda as i64, x, incx as i64);
            assert_eq!(result, Err(Error::InvalidArgument { routine: "STRMV", position }), "{args:?}");
        }
        // n = 0: success, nothing touched, even through null pointers.
        assert_eq!(
            mublasStrmv(gpu.handle, 0, 0, 0, 0, std::ptr::null(), 1, std::ptr::null_mut(), 1),
            MUBLAS_STATUS_SUCCESS
        );
        assert_eq!(mublasStrmv(gpu.handle, 1, 1, 1, 0, pa, 1, px, -2), MUBLAS_STATUS_SUCCESS);
        // Null A or x with n > 0: INVALID_VALUE where cuBLAS would fault.
        assert_eq!(mublasStrmv(gpu.handle, 0, 0, 0, n, std::ptr::null(), n, px, 1), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(mublasStrmv(gpu.handle, 0, 0, 0, n, pa, n, std::ptr::null_mut(), 1), MUBLAS_STATUS_INVALID_VALUE);
    }
    mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
    assert_eq!(dx.read().unwrap(), x);
    assert_eq!(da.read().unwrap(), a);
    assert!(dx.guards_intact().unwrap() && da.guards_intact().unwrap());
}

#[test]
fn gpu_strmv_on_a_created_stream() {
    let _shapes = tuner_choices();
    let Some(gpu) = gpu_alone_or_skip("gpu_strmv_on_a_created_stream") else { return };
    let mut random = random("gpu_strmv_on_a_created_stream");
    let ctx = gpu.context();
    let stream = Stream::new(ctx).unwrap();
    let case = Case {
        uplo: MUBLAS_FILL_MODE_UPPER,
        trans: MUBLAS_OP_N,
        diag: MUBLAS_DIAG_NON_UNIT,
        n: 2049,
        lda: 2052,
        incx: 1,
        offset: 0,
    };
    let a = matrix(&mut random, &case);
    let x = random.vector(case.n);
    let da = GuardedBuffer::from_slice(ctx, &a, 0).unwrap();
    let dx = GuardedBuffer::from_slice(ctx, &x, 0).unwrap();
    let call = || assert_eq!(strmv(&gpu, &case, &da, &dx), MUBLAS_STATUS_SUCCESS);
    set_stream(&gpu, stream.raw());
    call();
    stream.synchronize().unwrap();
    let (expected, magnitude) = reference(&case, &a, &x);
    assert_close("created stream", &dx.read().unwrap(), &expected, &magnitude, 2.0 * (case.n as f64 + 2.0));
    // Again with the stream held back (the work buffer has grown already): nothing lands before it runs.
    dx.write(&x).unwrap();
    call_behind_a_gate("created stream", &gpu, stream.raw(), &[&dx], call);
    assert_close("created stream, gated", &dx.read().unwrap(), &expected, &magnitude, 2.0 * (case.n as f64 + 2.0));
    set_stream(&gpu, std::ptr::null_mut());
}

/// Two STRMVs on one matrix, for the stream-switch tests: each shares the
/// work buffer (its partial sums) with the other.
struct TwoStrmvs {
    case: Case,
    a: Vec<f32>,
    da: GuardedBuffer,
    x: [Vec<f32>; 2],
    dx: [GuardedBuffer; 2],
}

impl TwoStrmvs {
    fn new(gpu: &Gpu, random: &mut Random) -> TwoStrmvs {
        let case = Case {
            uplo: MUBLAS_FILL_MODE_LOWER,
            trans: MUBLAS_OP_T,
            diag: MUBLAS_DIAG_NON_UNIT,
            n: 3001,
            lda: 3003,
            incx: 1,
            offset: 0,
        };
        let a = matrix(random, &case);
        let da = GuardedBuffer::from_slice(gpu.context(), &a, 0).unwrap();
        let x = [random.vector(case.n), random.vector(case.n)];
        let dx = x.clone().map(|x| GuardedBuffer::from_slice(gpu.context(), &x, 0).unwrap());
        TwoStrmvs { case, a, da, x, dx }
    }

    /// STRMV k on the handle's stream.
    fn call(&self, gpu: &Gpu, k: usize) {
        assert_eq!(strmv(gpu, &self.case, &self.da, &self.dx[k]), MUBLAS_STATUS_SUCCESS);
    }

    /// Puts both vectors back.
    fn restore(&self) {
        for (dx, x) in self.dx.iter().zip(&self.x) {
            dx.write(x).unwrap();
        }
    }

    /// Both results against float64, once their streams are done.
    fn check(&self, what: &str, streams: [&str; 2]) {
        let bound = 2.0 * (self.case.n as f64 + 2.0);
        for ((x, dx), stream) in self.x.iter().zip(&self.dx).zip(streams) {
            let (expected, magnitude) = reference(&self.case, &self.a, x);
            assert_close(&format!("{what}: {stream}"), &dx.read().unwrap(), &expected, &magnitude, bound);
        }
    }
}

/// mublasSetStream returns without waiting for the old stream, and still
/// orders the new stream's use of the work buffer (STRMV's partial sums)
/// after the old stream's: with the old stream held back by a gate behind a
/// STRMV, the switch returns at once and a STRMV on the new stream does not
/// land until the gate opens; then both results are right.
#[test]
fn gpu_set_stream_orders_the_streams_without_waiting() {
    let _shapes = tuner_choices();
    let test = "gpu_set_stream_orders_the_streams_without_waiting";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let ctx = gpu.context();
    let (old, new) = (Stream::new(ctx).unwrap(), Stream::new(ctx).unwrap());
    let two = TwoStrmvs::new(&gpu, &mut random(test));
    // A first call grows the work buffer, so the calls below allocate nothing (an allocation may wait).
    set_stream(&gpu, old.raw());
    two.call(&gpu, 0);
    old.synchronize().unwrap();
    two.restore();
    // Output 1, x2, must wait for the held stream too: its STRMV shares the work buffer with the one before.
    let what = "STRMV on the old stream, the switch, STRMV on the new stream";
    call_behind_a_gate(what, &gpu, old.raw(), &[&two.dx[0], &two.dx[1]], || {
        two.call(&gpu, 0);
        set_stream(&gpu, new.raw());
        two.call(&gpu, 1);
    });
    new.synchronize().unwrap();
    two.check(what, ["old stream", "new stream"]);
    set_stream(&gpu, std::ptr::null_mut());
}

/// A program may destroy the handle's stream while work it queued there
/// (which the driver still runs) uses the work buffer, and then switch the
/// handle to another stream, as cuBLAS programs that make a stream per task
/// do. The switch cannot ask the destroyed stream anything, yet the new
/// stream's STRMV must not run before the old one's: with the old stream
/// held back by a gate that another thread opens after 300 ms, the new
/// stream's call must not be done before then; both results are right. Twice:
/// the new stream made before the old one is destroyed, and after it (when
/// the driver may give it the old one's address).
#[test]
fn gpu_set_stream_after_the_old_stream_was_destroyed() {
    let _shapes = tuner_choices();
    let test = "gpu_set_stream_after_the_old_stream_was_destroyed";
    let Some(gpu) = gpu_alone_or_skip(test) else { return };
    let ctx = gpu.context();
    let two = TwoStrmvs::new(&gpu, &mut random(test));
    for new_after_destroy in [false, true] {
        let what = if new_after_destroy { "new stream made after the destroy" } else { "new stream made before" };
        let old = Stream::new(ctx).unwrap();
        let old_address = old.raw() as usize;
        // A first call grows the work buffer, so the calls below allocate nothing (an allocation may wait).
        set_stream(&gpu, old.raw());
        two.call(&gpu, 0);
        old.synchronize().unwrap();
        two.restore();

        let gate = mublas::harness::StreamGate::close(ctx, old.raw()).unwrap();
        // The opener's clock starts now: under compute-sanitizer's memcheck a
        // step below (destroying or making a stream, as far as seen) waited for
        // the gated work, so an opener started after it never came.
        let opening = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let opener = {
            let opening = opening.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(300));
                opening.store(true, std::sync::atomic::Ordering::SeqCst);
                gate.open();
                gate
            })
        };
        two.call(&gpu, 0);
        let early = (!new_after_destroy).then(|| Stream::new(ctx).unwrap());
        drop(old);
        let new = early.unwrap_or_else(|| Stream::new(ctx).unwrap());
        set_stream(&gpu, new.raw());
        two.call(&gpu, 1);
        new.synchronize().unwrap();
        let done_after_the_gate = opening.load(std::sync::atomic::Ordering::SeqCst);
        let gate = opener.join().unwrap();
        mublas::harness::stream::synchronize(ctx, std::ptr::null_mut()).unwrap();
        let reused = new.raw() as usize == old_address;
        say(&format!("{test}: {what}{}", if reused { ", at the old one's address" } else { "" }));
        assert!(!gate.timed_out(), "{what}: the gate opened by itself after 10 s");
        assert!(
            done_after_the_gate,
            "{what}: the new stream's STRMV finished while the old stream's waited at the gate"
        );
        two.check(what, ["destroyed stream", "new stream"]);
        set_stream(&gpu, std::ptr::null_mut());
    }
}
