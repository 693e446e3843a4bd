//! alpha = 0 from the device: no operand is read. SGEMM leaves A and B alone,
//! SGEMV A and x, SAXPY x, on every path: each tile kernel unsplit and split
//! along k, stream-K, op(A) copied first, a split tail, the skinny kernels, a
//! row through SGEMV; every SGEMV kernel at every launch shape. The routines
//! cannot see such an alpha before launching, so each kernel reads it and
//! skips its loads. Here the operands lie in address space with nothing
//! mapped ([`UnmappedRange`]), so a read faults, where NaN operands (as the
//! other tests use) would pass unseen whenever the result leaves the product
//! out. A fault loses the context and fails everything after it in the same
//! process: hence a binary of its own. Skipped, saying so, without a GPU.

mod common;

use common::*;
use mublas::capi::blas1::mublasSaxpy;
use mublas::capi::handle::mublasSetPointerMode;
use mublas::capi::types::*;
use mublas::harness::{GuardedBuffer, Random, UnmappedRange};
use mublas::routines::Scalar;
use mublas::routines::gemm::{self, Cut, TILE_KERNELS, TILES, TileChoice};
use mublas::routines::gemv;
use mublas::tuner::LaunchShape;

/// The unmapped operands' address space: more than any operand below spans.
const UNMAPPED_BYTES: usize = 128 << 20;

/// Device memory holding alpha = 0 and `beta`, and the output (C or y) on
/// random values (NaN where beta = 0: it must not be read either), every
/// fourth of them -0, which beta = 1 must leave as it is (-0 + 0 would be +0),
/// and for beta = 1 every eighth a signaling NaN (1·C would quiet it).
struct Output {
    scalars: GuardedBuffer,
    before: Vec<f32>,
    out: GuardedBuffer,
    beta: f32,
}

impl Output {
    fn new(gpu: &Gpu, random: &mut Random, len: usize, offset: usize, beta: f32) -> Output {
        let ctx = gpu.context();
        let before = if beta == 0.0 {
            vec![f32::NAN; len]
        } else {
            let mut values = random.vector(len);
            values.iter_mut().step_by(4).for_each(|v| *v = -0.0);
            if beta == 1.0 {
                // Bit for bit as they were: a rewrite as 1·C would keep -0 but quiet a signaling NaN.
                values.iter_mut().skip(2).step_by(8).for_each(|v| *v = f32::from_bits(0x7f80_0001));
            }
            values
        };
        Output {
            scalars: GuardedBuffer::from_slice(ctx, &[0.0, beta], 0).unwrap(),
            out: GuardedBuffer::from_slice(ctx, &before, offset).unwrap(),
            before,
            beta,
        }
    }
    fn alpha(&self) -> u64 {
        self.scalars.address()
    }
    fn beta(&self) -> u64 {
        self.scalars.address() + 4
    }

    /// Waits for the call (a read of an unmapped operand surfaces here), then
    /// checks that the elements `is_element` picks became beta times their old
    /// value (0 for beta = 0; bit for bit as they were for beta = 1) and that
    /// nothing else changed.
    fn check(&self, gpu: &Gpu, what: &str, is_element: impl Fn(usize) -> bool) {
        mublas::harness::stream::synchronize(gpu.context(), gpu.inner().stream())
            .unwrap_or_else(|e| panic!("{what}: {e} (a kernel read an operand that alpha = 0 leaves unread)"));
        let got = self.out.read().unwrap();
        assert!(self.out.guards_intact().unwrap(), "{what}: guard zone overwritten");
        for (index, (g, old)) in got.iter().zip(&self.before).enumerate() {
            if !is_element(index) {
                assert_eq!(g.to_bits(), old.to_bits(), "{what}: storage {index} outside the output changed");
            } else if self.beta == 0.0 {
                assert_eq!(*g, 0.0, "{what}: element {index} is {g}, not 0");
            } else if self.beta == 1.0 {
                assert_eq!(g.to_bits(), old.to_bits(), "{what}: element {index} is {g}, not {old} as it was");
            } else {
                assert_eq!(*g, self.beta * old, "{what}: element {index} is {g}, not beta·{old}");
            }
        }
    }
}

/// Device scalars: beta 0 (over NaN), an ordinary beta, and 1 (nothing to do), in turn.
const BETAS: [f32; 3] = [0.0, -0.75, 1.0];

struct SgemmCase {
    ta: i32,
    tb: i32,
    m: usize,
    n: usize,
    k: usize,
    /// Extra rows in each leading dimension.
    pad: usize,
    /// Floats by which A, B and C start past a 16-byte boundary.
    offset: usize,
}

impl SgemmCase {
    fn new(ta: i32, tb: i32, m: usize, n: usize, k: usize) -> SgemmCase {
        SgemmCase { ta, tb, m, n, k, pad: 0, offset: 0 }
    }

    /// C = beta·C by `choice` with A and B unmapped; returns what the routine did.
    fn run(
        &self,
        gpu: &Gpu,
        random: &mut Random,
        unmapped: &UnmappedRange,
        beta: f32,
        choice: TileChoice,
    ) -> gemm::GemmDecision {
        // (rows, columns) of A and B as stored.
        let (a_rows, a_cols) = if self.ta == 0 { (self.m, self.k) } else { (self.k, self.m) };
        let (b_rows, b_cols) = if self.tb == 0 { (self.k, self.n) } else { (self.n, self.k) };
        let (lda, ldb, ldc) = (a_rows + self.pad, b_rows + self.pad, self.m + self.pad);
        assert!(4 * (self.offset + (lda * a_cols).max(ldb * b_cols)) < UNMAPPED_BYTES);
        let output = Output::new(gpu, random, ldc * self.n, self.offset, beta);
        let operand = unmapped.address() + 4 * self.offset as u64;
        let what = format!(
            "SGEMM ta={} tb={} m={} n={} k={} pad={} offset={} beta={beta} {choice:?}",
            self.ta, self.tb, self.m, self.n, self.k, self.pad, self.offset
        );
        let decision = gemm::sgemm_with(
            gpu.inner(),
            self.ta,
            self.tb,
            self.m as i64,
            self.n as i64,
            self.k as i64,
            Scalar::Device(output.alpha()),
            operand,
            lda as i64,
            operand,
            ldb as i64,
            Scalar::Device(output.beta()),
            output.out.address(),
            ldc as i64,
            choice,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        output.check(gpu, &what, |index| index % ldc < self.m);
        decision
    }
}

const PAIRS: [(i32, i32); 4] = [(0, 0), (0, 1), (1, 0), (1, 1)];

#[test]
fn gpu_sgemm_with_alpha_zero_on_the_device_reads_neither_a_nor_b() {
    let test = "gpu_sgemm_with_alpha_zero_on_the_device_reads_neither_a_nor_b";
    let _shapes = forcing_shapes();
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let unmapped = UnmappedRange::new(gpu.context(), UNMAPPED_BYTES).unwrap();
    let device = &gpu.inner().device;
    let mut calls = 0;
    // Every tile kernel (float4 at offset 0, generic at 1), unsplit and split along k.
    for tile in 0..TILE_KERNELS.len() {
        for (turn, &(ta, tb)) in PAIRS.iter().enumerate() {
            for offset in [0usize, 1] {
                let case = SgemmCase { pad: 4 - offset, offset, ..SgemmCase::new(ta, tb, 100, 72, 2052) };
                let (tat, tbt) = (gemm::Transpose::from_code(ta).unwrap(), gemm::Transpose::from_code(tb).unwrap());
                for split in [1, 3] {
                    let specs = [false, true].map(|vec| &TILE_KERNELS[tile][gemm::kernel_index(tat, tbt, vec)]);
                    for spec in specs {
                        device
                            .tuner
                            .forced()
                            .set(spec.name, Some(LaunchShape { tx: TILES[tile].threads, ty: 1, split }));
                    }
                    let beta = BETAS[(turn + offset + split as usize) % BETAS.len()];
                    let decision = case.run(&gpu, &mut random, &unmapped, beta, TileChoice::Tile(tile));
                    let plan = decision.plan.expect("a multiply reports its plan");
                    assert_eq!(
                        plan.geometry.grid.2, split,
                        "tile {tile} ({ta}, {tb}) offset {offset}: split {split} ran"
                    );
                    let kernel = decision.kernel.expect("a multiply reports its kernel").name;
                    assert_eq!(kernel.ends_with("_vec"), offset == 0, "{kernel} at offset {offset}");
                    for spec in specs {
                        device.tuner.forced().set(spec.name, None);
                    }
                    calls += 1;
                }
            }
        }
    }
    // A C large enough for the reduction of four rows a thread (kernels.rs, reduce_spec).
    let (m, n, split) = (1024, 600, 2);
    assert_eq!(gemm::reduce_spec(device.model(), m, n, split).name, "gemm_splitk_reduce4_f32");
    let spec = &TILE_KERNELS[0][gemm::kernel_index(gemm::Transpose::No, gemm::Transpose::No, true)];
    device.tuner.forced().set(spec.name, Some(LaunchShape { tx: TILES[0].threads, ty: 1, split }));
    let case = SgemmCase::new(0, 0, m as usize, n as usize, 2052);
    let decision = case.run(&gpu, &mut random, &unmapped, -0.75, TileChoice::Tile(0));
    device.tuner.forced().set(spec.name, None);
    assert_eq!(decision.plan.map(|p| p.geometry.grid.2), Some(split), "{}: split {split} ran", spec.name);
    calls += 1;
    // The other paths, each checked to have been taken.
    for (turn, &(ta, tb)) in PAIRS.iter().enumerate() {
        let beta = BETAS[turn % 2];
        if ta == 0 || tb == 0 {
            let d = SgemmCase::new(ta, tb, 300, 200, 204).run(
                &gpu,
                &mut random,
                &unmapped,
                beta,
                TileChoice::StreamK { tiles: 4, blocks: 7 },
            );
            assert!(d.stream_k.is_some(), "({ta}, {tb}): stream-K: {d:?}");
        }
        let d = SgemmCase::new(ta, tb, 130, 70, 300).run(
            &gpu,
            &mut random,
            &unmapped,
            beta,
            TileChoice::CopiedA { panel_rows: 64 },
        );
        assert_eq!(d.copied_a_panel_rows, Some(64), "({ta}, {tb}): A copied first");
        let tail = TileChoice::SplitTail { tile: 3, cut: Cut::Columns, main: 128 };
        let d = SgemmCase::new(ta, tb, 600, 300, 64).run(&gpu, &mut random, &unmapped, beta, tail);
        assert!(d.split_tail.is_some(), "({ta}, {tb}): split tail: {d:?}");
        // The tuner's own choices (m, n, k, offset): split along k; the skinny kernels both ways, for 4, 16 and
        // 32 columns, float4 and not; one row or column through SGEMV.
        for (m, n, k, offset, what) in [
            (64, 64, 8192, 0, "split"),
            (1000, 16, 2000, 0, "skinny"),
            (1000, 16, 2000, 1, "skinny"),
            (8, 700, 4100, 0, "skinny"),
            (4097, 32, 1025, 0, "skinny"),
            (4097, 3, 257, 0, "skinny"),
            (1, 4097, 1000, 0, "gemv"),
            (3000, 1, 500, 0, "gemv"),
        ] {
            let case = SgemmCase { offset, ..SgemmCase::new(ta, tb, m, n, k) };
            let d = case.run(&gpu, &mut random, &unmapped, beta, TileChoice::Auto);
            let taken = match what {
                "split" => d.plan.is_some_and(|p| p.geometry.grid.2 > 1) || d.stream_k.is_some(),
                "skinny" => d.skinny.is_some(),
                _ => d.as_gemv.is_some(),
            };
            assert!(taken, "({ta}, {tb}) {m}×{n}×{k}: expected the {what} path, got {d:?}");
        }
        calls += 10 + usize::from(ta == 0 || tb == 0);
    }
    // Through the C API, as a program calls it.
    let output = Output::new(&gpu, &mut random, 300 * 200, 0, -0.75);
    unsafe {
        assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_DEVICE), MUBLAS_STATUS_SUCCESS);
        let status = mublas::capi::gemm::mublasSgemm(
            gpu.handle,
            MUBLAS_OP_N,
            MUBLAS_OP_T,
            300,
            200,
            5000,
            output.alpha() as *const f32,
            unmapped.address() as *const f32,
            300,
            unmapped.address() as *const f32,
            200,
            output.beta() as *const f32,
            output.out.address() as *mut f32,
            300,
        );
        assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_SUCCESS);
        assert_eq!(status, MUBLAS_STATUS_SUCCESS);
    }
    output.check(&gpu, "mublasSgemm NT 300×200×5000", |_| true);
    say(&format!("{test}: {} calls, A and B never read", calls + 1));
}

#[test]
fn gpu_sgemv_with_alpha_zero_on_the_device_reads_neither_a_nor_x() {
    let test = "gpu_sgemv_with_alpha_zero_on_the_device_reads_neither_a_nor_x";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let unmapped = UnmappedRange::new(gpu.context(), UNMAPPED_BYTES).unwrap();
    let device = &gpu.inner().device;
    let clusters = gemv::runs_clusters(device);
    let mut launches = 0;
    // (trans, m, n, lda, offset of A and x, incx, incy): the kernel families of gpu_sgemv_every_launch_shape,
    // float4 and scalar.
    let problems = [
        (MUBLAS_OP_N, 130, 1100, 132, 0, 1, 1),
        (MUBLAS_OP_N, 130, 4500, 131, 1, -2, 3),
        (MUBLAS_OP_N, 100, 77, 101, 1, 1, -1),
        (MUBLAS_OP_N, 5, 300, 8, 0, 3, -1),
        (MUBLAS_OP_N, 16, 3000, 16, 0, 1, 1),
        (MUBLAS_OP_N, 16, 3000, 17, 1, -2, 3),
        (MUBLAS_OP_N, 300, 2000, 301, 1, 1, -1),
        (MUBLAS_OP_N, 4096, 4096, 4096, 0, 1, 1),
        (MUBLAS_OP_T, 1100, 67, 1100, 0, 1, 1),
        (MUBLAS_OP_T, 2000, 3, 2000, 0, -1, 1),
        (MUBLAS_OP_T, 2101, 40, 2103, 1, 1, -1),
        (MUBLAS_OP_T, 16, 300, 16, 0, 1, 1),
        (MUBLAS_OP_T, 7, 100, 9, 1, -1, 2),
        (MUBLAS_OP_T, 100, 300, 100, 0, 1, 1),
        (MUBLAS_OP_T, 300, 130, 301, 1, -2, 3),
        (MUBLAS_OP_T, 4096, 1024, 4096, 0, 1, 1),
    ];
    for (problem, (trans, m, n, lda, offset, incx, incy)) in problems.into_iter().enumerate() {
        let (x_len, y_len) = if trans == MUBLAS_OP_N { (n, m) } else { (m, n) };
        assert!(4 * (lda * n + span(x_len, incx)) < UNMAPPED_BYTES);
        let a = unmapped.address() + 4 * offset as u64;
        let x = a + 4 * (lda * n) as u64;
        let beta = BETAS[problem % BETAS.len()];
        let y_span = span(y_len, incy);
        let mut elements = vec![false; y_span];
        (0..y_len).for_each(|i| elements[strided_index(i, y_len, incy)] = true);
        let op = if trans == MUBLAS_OP_N { gemv::Op::N } else { gemv::Op::T };
        let kernels = gemv::candidate_kernels(op, m as i64, a, lda as i64, gemv::x_reads(x, incx));
        for spec in kernels.into_iter().filter(|spec| clusters || !gemv::needs_clusters(spec)) {
            let max_threads = device.kernel(spec.name).unwrap().model.max_threads_per_block;
            for shape in spec.space.shapes(max_threads) {
                let output = Output::new(&gpu, &mut random, y_span, problem % 3, beta);
                let what = format!(
                    "SGEMV trans={trans} m={m} n={n} lda={lda} offset={offset} incx={incx} incy={incy} \
                     beta={beta} [{} {shape:?}]",
                    spec.name
                );
                let result = gemv::sgemv_with_shape(
                    gpu.inner(),
                    spec,
                    shape,
                    trans,
                    m as i64,
                    n as i64,
                    Scalar::Device(output.alpha()),
                    a,
                    lda as i64,
                    x,
                    incx,
                    Scalar::Device(output.beta()),
                    output.out.address(),
                    incy,
                );
                assert_eq!(result, Ok(()), "{what}");
                output.check(&gpu, &what, |index| elements[index]);
                launches += 1;
            }
        }
    }
    say(&format!("{test}: {launches} forced launches, A and x never read"));
}

#[test]
fn gpu_saxpy_with_alpha_zero_on_the_device_reads_no_x() {
    let test = "gpu_saxpy_with_alpha_zero_on_the_device_reads_no_x";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let unmapped = UnmappedRange::new(gpu.context(), UNMAPPED_BYTES).unwrap();
    // Short and long, x aligned or not (y lies 1 float past alignment: x at 1 too takes the float4 kernel
    // past 2^22), unit, strided and negative increments, and incy = 0 (the sum into y[0]).
    for (n, x_offset, incx, incy) in [
        (1, 0, 1, 1),
        (1001, 1, 1, 1),
        (1 << 20, 0, 1, 1),
        ((1 << 22) + 5, 1, 1, 1),
        (3000, 0, -2, 3),
        (5000, 3, 4, -1),
        (1000, 0, 1, 0),
    ] {
        assert!(4 * (span(n, incx) + x_offset) < UNMAPPED_BYTES);
        // SAXPY has no beta: y stays as it is (beta 1 in Output's terms).
        let output = Output::new(&gpu, &mut random, span(n, incy), 1, 1.0);
        let what = format!("SAXPY n={n} x_offset={x_offset} incx={incx} incy={incy}");
        unsafe {
            assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_DEVICE), MUBLAS_STATUS_SUCCESS);
            let status = mublasSaxpy(
                gpu.handle,
                n as i32,
                output.alpha() as *const f32,
                (unmapped.address() + 4 * x_offset as u64) as *const f32,
                incx as i32,
                output.out.address() as *mut f32,
                incy as i32,
            );
            assert_eq!(mublasSetPointerMode(gpu.handle, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_SUCCESS);
            assert_eq!(status, MUBLAS_STATUS_SUCCESS, "{what}");
        }
        output.check(&gpu, &what, |_| true);
    }
    say(&format!("{test}: x never read"));
}
