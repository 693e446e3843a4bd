//! Shared by the SGEMM unit tests: the H100 model the decisions are checked on,
//! the rule's decisions without a GPU, and an SGEMM on the host.

use super::*;
use crate::tuner::{DeviceModel, ForcedShapes, KernelModel, LaunchPlan, Problem, RecipeBook, Tuner};

/// An SGEMM's operands on the host (small integers, exact in f64, with
/// `pad` extra rows in each leading dimension) and its C over C's whole
/// storage, NaN outside the m × n it defines.
pub(super) struct HostGemm {
    pub(super) lda: i64,
    pub(super) ldb: i64,
    pub(super) ldc: i64,
    pub(super) a: Vec<f64>,
    pub(super) b: Vec<f64>,
    pub(super) expected: Vec<f64>,
}

impl HostGemm {
    pub(super) fn new(ta: Transpose, tb: Transpose, m: i64, n: i64, k: i64, pad: i64) -> HostGemm {
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
pub(super) fn assert_same(expected: &[f64], got: &[f64], what: &str) {
    for (e, v) in expected.iter().zip(got) {
        assert!(e == v || (e.is_nan() && v.is_nan()), "{what}: {expected:?} against {got:?}");
    }
}

/// The H100 model with the kernels' ptxas figures (sm_90).
pub(super) fn tuner() -> Tuner {
    Tuner::new(DeviceModel::h100_sxm(), RecipeBook::built_in(), ForcedShapes::new())
}

pub(super) fn model(tile: usize) -> KernelModel {
    pair_model(tile, 0)
}

/// [`model`] for one transpose pair: the 64×64 tile of 128 threads runs TN at
/// four blocks per SM (128 registers), the other pairs at six.
pub(super) fn pair_model(tile: usize, pair: usize) -> KernelModel {
    match TILES[tile].name {
        "256x128" => KernelModel { registers_per_thread: 232, static_shared_bytes: 0, max_threads_per_block: 256 },
        "128x128_t128" => KernelModel { registers_per_thread: 232, static_shared_bytes: 0, max_threads_per_block: 128 },
        "128x128" => KernelModel { registers_per_thread: 128, static_shared_bytes: 16_896, max_threads_per_block: 256 },
        // NN and NT; TN and TT have 26 112 bytes (k tiles of 16 in three stages).
        "64x64_t128" => KernelModel {
            registers_per_thread: if pair == 2 { 128 } else { 80 },
            static_shared_bytes: if pair >= 2 { 26_112 } else { 17_408 },
            max_threads_per_block: 128,
        },
        "128x64" => KernelModel { registers_per_thread: 255, static_shared_bytes: 0, max_threads_per_block: 64 },
        "256x64" => KernelModel { registers_per_thread: 255, static_shared_bytes: 0, max_threads_per_block: 128 },
        _ => KernelModel { registers_per_thread: 168, static_shared_bytes: 8_704, max_threads_per_block: 64 },
    }
}

/// tile_plan for a tile's kernel of a transpose pair, with that pair's ptxas figures ([`pair_model`]).
pub(super) fn pair_tile_plan(tuner: &Tuner, tile: usize, pair: usize, m: u64, n: u64, k: u64) -> LaunchPlan {
    tile_plan(tuner, &TILE_KERNELS[tile][pair * 2], &pair_model(tile, pair), &TILES[tile], pair, m, n, k)
}

pub(super) fn tile_named(name: &str) -> usize {
    TILES.iter().position(|tile| tile.name == name).unwrap()
}

/// plan_multiply's rule without a GPU for a transpose pair: returns (tile, split, blocks).
pub(super) fn decide_pair(pair: usize, m: u64, n: u64, k: u64) -> (usize, u32, u64) {
    decide_pair_vec(pair, true, m, n, k)
}

/// The same for the `_vec` kernels or the others.
pub(super) fn decide_pair_vec(pair: usize, vec: bool, m: u64, n: u64, k: u64) -> (usize, u32, u64) {
    let tuner = tuner();
    let device = tuner.device().clone();
    let plans: Vec<LaunchPlan> = (0..TILES.len()).map(|tile| pair_tile_plan(&tuner, tile, pair, m, n, k)).collect();
    let tile = choose_tile(&device, pair, vec, &plans, m, n, k);
    (tile, plans[tile].geometry.grid.2, plans[tile].geometry.blocks())
}

pub(super) fn decide(m: u64, n: u64, k: u64) -> (usize, u32, u64) {
    decide_pair(0, m, n, k)
}

/// copied_a_choice's rule without a GPU: the panel rows when copying op(A)
/// pays, every plan with float4 operands.
pub(super) fn decide_copied_a(pair: usize, m: u64, n: u64, k: u64) -> Option<u64> {
    decide_copied_a_vec(pair, m, n, k, true, true)
}

/// The same, the direct plan's and the panels' `_vec` kernels as given.
pub(super) fn decide_copied_a_vec(
    pair: usize,
    m: u64,
    n: u64,
    k: u64,
    direct_vec: bool,
    panel_vec: bool,
) -> Option<u64> {
    let tuner = tuner();
    let device = tuner.device().clone();
    let direct = decide_pair_vec(pair, direct_vec, m, n, k).0;
    let direct_plan = pair_tile_plan(&tuner, direct, pair, m, n, k);
    let panel_rows = copied_a_panel_rows(m, k)?;
    let untransposed = pair % 2;
    let panel_plan = |rows: u64| {
        let tile = decide_pair_vec(untransposed, panel_vec, rows, n, k).0;
        (
            tile,
            tuner.plan(
                &TILE_KERNELS[tile][untransposed * 2 + panel_vec as usize],
                &pair_model(tile, untransposed),
                &Problem { m: rows, n, k: 0 },
            ),
            panel_vec,
        )
    };
    copied_a_pays(&device, pair, (direct, &direct_plan, direct_vec), m, n, k, panel_rows, panel_plan)
        .then_some(panel_rows)
}

/// split_tail_rule without a GPU: (main tile, cut, main length) when a split tail pays.
pub(super) fn decide_split_tail(pair: usize, m: u64, n: u64, k: u64) -> Option<(usize, Cut, u64)> {
    let tuner = tuner();
    let device = tuner.device().clone();
    let direct = decide_pair(pair, m, n, k).0;
    let direct_plan = pair_tile_plan(&tuner, direct, pair, m, n, k);
    let main_plan = |tile: usize, m: u64, n: u64| {
        tuner.plan(&TILE_KERNELS[tile][pair * 2], &pair_model(tile, pair), &Problem { m, n, k: 0 })
    };
    let rest_plan = |m: u64, n: u64| {
        let tile = decide_pair(pair, m, n, k).0;
        (tile, pair_tile_plan(&tuner, tile, pair, m, n, k))
    };
    split_tail_choice(&device, pair, (direct, &direct_plan), m, n, k, main_plan, rest_plan)
}
