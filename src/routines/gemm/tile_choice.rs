//! Which tile, and which split of k, a multiply runs.
//!
//! The choice, per call (all of it pure, in [`choose_tile`]):
//!
//! 1. For each tile the tuner plans the unsplit launch (`Problem.k = 0`,
//!    which [`tile_geometry`](super::tile_geometry) reads as "no split").
//! 2. If that grid is under [`FULL_COVERAGE`] of one wave of the device
//!    (active blocks per SM × SMs), splitting k is worth
//!    considering: the splits ([`SPLITS`] and those that fill whole rounds,
//!    [`candidate_splits`]) are planned in turn (the tuner's block, the
//!    split's geometry and occupancy) up to the first that takes
//!    [`SPLIT_ROUNDS_MAX`] rounds of blocks, and the one of the least
//!    [`estimated_time`] kept ([`tile_plan`]; a round filler must be ahead
//!    by [`FILLING_SPLIT_MARGIN`]). [`tile_geometry`](super::tile_geometry) caps the
//!    split at `k / MIN_K_PER_SPLIT` and at `MAX_PARTIAL_BYTES` of partial sums.
//! 3. Between the tiles meant for the device ([`tile_suits`]),
//!    the least [`estimated_time`] ([`choose_tile`]): a model of rounds of
//!    blocks on the busiest SM, with each tile's measured efficiency per
//!    transpose pair, the throughput of the warps an SM holds in the last
//!    round (counted per warp scheduler), and the reduction's cost for a
//!    split. Its constants ([`time_model`]) come from the H100 and H200;
//!    elsewhere only their ranking of the candidates matters.
//! 4. Then whether to copy op(A) first (A^T for TN and TT, "Transposed A";
//!    for NN and NT an A without float4 onto a float4 leading dimension), and
//!    for the multiply that runs, whether to split off its last round
//!    ("Split tail") or, failing that, to share it ("Stream-K"), all by the
//!    same model.

use super::kernels::{TILES, Tile};
use crate::tuner::{DeviceModel, KernelModel, KernelSpec, LaunchPlan, LaunchShape, Occupancy, Problem, Tuner};

/// Split-K factors the tuner may choose (the optimizer's extra dimension).
/// 5 fills a wave where 4 leaves a quarter of it idle: 96 tiles of 128×64
/// (4096 × 192) make 480 blocks of 528 on 132 SMs (cuBLAS splits 48 tiles of
/// 256×64 five ways there). 7 likewise: 36 tiles of 256×64 (3000 × 192)
/// make 252 blocks of 264, where 6 made 216 (14336 k: 352 against 409 µs,
/// NN on an H200).
pub const SPLITS: &[u32] = &[1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64];
/// The largest split of k any tile plan takes: the last of [`SPLITS`], which
/// also caps the round fillers of [`candidate_splits`].
pub const LARGEST_SPLIT: u32 = SPLITS[SPLITS.len() - 1];
/// The splits [`tile_plan`] weighs for a grid of `tiles` blocks unsplit,
/// `per_round` a round, in increasing order: those of [`SPLITS`] above 1 and, for each count
/// of rounds up to [`SPLIT_ROUNDS_MAX`], the largest split whose blocks fit
/// in that many (⌊r · per_round / tiles⌋, up to [`LARGEST_SPLIT`]).
/// SPLITS alone can leave a round mostly idle: 12 tiles of 256×128 (256 ×
/// 1536) on 132 SMs split 8 fill 96 of 132 and split 12 takes a second
/// round for 12 blocks, where split 11 fills the round; NN 256 × 1536 × 8192
/// took 135.6 µs split 11, 163.1 on the split 32 chosen before and 177.5
/// split 8 (H100, kernel time with the reduction by graph replay; cuBLAS
/// 137.2, which splits its 256×128 tiles 11 ways there).
pub fn candidate_splits(tiles: u64, per_round: u64) -> Vec<u32> {
    let mut splits: Vec<u32> = SPLITS.iter().copied().filter(|&split| split > 1).collect();
    for rounds in 1..=SPLIT_ROUNDS_MAX {
        let filling = (rounds * per_round / tiles.max(1)).min(LARGEST_SPLIT as u64) as u32;
        if filling > 1 {
            splits.push(filling);
        }
    }
    splits.sort_unstable();
    splits.dedup();
    splits
}

/// A split outside [`SPLITS`] (a round filler of [`candidate_splits`]) is
/// weighed at this much over its [`estimated_time`] (`weighed_time`): it
/// must be that far ahead of the plans the model was fitted on. Where the
/// model put a filler 0.4–1.9 % ahead, it ran anywhere from 2.4 % slower
/// to 7 % faster (20 shapes, 14 of them slower, most of them two rounds of
/// 256×128 at k = 4096 split 11 against one round split 5: the model's
/// fixed 1.5 µs per round undercharges the second); from 2.2 % ahead, 84 of
/// 88 ran faster (by up to 31 %) and 4 within 0.5 % slower (H100, kernel
/// time by graph replay; docs/performance.md, "Splits that fill a round").
pub const FILLING_SPLIT_MARGIN: f64 = 0.02;

/// [`estimated_time`] as [`tile_plan`] and [`choose_tile`] weigh a plan:
/// with [`FILLING_SPLIT_MARGIN`] added where its split is not one of [`SPLITS`].
fn weighed_time(device: &DeviceModel, tile: &Tile, pair: usize, plan: &LaunchPlan, m: u64, n: u64, k: u64) -> f64 {
    let time = estimated_time(device, tile, pair, plan, m, n, k);
    if SPLITS.contains(&plan.geometry.grid.2) { time } else { time * (1.0 + FILLING_SPLIT_MARGIN) }
}

/// [`tile_plan`] tries larger splits until one takes this many rounds of
/// blocks: a split that adds a round can still fill the last one better
/// (384 blocks of 256×128, 2.9 rounds, against 192, 1.5).
pub const SPLIT_ROUNDS_MAX: u64 = 4;
/// Each split gets at least this much of k (4 k tiles of the register-staged
/// kernels, 2 of the cp.async ones).
pub const MIN_K_PER_SPLIT: u64 = 32;
/// Partial sums in the work buffer stay below this.
pub const MAX_PARTIAL_BYTES: u64 = 64 << 20;
/// A grid of fewer blocks than this fraction of one wave is worth splitting
/// (128 blocks of 256×128 on the H100's 132 SMs are one wave, 3 % idle:
/// splitting k would only trade that for partial sums).
pub const FULL_COVERAGE: f64 = 0.95;

/// [`estimated_time`]'s constants, measured on the H100 (`mublas bench sgemm-tiles`).
pub mod time_model {
    /// µs for one k of a 128×128 block on a fully occupied SM (a 128×128 block
    /// of 256 threads, two per SM, at n = 2048: 391.9 µs for k = 2048, two at a time).
    pub const US_PER_K_OF_128X128: f64 = 0.0952;
    /// Fixed µs per block round: the pipeline filling, the epilogue.
    pub const ROUND_US: f64 = 1.5;
    /// A split's fixed µs: the reduction's launch and its own rounds. 8 until
    /// 2026-12: with it the model put NN 384 × 384 × 256 split 7 at 14.6 µs,
    /// which took 7.7 with its reduction (H200, graph replay); a fit to every
    /// plan of 200 shapes had put it at 2.1. Lowered alone it let the
    /// small tile split where unsplit was faster; with
    /// [`FILL_EXPONENT_64X64_T128`] the two moved 1085 of 7404 plans on a grid
    /// (m, n 64-14336, k 64-14336, all pairs), 1.062x faster by geometric
    /// mean in the library (`scripts/sgemm-builds.py`, H200; 63 slower by
    /// more than 3 %).
    pub const REDUCE_US: f64 = 3.0;
    /// Partial sums written and read back, bytes per µs (mostly through the L2).
    pub const PARTIAL_BYTES_PER_US: f64 = 4.0e6;
    /// An SM holding c of the a blocks it could runs at (c / a)^FILL_EXPONENT
    /// of its full speed: a lone 128×128 block of a kernel made for two ran
    /// at ~0.75 (n = 1024, split 2), 64×64 blocks at 1, 2 and 4 of 6 at about
    /// 0.3, 0.5 and 0.9 (n = 512).
    pub const FILL_EXPONENT: f64 = 0.5;
    /// The 128×128 tile of 128 threads: one block of the two an SM holds ran
    /// at 0.56–0.60 of their speed (H200, kernel time by graph replay,
    /// `scripts/gemm-small-ab.py`, 16384 × 128 against 16384 × 256, k = 256
    /// and 1024, all four pairs: NN 44.9 µs for 128 blocks, 52.0 for 256),
    /// where the 256×64 tile's lone block, as many threads and outputs, ran
    /// at 0.83–0.89 (29.9 against 49.4 µs). Of a grid of 4032 shapes, this
    /// moved 102 plans off lone 128×128_t128 blocks (to 128×128, 128×64 and
    /// 64×64_t128); in the library (`scripts/sgemm-builds.py`, H200) 40 of
    /// them ran 1–31 % faster (TN 4096 × 448 × 256 48.4 -> 33.7 µs, cuBLAS
    /// 30.1) and none slower by more than 0.3 %.
    pub const FILL_EXPONENT_128X128_T128: f64 = 0.8;
    /// The small tile (64×64 of 128 threads, cp.async stages, six blocks an
    /// SM; TN four): part-filled SMs lose less than FILL_EXPONENT says. H200,
    /// kernel time by graph replay (`scripts/gemm-small-ab.py`), NN, k = 512,
    /// unsplit: two, three and four blocks an SM ran at 0.83, 0.86 and 0.97 of
    /// six's speed a block (0.5 gives 0.58, 0.71 and 0.82; 0.2 gives 0.80,
    /// 0.87 and 0.92), so the tuner split to fill SMs where fewer blocks were
    /// faster (NT 1000 × 1536 × 512: split 2 48.6 µs, unsplit 39.7; TT 256 ×
    /// 256 × 4096: split 48 23.1, split 32 20.2). Chosen with [`REDUCE_US`]
    /// (docs/performance.md, "The small tile's fill and the reduction's cost"):
    /// a least-squares fit had put it at 0.20 before.
    pub const FILL_EXPONENT_64X64_T128: f64 = 0.2;
    /// The 128×64 tile (two warps a block, four blocks an SM): a grid of
    /// more than one round took about as long as if its last round were
    /// full. NN 2048 × 192 × 8192 on an H200 (kernel time by graph replay):
    /// split 5, 240 blocks in one round, 157.9 µs; split 16, 528 + 240 blocks,
    /// 190.9, where 240 blocks spread two an SM would take about 146; split
    /// 32, 2 × 528 + 480, 160.2. Blocks that finish together free a whole
    /// SM, and the next four land there. Fitted with the other constants
    /// to 11068 plans of 200 shapes (`scripts/sgemm-model-fit.py`): 0.91;
    /// alone in the model, anything from 0.75 to 1 moved the same 3 of
    /// those 200 decisions, each to a plan that ran 12–16 % faster (NN
    /// 14336 × 384 × 1024 358.6 -> 301.4 µs on 64×64_t128; TN 14336 × 448 ×
    /// 512 210.3 -> 182.5 on 256×128; TT 3000 × 2048 × 256 99.0 -> 87.2).
    pub const TAIL_PACKING_128X64: f64 = 0.9;
    /// Warp schedulers per SM: an SM's warps are dealt to its sub-partitions
    /// in turn, and a round lasts as long as the sub-partition with the most.
    pub const SUB_PARTITIONS: u64 = 4;
}

/// Whether splitting k is worth considering for an unsplit plan: its grid is
/// less than one wave of the device, short of [`FULL_COVERAGE`].
pub fn split_worthwhile(device: &DeviceModel, unsplit: &LaunchPlan) -> bool {
    let wave = unsplit.occupancy.blocks_per_wave(device);
    (unsplit.geometry.blocks() as f64) < FULL_COVERAGE * wave as f64
}

/// Whether a tile is meant for the device (see [`Tile::min_compute_capability`]
/// and [`Tile::superseded_from`]).
pub fn tile_suits(device: &DeviceModel, tile: &Tile) -> bool {
    device.compute_capability >= tile.min_compute_capability
        && tile.superseded_from.is_none_or(|successor| device.compute_capability < successor)
}

/// The estimated µs of a tile's plan (module docs, step 3). Blocks run in
/// rounds of `a × SMs` (a: active blocks per SM); a round takes as long as
/// its busiest SM, which holds `c` blocks: `c × work / (efficiency × (c /
/// a)^fill_exponent)` (the efficiency at the blocks' k, [`Tile::efficiency_at`])
/// plus a fixed [`time_model::ROUND_US`]; the last round's
/// `c` is its blocks over the SMs, or, for the share [`Tile::tail_packing`]
/// of a grid of several rounds, `a`. A split adds the reduction and the partial sums.
pub fn estimated_time(
    device: &DeviceModel,
    tile: &Tile,
    pair: usize,
    plan: &LaunchPlan,
    m: u64,
    n: u64,
    k: u64,
) -> f64 {
    use time_model::*;
    let active = plan.occupancy.active_blocks_per_sm as u64;
    let sms = device.sm_count as u64;
    if active == 0 || sms == 0 {
        return f64::INFINITY;
    }
    let split = plan.geometry.grid.2.max(1) as u64;
    let blocks = plan.geometry.blocks();
    // The most k a block of the plan covers, in whole k tiles of 8 (as the kernels step).
    let k_per_block = (k.div_ceil(8).div_ceil(split) * 8) as f64;
    let round = |c: u64| block_round_us(tile, pair, active, k_per_block, c);
    let per_round = active * sms;
    let whole_rounds = blocks / per_round;
    let mut time = whole_rounds as f64 * round(active);
    let rest = blocks % per_round;
    if rest > 0 {
        // After full rounds, a share of the last round's blocks land on the SMs that free first, a full SM's worth each.
        let packed = if whole_rounds > 0 { tile.tail_packing } else { 0.0 };
        time += (1.0 - packed) * round(rest.div_ceil(sms).min(active)) + packed * round(active);
    }
    if split > 1 {
        time += REDUCE_US + 8.0 * m as f64 * n as f64 * split as f64 / PARTIAL_BYTES_PER_US;
    }
    time
}

/// [`estimated_time`]'s round: µs for an SM that holds `c` of the `active`
/// blocks it could, each covering `k` of a `tile`. With blocks of fewer warps
/// than [`time_model::SUB_PARTITIONS`], `c` blocks take as long as the most
/// that load the busiest sub-partition no more: three 128×64 blocks (two
/// warps each) put two warps on two of the four, as four blocks do, and ran
/// as long as four (H200, TN 4096 × 192 × 4096: split 4, 384 blocks, three
/// on most SMs, 210 µs; split 2, two on most, 228 µs for twice the k each).
pub(super) fn block_round_us(tile: &Tile, pair: usize, active: u64, k: f64, c: u64) -> f64 {
    use time_model::*;
    let warps = (tile.threads as u64).div_ceil(32);
    let busiest = (c * warps).div_ceil(SUB_PARTITIONS) * SUB_PARTITIONS;
    let c = (busiest as f64 / warps as f64).clamp(c as f64, active.max(c) as f64);
    let work = (tile.rows * tile.cols) as f64 / (128.0 * 128.0) * k * US_PER_K_OF_128X128;
    let throughput = (c / active as f64).powf(tile.fill_exponent);
    c * work / (tile.efficiency_at(pair, k) * throughput) + ROUND_US
}

/// A tile's plan for a multiply (module docs, steps 1–2): the tuner's unsplit
/// plan, or, when that is short of a wave, the split of the least
/// [`estimated_time`]; cached by the tuner ([`Tuner::plan_with`]). A shape
/// forced for the kernel wins, its split applied as far as k allows.
#[allow(clippy::too_many_arguments)]
pub fn tile_plan(
    tuner: &Tuner,
    spec: &KernelSpec,
    kernel: &KernelModel,
    tile: &Tile,
    pair: usize,
    m: u64,
    n: u64,
    k: u64,
) -> LaunchPlan {
    let full = Problem { m, n, k };
    tuner.plan_with(spec, kernel, &full, "tile_plan", || {
        let unsplit = tuner.plan(spec, kernel, &Problem { m, n, k: 0 });
        let device = tuner.device();
        if !unsplit.occupancy.is_runnable() || !split_worthwhile(device, &unsplit) {
            return unsplit;
        }
        let per_round = unsplit.occupancy.blocks_per_wave(device);
        let mut best = unsplit;
        let mut best_time = weighed_time(device, tile, pair, &unsplit, m, n, k);
        for split in candidate_splits(unsplit.geometry.blocks(), per_round) {
            let shape = LaunchShape { split, ..unsplit.shape };
            let geometry = (spec.geometry)(&full, &shape);
            if geometry.grid.2 != split {
                break; // capped by k or the partial sums: so are the larger splits
            }
            let occupancy = Occupancy::with_active_blocks(
                device,
                shape.tx * shape.ty,
                unsplit.occupancy.active_blocks_per_sm,
                &geometry,
            );
            let plan = LaunchPlan { shape, geometry, occupancy };
            if !tile.admits(geometry.blocks(), per_round) {
                break; // so would the larger splits; past a round unsplit, choose_tile passes the tile by
            }
            let time = weighed_time(device, tile, pair, &plan, m, n, k);
            if time < best_time {
                (best, best_time) = (plan, time);
            }
            if geometry.blocks() >= SPLIT_ROUNDS_MAX * per_round {
                break; // larger splits only add rounds and partial sums
            }
        }
        best
    })
}

/// Picks the tile: `plans[i]` is the plan of `TILES[i]` (split or not) for
/// the transpose pair `pair`, on the `_vec` kernels or not (`vec`). Among
/// the tiles meant for the device (all of them if none is), and for a
/// [`Tile::one_round`] tile only a plan of one round, the least
/// [`estimated_time`] (times [`Tile::time_factor`]) wins; ties go to the earlier tile.
pub fn choose_tile(
    device: &DeviceModel,
    pair: usize,
    vec: bool,
    plans: &[LaunchPlan],
    m: u64,
    n: u64,
    k: u64,
) -> usize {
    let any_suits = TILES.iter().take(plans.len()).any(|tile| tile_suits(device, tile));
    let mut best = None;
    let mut best_time = f64::INFINITY;
    for (i, plan) in plans.iter().enumerate() {
        if any_suits && !tile_suits(device, &TILES[i]) {
            continue;
        }
        if !TILES[i].admits(plan.geometry.blocks(), plan.occupancy.blocks_per_wave(device)) {
            continue;
        }
        let time = weighed_time(device, &TILES[i], pair, plan, m, n, k) * TILES[i].time_factor(pair, vec);
        if plan.occupancy.is_runnable() && time < best_time {
            best = Some(i);
            best_time = time;
        }
    }
    // Nothing runnable: the first suitable tile, whose launch then fails with the driver's error.
    best.unwrap_or_else(|| TILES.iter().position(|tile| !any_suits || tile_suits(device, tile)).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routines::gemm::testing::*;
    use crate::routines::gemm::*;
    use crate::tuner::{DeviceModel, ForcedShapes, LaunchPlan, LaunchShape, Problem, RecipeBook, Tuner};

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
        // Without the packing, the model took 128×64 at each (TT's too, until its small tile's long-k
        // efficiency was refitted to 0.90, and NN's until FILL_EXPONENT_64X64_T128: each alone now passes
        // 128×64 by).
        let tuner = tuner();
        let device = tuner.device().clone();
        let spread = Tile { tail_packing: 0.0, ..TILES[small] };
        let (pair, m, n, k) = (2usize, 14336u64, 448u64, 512u64);
        let (tile, _, _) = decide_pair(pair, m, n, k);
        let chosen = pair_tile_plan(&tuner, tile, pair, m, n, k);
        let unsplit = tuner.plan(&TILE_KERNELS[small][pair * 2], &pair_model(small, pair), &Problem { m, n, k: 0 });
        assert!(
            estimated_time(&device, &spread, pair, &unsplit, m, n, k)
                < estimated_time(&device, &TILES[tile], pair, &chosen, m, n, k)
        );
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
                assert_ne!(
                    tile, t128,
                    "pair {pair} {m} × {n} × {k}: {} split {split}, {blocks} blocks",
                    TILES[tile].name
                );
            }
        }
        // Since TN's small-tile kernel runs four blocks an SM, 448 of its blocks fill most of a round: 32.9
        // µs (H200, kernel time; 33.0 on 128×128, cuBLAS 30.0).
        assert_eq!(decide_pair(2, 4096, 448, 256), (tile_named("64x64_t128"), 1, 448));
        // It had kept 127 × 448 × 8192 (split 64, two blocks on nearly every SM); the small tile's TN
        // kernel at four blocks an SM took it from there: split 37, 518 blocks, 33.5 µs against 35.6
        // (H200, kernel time; cuBLAS 36.7).
        assert_eq!(decide_pair(2, 127, 448, 8192), (tile_named("64x64_t128"), 37, 518));
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
    fn the_small_tile_splits_no_more_than_measured_faster() {
        // H200, kernel time with the reduction by graph replay (scripts/sgemm-builds.py), µs, the plan
        // before FILL_EXPONENT_64X64_T128 and REDUCE_US 3 -> now (cuBLAS): NT 1000 × 1536 × 512 split 2
        // 45.4 -> unsplit 39.9 (43.4), TT 256 × 256 × 4096 split 48 23.1 -> split 32 20.3 (23.6), NT 256 ×
        // 4096 × 512 256×128 split 4 34.9 -> the small tile unsplit 27.8 (30.6), NN 512³ split 8 13.8 ->
        // split 4 13.0 (13.2).
        let small = tile_named("64x64_t128");
        assert_eq!(decide_pair(1, 1000, 1536, 512), (small, 1, 384));
        assert_eq!(decide_pair(3, 256, 256, 4096), (small, 32, 512));
        assert_eq!(decide_pair(1, 256, 4096, 512), (small, 1, 256));
        assert_eq!(decide_pair(0, 512, 512, 512), (small, 4, 256));
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
        // of 6 per SM: 64×64 split 2 at 512 ran 36.8 µs, the model said 26 with a reduction
        // charged 8 µs). The small tile that succeeded 64×64 on sm_80 and later: kernel time
        // with the reduction by graph replay on an H200 (scripts/sgemm-plan-times.py), where
        // 64×64 split 8 took 20.6 µs with the reduction of its day.
        for (name, m, n, k, split, us) in [
            ("256x128", 4096, 4096, 4096, 1, 2873.0),
            ("64x64", 3000, 3000, 3000, 1, 1255.0),
            ("256x128", 8192, 128, 8192, 4, 379.0),
            ("256x128", 1024, 1024, 1024, 4, 65.0),
            ("128x128", 2048, 2048, 2048, 1, 392.0),
            ("128x128", 1024, 1024, 1024, 2, 77.3),
            ("64x64_t128", 512, 512, 512, 4, 13.2),
            ("64x64_t128", 512, 512, 512, 8, 13.8),
            ("64x64_t128", 1000, 1000, 1000, 2, 59.8),
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
        assert_eq!(TILES[choose_tile(&device, 0, true, &plans, 4096, 4096, 4096)].name, "128x128");
        // The 64×64 tile of 64 threads there; its successor of 128 threads from sm_80 on.
        assert!(tile_suits(&device, &TILES[tile_named("64x64")]));
        assert!(!tile_suits(&device, &TILES[tile_named("64x64_t128")]));
        let (tile, _, _) = decide(127, 129, 1023);
        assert_eq!(TILES[tile].name, "64x64_t128");
        let plans: Vec<LaunchPlan> = (0..TILES.len())
            .map(|tile| tile_plan(&tuner, &TILE_KERNELS[tile][0], &model(tile), &TILES[tile], 0, 127, 129, 1023))
            .collect();
        assert_eq!(TILES[choose_tile(&device, 0, true, &plans, 127, 129, 1023)].name, "64x64");
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

    #[test]
    fn candidate_splits_add_the_ones_that_fill_rounds() {
        // 12 tiles of 256×128 on 132 SMs: 11, 22, 33 and 44 fill one to four rounds.
        let splits = candidate_splits(12, 132);
        for split in [11, 22, 33, 44] {
            assert!(splits.contains(&split), "{splits:?}");
        }
        assert!(splits.windows(2).all(|w| w[0] < w[1]) && splits[0] == 2, "{splits:?}");
        assert!(SPLITS.iter().filter(|&&split| split > 1).all(|split| splits.contains(split)));
        // Capped at SPLITS' largest; nothing below 2; one tile a round or more adds nothing.
        assert_eq!(*candidate_splits(1, 528).last().unwrap(), 64);
        assert_eq!(candidate_splits(200, 132), SPLITS[1..].to_vec());
        // 48 tiles: 2, 5 and 8 (one to three rounds) are in SPLITS already; 11 (four rounds) is not.
        let mut expected: Vec<u32> = SPLITS[1..].iter().copied().chain([11]).collect();
        expected.sort_unstable();
        assert_eq!(candidate_splits(48, 132), expected);
    }

    #[test]
    fn a_split_that_fills_the_round_where_splits_leave_it_idle() {
        // 12 tiles of 256×128 (256 × 1536): split 11, one round of 132, as cuBLAS splits its 256×128 tiles there;
        // H100, kernel time: NN 135.6 µs against 163.1 for split 32 (three rounds) and 177.5 for split 8.
        for pair in 0..4 {
            assert_eq!(decide_pair(pair, 256, 1536, 8192), (tile_named("256x128"), 11, 132), "pair {pair}");
        }
        // Fillers of 256×64 and 128×64 (two and four blocks an SM): TN 3000 × 64 × 14336 135.0 µs split 22
        // against 177.3 on 128×64 split 64; TT 2048 × 192 × 8192 146.2 against 178.0 split 32.
        assert_eq!(decide_pair(2, 3000, 64, 14336), (tile_named("256x64"), 22, 264));
        assert_eq!(decide_pair(3, 2048, 192, 8192), (tile_named("128x64"), 11, 528));
        // Two rounds of 256×128 at k = 4096, which the model puts 1 % ahead of one round split 5 and ran 1-2 %
        // slower: FILLING_SPLIT_MARGIN keeps split 5. At k = 14336 the filler is 5 % ahead, and ran 5 % faster.
        for pair in 0..4 {
            assert_eq!(decide_pair(pair, 1024, 768, 4096), (tile_named("256x128"), 5, 120), "pair {pair}");
            assert_eq!(decide_pair(pair, 1024, 768, 14336), (tile_named("256x128"), 11, 264), "pair {pair}");
        }
    }

    #[test]
    fn plans_without_float4_operands_take_the_tiles_measured_faster_there() {
        // scripts/sgemm-worst-odd.txt, every tile forced without float4 operands on an H200 (µs, synchronised
        // calls): the tile chosen before, then the one the plans weighed by Tile::non_vec_time take.
        for (pair, (m, n, k), before, after) in [
            (0, (635u64, 1701u64, 5179u64), "128x64", "128x128_t128"), // 344.0 -> 315.0
            (0, (319, 3527, 1028), "128x64", "128x128_t128"),          // 94.9 -> 87.9 (64x64_t128 85.0)
            (0, (369, 421, 2696), "128x64", "64x64_t128"),             // 42.7 -> 40.0
            (2, (1357, 4607, 195), "128x128", "64x64_t128"),           // 146.9 (103.1 since C is staged) -> 88.4
            (2, (67, 3287, 8663), "128x128_t128", "128x64"),           // 204.7 -> 198.5
            (2, (123, 4010, 2611), "128x128_t128", "128x64"),          // 92.7 -> 91.7
            (0, (13886, 81, 367), "256x128", "256x128"),               // the best already
            (2, (2583, 143, 11081), "256x64", "256x64"),               // the best already
        ] {
            assert_eq!(TILES[decide_pair_vec(pair, true, m, n, k).0].name, before, "pair {pair}, ({m}, {n}, {k})");
            assert_eq!(TILES[decide_pair_vec(pair, false, m, n, k).0].name, after, "pair {pair}, ({m}, {n}, {k})");
        }
        // The _vec kernels' plans are the model's alone.
        assert!(TILES.iter().all(|tile| (0..4).all(|pair| tile.time_factor(pair, true) == 1.0)));
    }
}
