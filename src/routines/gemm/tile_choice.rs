//! Which tile, and which split of k, a multiply runs.
//!
//! The choice, per call (all of it pure, in [`choose_tile`]):
//!
//! 1. For each tile the tuner plans the unsplit launch (`Problem.k = 0`,
//!    which [`tile_geometry`](super::tile_geometry) reads as "no split").
//! 2. If that grid is short of one wave of the device (active blocks per SM
//!    × SMs, by more than [`FULL_COVERAGE`]), splitting k is worth
//!    considering: the splits are planned in turn (the tuner's block, the
//!    split's geometry and occupancy) up to the first that takes
//!    [`SPLIT_ROUNDS_MAX`] rounds of blocks, and the one of the least
//!    [`estimated_time`] kept ([`tile_plan`]). [`tile_geometry`](super::tile_geometry) caps the
//!    split at `k / MIN_K_PER_SPLIT` and at `MAX_PARTIAL_BYTES` of partial sums.
//! 3. Between the tiles meant for the device ([`tile_suits`]),
//!    the least [`estimated_time`] ([`choose_tile`]): a model of rounds of
//!    blocks on the busiest SM, with each tile's measured efficiency per
//!    transpose pair, the throughput of the warps an SM holds in the last
//!    round (counted per warp scheduler), and the reduction's cost for a
//!    split. Its constants ([`time_model`]) come from the H100 and H200;
//!    elsewhere only their ranking of the candidates matters.
//! 4. Then, for TN and TT, whether to copy A^T first ("Transposed A"), and
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
/// [`tile_plan`] tries larger splits until one takes this many rounds of
/// blocks: a split that adds a round can still fill the last one better
/// (384 blocks of 256×128, 2.9 rounds, against 192, 1.5).
pub const SPLIT_ROUNDS_MAX: u64 = 4;
/// Each split gets at least this much of k (4 k tiles of the register-staged
/// kernels, 2 of the cp.async ones).
pub const MIN_K_PER_SPLIT: u64 = 32;
/// Partial sums in the work buffer stay below this.
pub const MAX_PARTIAL_BYTES: u64 = 64 << 20;
/// A grid short of one wave by more than this fraction is worth splitting
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
    /// A split's fixed µs: the reduction's launch and its own rounds.
    pub const REDUCE_US: f64 = 8.0;
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
    tuner.plan_with(spec, kernel, &full, || {
        let unsplit = tuner.plan(spec, kernel, &Problem { m, n, k: 0 });
        let device = tuner.device();
        if !unsplit.occupancy.is_runnable() || !split_worthwhile(device, &unsplit) {
            return unsplit;
        }
        let per_round = unsplit.occupancy.blocks_per_wave(device);
        let mut best = unsplit;
        let mut best_time = estimated_time(device, tile, pair, &unsplit, m, n, k);
        for &split in SPLITS.iter().filter(|&&split| split > 1) {
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
            let time = estimated_time(device, tile, pair, &plan, m, n, k);
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
/// the transpose pair `pair`. Among the tiles meant for the device (all of
/// them if none is), and for a [`Tile::one_round`] tile only a plan of one
/// round, the least [`estimated_time`] wins; ties go to the earlier tile.
pub fn choose_tile(device: &DeviceModel, pair: usize, plans: &[LaunchPlan], m: u64, n: u64, k: u64) -> usize {
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
        let time = estimated_time(device, &TILES[i], pair, plan, m, n, k);
        if plan.occupancy.is_runnable() && time < best_time {
            best = Some(i);
            best_time = time;
        }
    }
    // Nothing runnable: the first suitable tile, whose launch then fails with the driver's error.
    best.unwrap_or_else(|| TILES.iter().position(|tile| !any_suits || tile_suits(device, tile)).unwrap_or(0))
}
