use super::testing::*;
use super::*;

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
fn flops_are_two_m_n_k() {
    assert_eq!(flops(4096, 4096, 4096), 2.0 * 4096f64.powi(3));
    assert_eq!(flops(0, 5, 5), 0.0);
}

/// Prints the decisions at the and the benchmark's shapes (a tool,
/// not a check): `cargo test --release --lib decisions_table -- --ignored --nocapture`.
#[test]
#[ignore]
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
            // NN and NT copy A only where it takes no float4 (and the copy would).
            let copied = if pair >= 2 {
                decide_copied_a(pair, m, n, k)
            } else {
                decide_copied_a_vec(pair, m, n, k, false, true)
            };
            let tail = decide_split_tail(pair, m, n, k)
                .map(|(tile, cut, main)| format!("{} over the first {main} {cut:?}", TILES[tile].name));
            let tuner = tuner();
            let plan = tile_plan(
                &tuner,
                &TILE_KERNELS[tile][pair * 2 + 1],
                &pair_model(tile, pair),
                &TILES[tile],
                pair,
                m,
                n,
                k,
            );
            let stream_k = if tile == 0 && pair < 3 {
                stream_k_choice(tuner.device(), &TILES[0], pair, &plan, m, n, k)
            } else {
                None
            };
            println!(
                "{name} ({m}, {n}, {k}): {} split {split}, {blocks} blocks, op(A) copied (NN, NT: if A took no float4): {copied:?}, split tail: {tail:?}, stream-K of the direct plan: {stream_k:?}",
                TILES[tile].name
            );
        }
    }
}

#[test]
fn decision_summary_says_what_ran() {
    let gemv = AsGemv { trans: 1, m: 4096, n: 8, a: 0, lda: 4096, x: 0, incx: 1, y: 0, incy: 1 };
    let decision = GemmDecision {
        path: GemmPath::Multiply,
        kernel: None,
        plan: None,
        copied_a_panel_rows: Some(2048),
        split_tail: None,
        stream_k: None,
        as_gemv: Some(gemv),
        skinny: None,
    };
    assert_eq!(decision.summary(), "Multiply as SGEMV T 4096x8, op(A) copied in panels of 2048 rows");
}
