use super::kernels::{elementwise_geometry, four_rows_geometry, transpose_geometry};
use super::*;
use crate::tuner::{DeviceModel, ForcedShapes, KernelModel, LaunchShape, RecipeBook, Tuner};

/// An SGEMM's operands on the host (small integers, exact in f64, with
/// `pad` extra rows in each leading dimension) and its C over C's whole
/// storage, NaN outside the m × n it defines.
struct HostGemm {
    lda: i64,
    ldb: i64,
    ldc: i64,
    a: Vec<f64>,
    b: Vec<f64>,
    expected: Vec<f64>,
}

impl HostGemm {
    fn new(ta: Transpose, tb: Transpose, m: i64, n: i64, k: i64, pad: i64) -> HostGemm {
        let value = |i: usize| ((i * 7919) % 101) as f64 - 50.0;
        let (rows_a, cols_a) = if ta == Transpose::No { (m, k) } else { (k, m) };
        let (rows_b, cols_b) = if tb == Transpose::No { (k, n) } else { (n, k) };
        let (lda, ldb, ldc) = (rows_a + pad, rows_b + pad, m + pad);
        let a: Vec<f64> = (0..(lda * cols_a) as usize).map(value).collect();
        let b: Vec<f64> = (0..(ldb * cols_b) as usize).map(|i| value(i + 3)).collect();
        let op_a = |i: i64, l: i64| {
            if ta == Transpose::No { a[(i + l * lda) as usize] } else { a[(l + i * lda) as usize] }
        };
        let op_b = |l: i64, j: i64| {
            if tb == Transpose::No { b[(l + j * ldb) as usize] } else { b[(j + l * ldb) as usize] }
        };
        let mut expected = vec![f64::NAN; (ldc * n) as usize];
        for j in 0..n {
            for i in 0..m {
                expected[(i + j * ldc) as usize] = (0..k).map(|l| op_a(i, l) * op_b(l, j)).sum();
            }
        }
        HostGemm { lda, ldb, ldc, a, b, expected }
    }
}

/// Equal element by element, NaN matching NaN (storage outside C).
fn assert_same(expected: &[f64], got: &[f64], what: &str) {
    for (e, v) in expected.iter().zip(got) {
        assert!(e == v || (e.is_nan() && v.is_nan()), "{what}: {expected:?} against {got:?}");
    }
}

/// as_gemv's GEMV, evaluated on the host over the same storage, gives
/// every element of C that the SGEMM defines (and leaves the rest), for
/// every pair, m = 1 and n = 1, padded leading dimensions.
#[test]
fn one_column_or_row_is_the_gemv_it_maps_to() {
    // Operand "addresses" are tags: which array, in floats from its start.
    const A: u64 = 1 << 40;
    const B: u64 = 2 << 40;
    const C: u64 = 3 << 40;
    for (ta, tb) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let (ta, tb) = (Transpose::from_code(ta).unwrap(), Transpose::from_code(tb).unwrap());
        for (m, n, k, pad) in [(1i64, 5i64, 3i64, 0i64), (1, 4, 6, 2), (6, 1, 4, 0), (5, 1, 7, 3), (1, 1, 4, 1)] {
            let HostGemm { lda, ldb, ldc, a, b, expected } = HostGemm::new(ta, tb, m, n, k, pad);
            let g = as_gemv(ta, tb, m, n, k, (A, lda), (B, ldb), (C, ldc)).expect("m or n is 1");
            let array = |tag: u64| -> (&[f64], usize) {
                match tag >> 40 {
                    1 => (&a, (tag - A) as usize),
                    2 => (&b, (tag - B) as usize),
                    other => panic!("GEMV reads operand {other}"),
                }
            };
            assert_eq!(g.y, C, "GEMV writes C");
            let (matrix, _) = array(g.a);
            let (x, x0) = array(g.x);
            assert!(g.lda >= g.m.max(1) && g.incx > 0 && g.incy > 0);
            let (out_len, in_len) = if g.trans == 0 { (g.m, g.n) } else { (g.n, g.m) };
            let mut got = vec![f64::NAN; (ldc * n) as usize];
            for o in 0..out_len {
                got[(o * g.incy) as usize] = (0..in_len)
                    .map(|l| {
                        let (row, col) = if g.trans == 0 { (o, l) } else { (l, o) };
                        matrix[(row + col * g.lda) as usize] * x[x0 + (l * g.incx) as usize]
                    })
                    .sum();
            }
            assert_same(&expected, &got, &format!("{ta:?}{tb:?} {m}x{n}x{k}"));
        }
    }
    assert_eq!(as_gemv(Transpose::No, Transpose::No, 2, 2, 2, (A, 2), (B, 2), (C, 2)), None);
}

/// as_skinny's D = P·Q, evaluated on the host through its strides over the
/// same storage, is the SGEMM's C, for every pair, few columns and few
/// rows, padded leading dimensions; and the limits of the path.
#[test]
fn skinny_operands_are_the_product_they_map_to() {
    const A: u64 = 1 << 40;
    const B: u64 = 2 << 40;
    const C: u64 = 3 << 40;
    for (ta, tb) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let (ta, tb) = (Transpose::from_code(ta).unwrap(), Transpose::from_code(tb).unwrap());
        for (m, n, k, pad) in [
            (9i64, 3i64, 5i64, 0i64),
            (2, 7, 4, 3),
            (16, 16, 3, 1),
            (40, 16, 2, 2),
            (5, 33, 6, 0),
            (40, 17, 3, 1),
            (32, 50, 4, 2),
        ] {
            let HostGemm { lda, ldb, ldc, a, b, expected } = HostGemm::new(ta, tb, m, n, k, pad);
            let s = as_skinny(ta, tb, m, n, k, (A, lda), (B, ldb), (C, ldc)).expect("2 to 32 columns or rows");
            assert!(s.n == m.min(n) && s.k == k && s.d == C);
            let array = |tag: u64| -> &[f64] {
                if tag == A {
                    &a
                } else if tag == B {
                    &b
                } else {
                    panic!("reads {tag:x}")
                }
            };
            let (p, q) = (array(s.p), array(s.q));
            let mut got = vec![f64::NAN; (ldc * n) as usize];
            for i in 0..s.m {
                for j in 0..s.n {
                    got[(i * s.dsi + j * s.dsj) as usize] = (0..s.k)
                        .map(|l| {
                            let pi = if s.along_k { l + i * s.ldp } else { i + l * s.ldp };
                            p[pi as usize] * q[(l * s.qsl + j * s.qsj) as usize]
                        })
                        .sum();
                }
            }
            assert_same(&expected, &got, &format!("{ta:?}{tb:?} {m}x{n}x{k}"));
            // The kernel: NB holds N, `_vec` only for an aligned P with ldp % 4 == 0.
            let name = s.spec().name;
            let nb: i64 = name
                .trim_start_matches("gemm_f32_skinny_")
                .trim_start_matches(['k', 'm'])
                .trim_end_matches("_vec")
                .parse()
                .unwrap();
            assert!(nb >= s.n && (nb == 4 || nb / 2 < s.n), "{name} for N = {}", s.n);
            assert_eq!(name.contains("skinny_k"), s.along_k);
            assert_eq!(name.ends_with("_vec"), s.ldp % 4 == 0, "{name}: ldp {}", s.ldp);
        }
    }
    let none = |m, n| as_skinny(Transpose::No, Transpose::No, m, n, 8, (A, m.max(8)), (B, 8), (C, m));
    assert_eq!(none(1, 5), None, "one row: SGEMV");
    assert_eq!(none(33, 33), None);
    assert!(none(33, 32).is_some() && none(32, 1000).is_some() && none(17, 17).is_some());
}

/// skinny_plan on an H100's model: the fullest one-wave grid among those
/// engaging the most SMs, the smaller split on a tie, the optimizer's plan
/// when no split fits one wave.
#[test]
fn skinny_plans_fill_one_wave() {
    let tuner =
        Tuner::new(DeviceModel::h100_sxm(), crate::tuner::RecipeBook::built_in(), crate::tuner::ForcedShapes::new());
    // (ta, tb, m, n, k, registers, split): 64 wide row blocks × 4 = 256 of
    // the 264 blocks two per SM hold (3 engages every SM, unevenly); 32
    // blocks along m × 8; 344 blocks along k exceed a wave at any split.
    for (ta, tb, m, n, k, registers, split) in [
        (1, 0, 4096i64, 32i64, 4096i64, 122, 4),
        (0, 1, 32, 4096, 4096, 122, 4),
        (0, 0, 4096, 8, 4096, 121, 8),
        (1, 0, 4096, 8, 4096, 128, 2),
        (1, 0, 1024, 8, 1024, 128, 4),
        (1, 0, 11008, 8, 4096, 128, 1),
    ] {
        let (ta, tb) = (Transpose::from_code(ta).unwrap(), Transpose::from_code(tb).unwrap());
        let (lda, ldb) = (if ta == Transpose::No { m } else { k }, if tb == Transpose::No { k } else { n });
        let s = as_skinny(ta, tb, m, n, k, (0, lda), (0, ldb), (0, m)).unwrap();
        let kernel =
            KernelModel { registers_per_thread: registers, static_shared_bytes: 16, max_threads_per_block: 256 };
        let plan = skinny_plan(&tuner, s.spec(), &kernel, &s.problem());
        assert_eq!(plan.shape.split, split, "{ta:?}{tb:?} {m}x{n}x{k}: {plan:?}");
        assert_eq!(plan.geometry.grid.1, split, "{ta:?}{tb:?} {m}x{n}x{k}");
    }
}

#[test]
fn skinny_splits_cover_k_in_whole_chunks() {
    use skinny::CHUNK;
    for (m, n, k, requested) in [
        (4096u64, 8u64, 4096u64, 4u32),
        (4096, 8, 4096, 64),
        (100, 3, 100, 8),
        (64, 16, 1 << 20, 64),
        (1 << 22, 16, 1 << 12, 64),
    ] {
        let problem = Problem { m, n, k };
        let (per, splits) = skinny_split(&problem, 32, requested);
        assert!(per % CHUNK == 0 && per * splits as u64 >= k && per * (splits as u64 - 1) < k, "{problem:?}");
        assert!(splits <= requested && (splits == 1 || splits as u64 * m * n * 4 <= MAX_PARTIAL_BYTES));
    }
    // More row blocks than arrival counters: unsplit.
    let rows = (crate::handle::SPLIT_COUNTER_SLOTS + 1) * 32;
    assert_eq!(skinny_split(&Problem { m: rows, n: 2, k: 4096 }, 32, 8).1, 1);
}

/// check_arguments with the argument list a reference-BLAS test writes.
#[allow(clippy::too_many_arguments)]
fn args(
    transa: i32,
    transb: i32,
    m: i64,
    n: i64,
    k: i64,
    lda: i64,
    ldb: i64,
    ldc: i64,
) -> std::result::Result<(), u32> {
    check_arguments(transa, transb, m, n, k, lda, ldb, ldc).map(|_| ()).map_err(|e| match e {
        Error::InvalidArgument { routine: "SGEMM", position } => position,
        other => panic!("unexpected {other:?}"),
    })
}

#[test]
fn argument_numbers_follow_reference_blas() {
    assert_eq!(args(0, 0, 4, 5, 6, 4, 6, 4), Ok(()));
    assert_eq!(args(2, 2, 4, 5, 6, 6, 5, 4), Ok(()), "C means T for real types");
    for bad in [-1, 3, 4, 111] {
        assert_eq!(args(bad, 0, 4, 5, 6, 4, 6, 4), Err(1));
        assert_eq!(args(0, bad, 4, 5, 6, 4, 6, 4), Err(2));
    }
    assert_eq!(args(0, 0, -1, 5, 6, 4, 6, 4), Err(3));
    assert_eq!(args(0, 0, 4, -1, 6, 4, 6, 4), Err(4));
    assert_eq!(args(0, 0, 4, 5, -1, 4, 6, 4), Err(5));
    assert_eq!(args(0, 0, 4, 5, 6, 3, 6, 4), Err(8));
    assert_eq!(args(1, 0, 4, 5, 6, 5, 6, 4), Err(8), "A^T: lda ≥ k");
    assert_eq!(args(0, 0, 4, 5, 6, 4, 5, 4), Err(10));
    assert_eq!(args(0, 1, 4, 5, 6, 4, 4, 4), Err(10), "B^T: ldb ≥ n");
    assert_eq!(args(0, 0, 4, 5, 6, 4, 6, 3), Err(13));
    // First bad wins.
    assert_eq!(args(7, 7, -1, -1, -1, 0, 0, 0), Err(1));
    assert_eq!(args(0, 0, -1, -1, -1, 0, 0, 0), Err(3));
    assert_eq!(args(0, 0, 4, 5, 6, 0, 0, 0), Err(8));
    assert_eq!(args(0, 0, 4, 5, 6, 4, 0, 0), Err(10));
}

#[test]
fn leading_dimensions_are_checked_with_zero_dimensions() {
    // max(1, 0) = 1: an ld of 0 is bad even when the matrix is empty.
    assert_eq!(args(0, 0, 0, 0, 0, 0, 1, 1), Err(8));
    assert_eq!(args(0, 0, 0, 0, 0, 1, 0, 1), Err(10));
    assert_eq!(args(0, 0, 0, 0, 0, 1, 1, 0), Err(13));
    assert_eq!(args(0, 0, 0, 0, 0, 1, 1, 1), Ok(()));
    // k = 0 with A untransposed still needs lda ≥ m.
    assert_eq!(args(0, 0, 8, 8, 0, 7, 1, 8), Err(8));
    assert_eq!(args(0, 0, 8, 8, 0, 8, 1, 8), Ok(()));
}

#[test]
fn quick_returns_and_the_scale_path() {
    let h = Scalar::Host;
    let d = Scalar::Device(0x1000);
    assert_eq!(path(0, 5, 5, h(1.0), h(0.0)), GemmPath::QuickReturn);
    assert_eq!(path(5, 0, 5, h(1.0), h(0.0)), GemmPath::QuickReturn);
    assert_eq!(path(5, 5, 0, h(1.0), h(1.0)), GemmPath::QuickReturn);
    assert_eq!(path(5, 5, 5, h(0.0), h(1.0)), GemmPath::QuickReturn);
    assert_eq!(path(5, 5, 0, h(2.0), h(0.5)), GemmPath::ScaleOnly);
    assert_eq!(path(5, 5, 0, h(2.0), h(0.0)), GemmPath::ScaleOnly);
    assert_eq!(path(5, 5, 5, h(0.0), h(0.0)), GemmPath::ScaleOnly);
    assert_eq!(path(5, 5, 5, h(0.0), d), GemmPath::ScaleOnly);
    assert_eq!(path(5, 5, 0, d, d), GemmPath::ScaleOnly, "a device beta may be 1: the kernel decides");
    assert_eq!(path(5, 5, 5, d, h(1.0)), GemmPath::Multiply, "a device alpha may be 0: the kernel decides");
    assert_eq!(path(5, 5, 5, h(1.0), h(1.0)), GemmPath::Multiply);
    // m or n = 0 wins over everything, device scalars included.
    assert_eq!(path(0, 5, 5, d, d), GemmPath::QuickReturn);
}

#[test]
fn vec4_needs_alignment_leading_dimension_and_extent() {
    let (no, yes) = (Transpose::No, Transpose::Yes);
    assert!(vec4_applies(no, no, 128, 128, 128, 4096, 128, 8192, 128));
    assert!(!vec4_applies(no, no, 128, 128, 128, 4100, 128, 8192, 128), "A offset by one float");
    assert!(!vec4_applies(no, no, 128, 128, 128, 4096, 130, 8192, 128), "lda");
    assert!(!vec4_applies(no, no, 127, 128, 128, 4096, 128, 8192, 128), "m along A's columns");
    assert!(!vec4_applies(no, no, 128, 128, 127, 4096, 128, 8192, 128), "k along B's columns");
    // A^T and B^T: the extents swap.
    assert!(vec4_applies(yes, yes, 127, 132, 128, 4096, 128, 8192, 132), "m is along neither");
    assert!(!vec4_applies(yes, yes, 128, 127, 128, 4096, 128, 8192, 128), "n along B^T's columns");
    assert!(vec4_applies(no, yes, 128, 128, 127, 4096, 128, 8192, 128), "k is along neither");
}

#[test]
fn kernel_table_matches_the_names() {
    for (tile, row) in TILE_KERNELS.iter().enumerate() {
        let prefix = format!("gemm_f32_{}_", TILES[tile].name);
        assert!(TILES[tile].name.starts_with(&format!("{}x{}", TILES[tile].rows, TILES[tile].cols)));
        for (ta, a) in [(Transpose::No, 'n'), (Transpose::Yes, 't')] {
            for (tb, b) in [(Transpose::No, 'n'), (Transpose::Yes, 't')] {
                for vec in [false, true] {
                    let name = format!("{prefix}{a}{b}{}", if vec { "_vec" } else { "" });
                    let spec = &row[kernel_index(ta, tb, vec)];
                    assert_eq!(spec.name, name);
                    assert_eq!((spec.space.tx_min, spec.space.tx_max), (TILES[tile].threads, TILES[tile].threads));
                    assert!(KERNEL_NAMES.contains(&spec.name));
                }
            }
        }
    }
    assert_eq!(KERNEL_NAMES.len(), TILES.len() * 8 + 4 + STREAM_K_KERNELS.len() + 16);
    for (nb, row) in SKINNY_KERNELS.iter().enumerate() {
        for (i, spec) in row.iter().enumerate() {
            let name = format!("gemm_f32_skinny_{}{}{}", ['k', 'm'][i / 2], 4 << nb, ["", "_vec"][i % 2]);
            assert_eq!(spec.name, name);
            assert!(KERNEL_NAMES.contains(&spec.name));
            assert_eq!(spec.space.tx_min * spec.space.ty_min, 256);
        }
    }
    assert!(
        [&SCALE, &SPLITK_REDUCE, &SPLITK_REDUCE4, &TRANSPOSE_A].iter().all(|spec| KERNEL_NAMES.contains(&spec.name))
    );
    // Stream-K twins: the 256×128 NN, NT and TN _vec kernels, suffixed _sk.
    for (ta, tb) in [(Transpose::No, Transpose::No), (Transpose::No, Transpose::Yes), (Transpose::Yes, Transpose::No)] {
        let spec = &TILE_KERNELS[0][kernel_index(ta, tb, true)];
        let twin = stream_k_twin(spec).unwrap();
        assert_eq!(twin.name, format!("{}_sk", spec.name));
        assert!(KERNEL_NAMES.contains(&twin.name));
    }
    assert!(stream_k_twin(&TILE_KERNELS[0][kernel_index(Transpose::Yes, Transpose::Yes, true)]).is_none());
    assert!(stream_k_twin(&TILE_KERNELS[0][kernel_index(Transpose::No, Transpose::No, false)]).is_none());
    assert!(stream_k_twin(&TILE_KERNELS[1][kernel_index(Transpose::No, Transpose::No, true)]).is_none());
    // The copy's grid: 64 rows × 32 k a block, k along y up to 65535.
    let g = transpose_geometry(&Problem { m: 2049, n: 0, k: 33 }, &LaunchShape { tx: 32, ty: 8, split: 1 });
    assert_eq!(g.grid, (33, 2, 1));
    assert_eq!(
        transpose_geometry(&Problem { m: 1, n: 0, k: 1 << 22 }, &LaunchShape { tx: 32, ty: 8, split: 1 }).grid,
        (1, 65535, 1)
    );
}

#[test]
fn the_split_reduction_runs_blocks_of_256_threads() {
    let tuner = tuner();
    let model = KernelModel { registers_per_thread: 16, static_shared_bytes: 0, max_threads_per_block: 1024 };
    for (m, n) in [(8192u64, 48u64), (11008, 192), (127, 129), (4096, 4096)] {
        let plan = tuner.plan(&SPLITK_REDUCE, &model, &Problem { m, n, k: 0 });
        assert_eq!(plan.shape.tx, 256, "({m}, {n})");
        assert_eq!(plan.geometry.grid.0 as u64, m.div_ceil(256), "({m}, {n})");
    }
}

#[test]
fn the_reduction_takes_four_rows_a_thread_where_c_is_large_enough() {
    let tuner = tuner();
    let model = KernelModel { registers_per_thread: 24, static_shared_bytes: 0, max_threads_per_block: 1024 };
    // Four rows a thread from half the H100's resident threads: 132 × 2048 / 2 = 135168 threads.
    for (m, n, four) in [
        (512u64, 48u64, false),
        (127, 1024, false),
        (11008, 48, false),
        (16384, 33, true),
        (3000, 192, true),
        (11008, 192, true),
    ] {
        let spec = reduce_spec(tuner.device(), m, n, REDUCE4_MAX_SPLITS);
        assert_eq!(spec.name == SPLITK_REDUCE4.name, four, "({m}, {n})");
        // Past seven splits one row a thread keeps loads enough in flight.
        assert_eq!(reduce_spec(tuner.device(), m, n, REDUCE4_MAX_SPLITS + 1).name, SPLITK_REDUCE.name);
        let plan = tuner.plan(spec, &model, &Problem { m, n, k: 0 });
        let rows_per_thread = if four { 4 } else { 1 };
        assert_eq!(plan.shape.tx, 256, "({m}, {n})");
        assert_eq!(plan.geometry.grid.0 as u64, m.div_ceil(256 * rows_per_thread), "({m}, {n})");
        assert_eq!(plan.geometry.grid.1 as u64, n, "({m}, {n})");
    }
    // A partial last group of four rows: the grid still covers it.
    let shape = LaunchShape { tx: 256, ty: 1, split: 1 };
    assert_eq!(four_rows_geometry(&Problem { m: 1025, n: 40, k: 0 }, &shape).grid, (2, 40, 1));
}

#[test]
fn grid_covers_m_by_n_and_splits_are_capped() {
    let shape = |split| LaunchShape { tx: 256, ty: 1, split };
    let g = tile_geometry::<128, 128, 0>(&Problem { m: 129, n: 257, k: 0 }, &shape(8));
    assert_eq!(g.grid, (2 * 3, 1, 1), "k = 0 rules splitting out");
    for (m, n) in [(1u64, 1u64), (127, 129), (128, 128), (1023, 1), (4096, 4096), (3000, 3000)] {
        let g = tile_geometry::<128, 128, 0>(&Problem { m, n, k: 0 }, &shape(1));
        assert!(
            g.grid.0 as u64 * 128 >= m * n.div_ceil(128).min(1)
                && (g.grid.0 as u64) == m.div_ceil(128) * n.div_ceil(128)
        );
        let g = tile_geometry::<64, 64, 0>(&Problem { m, n, k: 0 }, &shape(1));
        assert_eq!(g.grid.0 as u64, m.div_ceil(64) * n.div_ceil(64));
    }
    // k / 32 caps the split; so do 64 MiB of partial sums.
    assert_eq!(effective_split(&Problem { m: 256, n: 256, k: 65536 }, 64), 64);
    assert_eq!(effective_split(&Problem { m: 256, n: 256, k: 1023 }, 64), 31);
    assert_eq!(effective_split(&Problem { m: 8192, n: 128, k: 8192 }, 64), 16);
    assert_eq!(effective_split(&Problem { m: 64, n: 64, k: 100 }, 4), 3);
    assert_eq!(effective_split(&Problem { m: 8192, n: 8192, k: 8192 }, 4), 1);
    assert_eq!(effective_split(&Problem { m: 1, n: 1, k: 31 }, 4), 1);
    // Partials: ld rounded to 4 floats.
    assert_eq!(partial_ld(1), 4);
    assert_eq!(partial_ld(128), 128);
    assert_eq!(partial_ld(129), 132);
    let g = elementwise_geometry(&Problem { m: 1000, n: 100_000, k: 0 }, &LaunchShape { tx: 256, ty: 1, split: 1 });
    assert_eq!(g.grid, (4, 65535, 1));
}

#[test]
fn flops_are_two_m_n_k() {
    assert_eq!(flops(4096, 4096, 4096), 2.0 * 4096f64.powi(3));
    assert_eq!(flops(0, 5, 5), 0.0);
}

/// The H100 model with the kernels' ptxas figures (sm_90).
fn tuner() -> Tuner {
    Tuner::new(DeviceModel::h100_sxm(), RecipeBook::built_in(), ForcedShapes::new())
}

fn model(tile: usize) -> KernelModel {
    match TILES[tile].name {
        "256x128" => KernelModel { registers_per_thread: 232, static_shared_bytes: 0, max_threads_per_block: 256 },
        "128x128_t128" => KernelModel { registers_per_thread: 232, static_shared_bytes: 0, max_threads_per_block: 128 },
        "128x128" => KernelModel { registers_per_thread: 128, static_shared_bytes: 16_896, max_threads_per_block: 256 },
        "64x64_t128" => {
            KernelModel { registers_per_thread: 80, static_shared_bytes: 17_408, max_threads_per_block: 128 }
        }
        "128x64" => KernelModel { registers_per_thread: 255, static_shared_bytes: 0, max_threads_per_block: 64 },
        "256x64" => KernelModel { registers_per_thread: 255, static_shared_bytes: 0, max_threads_per_block: 128 },
        _ => KernelModel { registers_per_thread: 168, static_shared_bytes: 8_704, max_threads_per_block: 64 },
    }
}

fn tile_named(name: &str) -> usize {
    TILES.iter().position(|tile| tile.name == name).unwrap()
}

/// plan_multiply's rule without a GPU for a transpose pair: returns (tile, split, blocks).
fn decide_pair(pair: usize, m: u64, n: u64, k: u64) -> (usize, u32, u64) {
    let tuner = tuner();
    let device = tuner.device().clone();
    let plans: Vec<LaunchPlan> = (0..TILES.len())
        .map(|tile| tile_plan(&tuner, &TILE_KERNELS[tile][pair * 2], &model(tile), &TILES[tile], pair, m, n, k))
        .collect();
    let tile = choose_tile(&device, pair, &plans, m, n, k);
    (tile, plans[tile].geometry.grid.2, plans[tile].geometry.blocks())
}

fn decide(m: u64, n: u64, k: u64) -> (usize, u32, u64) {
    decide_pair(0, m, n, k)
}

/// Whether the rule puts stream-K in place of the tuner's split for a
/// transpose pair on the H100 model (the split plan on 256×128 as the
/// tuner chooses it).
fn stream_k_in_place_of_split(pair: usize, m: u64, n: u64, k: u64) -> bool {
    let tuner = tuner();
    let spec = &TILE_KERNELS[0][pair * 2];
    let split = tile_plan(&tuner, spec, &model(0), &TILES[0], pair, m, n, k);
    let unsplit = tuner.plan(spec, &model(0), &Problem { m, n, k: 0 });
    stream_k_replaces_split(tuner.device(), &TILES[0], pair, (&split, &unsplit), m, n, k)
}

#[test]
fn stream_k_replaces_a_split_with_few_rounds_of_many_tiles() {
    // NN, NT, TN (pairs 0, 1, 2): 48 tiles, split 8 in 2.9 rounds, measured 8 % faster (NN, TN).
    for pair in 0..3 {
        assert!(stream_k_in_place_of_split(pair, 4096, 384, 4096), "pair {pair}");
        assert!(stream_k_in_place_of_split(pair, 2048, 768, 4096), "pair {pair}");
    }
    // tests/gpu_sgemm.rs's shape.
    assert!(stream_k_in_place_of_split(0, 1536, 1024, 2048));
    // Split 2 fills one round (64 tiles): measured 1–3 % slower as stream-K (NN, TN).
    assert!(!stream_k_in_place_of_split(0, 4096, 512, 4096));
    // 32 and 16 tiles: four or eight pieces a tile, measured slower.
    assert!(!stream_k_in_place_of_split(0, 4096, 256, 4096));
    assert!(!stream_k_in_place_of_split(1, 2048, 256, 8192));
    // Unsplit plans keep the last-round rule (stream_k_choice).
    assert!(!stream_k_in_place_of_split(0, 4096, 4096, 4096));
    // NT over long k with at most two blocks a tile (96 tiles): measured 4 % faster as
    // stream-K; NN and TN keep their split, NT keeps it at k = 2048 or with 64 tiles.
    assert!(stream_k_in_place_of_split(1, 8192, 384, 8192));
    assert!(stream_k_in_place_of_split(1, 1024, 2432, 8192));
    assert!(!stream_k_in_place_of_split(0, 8192, 384, 8192));
    assert!(!stream_k_in_place_of_split(2, 8192, 384, 8192));
    assert!(!stream_k_in_place_of_split(1, 1536, 1408, 2048));
    assert!(!stream_k_in_place_of_split(1, 4096, 512, 4096));
}

#[test]
fn occupancy_of_the_tiles_on_h100() {
    let tuner = tuner();
    for (name, active, blocks) in
        [("256x128", 1, 512), ("128x128_t128", 2, 1024), ("128x128", 2, 1024), ("64x64", 6, 4096)]
    {
        let tile = tile_named(name);
        let plan = tuner.plan(&TILE_KERNELS[tile][0], &model(tile), &Problem { m: 4096, n: 4096, k: 0 });
        assert_eq!((plan.occupancy.active_blocks_per_sm, plan.geometry.blocks()), (active, blocks), "{name}");
    }
}

#[test]
fn efficiency_tends_to_the_long_k_value() {
    let small = &TILES[tile_named("64x64_t128")];
    assert_eq!(small.efficiency_at(2, 32.0), 0.92);
    assert_eq!(small.efficiency_at(2, SHORT_K), 0.92);
    assert!((small.efficiency_at(2, 2.0 * SHORT_K) - (0.74 + 0.18 / 2.0)).abs() < 1e-12);
    assert!((small.efficiency_at(2, 4096.0) - 0.74).abs() < 0.01);
    // NN, NT and TT tend to their own long-k values; the other tiles keep one value.
    assert!((small.efficiency_at(0, 4096.0) - 0.86).abs() < 0.01);
    assert_eq!(TILES[tile_named("256x128")].efficiency_at(2, 4096.0), 1.05);
}

#[test]
fn thirty_three_to_sixty_four_columns_take_a_64_column_tile() {
    // Measured on an H200 (kernels/gemm.cu, the 128x64 and 256x64 lines): 128×64 1.13-1.38x the 64×64
    // tile's speed here; 256×64, in one round, NN's and TN's fastest (its NT and TT efficiencies trail
    // 128×64's).
    for pair in 0..4 {
        for ((m, n, k), split, blocks) in
            [((4096u64, 33u64, 4096u64), 16, 512), ((11008, 64, 4096), 6, 516), ((11008, 33, 1024), 6, 516)]
        {
            let want = match pair {
                0 | 2 => (tile_named("256x64"), split, blocks / 2),
                _ => (tile_named("128x64"), split, blocks),
            };
            assert_eq!(decide_pair(pair, m, n, k), want, "pair {pair}, ({m}, {n}, {k})");
        }
    }
    // TN 4096 × 64 × 4096 (fp32 nn.Linear at batch 64): 62.6 µs against 73.4 on 64×64.
    assert_eq!(decide_pair(2, 4096, 64, 4096).0, tile_named("256x64"));
    // Not where the larger tiles fill the device: squares, 128 columns.
    for pair in 0..4 {
        for n in [1024u64, 2048, 4096] {
            let tile = TILES[decide_pair(pair, n, n, n).0];
            assert!(tile.cols > 64, "pair {pair}, n = {n}: {}", tile.name);
        }
        let tile = TILES[decide_pair(pair, 4096, 128, 4096).0];
        assert!(tile.cols > 64, "pair {pair}, n = 128: {}", tile.name);
    }
}

#[test]
fn a_128x64_grid_of_several_rounds_pays_for_its_last_round_nearly_in_full() {
    // Kernel time on an H200 (scripts/sgemm-plan-times.py), 128×64 unsplit over more than one round against
    // the plan taken since TAIL_PACKING_128X64: NN 14336 × 384 × 1024 358.6 µs against 301.4 on 64×64_t128,
    // TN 14336 × 448 × 512 210.3 against 182.5 on 256×128, TT 3000 × 2048 × 256 99.0 against 87.2 on
    // 64×64_t128.
    let small = tile_named("128x64");
    for (pair, m, n, k) in [(0, 14336, 384, 1024), (2, 14336, 448, 512), (3, 3000, 2048, 256)] {
        let (tile, split, blocks) = decide_pair(pair, m, n, k);
        assert_ne!(tile, small, "pair {pair} ({m}, {n}, {k}): split {split}, {blocks} blocks");
    }
    assert_eq!(decide_pair(2, 14336, 448, 512).0, tile_named("256x128"));
    // Without the packing, the model took 128×64 at each.
    let tuner = tuner();
    let device = tuner.device().clone();
    let spread = Tile { tail_packing: 0.0, ..TILES[small] };
    for (pair, m, n, k) in [(0u64, 14336u64, 384u64, 1024u64), (2, 14336, 448, 512), (3, 3000, 2048, 256)] {
        let pair = pair as usize;
        let (tile, _, _) = decide_pair(pair, m, n, k);
        let chosen = tile_plan(&tuner, &TILE_KERNELS[tile][pair * 2], &model(tile), &TILES[tile], pair, m, n, k);
        let unsplit = tuner.plan(&TILE_KERNELS[small][pair * 2], &model(small), &Problem { m, n, k: 0 });
        assert!(
            estimated_time(&device, &spread, pair, &unsplit, m, n, k)
                < estimated_time(&device, &TILES[tile], pair, &chosen, m, n, k),
            "pair {pair} ({m}, {n}, {k})"
        );
    }
}

#[test]
fn the_256x64_tile_runs_one_round_at_most() {
    // 36 tiles split 7: 252 blocks of 264 (H200, NN 3000 × 192 × 14336: 352 µs against 419 on 128×64
    // split 6; cuBLAS 353).
    assert_eq!(decide_pair(0, 3000, 192, 14336), (tile_named("256x64"), 7, 252));
    // Over several rounds it ran slower than 128×64 (NN 14336 × 256 × 14336 split 4, 3.4 rounds: 2410
    // against 2181 µs): planned there, it is passed by. Since 128×64's packed last round
    // (TAIL_PACKING_128X64), one round of 256×128 runs instead (H200: 2072 against 2457 µs, cuBLAS 2322).
    assert_eq!(decide_pair(0, 14336, 256, 14336), (tile_named("256x128"), 1, 112));
    let tuner = tuner();
    let per_round = tuner.plan(&TILE_KERNELS[6][0], &model(6), &Problem { m: 4096, n: 4096, k: 0 });
    let per_round = per_round.occupancy.blocks_per_wave(tuner.device());
    assert_eq!(per_round, 264);
    for pair in 0..4 {
        for m in [512u64, 3000, 4096, 14336] {
            for n in [48u64, 96, 192, 320, 448, 1024] {
                for k in [512u64, 4096, 14336] {
                    let (tile, _, blocks) = decide_pair(pair, m, n, k);
                    assert!(tile != tile_named("256x64") || blocks <= per_round, "pair {pair} ({m}, {n}, {k})");
                }
            }
        }
    }
}

#[test]
fn splits_are_tried_past_two_rounds() {
    // 96 tiles of 256×128 split 4: 384 blocks, 2.9 rounds of 132, where the search used to stop at
    // split 3 (2.2 rounds) and leave these to the 64×64 tile. H200 kernel time, µs (cuBLAS):
    // NN 4096 × 768 × 4096 673.8 -> 535.4 (560.3), TN 717.6 -> 549.5 (545.9).
    for pair in 0..4 {
        assert_eq!(decide_pair(pair, 4096, 768, 4096), (tile_named("256x128"), 4, 384), "pair {pair}");
    }
    // 48 tiles split 8 (NN 4096 × 384 × 4096: 349.8 -> 279.9 µs, cuBLAS 287.4).
    assert_eq!(decide_pair(0, 4096, 384, 4096), (tile_named("256x128"), 8, 384));
}

#[test]
fn blocks_of_two_warps_fill_sub_partitions_in_pairs() {
    // Three 128×64 blocks load two of an SM's four warp schedulers with two warps each, as four do.
    let tile = &TILES[tile_named("128x64")];
    let round = |c: u64| block_round_us(tile, 0, 4, 1024.0, c);
    assert_eq!(round(3), round(4));
    assert_eq!(round(1), round(2));
    assert!(round(2) < round(3));
    // Blocks of four warps or more: each block adds its own share, as before.
    let tile = &TILES[tile_named("128x128_t128")];
    let plain = |c: u64| {
        let work = 1024.0 * time_model::US_PER_K_OF_128X128;
        c as f64 * work / (tile.efficiency[0] * (c as f64 / 2.0).powf(tile.fill_exponent)) + time_model::ROUND_US
    };
    for c in 1..=2 {
        assert!((block_round_us(tile, 0, 2, 1024.0, c) - plain(c)).abs() < 1e-9);
    }
}

#[test]
fn lone_blocks_of_the_128x128_t128_tile_are_not_planned() {
    // One block an SM ran at 0.56-0.60 of two's speed (H200): TN 4096 × 448 × 256 took 48.4 µs on 128
    // lone 128×128_t128 blocks, 33.7 on 128×128 (cuBLAS 30.1); TT 14336 × 96 × 256 44.9 against 32.1 on
    // 64×64_t128.
    let t128 = tile_named("128x128_t128");
    for (m, n, k) in [(4096, 448, 256), (16384, 128, 256), (1000, 2048, 256), (14336, 96, 256)] {
        for pair in [2, 3] {
            let (tile, split, blocks) = decide_pair(pair, m, n, k);
            assert_ne!(tile, t128, "pair {pair} {m} × {n} × {k}: {} split {split}, {blocks} blocks", TILES[tile].name);
        }
    }
    assert_eq!(decide_pair(2, 4096, 448, 256).0, tile_named("128x128"));
    // Two blocks on nearly every SM keep it: 127 × 448 × 8192 split 64, 256 blocks of 264.
    assert_eq!(decide_pair(2, 127, 448, 8192), (t128, 64, 256));
}

#[test]
fn tn_with_long_k_per_block_leaves_the_64x64_tile() {
    // TN 4096 × 192 × 4096: 64×64 split 4 (k 1024 a block) ran 202 µs on an H200, 256×128 split 4 184,
    // 128×64 split 5 (480 blocks of 528, a wave) 168, 256×64 split 5 (240 of 264) 161 (cuBLAS's plan).
    assert_eq!(decide_pair(2, 4096, 192, 4096), (tile_named("256x64"), 5, 240));
    assert_ne!(decide_pair(2, 4096, 384, 4096).0, tile_named("64x64_t128"));
    // Short k per block keeps it: 512² split 8 (k 64), 127 × 129 × 1023.
    assert_eq!(decide_pair(2, 512, 512, 512).0, tile_named("64x64_t128"));
    assert_eq!(decide_pair(2, 127, 129, 1023).0, tile_named("64x64_t128"));
}

#[test]
fn large_squares_take_the_tile_measured_fastest() {
    // As measured on the H100 (mublas bench sgemm-tiles): 256×128 for every
    // transpose pair at 2048, 4096, 8192; 64×64 at 3000 (its rounds: 2209 blocks,
    // 792 a round, the last one full enough), the 128-thread kernels on sm_80+.
    for n in [2048u64, 4096, 8192] {
        assert_eq!(decide(n, n, n), (tile_named("256x128"), 1, n.div_ceil(256) * n.div_ceil(128)), "n = {n}");
        for pair in 1..4 {
            assert_eq!(decide_pair(pair, n, n, n).0, tile_named("256x128"), "pair {pair}, n = {n}");
        }
    }
    assert_eq!(decide(3000, 3000, 3000).0, tile_named("64x64_t128"));
    // Short k on a large C: no split (the grid is several waves).
    assert_eq!(decide(4096, 4096, 256).1, 1);
}

#[test]
fn the_model_orders_the_measured_runs() {
    // (tile, m, n, k, split) measured on the H100 (mublas bench sgemm-tiles), faster first.
    let device = DeviceModel::h100_sxm();
    let tuner = tuner();
    let time = |name: &str, m: u64, n: u64, k: u64, split: u32| {
        let tile = tile_named(name);
        let spec = &TILE_KERNELS[tile][0];
        let shape = LaunchShape { tx: TILES[tile].threads, ty: 1, split };
        let plan = LaunchPlan::of_shape(tuner.device(), &model(tile), spec, &Problem { m, n, k }, shape);
        estimated_time(&device, &TILES[tile], 0, &plan, m, n, k)
    };
    // 8192 × 128 × 8192: split 4 (379 µs) < 8 (387) < 6 (506: two rounds of one block per SM).
    assert!(time("256x128", 8192, 128, 8192, 4) < time("256x128", 8192, 128, 8192, 8));
    assert!(time("256x128", 8192, 128, 8192, 8) < time("256x128", 8192, 128, 8192, 6));
    // 3000: 64×64 (1255) < 128×128 (1423) < 256×128 (1604).
    assert!(time("64x64", 3000, 3000, 3000, 1) < time("128x128", 3000, 3000, 3000, 1));
    assert!(time("128x128", 3000, 3000, 3000, 1) < time("256x128", 3000, 3000, 3000, 1));
    // 4096: 256×128 (2873) < 128×128 of 128 threads (3018) < of 256 (3040) < 64×64 (3182).
    assert!(time("256x128", 4096, 4096, 4096, 1) < time("128x128_t128", 4096, 4096, 4096, 1));
    assert!(time("128x128_t128", 4096, 4096, 4096, 1) < time("128x128", 4096, 4096, 4096, 1));
    assert!(time("128x128", 4096, 4096, 4096, 1) < time("64x64", 4096, 4096, 4096, 1));
    // 1024: 256×128 split 4 (65) < 128×128 split 4 (67) < split 2 (77: one block of two per SM).
    assert!(time("256x128", 1024, 1024, 1024, 4) < time("128x128", 1024, 1024, 1024, 4));
    assert!(time("128x128", 1024, 1024, 1024, 4) < time("128x128", 1024, 1024, 1024, 2));
    // 512: 64×64 split 8 (20.6) < split 4 (25.7) < split 2 (36.8).
    assert!(time("64x64", 512, 512, 512, 8) < time("64x64", 512, 512, 512, 4));
    assert!(time("64x64", 512, 512, 512, 4) < time("64x64", 512, 512, 512, 2));
    // And within 15 % of the measured µs where the model was fitted (not at 1 block
    // of 6 per SM: 64×64 split 2 at 512 ran 36.8 µs, the model says 26).
    for (name, m, n, k, split, us) in [
        ("256x128", 4096, 4096, 4096, 1, 2873.0),
        ("64x64", 3000, 3000, 3000, 1, 1255.0),
        ("256x128", 8192, 128, 8192, 4, 379.0),
        ("256x128", 1024, 1024, 1024, 4, 65.0),
        ("128x128", 2048, 2048, 2048, 1, 392.0),
        ("128x128", 1024, 1024, 1024, 2, 77.3),
        ("64x64", 512, 512, 512, 8, 20.6),
    ] {
        let estimate = time(name, m, n, k, split);
        assert!(
            (estimate / us - 1.0).abs() < 0.15,
            "{name} ({m}, {n}, {k}) split {split}: {estimate:.1} µs against {us}"
        );
    }
}

#[test]
fn older_gpus_are_not_offered_the_cp_async_tiles() {
    let mut device = DeviceModel::h100_sxm();
    device.compute_capability = (7, 5);
    let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
    let plans: Vec<LaunchPlan> = (0..TILES.len())
        .map(|tile| tuner.plan(&TILE_KERNELS[tile][0], &model(tile), &Problem { m: 4096, n: 4096, k: 0 }))
        .collect();
    assert_eq!(TILES[choose_tile(&device, 0, &plans, 4096, 4096, 4096)].name, "128x128");
    // The 64×64 tile of 64 threads there; its successor of 128 threads from sm_80 on.
    assert!(tile_suits(&device, &TILES[tile_named("64x64")]));
    assert!(!tile_suits(&device, &TILES[tile_named("64x64_t128")]));
    let (tile, _, _) = decide(127, 129, 1023);
    assert_eq!(TILES[tile].name, "64x64_t128");
    let plans: Vec<LaunchPlan> = (0..TILES.len())
        .map(|tile| tile_plan(&tuner, &TILE_KERNELS[tile][0], &model(tile), &TILES[tile], 0, 127, 129, 1023))
        .collect();
    assert_eq!(TILES[choose_tile(&device, 0, &plans, 127, 129, 1023)].name, "64x64");
}

#[test]
fn small_c_with_long_k_splits() {
    let every_sm = (FULL_COVERAGE * 132.0) as u64;
    // (256, 256, 65536): 2 to 16 tiles — split to fill the GPU.
    let (tile, split, blocks) = decide(256, 256, 65536);
    assert!(split >= 8 && blocks >= every_sm, "tile {tile} split {split} blocks {blocks}");
    // (8192, 128, 8192): 32 to 128 tiles.
    let (_, split, blocks) = decide(8192, 128, 8192);
    assert!(split > 1 && blocks >= every_sm, "split {split} blocks {blocks}");
    // Odd and small: split down to a few k tiles a block, to engage the SMs.
    let (_, split, blocks) = decide(127, 129, 1023);
    assert!(split >= 8 && blocks >= 96, "split {split} blocks {blocks}");
}

#[test]
fn middle_sizes_engage_every_sm() {
    for n in [512u64, 1024] {
        let (tile, split, blocks) = decide(n, n, n);
        assert!(blocks >= 128, "n = {n}: tile {tile} split {split} blocks {blocks}");
    }
}

#[test]
fn the_choice_is_deterministic() {
    for (m, n, k) in [(1u64, 1u64, 1u64), (33, 7, 129), (1000, 1000, 1000), (5000, 64, 9000)] {
        assert_eq!(decide(m, n, k), decide(m, n, k));
    }
}

/// transposed_a_choice's rule without a GPU: the panel rows when copying A^T pays.
fn decide_transposed_a(pair: usize, m: u64, n: u64, k: u64) -> Option<u64> {
    let tuner = tuner();
    let device = tuner.device().clone();
    let direct = decide_pair(pair, m, n, k).0;
    let direct_plan = tile_plan(&tuner, &TILE_KERNELS[direct][pair * 2], &model(direct), &TILES[direct], pair, m, n, k);
    let panel_rows = transposed_a_panel_rows(m, k)?;
    let untransposed = pair - 2;
    let panel_plan = |rows: u64| {
        let tile = decide_pair(untransposed, rows, n, k).0;
        (tile, tuner.plan(&TILE_KERNELS[tile][untransposed * 2], &model(tile), &Problem { m: rows, n, k: 0 }))
    };
    transposed_a_pays(&device, pair, (direct, &direct_plan), m, n, k, panel_rows, panel_plan).then_some(panel_rows)
}

/// split_tail_rule without a GPU: (main tile, cut, main length) when a split tail pays.
fn decide_split_tail(pair: usize, m: u64, n: u64, k: u64) -> Option<(usize, Cut, u64)> {
    let tuner = tuner();
    let device = tuner.device().clone();
    let direct = decide_pair(pair, m, n, k).0;
    let direct_plan = tile_plan(&tuner, &TILE_KERNELS[direct][pair * 2], &model(direct), &TILES[direct], pair, m, n, k);
    let main_plan =
        |tile: usize, m: u64, n: u64| tuner.plan(&TILE_KERNELS[tile][pair * 2], &model(tile), &Problem { m, n, k: 0 });
    let rest_plan = |m: u64, n: u64| {
        let tile = decide_pair(pair, m, n, k).0;
        (tile, tile_plan(&tuner, &TILE_KERNELS[tile][pair * 2], &model(tile), &TILES[tile], pair, m, n, k))
    };
    split_tail_choice(&device, pair, (direct, &direct_plan), m, n, k, main_plan, rest_plan)
}

#[test]
fn a_nearly_empty_last_round_is_split_off() {
    let device = DeviceModel::h100_sxm();
    let tuner = tuner();
    let plan = |m: u64, n: u64| tuner.plan(&TILE_KERNELS[0][0], &model(0), &Problem { m, n, k: 0 });
    let main = |m: u64, n: u64, cut: Cut| split_tail_main(&device, &TILES[0], &plan(m, n), cut, m, n);
    // 3000² on 256×128: 12 × 24 tiles, rounds of 132, 132, 24: 22 tile
    // columns (of 12 tiles) or 11 tile rows (of 24) fill two rounds.
    assert_eq!(main(3000, 3000, Cut::Columns), Some(22 * 128));
    assert_eq!(main(3000, 3000, Cut::Rows), Some(11 * 256));
    // 20000 × 256: 79 × 2 tiles, rounds of 132 and 26: 66 tile rows; one
    // tile column of 79 would leave the main part's round 40 % idle.
    assert_eq!(main(20000, 256, Cut::Rows), Some(66 * 256));
    assert_eq!(main(20000, 256, Cut::Columns), None);
    // 8192²: 61 tile columns of 32 fill 14 rounds and 79 % of a 15th.
    assert_eq!(main(8192, 8192, Cut::Columns), None);
    // One round, or rounds all full (132 × 2 tiles: 12 × 22), or split: nothing to split off.
    assert_eq!(main(2048, 2048, Cut::Columns), None);
    assert_eq!(main(3000, 2816, Cut::Columns), None);
    assert_eq!(main(3000, 2816, Cut::Rows), None);
    let split = tile_plan(&tuner, &TILE_KERNELS[0][0], &model(0), &TILES[0], 0, 1024, 1024, 1024);
    assert!(split.geometry.grid.2 > 1);
    assert_eq!(split_tail_main(&device, &TILES[0], &split, Cut::Columns, 1024, 1024), None);
    assert_eq!(Cut::Rows.parts(3000, 200, 2816), [(2816, 200), (184, 200)]);
    assert_eq!(Cut::Columns.parts(3000, 200, 128), [(3000, 128), (3000, 72)]);
    // The rule on the H100 model: 3000² (every pair's direct plan) gains, by columns at equal times.
    for pair in 0..4 {
        assert_eq!(decide_split_tail(pair, 3000, 3000, 3000), Some((0, Cut::Columns, 2816)), "pair {pair}");
    }
    // Tall C: by rows.
    assert_eq!(decide_split_tail(0, 20000, 256, 4096), Some((0, Cut::Rows, 16896)));
    for n in [1024u64, 2048, 4096] {
        assert_eq!(decide_split_tail(0, n, n, n), None, "n = {n}");
    }
    // 10000² on 256×128: 3160 blocks, the last round 124 of 132 (measured: a
    // tail on 128×128_t128 ran 2.8 % slower than the direct 256×128).
    assert_eq!(decide_split_tail(0, 10000, 10000, 10000), None);
    assert_eq!(decide_split_tail(1, 10000, 10000, 10000), None);
}

#[test]
fn panels_of_a_transposed_fit_the_work_buffer() {
    // 4096 × 4096: 64 MiB, one panel.
    assert_eq!(transposed_a_panel_rows(4096, 4096), Some(4096));
    assert_eq!(transposed_a_panel_rows(4095, 4096), Some(4095));
    // 8192²: four panels of 2048 rows; 6144²: three of 2048; 5000 × 8192: three of 1792 (the last 1416).
    assert_eq!(transposed_a_panel_rows(8192, 8192), Some(2048));
    assert_eq!(transposed_a_panel_rows(6144, 6144), Some(2048));
    assert_eq!(transposed_a_panel_rows(5000, 8192), Some(1792));
    assert_eq!(panels(5000, 1792).collect::<Vec<_>>(), [(0, 1792), (1792, 1792), (3584, 1416)]);
    assert_eq!(panels(7, 3).collect::<Vec<_>>(), [(0, 3), (3, 3), (6, 1)]);
    for (m, k) in [(8192u64, 8192u64), (100_000, 3000), (3_000_000, 1), (1, 65536), (20000, 20000), (257, 65535)] {
        let rows = transposed_a_panel_rows(m, k).unwrap();
        assert!(transposed_a_ld(rows) * k * 4 <= transposed_a::PANEL_BYTES_MAX, "({m}, {k}): {rows} rows");
        assert!(
            rows <= transposed_a::PANEL_ROWS_MAX && (rows == m || rows.is_multiple_of(transposed_a::PANEL_ROW_GRANULE)),
            "({m}, {k}): {rows}"
        );
    }
    // Not even 256 rows fit.
    assert_eq!(transposed_a_panel_rows(1000, 65537), None);
}

#[test]
fn large_tn_and_tt_copy_a_transposed_first() {
    // On the H100 (transposed_a's constants): TT gains from n = 2048 and
    // TN, whose direct kernel is within 3–5 % of NN's, from 3000 (at
    // 2048 the copy took 17–19 µs, and TN direct measured 1 % faster than
    // with it); both for the wide C of
    // gpu_sgemm_tn_and_tt_with_a_transposed_first.
    for (m, n, k) in
        [(3000u64, 3000u64, 3000u64), (4096, 4096, 4096), (6144, 6144, 6144), (8192, 8192, 8192), (1024, 8192, 1024)]
    {
        for pair in [2, 3] {
            assert!(decide_transposed_a(pair, m, n, k).is_some(), "pair {pair}, ({m}, {n}, {k})");
        }
    }
    for (m, n, k) in [(2048u64, 2048u64, 2048u64), (512, 8192, 1024)] {
        assert!(decide_transposed_a(3, m, n, k).is_some(), "TT ({m}, {n}, {k})");
        assert_eq!(decide_transposed_a(2, m, n, k), None, "TN ({m}, {n}, {k})");
    }
    for n in [256u64, 512, 1024] {
        for pair in [2, 3] {
            assert_eq!(decide_transposed_a(pair, n, n, n), None, "pair {pair}, n = {n}");
        }
    }
    // Not measured before Ampere: never there.
    let mut volta = DeviceModel::h100_sxm();
    volta.compute_capability = (7, 0);
    let plan = tuner().plan(&TILE_KERNELS[2][4], &model(2), &Problem { m: 4096, n: 4096, k: 0 });
    assert!(!transposed_a_pays(&volta, 2, (2, &plan), 4096, 4096, 4096, 4096, |_| (2, plan)));
    // Split-K shapes keep their split: the panel would run unsplit.
    for (m, n, k) in [(256u64, 256u64, 65536u64), (8192, 128, 8192), (127, 129, 1023)] {
        assert_eq!(decide_transposed_a(2, m, n, k), None, "({m}, {n}, {k})");
    }
}

/// Prints the decisions for the benchmark's sizes, every transpose pair (`cargo test -- --nocapture decisions_table`).
#[test]
fn stream_k_shares_the_last_round_on_h100() {
    // Without a GPU, on the H100 model: (pair, m, n, k) → what stream-K shares of the 256×128 plan.
    let decide_stream_k = |pair: usize, m: u64, n: u64, k: u64| {
        let tuner = tuner();
        let plan = tile_plan(&tuner, &TILE_KERNELS[0][pair * 2 + 1], &model(0), &TILES[0], pair, m, n, k);
        stream_k_choice(tuner.device(), &TILES[0], pair, &plan, m, n, k)
    };
    // 4096²: a last round of 116 tiles of 132; 8192²: of 68. 2048²'s one
    // round of 128 would lose more to the stream-K kernels' speed than
    // the 4 idle SMs cost.
    assert_eq!(decide_stream_k(0, 4096, 4096, 4096), Some((116, 132)));
    assert_eq!(decide_stream_k(1, 4096, 4096, 4096), Some((116, 132)));
    assert_eq!(decide_stream_k(2, 8192, 8192, 8192), Some((68, 132)));
    assert_eq!(decide_stream_k(0, 2048, 2048, 2048), None);
    // NT over long k at its own efficiency: 6144 × 640's one round of 120 tiles (91 %)
    // measured 7 % faster shared at k = 4096; not at 2048, nor for NN.
    assert_eq!(decide_stream_k(1, 6144, 640, 4096), Some((120, 132)));
    assert_eq!(decide_stream_k(1, 6144, 640, 2048), None);
    assert_eq!(decide_stream_k(0, 6144, 640, 4096), None);
    // A last round of 24 is shared with the round before it (3000², where a split tail runs instead).
    assert_eq!(decide_stream_k(0, 3000, 3000, 3000), Some((156, 132)));
    assert_eq!(decide_pair(0, 2048, 2048, 2048).0, 0);
    assert_eq!(decide_pair(0, 8192, 8192, 8192).0, 0);
    // Whole rounds: nothing to share. Too little k per block: not worth the fixup.
    assert_eq!(decide_stream_k(0, 256 * 132, 128, 4096), None);
    assert_eq!(decide_stream_k(0, 4096, 4096, 64), None);
    // Each block gets at least MIN_K_PER_BLOCK of k.
    for (m, n, k) in [(8192u64, 8192u64, 8192u64), (4096, 4096, 4096), (3000, 3000, 3000)] {
        let (tiles, blocks) = decide_stream_k(0, m, n, k).unwrap();
        assert!(tiles * k >= blocks as u64 * stream_k::MIN_K_PER_BLOCK);
    }
}

#[test]
fn decisions_table() {
    for (m, n, k) in [
        (256u64, 256u64, 256u64),
        (512, 512, 512),
        (1024, 1024, 1024),
        (2048, 2048, 2048),
        (3000, 3000, 3000),
        (4096, 4096, 4096),
        (5000, 5000, 5000),
        (6144, 6144, 6144),
        (8192, 8192, 8192),
        (10000, 10000, 10000),
        (20000, 256, 4096),
        (12000, 512, 4096),
        (20000, 256, 256),
        (20000, 256, 512),
        (17000, 256, 1024),
        (4096, 4096, 256),
        (512, 8192, 1024),
        (256, 256, 65536),
        (8192, 128, 8192),
        (127, 129, 1023),
    ] {
        for (pair, name) in ["NN", "NT", "TN", "TT"].iter().enumerate() {
            let (tile, split, blocks) = decide_pair(pair, m, n, k);
            let transposed = if pair >= 2 { decide_transposed_a(pair, m, n, k) } else { None };
            let tail = decide_split_tail(pair, m, n, k)
                .map(|(tile, cut, main)| format!("{} over the first {main} {cut:?}", TILES[tile].name));
            let tuner = tuner();
            let plan = tile_plan(&tuner, &TILE_KERNELS[tile][pair * 2 + 1], &model(tile), &TILES[tile], pair, m, n, k);
            let stream_k = if tile == 0 && pair < 3 {
                stream_k_choice(tuner.device(), &TILES[0], pair, &plan, m, n, k)
            } else {
                None
            };
            println!(
                "{name} ({m}, {n}, {k}): {} split {split}, {blocks} blocks, A^T copied: {transposed:?}, split tail: {tail:?}, stream-K of the direct plan: {stream_k:?}",
                TILES[tile].name
            );
        }
    }
}
