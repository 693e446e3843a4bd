//! Stream-K: a last round, or a few-tile product, shared along k.
//!
//! Where no split tail is taken, an unsplit 256×128 NN, NT or TN `_vec` grid
//! whose last round would leave SMs idle (4096²: rounds of 132, 132, 132 and
//! 116 tiles; 8192²: 15 and 68) can run that round stream-K (Osama et al.,
//! PPoPP 2023; kernels/gemm.cu, `gemm_stream_k`): the tiles before it run
//! whole on the plain kernel, then one block per SM slot takes an equal share
//! of the remaining tiles' k, in pieces cut at tile boundaries, which meet in
//! the work buffer (a piece slot per tile and block, and the split counters).
//! Every output is the same sum on every call. A nearly empty last round is
//! shared with the round before it. [`stream_k_choice`] weighs it by
//! [`estimated_time`]'s rounds, the stream-K kernels' measured speed
//! ([`efficiency`]: ptxas assigns their registers differently, and
//! the same k loop runs up to 4 % slower in them; NT's over long k apart)
//! and a fixed cost per round: on the H100 it
//! pays where the last round would fill at most about 90 % of the SMs, so
//! 4096² (88 %) and 8192² take it and 2048² (one round of 128 tiles, 97 %)
//! does not.
//! Panels of A^T take it by the same rule, their pieces after the panel in
//! the work buffer. A 256×128 plan that the tuner split along k, with at
//! least a third of a round of tiles, runs unsplit with all its tiles shared
//! by one round of stream-K blocks instead where [`stream_k_replaces_split`]
//! finds that faster: no partial C per split to write and add up, no last
//! round of split blocks (4096 × 384 × 4096: 48 tiles, split 8 in 2.9
//! rounds; 8 % faster on the H100). `MUBLAS_STREAM_K=0` turns it off.

use super::kernels::{TILES, Tile, stream_k_twin};
use super::plan::TileChoice;
use super::tile_choice::{block_round_us, estimated_time, time_model};
use crate::handle::Handle;
use crate::tuner::{DeviceModel, KernelSpec, LaunchPlan};

/// Bytes of one piece: a 256×128 tile's partial sums.
pub const PIECE_BYTES: u64 = TILES[0].rows * TILES[0].cols * 4;
/// Each block's share of k, summed over its pieces, is at least this (k
/// elements): shorter pieces lose to their pipelines' fill what they save.
/// It also keeps every share non-empty for the kernels' k tiles of 8 or 16.
pub const MIN_K_PER_BLOCK: u64 = 256;
/// µs a stream-K round adds to the work it spreads: a second piece's
/// pipeline fill and the fixup (a piece written, waited for, read back
/// and added before the tile's epilogue).
pub const FIXUP_US: f64 = 4.0;
/// The stream-K kernels' speed relative to the plain ones: the same k
/// loop, with registers assigned by ptxas in another context. Fitted to
/// the first stream-K kernels on the H100 (`mublas bench sgemm`, two
/// runs, against MUBLAS_STREAM_K=0), whose loop ran 4–6 % slower than
/// plain: 2048² (one stream-K round) took 380–388 µs against 356 (model:
/// 379), 4096² saved 22–28 µs (model: 27), 8192² 567–585 (model: 592).
/// Not refitted to the current ones (loop 1–4 % slower than plain: NN's
/// 4 %, NT's and TN's 1 %; 4096² and 8192² gain more): the fit still
/// leaves 2048² alone, where even NT's stream-K measured level with the
/// plain grid (335.7 against 336.5 µs, kernels alone).
pub const EFFICIENCY: f64 = 0.92;
/// Taken only where the model has it faster by at least this fraction
/// of a whole round: its error on the three squares above was ~1 % of a
/// round (4096²: 26 µs saved, 27 modelled, of a 687 µs round).
pub const MIN_GAIN: f64 = 0.02;
/// In place of a k split, stream-K's blocks per tile at most
/// ([`super::stream_k_replaces_split`]). H100, `mublas bench
/// sgemm-stream-k` (stream-K over all tiles against the split the tuner
/// chose, µs): 48 tiles (2.75 blocks each; 4096 × 384 × 4096) NN 277 against 301
/// split 8, TN 283 against 312, NT level; 32 tiles (4.1) lost everywhere
/// (4096 × 256 × 4096 NN 195 against 189, TN 208 / 199, NT 238 / 190),
/// 16 tiles (8.25; 2048 × 256 × 8192) NT 346 against 182.
pub const MAX_BLOCKS_PER_TILE: u64 = 3;
/// NT over k of at least [`NT_LONG_K`]: the stream-K kernels' speed as the
/// model sees it ([`EFFICIENCY`] elsewhere; [`efficiency`]). NT's fix-ups
/// cost more than the model's fixed [`FIXUP_US`] and its loop less than
/// 0.92 says, so NT gains with long k and loses with short (H200, kernel
/// time, `scripts/sgemm-builds.py`, NT at 0.96 for every k: last rounds
/// shared at k = 512 up to 7.8 % slower, at 4096 and 8192 1.7–8 % faster;
/// docs/performance.md, "NT's stream-K efficiency"). On an H100, the 86
/// NT last rounds of a grid of 11053 shapes that this shares ran 2.9 %
/// faster (geometric mean; 79 faster by up to 8.3 %, 7 of many rounds
/// slower by at most 1.5 %), and the 25 splits it replaces 1.6–6.0 %.
pub const NT_LONG_K_EFFICIENCY: f64 = 0.96;
/// See [`NT_LONG_K_EFFICIENCY`].
pub const NT_LONG_K: u64 = 4096;

/// The stream-K kernels' speed relative to the plain ones, for the model:
/// [`NT_LONG_K_EFFICIENCY`] for NT (pair 1) over long k, else [`EFFICIENCY`].
pub fn efficiency(pair: usize, k: u64) -> f64 {
    if pair == 1 && k >= NT_LONG_K { NT_LONG_K_EFFICIENCY } else { EFFICIENCY }
}

/// Stream-K for an unsplit plan (module docs): how many of its
/// last tiles the stream-K blocks share and how many blocks, when
/// [`estimated_time`]'s model says it beats the plan's rounds.
pub fn stream_k_choice(
    device: &DeviceModel,
    tile: &Tile,
    pair: usize,
    plan: &LaunchPlan,
    m: u64,
    n: u64,
    k: u64,
) -> Option<(u64, u32)> {
    let estimate = stream_k_estimate(device, tile, pair, plan, k, efficiency(pair, k))?;
    (estimate.time + MIN_GAIN * estimate.full_round < estimated_time(device, tile, pair, plan, m, n, k))
        .then_some((estimate.shared, estimate.blocks))
}

/// [`stream_k_estimate`]'s answer.
pub(super) struct StreamKEstimate {
    /// Tiles shared, by how many blocks.
    pub(super) shared: u64,
    pub(super) blocks: u32,
    /// [`estimated_time`]-like µs of the whole multiply that way.
    pub(super) time: f64,
    /// µs of one full round of whole tiles.
    pub(super) full_round: f64,
}

/// Stream-K over an unsplit plan's last tiles as [`stream_k_choice`] would
/// share them, or None where the shape admits none.
pub(super) fn stream_k_estimate(
    device: &DeviceModel,
    tile: &Tile,
    pair: usize,
    plan: &LaunchPlan,
    k: u64,
    efficiency: f64,
) -> Option<StreamKEstimate> {
    let active = plan.occupancy.active_blocks_per_sm as u64;
    let per_round = active * device.sm_count as u64;
    let tiles = plan.geometry.blocks();
    if plan.geometry.grid.2 > 1 || per_round == 0 {
        return None;
    }
    let rest = tiles % per_round;
    if rest == 0 {
        return None;
    }
    // A nearly empty last round is shared with the round before it, so that
    // a tile is cut into at most three pieces.
    let shared = if 2 * rest < per_round && tiles >= rest + per_round { rest + per_round } else { rest };
    if shared * k < per_round * MIN_K_PER_BLOCK || shared > crate::handle::SPLIT_COUNTER_SLOTS {
        return None;
    }
    let whole_rounds = ((tiles - shared) / per_round) as f64;
    let k_per_block = (k.div_ceil(8) * 8) as f64;
    let full = block_round_us(tile, pair, active, k_per_block, active);
    let spread = shared as f64 / per_round as f64 * (full - time_model::ROUND_US) / efficiency;
    let time = whole_rounds * full + spread + time_model::ROUND_US + FIXUP_US;
    Some(StreamKEstimate { shared, blocks: per_round as u32, time, full_round: full })
}

/// Stream-K in place of a k split (module docs): for a split
/// 256×128 plan whose tiles number at least a third of a round (each tile
/// then in at most about four pieces), whether sharing all the tiles' k
/// among one round of stream-K blocks beats the split by [`estimated_time`]
/// (at [`efficiency`] with at most two blocks a tile, else [`EFFICIENCY`]).
pub fn stream_k_replaces_split(
    device: &DeviceModel,
    tile: &Tile,
    pair: usize,
    (split, unsplit): (&LaunchPlan, &LaunchPlan),
    m: u64,
    n: u64,
    k: u64,
) -> bool {
    let per_round = unsplit.occupancy.active_blocks_per_sm as u64 * device.sm_count as u64;
    let tiles = unsplit.geometry.blocks();
    if split.geometry.grid.2 <= 1 || tiles >= per_round || MAX_BLOCKS_PER_TILE * tiles < per_round {
        return false;
    }
    // NT with more than two blocks a tile lost at 0.96 (44 to 58 tiles, 1–3.5 %).
    let speed = if 2 * tiles >= per_round { efficiency(pair, k) } else { EFFICIENCY };
    stream_k_estimate(device, tile, pair, unsplit, k, speed)
        .is_some_and(|e| e.shared == tiles && e.time < estimated_time(device, tile, pair, split, m, n, k))
}

/// Stream-K (module docs): the plan's last `tiles` tiles shared by `blocks`
/// blocks of `kernel`, after the others ran whole.
#[derive(Clone, Copy, Debug)]
pub struct StreamK {
    pub kernel: &'static KernelSpec,
    pub tiles: u64,
    pub blocks: u32,
}

impl StreamK {
    /// Work buffer for the pieces: a slot per tile and block (the kernel's `tile + j`).
    pub fn piece_bytes(&self) -> u64 {
        (self.tiles + self.blocks as u64) * PIECE_BYTES
    }
}

/// Stream-K is on unless `MUBLAS_STREAM_K=0` (for measuring it against the plain grid).
pub(super) fn stream_k_enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("MUBLAS_STREAM_K").map_or(true, |v| v != "0"))
}

/// Whether the rule may put stream-K in place of a split: as for a last
/// round ([`stream_k_plan`]), a kernel with a stream-K twin (256×128).
pub(super) fn stream_k_may_replace_split(kernel: &'static KernelSpec, choice: TileChoice) -> bool {
    matches!(choice, TileChoice::Auto | TileChoice::Tile(_)) && stream_k_twin(kernel).is_some() && stream_k_enabled()
}

/// Stream-K over a direct plan: forced, or where [`stream_k_choice`] says it pays.
pub(super) fn stream_k_plan(
    handle: &Handle,
    (spec, plan): (&'static KernelSpec, &LaunchPlan),
    pair: usize,
    (m, n, k): (u64, u64, u64),
    choice: TileChoice,
) -> Option<StreamK> {
    let kernel = stream_k_twin(spec)?;
    if plan.geometry.grid.2 > 1 {
        return None;
    }
    let (tiles, blocks) = match choice {
        TileChoice::StreamK { tiles, blocks } => {
            // Every block gets at least one k tile of 16 (the TN kernel's).
            let tiles = tiles.clamp(1, plan.geometry.blocks().min(crate::handle::SPLIT_COUNTER_SLOTS));
            (tiles, (blocks as u64).clamp(1, tiles * k.div_ceil(16)) as u32)
        }
        TileChoice::Auto | TileChoice::Tile(_) if stream_k_enabled() => {
            stream_k_choice(handle.device.model(), &TILES[0], pair, plan, m, n, k)?
        }
        _ => return None,
    };
    Some(StreamK { kernel, tiles, blocks })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routines::gemm::testing::*;
    use crate::routines::gemm::*;
    use crate::tuner::Problem;

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

    /// On the H100 model: the last rounds stream-K shares (4096², 8192², NT 6144 × 640 at long k, 3000²) and
    /// those it leaves (2048², whole rounds, short k).
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
}
