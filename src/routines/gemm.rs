//! SGEMM: C = alpha · op(A) · op(B) + beta · C, column-major (kernels/gemm.cu).
//!
//! # Which kernel
//!
//! Tile kernels come in seven tiles ([`TILES`]) per transpose pair, each in a
//! 16-byte load version (`_vec`) and a generic one: 256×128 (256 threads),
//! 128×128 (128 threads), 128×64 (64 threads, for 33 to 64 columns of C
//! and other few-tile products) and 256×64 (128 threads, for plans of one
//! round, [`Tile::one_round`]), each thread 16×8 outputs with cp.async
//! pipelines (sm_80 and later); 128×128 (256 threads) and 64×64 (64
//! threads), each thread 8×8 outputs staged through registers (any GPU); and
//! 64×64 of 128 threads, each 4×8 outputs, k tiles of 8 in four cp.async
//! stages, which takes the 64-thread 64×64 tile's place from sm_80 on
//! ([`Tile::superseded_from`]): with few k tiles per block (split-K over a
//! small C) the older one waited on its loads. Every tile kernel
//! is its own [`KernelSpec`] with a fixed block (`tx_min == tx_max`) and the
//! split-K factor as the launch space's extra dimension.
//!
//! The choice, per call (all of it pure, in [`choose_tile`]):
//!
//! 1. For each tile the tuner plans the unsplit launch (`Problem.k = 0`,
//!    which [`tile_geometry`] reads as "no split").
//! 2. If that grid is short of one wave of the device (active blocks per SM
//!    × SMs, by more than [`FULL_COVERAGE`]), splitting k is worth
//!    considering: the splits are planned in turn (the tuner's block, the
//!    split's geometry and occupancy) up to the first that takes
//!    [`SPLIT_ROUNDS_MAX`] rounds of blocks, and the one of the least
//!    [`estimated_time`] kept ([`tile_plan`]). [`tile_geometry`] caps the
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
//!
//! # One column or row
//!
//! With n = 1 or m = 1, C = op(A)·op(B) is a matrix-vector product, which
//! reads its matrix once and is bound by memory, where a tile kernel computes
//! a whole tile (64 to 256 columns or rows) for the one it writes: the
//! 64×64 tiles took 57–68 µs for 4096 × 1 × 4096 on an H200 against cuBLAS's
//! 18–22. Such calls run the SGEMV routine ([`as_gemv`]), its own kernels,
//! splits and tuning, unless a tile is forced.
//!
//! # Skinny
//!
//! With 2 to 32 columns of C (n) or else rows (m), the product still reads
//! its large operand once and does 2 to 32 FMAs per element read, about what
//! the memory keeps up with; the tile kernels computed 64 or more columns
//! per tile instead (TN 4096 × 8 × 4096 on an H200: 67 µs of kernel against
//! cuBLAS's 46). The skinny kernels (`gemm_f32_skinny_*` in kernels/gemm.cu)
//! compute D = P·Q: D = C, P = op(A), Q = op(B) for few columns, and the
//! transpose (D = C^T, P = op(B)^T, Q = op(A)^T) for few rows ([`as_skinny`]).
//! Up to 16 columns, each streams P, along k (rows of P contiguous: TN, and
//! few rows with B untransposed) or along m, holds its rows' sums of all N
//! columns in registers and stages Q in shared memory; from 17 to 32, the
//! wide kernels stage both through shared memory and compute 64 × 32 per
//! warp, 8 × 8 per lane, as a tile does (on devices that give a block their
//! 78 KiB; else the tiles run). k is split over the grid's y
//! ([`skinny_plan`]), and the last block of a row block to arrive adds the
//! partial sums in a fixed order, as SGEMV's splits do.
//!
//! k == 0 or alpha == 0 (host) use `gemm_scale_f32` (C = beta·C); a split
//! launch is followed by `gemm_splitk_reduce_f32` (or `gemm_splitk_reduce4_f32`,
//! four rows a thread in float4, where C is large enough: [`reduce_spec`]),
//! which sums the partial C tiles from the work buffer in a fixed order and
//! applies alpha and beta.
//!
//! # Transposed A
//!
//! TN and TT copy A along k, 4 bytes at a time (TN's B also goes through a
//! staged transpose), and run 3–5 % (TN) and 7–10 % (TT) slower than NN and
//! NT on the H100. Where
//! the product is large enough to pay for it, A^T is first copied into the
//! work buffer as an untransposed matrix (`gemm_transpose_a_f32`, one read and
//! one write of A) and the NN or NT kernels multiply it: in panels of rows of
//! C when A^T is larger than [`transposed_a::PANEL_BYTES_MAX`], each panel
//! copied, then multiplied. Every output is the same sum in the same order as
//! the NN or NT kernel's on an explicitly transposed A. Panels run unsplit
//! (the work buffer holds the panel). [`transposed_a_pays`] decides, by
//! [`estimated_time`] and the measured constants of [`transposed_a`]: on the
//! H100 for squares TT from n = 2048 and TN from 3000 (`decisions_table` in
//! the tests).
//!
//! # Split tail
//!
//! An unsplit grid of several rounds whose last round is nearly empty (n =
//! 3000 on 256×128 tiles: 288 blocks on 132 SMs, rounds of 132, 132 and 24)
//! pays a whole round for a few blocks. Smaller tiles quantize finer but run
//! slower. Instead C can be cut by columns (or by rows, [`Cut`]): the first
//! columns (whole tile columns, filling all rounds but the last) run unsplit,
//! and the remaining ones, a sub-problem short of a wave, run as a multiply of
//! their own, which step 2 splits along k. Both are ordinary launches on
//! sub-matrices of B and C (of A and C for rows), one after the other in the
//! stream. [`split_tail_choice`] weighs each cut by [`estimated_time`] (plus
//! [`SPLIT_TAIL_LAUNCH_US`]) against the direct plan. Rows suit tall C: 20000
//! × 256 has 2 tile columns, too few to cut.
//!
//! # Stream-K
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
//! ([`stream_k::EFFICIENCY`]: ptxas assigns their registers differently, and
//! the same k loop runs up to 4 % slower in them) and a fixed cost per
//! round: on the H100 it
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

use super::Scalar;
use crate::handle::Handle;
use crate::launch::KernelArg::{F32, I32, I64, Ptr};
use crate::launch::context::ContextGuard;
use crate::status::{Error, Result};
use crate::tuner::optimizer;
use crate::tuner::{
    DeviceModel, Geometry, KernelModel, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Occupancy, Problem, Tuner,
};

/// op(X) for a real matrix: cuBLAS's N 0, T 1, C 2 (= T for real types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transpose {
    No,
    Yes,
}

impl Transpose {
    pub fn from_code(code: i32) -> Option<Transpose> {
        match code {
            0 => Some(Transpose::No),
            1 | 2 => Some(Transpose::Yes),
            _ => None,
        }
    }
}

/// One tile variant of the tile kernels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tile {
    /// The tile's part of its kernels' names: `gemm_f32_<name>_<ta><tb>[_vec]`.
    pub name: &'static str,
    pub rows: u64,
    pub cols: u64,
    pub threads: u32,
    /// The oldest GPU the tile is meant for: the asynchronous-copy tiles need
    /// sm_80's cp.async to be fast (older GPUs run their portable PTX, which
    /// copies synchronously: correct, slow), so older GPUs are not offered them.
    pub min_compute_capability: (u32, u32),
    /// From this GPU on, a successor tile of the same shape runs instead
    /// (`None`: no successor).
    pub superseded_from: Option<(u32, u32)>,
    /// FFMA throughput of a fully occupied SM relative to the 128×128 tile of
    /// 256 threads, per transpose pair in [`pair_index`] order (NN, NT, TN,
    /// TT): measured on the H100 at n = 4096 and, for 64×64, at 2048 and
    /// 3000 through [`estimated_time`]'s model. 256×128 TN: NN's over
    /// 1.04, TN 4096's direct µs over NN's before its staged B was
    /// transposed early into the swizzled layout (1.035–1.038; since, 1.028:
    /// 1.06 here would move one untimed decision of `decisions_table`, a
    /// split tail for TN (20000, 256, 256), so it waits for a measurement).
    /// The two 128×128 tiles' NT, TN and TT (and the 128-thread one's NN):
    /// one round against 256×128 at 4096 × 192 × 4096 split 4 on an H200
    /// (docs/performance.md, "Splits past two rounds").
    pub efficiency: [f64; 4],
    /// The same throughput where each block covers a long k
    /// ([`Tile::efficiency_at`]); None where `efficiency` holds at any k.
    pub long_k_efficiency: Option<[f64; 4]>,
    /// Planned only where its blocks fit in one round ([`tile_plan`],
    /// [`choose_tile`]): 256×64, faster than 128×64 in one round (4096 × 192 ×
    /// 4096 split 5, NN 148 against 155 µs on an H200) and slower over
    /// several (NN 14336 × 256 × 14336 split 4, 3.4 rounds: 2410 against 2181).
    pub one_round: bool,
    /// An SM holding c of the a blocks it could runs them at (c / a)^this of
    /// its full speed ([`estimated_time`]): [`time_model::FILL_EXPONENT`], or
    /// [`time_model::FILL_EXPONENT_128X128_T128`].
    pub fill_exponent: f64,
    /// The share of a grid's last round, after full ones, whose blocks land
    /// a full SM's worth on the SMs that free first instead of spreading
    /// over all SMs ([`estimated_time`]): [`time_model::TAIL_PACKING_128X64`]
    /// for 128×64, 0 for the tiles where it was not seen.
    pub tail_packing: f64,
    /// Dynamic shared memory per block (the asynchronous-copy tiles' stages,
    /// see [`async_shared_bytes`]).
    pub dynamic_shared_bytes: u32,
}

impl Tile {
    /// The FFMA throughput ([`Tile::efficiency`]) of blocks that each cover
    /// `k_per_block`: `efficiency` at [`SHORT_K`] or less, tending to
    /// `long_k_efficiency` as SHORT_K / k_per_block falls. Measured for the
    /// 64×64 tile of 128 threads against 256×128 on an H200 (one round of
    /// blocks, unsplit, k of 64 to 4096): its lead over the long-k speed
    /// halved with each doubling of k (TN: 0.85, 0.77, 0.72, 0.69 and 0.67
    /// of 256×128's speed at k = 64, 128, 256, 512 and 4096).
    pub fn efficiency_at(&self, pair: usize, k_per_block: f64) -> f64 {
        let short = self.efficiency[pair.min(3)];
        let Some(long) = self.long_k_efficiency.map(|long| long[pair.min(3)]) else { return short };
        long + (short - long) * (SHORT_K / k_per_block.max(1.0)).min(1.0)
    }

    /// Whether a plan of `blocks`, `per_round` of them a round, may run on
    /// this tile ([`Tile::one_round`]).
    pub fn admits(&self, blocks: u64, per_round: u64) -> bool {
        !self.one_round || blocks <= per_round
    }
}

/// The k per block up to which [`Tile::efficiency`] holds as it is.
pub const SHORT_K: f64 = 64.0;

/// The asynchronous-copy kernels' shared memory for a rows × cols tile
/// (kernels/gemm.cu): 32 k of A (rows + 4 floats each) and B (cols + 4), in
/// 2 stages of 16 or 4 of 8 (per kernel), and TN's staging area for B
/// (cols), reserved for every pair.
pub const fn async_shared_bytes(rows: u32, cols: u32) -> u32 {
    2 * 16 * ((rows + 4) + (cols + 4) + cols) * 4
}

/// The tiles, largest first, then later additions (to keep the others'
/// indices), with their kernels in [`TILE_KERNELS`] at the same index. The
/// 64×64 successor takes its predecessor's efficiencies where blocks cover
/// little k (split-K over a small C, what it was made for) and, at six blocks
/// per SM, its rounds; at long k its own (measured on an H200 against the
/// 128×128 tile of 256 threads, one round of blocks: NN 0.86, NT 0.89, TN
/// 0.74, TT 0.85; all four used since the model counts blocks per warp
/// scheduler and tries splits past two rounds: docs/performance.md, "Splits
/// past two rounds").
/// 128×64: its speed over 256×128's in one round of 4096 × 1024 × 4096 on an
/// H200 (NN 0.959, NT 0.967, TN 0.861; TT 1.017, held at 1.0 to keep the
/// large squares' TT plans that the H100 measured) times 256×128's values.
/// 256×64 the same way (NN 0.980, NT 0.948, TN 0.918; TT 1.002, held at
/// 0.985, 128×64's TT speed in that round, for the same reason).
#[rustfmt::skip]
pub const TILES: [Tile; 7] = [
    //     name                  rows       cols       threads       min cc                          superseded from            efficiency NN, NT, TN, TT      long k                                           one round  fill                                                               tail packing                                   dynamic shared memory
    Tile { name: "256x128",      rows: 256, cols: 128, threads: 256, min_compute_capability: (8, 0), superseded_from: None,         efficiency: [1.09, 1.035, 1.05, 1.05], long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT, tail_packing: 0.0, dynamic_shared_bytes: async_shared_bytes(256, 128) },
    Tile { name: "128x128_t128", rows: 128, cols: 128, threads: 128, min_compute_capability: (8, 0), superseded_from: None,         efficiency: [1.01, 0.96, 0.97, 1.03],  long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT_128X128_T128, tail_packing: 0.0, dynamic_shared_bytes: async_shared_bytes(128, 128) },
    Tile { name: "128x128",      rows: 128, cols: 128, threads: 256, min_compute_capability: (7, 0), superseded_from: None,         efficiency: [1.0, 0.93, 0.97, 0.96],   long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT, tail_packing: 0.0, dynamic_shared_bytes: 0 },
    Tile { name: "64x64",        rows: 64,  cols: 64,  threads: 64,  min_compute_capability: (7, 0), superseded_from: Some((8, 0)), efficiency: [0.98, 0.98, 0.92, 0.94], long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT, tail_packing: 0.0, dynamic_shared_bytes: 0 },
    Tile { name: "64x64_t128",   rows: 64,  cols: 64,  threads: 128, min_compute_capability: (8, 0), superseded_from: None,         efficiency: [0.98, 0.98, 0.92, 0.94], long_k_efficiency: Some([0.86, 0.89, 0.74, 0.85]), one_round: false, fill_exponent: time_model::FILL_EXPONENT, tail_packing: 0.0, dynamic_shared_bytes: 0 },
    Tile { name: "128x64",       rows: 128, cols: 64,  threads: 64,  min_compute_capability: (8, 0), superseded_from: None,         efficiency: [1.045, 1.0, 0.90, 1.0],   long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT, tail_packing: time_model::TAIL_PACKING_128X64, dynamic_shared_bytes: async_shared_bytes(128, 64) },
    Tile { name: "256x64",       rows: 256, cols: 64,  threads: 128, min_compute_capability: (8, 0), superseded_from: None,         efficiency: [1.067, 0.98, 0.96, 0.985], long_k_efficiency: None,                          one_round: true,  fill_exponent: time_model::FILL_EXPONENT, tail_packing: 0.0, dynamic_shared_bytes: async_shared_bytes(256, 64) },
];

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

const fn tile_space(threads: u32) -> LaunchSpace {
    LaunchSpace { tx_step: threads, tx_min: threads, tx_max: threads, ty_min: 1, ty_max: 1, splits: SPLITS }
}

/// The kernel names of each tile, `[tile][transpose pair index × 2 + vec]` (see [`kernel_index`]).
macro_rules! tile_kernel_names {
    ($($name:literal),*) => {
        [$([
            concat!("gemm_f32_", $name, "_nn"), concat!("gemm_f32_", $name, "_nn_vec"),
            concat!("gemm_f32_", $name, "_nt"), concat!("gemm_f32_", $name, "_nt_vec"),
            concat!("gemm_f32_", $name, "_tn"), concat!("gemm_f32_", $name, "_tn_vec"),
            concat!("gemm_f32_", $name, "_tt"), concat!("gemm_f32_", $name, "_tt_vec"),
        ]),*]
    };
}
const TILE_KERNEL_NAMES: [[&str; 8]; TILES.len()] =
    tile_kernel_names!("256x128", "128x128_t128", "128x128", "64x64", "64x64_t128", "128x64", "256x64");

macro_rules! tile_kernels {
    ($tile:expr, $rows:literal, $cols:literal, $threads:literal) => {{
        const fn spec(name: &'static str) -> KernelSpec {
            KernelSpec {
                name,
                space: tile_space($threads),
                geometry: tile_geometry::<$rows, $cols, { TILES[$tile].dynamic_shared_bytes }>,
            }
        }
        let names = TILE_KERNEL_NAMES[$tile];
        [
            spec(names[0]),
            spec(names[1]),
            spec(names[2]),
            spec(names[3]),
            spec(names[4]),
            spec(names[5]),
            spec(names[6]),
            spec(names[7]),
        ]
    }};
}

/// Tile kernels: `[tile][transpose pair index × 2 + vec]`, see [`kernel_index`].
pub static TILE_KERNELS: [[KernelSpec; 8]; TILES.len()] = [
    tile_kernels!(0, 256, 128, 256),
    tile_kernels!(1, 128, 128, 128),
    tile_kernels!(2, 128, 128, 256),
    tile_kernels!(3, 64, 64, 64),
    tile_kernels!(4, 64, 64, 128),
    tile_kernels!(5, 128, 64, 64),
    tile_kernels!(6, 256, 64, 128),
];

const ELEMENTWISE_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 512, ty_min: 1, ty_max: 1, splits: &[1] };

/// C = beta·C (k == 0 or alpha == 0): problem (m, n, 0).
pub static SCALE: KernelSpec =
    KernelSpec { name: SCALE_NAME, space: ELEMENTWISE_SPACE, geometry: elementwise_geometry };
const SCALE_NAME: &str = "gemm_scale_f32";
/// The split-K reduction's block, fixed at 256 threads: over 32 to 512 the
/// optimizer, sizing by occupancy alone, went as low as one warp (8192 × 48:
/// 12288 blocks of 32), and this pass, which streams the partial sums once,
/// took up to 5 µs longer (H200, `scripts/sgemm-builds.py`: at 256, 82 of 434
/// SGEMM shapes 1–26 % faster, NN 8192 × 48 × 512 26.7 -> 21.2 µs; 4 up to
/// 2.2 % slower; 128 and 512 a little behind 256).
const REDUCE_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 256, tx_max: 256, ty_min: 1, ty_max: 1, splits: &[1] };

/// C = alpha·Σ partials + beta·C: problem (m, n, 0).
pub static SPLITK_REDUCE: KernelSpec =
    KernelSpec { name: SPLITK_REDUCE_NAME, space: REDUCE_SPACE, geometry: elementwise_geometry };
const SPLITK_REDUCE_NAME: &str = "gemm_splitk_reduce_f32";
/// The same, four rows a thread with float4 loads of the partial sums: problem (m, n, 0).
pub static SPLITK_REDUCE4: KernelSpec =
    KernelSpec { name: SPLITK_REDUCE4_NAME, space: REDUCE_SPACE, geometry: four_rows_geometry };
const SPLITK_REDUCE4_NAME: &str = "gemm_splitk_reduce4_f32";
/// Splits up to which the four-row reduction is taken ([`reduce_spec`]).
pub const REDUCE4_MAX_SPLITS: u32 = 7;

/// The split-K reduction of `splits` partial m × n C: four rows a thread
/// where those threads still fill half the device's resident threads
/// (135168 on 132 SMs) and the splits are at most [`REDUCE4_MAX_SPLITS`], one
/// row a thread otherwise. On an H200, kernel time by graph replay: alone
/// (`scripts/reduce-cost.py`), four rows took 37–44 % off split 2 of large C
/// (11008 × 192 14.1 -> 8.8 µs, 16384 × 512 49.9 -> 28.1), 2–11 % off split
/// 4, and added 5–18 % from split 8 (8192 × 128 10.9 -> 12.8), where one row
/// a thread has loads enough in flight. In the library
/// (`scripts/sgemm-builds.py`, 302 shapes) the size rule alone ran 53 faster
/// by 1–7 % (NN 11008 × 192 × 512 split 2 60.0 -> 55.9 µs, NN 3000 × 448 ×
/// 512 split 3 43.2 -> 40.8) and one 1.7 % slower, where four rows for every
/// C of 32768 threads or more slowed 79, by up to 50 % (TT 127 × 1024 × 1024
/// split 16, 14.2 -> 21.3); the cap at seven splits then ran 19 of the 67
/// shapes it moved 1–2.7 % faster, 3 slower by at most 2.5 %.
pub fn reduce_spec(device: &DeviceModel, m: u64, n: u64, splits: u32) -> &'static KernelSpec {
    let half_resident = device.sm_count as u64 * device.max_threads_per_sm as u64 / 2;
    if splits <= REDUCE4_MAX_SPLITS && m.div_ceil(4) * n >= half_resident { &SPLITK_REDUCE4 } else { &SPLITK_REDUCE }
}

/// A^T copied into the work buffer (module docs, "Transposed A"): problem (rows, 0, k).
pub static TRANSPOSE_A: KernelSpec =
    KernelSpec { name: TRANSPOSE_A_NAME, space: TRANSPOSE_SPACE, geometry: transpose_geometry };
const TRANSPOSE_A_NAME: &str = "gemm_transpose_a_f32";
/// A fixed block of 32 × 8 threads (kernels/gemm.cu: each thread has 8 loads in flight).
const TRANSPOSE_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 32, ty_min: 8, ty_max: 8, splits: &[1] };

/// The stream-K twins (module docs, "Stream-K") of the 256×128 NN, NT and TN
/// `_vec` kernels, in that order.
pub static STREAM_K_KERNELS: [KernelSpec; 3] = {
    const fn spec(name: &'static str) -> KernelSpec {
        KernelSpec {
            name,
            space: tile_space(256),
            geometry: tile_geometry::<256, 128, { TILES[0].dynamic_shared_bytes }>,
        }
    }
    [spec(STREAM_K_NAMES[0]), spec(STREAM_K_NAMES[1]), spec(STREAM_K_NAMES[2])]
};
const STREAM_K_NAMES: [&str; 3] =
    ["gemm_f32_256x128_nn_vec_sk", "gemm_f32_256x128_nt_vec_sk", "gemm_f32_256x128_tn_vec_sk"];

/// The stream-K twin of a tile kernel (its name + `_sk`), if it has one.
pub fn stream_k_twin(spec: &KernelSpec) -> Option<&'static KernelSpec> {
    STREAM_K_KERNELS.iter().find(|twin| twin.name.strip_suffix("_sk") == Some(spec.name))
}

/// The skinny kernels (module docs, "Skinny"): `[NB 4, 8, 16, 32][P along k, along k _vec, along m, along m _vec]`.
pub static SKINNY_KERNELS: [[KernelSpec; 4]; 4] = {
    const fn spec(name: &'static str, nb: usize, along_k: bool) -> KernelSpec {
        if nb == 3 {
            KernelSpec {
                name,
                space: SKINNY_K_SPACE,
                geometry: skinny_geometry::<{ skinny::ROWS_WIDE }, { skinny::WIDE_SHARED_BYTES }>,
            }
        } else if along_k {
            KernelSpec { name, space: SKINNY_K_SPACE, geometry: skinny_geometry::<{ skinny::ROWS_ALONG_K }, 0> }
        } else {
            KernelSpec { name, space: SKINNY_M_SPACE, geometry: skinny_geometry::<{ skinny::ROWS_ALONG_M }, 0> }
        }
    }
    let mut specs = [[spec("", 0, true); 4]; 4];
    let mut i = 0;
    while i < 4 {
        let mut j = 0;
        while j < 4 {
            specs[i][j] = spec(SKINNY_NAMES[i * 4 + j], i, j < 2);
            j += 1;
        }
        i += 1;
    }
    specs
};
const SKINNY_NAMES: [&str; 16] = [
    "gemm_f32_skinny_k4",
    "gemm_f32_skinny_k4_vec",
    "gemm_f32_skinny_m4",
    "gemm_f32_skinny_m4_vec",
    "gemm_f32_skinny_k8",
    "gemm_f32_skinny_k8_vec",
    "gemm_f32_skinny_m8",
    "gemm_f32_skinny_m8_vec",
    "gemm_f32_skinny_k16",
    "gemm_f32_skinny_k16_vec",
    "gemm_f32_skinny_m16",
    "gemm_f32_skinny_m16_vec",
    "gemm_f32_skinny_k32",
    "gemm_f32_skinny_k32_vec",
    "gemm_f32_skinny_m32",
    "gemm_f32_skinny_m32_vec",
];
/// Fixed blocks (kernels/gemm.cu): 256 threads along k and for NB = 32, 32 ×
/// 8 along m; the split of k is the tuner's choice.
pub const SKINNY_SPLITS: &[u32] = &[1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64];
const SKINNY_K_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 256, tx_max: 256, ty_min: 1, ty_max: 1, splits: SKINNY_SPLITS };
const SKINNY_M_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 32, ty_min: 8, ty_max: 8, splits: SKINNY_SPLITS };

pub const KERNEL_NAMES: &[&str] = &{
    let mut names = [""; TILES.len() * 8 + 4 + STREAM_K_NAMES.len() + SKINNY_NAMES.len()];
    let mut i = 0;
    while i < TILES.len() * 8 {
        names[i] = TILE_KERNEL_NAMES[i / 8][i % 8];
        i += 1;
    }
    names[i] = SCALE_NAME;
    names[i + 1] = SPLITK_REDUCE_NAME;
    names[i + 2] = TRANSPOSE_A_NAME;
    names[i + 3] = SPLITK_REDUCE4_NAME;
    let mut j = 0;
    while j < STREAM_K_NAMES.len() {
        names[i + 4 + j] = STREAM_K_NAMES[j];
        j += 1;
    }
    let mut s = 0;
    while s < SKINNY_NAMES.len() {
        names[i + 4 + j + s] = SKINNY_NAMES[s];
        s += 1;
    }
    names
};

/// Index into a row of [`TILE_KERNELS`].
pub fn kernel_index(transa: Transpose, transb: Transpose, vec: bool) -> usize {
    pair_index(transa, transb) * 2 + vec as usize
}

/// NN 0, NT 1, TN 2, TT 3 (as [`Tile::efficiency`]).
pub fn pair_index(transa: Transpose, transb: Transpose) -> usize {
    (transa == Transpose::Yes) as usize * 2 + (transb == Transpose::Yes) as usize
}

/// Floats between consecutive columns of a partial C in the work buffer:
/// m rounded up to 4, so that the tile kernels store it as float4.
pub fn partial_ld(m: u64) -> u64 {
    m.div_ceil(4) * 4
}

/// The split a tile kernel really runs for `requested`: at most k / MIN_K_PER_SPLIT
/// (problem.k = 0 rules splitting out) and within MAX_PARTIAL_BYTES; at least 1.
pub fn effective_split(problem: &Problem, requested: u32) -> u32 {
    let by_k = problem.k / MIN_K_PER_SPLIT;
    let bytes_per_split = (partial_ld(problem.m) * problem.n * 4).max(1);
    let by_bytes = MAX_PARTIAL_BYTES / bytes_per_split;
    (requested as u64).min(by_k).min(by_bytes).max(1) as u32
}

/// One block per ROWS×COLS tile of C, linear in x (m fastest: the kernel
/// decodes it), the split in z.
pub fn tile_geometry<const ROWS: u64, const COLS: u64, const SHARED: u32>(
    problem: &Problem,
    shape: &LaunchShape,
) -> Geometry {
    let tiles = problem.m.div_ceil(ROWS) * problem.n.div_ceil(COLS);
    Geometry {
        grid: (tiles.min(i32::MAX as u64) as u32, 1, effective_split(problem, shape.split)),
        dynamic_shared_bytes: SHARED,
    }
}

/// Scale and reduce kernels: a thread per row in blocks of tx, up to 65535 column strides.
fn elementwise_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    let x = problem.m.div_ceil(shape.tx as u64).max(1);
    Geometry { grid: (x.min(i32::MAX as u64) as u32, problem.n.clamp(1, 65535) as u32, 1), dynamic_shared_bytes: 0 }
}

/// The four-row reduction: a thread per four rows in blocks of tx, up to 65535 column strides.
fn four_rows_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
    elementwise_geometry(&Problem { m: problem.m.div_ceil(4), ..*problem }, shape)
}

/// The copy of A^T: tiles of 64 rows of op(A) (x) × 32 k (y; the kernel strides past 65535).
fn transpose_geometry(problem: &Problem, _shape: &LaunchShape) -> Geometry {
    let rows = problem.m.div_ceil(64).clamp(1, i32::MAX as u64) as u32;
    Geometry { grid: (rows, problem.k.div_ceil(32).clamp(1, 65535) as u32, 1), dynamic_shared_bytes: 0 }
}

/// 2·m·n·k: the flops SGEMM is credited with.
pub fn flops(m: u64, n: u64, k: u64) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64
}

/// Reference-BLAS argument checks in order, first bad wins: 1 transa,
/// 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc. The ld checks apply even
/// when a dimension is 0.
#[allow(clippy::too_many_arguments)]
pub fn check_arguments(
    transa: i32,
    transb: i32,
    m: i64,
    n: i64,
    k: i64,
    lda: i64,
    ldb: i64,
    ldc: i64,
) -> Result<(Transpose, Transpose)> {
    let bad = |position| Err(Error::InvalidArgument { routine: "SGEMM", position });
    let Some(ta) = Transpose::from_code(transa) else { return bad(1) };
    let Some(tb) = Transpose::from_code(transb) else { return bad(2) };
    if m < 0 {
        return bad(3);
    }
    if n < 0 {
        return bad(4);
    }
    if k < 0 {
        return bad(5);
    }
    let rows_a = if ta == Transpose::No { m } else { k };
    let rows_b = if tb == Transpose::No { k } else { n };
    if lda < rows_a.max(1) {
        return bad(8);
    }
    if ldb < rows_b.max(1) {
        return bad(10);
    }
    if ldc < m.max(1) {
        return bad(13);
    }
    Ok((ta, tb))
}

/// What a valid call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmPath {
    /// Touch nothing: m or n is 0, or C stays C (alpha or k is 0 and beta is 1).
    QuickReturn,
    /// C = beta·C without reading A or B (alpha or k is 0).
    ScaleOnly,
    /// The product (a device alpha of 0 is found by the kernel, which then skips A and B).
    Multiply,
}

pub fn path(m: i64, n: i64, k: i64, alpha: Scalar, beta: Scalar) -> GemmPath {
    let no_product = k == 0 || alpha.is(0.0);
    if m == 0 || n == 0 || (no_product && beta.is(1.0)) {
        GemmPath::QuickReturn
    } else if no_product {
        GemmPath::ScaleOnly
    } else {
        GemmPath::Multiply
    }
}

/// The matrix-vector product that an SGEMM with one column of C (n = 1) or
/// one row (m = 1) is (module docs, "One column or row"): cuBLAS's GEMV
/// arguments, which then run the SGEMV kernels, since a tile kernel would
/// compute a whole tile for each column or row of C that it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsGemv {
    /// GEMV's op: 0 (N) or 1 (T).
    pub trans: i32,
    pub m: i64,
    pub n: i64,
    pub a: u64,
    pub lda: i64,
    pub x: u64,
    pub incx: i64,
    pub y: u64,
    pub incy: i64,
}

/// [`AsGemv`] for a valid call with n = 1 or m = 1, else None. With n = 1,
/// C's column is op(A) times op(B)'s one column, which is B's column (tb N)
/// or its row, ldb apart (tb T). With m = 1, C's row (ldc apart) is op(B)^T
/// times op(A)'s one row, which is A's row, lda apart (ta N), or its column
/// (ta T); op(B)^T is B^T (GEMV T on B, k × n) for tb N and B (GEMV N on B,
/// n × k) for tb T. The GEMV argument checks then hold by SGEMM's: its matrix
/// is A or B with the rows SGEMM checked its leading dimension against.
#[allow(clippy::too_many_arguments)]
pub fn as_gemv(
    ta: Transpose,
    tb: Transpose,
    m: i64,
    n: i64,
    k: i64,
    (a, lda): (u64, i64),
    (b, ldb): (u64, i64),
    (c, ldc): (u64, i64),
) -> Option<AsGemv> {
    use Transpose::{No, Yes};
    if n == 1 {
        let (x, incx) = if tb == No { (b, 1) } else { (b, ldb) };
        let (trans, rows, cols) = if ta == No { (0, m, k) } else { (1, k, m) };
        Some(AsGemv { trans, m: rows, n: cols, a, lda, x, incx, y: c, incy: 1 })
    } else if m == 1 {
        let (x, incx) = if ta == No { (a, lda) } else { (a, 1) };
        let (trans, rows, cols) = if tb == Yes { (0, n, k) } else { (1, k, n) };
        Some(AsGemv { trans, m: rows, n: cols, a: b, lda: ldb, x, incx, y: c, incy: ldc })
    } else {
        None
    }
}

/// Limits of the skinny kernels (module docs, "Skinny"; kernels/gemm.cu).
pub mod skinny {
    /// The most columns of D (rows or columns of C) they take; past it the
    /// tile kernels run.
    pub const MAX_N: i64 = 32;
    /// Past this many columns, the wide kernels (NB = 32, P through shared memory).
    pub const MAX_N_NARROW: i64 = 16;
    /// k per staged chunk of Q; a split's range of k is a multiple of it.
    pub const CHUNK: u64 = 256;
    /// Rows of D per block, P along k and along m.
    pub const ROWS_ALONG_K: u64 = 32;
    pub const ROWS_ALONG_M: u64 = 128;
    /// Rows of D per block of the wide kernels, and their dynamic shared
    /// memory (SKINNY_WIDE_SHARED_BYTES): 3 stages of P (64 rows × 68 floats)
    /// and Q (64 k × 36 floats). Devices that allow a block less run the
    /// tiles past [`MAX_N_NARROW`].
    pub const ROWS_WIDE: u64 = 64;
    pub const WIDE_SHARED_BYTES: u32 = 3 * (64 * 68 + 64 * 36) * 4;
}

/// D = P·Q (+ C's scaling) for an SGEMM with at most [`skinny::MAX_N`]
/// columns or rows of C (module docs, "Skinny"): the kernels' operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skinny {
    /// P(i, l) = P[l + i·ldp] (along k) or P[i + l·ldp].
    pub along_k: bool,
    /// D is M × N, P M × K, Q K × N.
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub p: u64,
    pub ldp: i64,
    /// Q(l, j) = Q[l·qsl + j·qsj].
    pub q: u64,
    pub qsl: i64,
    pub qsj: i64,
    /// D(i, j) = D[i·dsi + j·dsj].
    pub d: u64,
    pub dsi: i64,
    pub dsj: i64,
}

impl Skinny {
    /// The kernel: NB the least of 4, 8, 16, 32 that holds N; `_vec` where P's
    /// rows (along k) or columns (along m) start 16-byte aligned.
    pub fn spec(&self) -> &'static KernelSpec {
        let nb = if self.n > skinny::MAX_N_NARROW {
            3
        } else if self.n > 8 {
            2
        } else {
            (self.n > 4) as usize
        };
        let vec = self.p.is_multiple_of(16) && self.ldp % 4 == 0;
        &SKINNY_KERNELS[nb][(!self.along_k) as usize * 2 + vec as usize]
    }

    pub fn problem(&self) -> Problem {
        Problem { m: self.m as u64, n: self.n as u64, k: self.k as u64 }
    }

    /// Rows of D per block of its kernel (the geometry's row blocks).
    pub fn rows_per_block(&self) -> u64 {
        if self.n > skinny::MAX_N_NARROW {
            skinny::ROWS_WIDE
        } else if self.along_k {
            skinny::ROWS_ALONG_K
        } else {
            skinny::ROWS_ALONG_M
        }
    }

    /// Its loaded kernel and the plan (the split) for it ([`skinny_plan`]);
    /// None where no block of it can run (the wide kernels' shared memory is
    /// more than some GPUs give a block: the tiles run instead).
    fn plan<'h>(&self, handle: &'h Handle) -> Result<Option<(&'h crate::launch::Kernel, LaunchPlan)>> {
        let kernel = handle.device.kernel(self.spec().name)?;
        let plan = skinny_plan(&handle.device.tuner, self.spec(), &kernel.model, &self.problem());
        Ok(plan.occupancy.is_runnable().then_some((kernel, plan)))
    }
}

/// [`Skinny`] for a valid call whose C has 2 to [`skinny::MAX_N`] columns
/// (D = C, P = op(A), Q = op(B)) or else rows (D = C^T, P = op(B)^T, Q =
/// op(A)^T), the fewer of the two; None otherwise.
#[allow(clippy::too_many_arguments)]
pub fn as_skinny(
    ta: Transpose,
    tb: Transpose,
    m: i64,
    n: i64,
    k: i64,
    (a, lda): (u64, i64),
    (b, ldb): (u64, i64),
    (c, ldc): (u64, i64),
) -> Option<Skinny> {
    use Transpose::{No, Yes};
    if m.min(n) < 2 || m.min(n) > skinny::MAX_N {
        return None;
    }
    Some(if n <= m {
        // op(A)(i, l) = A[i + l·lda] (N) or A[l + i·lda] (T); op(B)(l, j) = B[l + j·ldb] or B[j + l·ldb].
        let (qsl, qsj) = if tb == No { (1, ldb) } else { (ldb, 1) };
        Skinny { along_k: ta == Yes, m, n, k, p: a, ldp: lda, q: b, qsl, qsj, d: c, dsi: 1, dsj: ldc }
    } else {
        // P(j, l) = op(B)(l, j), Q(l, i) = op(A)(i, l), D(j, i) = C[i + j·ldc].
        let (qsl, qsj) = if ta == No { (lda, 1) } else { (1, lda) };
        Skinny { along_k: tb == No, m: n, n: m, k, p: b, ldp: ldb, q: a, qsl, qsj, d: c, dsi: ldc, dsj: 1 }
    })
}

/// (k per split, splits) for a requested split: whole chunks per split, no
/// split empty, the partial sums within [`MAX_PARTIAL_BYTES`], and
/// no split where the row blocks outnumber the arrival counters.
pub fn skinny_split(problem: &Problem, rows_per_block: u64, requested: u32) -> (u64, u32) {
    use skinny::*;
    let chunks = problem.k.div_ceil(CHUNK).max(1);
    let by_bytes = MAX_PARTIAL_BYTES / (problem.m * problem.n * 4).max(1);
    let row_blocks = problem.m.div_ceil(rows_per_block);
    let wanted = if row_blocks > crate::handle::SPLIT_COUNTER_SLOTS { 1 } else { requested as u64 };
    let splits = wanted.min(chunks).min(by_bytes).max(1);
    let per = chunks.div_ceil(splits) * CHUNK;
    (per, problem.k.max(1).div_ceil(per) as u32)
}

/// A skinny kernel's plan: of its splits whose grid fits in one wave (past
/// one, a split only adds partial sums), those that engage the most SMs,
/// then the fullest wave (the paper's Grid-Occupancy), then the smaller
/// split; the optimizer's plan when no split fits one wave. Cached by the
/// tuner ([`Tuner::plan_with`]), a forced shape winning. The optimizer's own
/// extension takes the smallest split that engages every SM, however uneven:
/// for TN 4096 × 32 × 4096 (64 row blocks) split 3, 192 blocks, two on 60 SMs
/// and one on 72, 56.8 µs on an H200 against 46.6 at split 4 (256 blocks of
/// the 264 the device holds at once).
pub fn skinny_plan(tuner: &Tuner, spec: &KernelSpec, kernel: &KernelModel, problem: &Problem) -> LaunchPlan {
    tuner.plan_with(spec, kernel, problem, || {
        let device = tuner.device();
        let rank = |plan: &LaunchPlan| (optimizer::sm_coverage(device, plan), plan.occupancy.grid);
        let mut best: Option<LaunchPlan> = None;
        for (shape, geometry, occupancy) in optimizer::candidates(device, kernel, spec, problem) {
            let candidate = LaunchPlan { shape, geometry, occupancy };
            if !occupancy.is_runnable() || geometry.blocks() > occupancy.blocks_per_wave(device) {
                continue;
            }
            let better = best.is_none_or(|best| {
                let ((coverage, grid), (best_coverage, best_grid)) = (rank(&candidate), rank(&best));
                let tie = |a: f64, b: f64| (a - b).abs() < 1e-12;
                if !tie(coverage, best_coverage) {
                    coverage > best_coverage
                } else if !tie(grid, best_grid) {
                    grid > best_grid
                } else {
                    shape.split < best.shape.split
                }
            });
            if better {
                best = Some(candidate);
            }
        }
        best.unwrap_or_else(|| tuner.plan_uncached(spec, kernel, problem))
    })
}

/// Row blocks of ROWS rows in x, the split in y.
pub fn skinny_geometry<const ROWS: u64, const SHARED: u32>(problem: &Problem, shape: &LaunchShape) -> Geometry {
    let (_, splits) = skinny_split(problem, ROWS, shape.split);
    let blocks = problem.m.div_ceil(ROWS).clamp(1, i32::MAX as u64) as u32;
    Geometry { grid: (blocks, splits, 1), dynamic_shared_bytes: SHARED }
}

/// Whether an operand can be read as float4: the extent along the contiguous
/// direction (m or n for a tile laid out along d, k for one laid out along k),
/// the leading dimension and the address all multiples of 4 floats.
pub fn operand_is_vec4(address: u64, ld: i64, contiguous_extent: i64) -> bool {
    address.is_multiple_of(16) && ld % 4 == 0 && contiguous_extent % 4 == 0
}

/// Both operands readable as float4, for a transpose pair.
#[allow(clippy::too_many_arguments)]
pub fn vec4_applies(ta: Transpose, tb: Transpose, m: i64, n: i64, k: i64, a: u64, lda: i64, b: u64, ldb: i64) -> bool {
    // A untransposed: columns of m; transposed: columns of k. B untransposed: columns of k; transposed: of n.
    let a_extent = if ta == Transpose::No { m } else { k };
    let b_extent = if tb == Transpose::No { k } else { n };
    operand_is_vec4(a, lda, a_extent) && operand_is_vec4(b, ldb, b_extent)
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
fn block_round_us(tile: &Tile, pair: usize, active: u64, k: f64, c: u64) -> f64 {
    use time_model::*;
    let warps = (tile.threads as u64).div_ceil(32);
    let busiest = (c * warps).div_ceil(SUB_PARTITIONS) * SUB_PARTITIONS;
    let c = (busiest as f64 / warps as f64).clamp(c as f64, active.max(c) as f64);
    let work = (tile.rows * tile.cols) as f64 / (128.0 * 128.0) * k * US_PER_K_OF_128X128;
    let throughput = (c / active as f64).powf(tile.fill_exponent);
    c * work / (tile.efficiency_at(pair, k) * throughput) + ROUND_US
}

/// Stream-K's limits and constants (module docs, "Stream-K").
pub mod stream_k {
    /// Bytes of one piece: a 256×128 tile's partial sums.
    pub const PIECE_BYTES: u64 = super::TILES[0].rows * super::TILES[0].cols * 4;
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
}

/// Stream-K for an unsplit plan (module docs, "Stream-K"): how many of its
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
    let estimate = stream_k_estimate(device, tile, pair, plan, k)?;
    (estimate.time + stream_k::MIN_GAIN * estimate.full_round < estimated_time(device, tile, pair, plan, m, n, k))
        .then_some((estimate.shared, estimate.blocks))
}

/// [`stream_k_estimate`]'s answer.
struct StreamKEstimate {
    /// Tiles shared, by how many blocks.
    shared: u64,
    blocks: u32,
    /// [`estimated_time`]-like µs of the whole multiply that way.
    time: f64,
    /// µs of one full round of whole tiles.
    full_round: f64,
}

/// Stream-K over an unsplit plan's last tiles as [`stream_k_choice`] would
/// share them, or None where the shape admits none.
fn stream_k_estimate(
    device: &DeviceModel,
    tile: &Tile,
    pair: usize,
    plan: &LaunchPlan,
    k: u64,
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
    if shared * k < per_round * stream_k::MIN_K_PER_BLOCK || shared > crate::handle::SPLIT_COUNTER_SLOTS {
        return None;
    }
    let whole_rounds = ((tiles - shared) / per_round) as f64;
    let k_per_block = (k.div_ceil(8) * 8) as f64;
    let full = block_round_us(tile, pair, active, k_per_block, active);
    let spread = shared as f64 / per_round as f64 * (full - time_model::ROUND_US) / stream_k::EFFICIENCY;
    let time = whole_rounds * full + spread + time_model::ROUND_US + stream_k::FIXUP_US;
    Some(StreamKEstimate { shared, blocks: per_round as u32, time, full_round: full })
}

/// Stream-K in place of a k split (module docs, "Stream-K"): for a split
/// 256×128 plan whose tiles number at least a third of a round (each tile
/// then in at most about four pieces), whether sharing all the tiles' k
/// among one round of stream-K blocks beats the split by [`estimated_time`].
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
    if split.geometry.grid.2 <= 1 || tiles >= per_round || stream_k::MAX_BLOCKS_PER_TILE * tiles < per_round {
        return false;
    }
    stream_k_estimate(device, tile, pair, unsplit, k)
        .is_some_and(|e| e.shared == tiles && e.time < estimated_time(device, tile, pair, split, m, n, k))
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

/// The transposed-A path's limits and measured constants (module docs).
pub mod transposed_a {
    /// A panel of A^T takes at most this much of the work buffer (as split-K's partial sums).
    pub const PANEL_BYTES_MAX: u64 = super::MAX_PARTIAL_BYTES;
    /// Panels are whole multiples of the largest tile's rows, so that only the last has an edge.
    pub const PANEL_ROW_GRANULE: u64 = 256;
    /// Rows of a panel: the copy's grid covers at most 65535 × 32.
    pub const PANEL_ROWS_MAX: u64 = 65535 * 32 / PANEL_ROW_GRANULE * PANEL_ROW_GRANULE;
    /// µs of TT over NT on the H100 at n = 2048–8192 for the same tile
    /// (`mublas bench sgemm-transposed`, "direct/that"): 1.073–1.122
    /// ((4096, 4096, 256) 1.04–1.07, (512, 8192, 1024) 1.07–1.08). TN over NN
    /// measured 1.020–1.033 there since its staged B is transposed early
    /// ((4096, 4096, 256) 1.021, (512, 8192, 1024) 1.022), which the
    /// 256×128 tile's efficiencies carry (1.09 / 1.05).
    pub const TT_OVER_NT: f64 = 1.075;
    /// A copy's fixed µs: its launch in the stream between two multiplies and
    /// the ramp of a short grid. The small copies of the same runs took
    /// 6.6–9.9 µs for 4 MiB of A read and written ((512, 8192, 1024)) and
    /// 10.6–18.5 for 8 MiB ((4096, 4096, 256)), where the bytes alone account
    /// for 1.7 and 3.4.
    pub const LAUNCH_US: f64 = 6.0;
    /// Bytes of A read plus written per µs of the path's time beyond the
    /// multiply's. On the H100 (`mublas bench sgemm-transposed`, "copy") the
    /// one-panel shapes took 14–18 µs more than NN or NT at n = 2048, 25–49 at
    /// 3000 and 46–66 at 4096: 1.5–2.9 × 10⁶ bytes per µs over two sessions.
    /// Shapes of several panels pay a drain per panel on top (6144: 1.1–2.2 ×
    /// 10⁶, 8192: 1.6–2.1 × 10⁶), which their gain dwarfs.
    pub const BYTES_PER_US: f64 = 2.5e6;
}

/// Floats between consecutive columns (k) of a panel of A^T: its rows rounded up to 4.
pub fn transposed_a_ld(rows: u64) -> u64 {
    rows.div_ceil(4) * 4
}

/// Rows of op(A) per panel when A^T is copied: all m when they fit in
/// [`transposed_a::PANEL_BYTES_MAX`], else the fewest panels of equal whole
/// [`transposed_a::PANEL_ROW_GRANULE`]s that do (the last one shorter). None
/// when not even one granule fits (k > 65536).
pub fn transposed_a_panel_rows(m: u64, k: u64) -> Option<u64> {
    use transposed_a::*;
    let column_bytes = k.max(1) * 4;
    if m <= PANEL_ROWS_MAX && transposed_a_ld(m) * column_bytes <= PANEL_BYTES_MAX {
        return Some(m.max(1));
    }
    let most = (PANEL_BYTES_MAX / column_bytes).min(PANEL_ROWS_MAX) / PANEL_ROW_GRANULE * PANEL_ROW_GRANULE;
    if most == 0 {
        return None;
    }
    Some(m.div_ceil(m.div_ceil(most)).next_multiple_of(PANEL_ROW_GRANULE))
}

/// (first row, rows) of each panel of `panel_rows` rows over m.
pub fn panels(m: u64, panel_rows: u64) -> impl Iterator<Item = (u64, u64)> {
    (0..m).step_by(panel_rows.max(1) as usize).map(move |first| (first, panel_rows.min(m - first)))
}

/// Whether copying A^T pays for a TN or TT multiply (`pair` 2 or 3): the
/// direct plan's [`estimated_time`] against the panels' copies and
/// multiplies. `panel_plan(rows)` gives the tile and unsplit plan of the NN
/// or NT kernel for a panel (the work buffer holds the panel, not partial
/// sums). The NN plans are timed as NN, by each tile's own NN efficiency
/// (the 64×64 tile of 128 threads runs TN far slower than NN at long k, see
/// [`Tile::efficiency_at`]); the NT plans by TT's model divided by the
/// measured [`transposed_a::TT_OVER_NT`], since the tiles' TT efficiencies were
/// not measured against NT. Only where that was measured: GPUs that run the
/// asynchronous-copy tiles (sm_80 on).
#[allow(clippy::too_many_arguments)]
pub fn transposed_a_pays(
    device: &DeviceModel,
    pair: usize,
    direct: (usize, &LaunchPlan),
    m: u64,
    n: u64,
    k: u64,
    panel_rows: u64,
    mut panel_plan: impl FnMut(u64) -> (usize, LaunchPlan),
) -> bool {
    use transposed_a::*;
    if pair < 2 || device.compute_capability < (8, 0) {
        return false;
    }
    let direct_time = estimated_time(device, &TILES[direct.0], pair, direct.1, m, n, k);
    let mut time = 8.0 * m as f64 * k as f64 / BYTES_PER_US;
    let mut last: Option<(u64, f64)> = None;
    for (_, rows) in panels(m, panel_rows) {
        let panel_time = match last {
            Some((r, t)) if r == rows => t,
            _ => {
                let (tile, plan) = panel_plan(rows);
                let multiply = if pair == 2 {
                    estimated_time(device, &TILES[tile], 0, &plan, rows, n, k)
                } else {
                    estimated_time(device, &TILES[tile], pair, &plan, rows, n, k) / TT_OVER_NT
                };
                let t = multiply + LAUNCH_US;
                last = Some((rows, t));
                t
            }
        };
        time += panel_time;
        if time >= direct_time {
            return false;
        }
    }
    true
}

/// The split tail's own µs: the second launch, in the stream behind the first.
pub const SPLIT_TAIL_LAUNCH_US: f64 = 3.0;
/// The main part's last round must be this full: where whole tile columns
/// (rows) cannot fill it, a cut only moves the idle SMs into that round
/// (measured on the H100: 3000², 5000² (91 %) and 1024 × 8488 gained 5–17 %;
/// 8192² (79 %) 0.6 %, and a cut at NT 10000² lost 2.8 %).
pub const SPLIT_TAIL_MAIN_FILL: f64 = 0.9;

/// Which way a split tail cuts C (module docs, "Split tail").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The main part is C's first columns, the rest the others.
    Columns,
    /// The main part is C's first rows, the rest the others.
    Rows,
}

impl Cut {
    /// The (rows, columns) of C of the main part, `main` long, and of the rest.
    pub fn parts(self, m: u64, n: u64, main: u64) -> [(u64, u64); 2] {
        match self {
            Cut::Columns => [(m, main), (m, n - main)],
            Cut::Rows => [(main, n), (m - main, n)],
        }
    }
}

/// How much of C (columns or rows, by `cut`) the main part of a split tail
/// covers, for a tile whose unsplit plan for all of C is `plan` (module docs,
/// "Split tail"): the whole tile columns (rows) that fill all rounds but the
/// last. None when the plan is split, fits one round, or its last round is
/// full, when not even one tile column (row) fits, or when the main part's
/// own last round would be less than [`SPLIT_TAIL_MAIN_FILL`] full.
pub fn split_tail_main(device: &DeviceModel, tile: &Tile, plan: &LaunchPlan, cut: Cut, m: u64, n: u64) -> Option<u64> {
    let per_round = plan.occupancy.blocks_per_wave(device);
    let blocks = plan.geometry.blocks();
    if plan.geometry.grid.2 > 1 || per_round == 0 || blocks <= per_round || blocks.is_multiple_of(per_round) {
        return None;
    }
    // Along the cut: the tile's extent and C's; across it: tiles per tile column (row).
    let (tile_len, len, across) = match cut {
        Cut::Columns => (tile.cols, n, m.div_ceil(tile.rows)),
        Cut::Rows => (tile.rows, m, n.div_ceil(tile.cols)),
    };
    let main_lines = (blocks / per_round) * per_round / across.max(1);
    let main = main_lines * tile_len;
    let last_round = main_lines * across % per_round;
    let last_fill = if last_round == 0 { 1.0 } else { last_round as f64 / per_round as f64 };
    (main_lines > 0 && main < len && last_fill >= SPLIT_TAIL_MAIN_FILL).then_some(main)
}

/// The tile, cut and main part of a split tail when it beats the direct plan
/// by [`estimated_time`] (module docs, "Split tail"); columns first at equal
/// times. The main part runs on the largest tile meant for the device: the
/// coarsest rounds, which a tail helps most, and the best measured
/// efficiency (with 128×128_t128 the model chose a tail at NT 10000² that
/// ran 2.8 % slower). `main_plan(tile, m, n)` is a tile's unsplit plan for
/// an m × n C; `rest_plan(m, n)` the tile and plan (split or not) of the rest.
#[allow(clippy::too_many_arguments)]
pub fn split_tail_choice(
    device: &DeviceModel,
    pair: usize,
    direct: (usize, &LaunchPlan),
    m: u64,
    n: u64,
    k: u64,
    mut main_plan: impl FnMut(usize, u64, u64) -> LaunchPlan,
    mut rest_plan: impl FnMut(u64, u64) -> (usize, LaunchPlan),
) -> Option<(usize, Cut, u64)> {
    let tile = split_tail_tile(device);
    let spec = &TILES[tile];
    let whole = main_plan(tile, m, n);
    let mut best = None;
    let mut best_time = estimated_time(device, &TILES[direct.0], pair, direct.1, m, n, k) - SPLIT_TAIL_LAUNCH_US;
    for cut in [Cut::Columns, Cut::Rows] {
        let Some(main) = split_tail_main(device, spec, &whole, cut, m, n) else { continue };
        let [(main_m, main_n), (rest_m, rest_n)] = cut.parts(m, n, main);
        let (rest_tile, rest) = rest_plan(rest_m, rest_n);
        let time = estimated_time(device, spec, pair, &main_plan(tile, main_m, main_n), main_m, main_n, k)
            + estimated_time(device, &TILES[rest_tile], pair, &rest, rest_m, rest_n, k);
        if time < best_time {
            (best, best_time) = (Some((tile, cut, main)), time);
        }
    }
    best
}

/// The tile a split tail's main part runs on: the largest meant for the device.
pub fn split_tail_tile(device: &DeviceModel) -> usize {
    TILES.iter().position(|tile| tile_suits(device, tile)).unwrap_or(0)
}

/// How to run a multiply: forced (tests, experiments) or chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileChoice {
    Auto,
    /// This tile; the split still comes from the tuner (force it with `tuner.forced()`).
    Tile(usize),
    /// TN and TT: A^T copied in panels of this many rows (module docs), each
    /// multiplied unsplit on the tile the rule chooses; other pairs as `Auto`.
    TransposedA {
        panel_rows: u64,
    },
    /// A split tail (module docs): C's first `main` columns or rows (by
    /// `cut`) unsplit on this tile, the rest as chosen.
    SplitTail {
        tile: usize,
        cut: Cut,
        main: u64,
    },
    /// Stream-K (module docs) on the 256×128 tile, where the pair and
    /// alignment have a stream-K kernel: its last `tiles` tiles shared by
    /// `blocks` blocks (both capped so that every block gets k to do);
    /// elsewhere as `Tile(0)`.
    StreamK {
        tiles: u64,
        blocks: u32,
    },
}

/// What one call did, for tests and the tools.
#[derive(Clone, Copy, Debug)]
pub struct GemmDecision {
    pub path: GemmPath,
    /// The tile kernel and its plan (Multiply only; with A^T copied, the first panel's).
    pub kernel: Option<&'static KernelSpec>,
    pub plan: Option<LaunchPlan>,
    /// Rows per panel when A^T was copied first (module docs, "Transposed A").
    pub transposed_a_panel_rows: Option<u64>,
    /// With a split tail (module docs), its cut and what ran the rest.
    pub split_tail: Option<SplitTail>,
    /// With stream-K (module docs), as it ran.
    pub stream_k: Option<StreamK>,
    /// One column or row of C (module docs): the SGEMV call that computed it.
    pub as_gemv: Option<AsGemv>,
    /// A few columns or rows of C (module docs, "Skinny"): what the skinny kernel computed.
    pub skinny: Option<Skinny>,
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
        (self.tiles + self.blocks as u64) * stream_k::PIECE_BYTES
    }
}

/// Stream-K is on unless `MUBLAS_STREAM_K=0` (for measuring it against the plain grid).
fn stream_k_enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("MUBLAS_STREAM_K").map_or(true, |v| v != "0"))
}

/// A split tail: C cut after its first `main` columns or rows; the rest
/// multiplied by this kernel and plan.
#[derive(Clone, Copy, Debug)]
pub struct SplitTail {
    pub cut: Cut,
    pub main: u64,
    pub kernel: &'static KernelSpec,
    pub plan: LaunchPlan,
}

/// The problem the tuner sees for a tile kernel (module docs, steps 1–2):
/// k when splitting is worth considering or a split is forced, else 0.
pub fn tuner_problem(handle: &Handle, spec: &KernelSpec, m: u64, n: u64, k: u64) -> Result<Problem> {
    let device = &handle.device;
    if device.tuner.forced().get(spec.name).is_some_and(|shape| shape.split > 1) {
        return Ok(Problem { m, n, k });
    }
    let kernel = device.kernel(spec.name)?;
    let unsplit = device.tuner.plan(spec, &kernel.model, &Problem { m, n, k: 0 });
    Ok(if split_worthwhile(device.model(), &unsplit) { Problem { m, n, k } } else { Problem { m, n, k: 0 } })
}

/// The tile kernel and plan for a multiply, by the rule of the module docs.
#[allow(clippy::too_many_arguments)]
pub fn plan_multiply(
    handle: &Handle,
    ta: Transpose,
    tb: Transpose,
    m: u64,
    n: u64,
    k: u64,
    vec: bool,
    choice: TileChoice,
) -> Result<(&'static KernelSpec, LaunchPlan)> {
    let device = &handle.device;
    let index = kernel_index(ta, tb, vec);
    let pair = pair_index(ta, tb);
    let plan_of = |tile: usize| -> Result<LaunchPlan> {
        let spec = &TILE_KERNELS[tile][index];
        let kernel = device.kernel(spec.name)?;
        Ok(tile_plan(&device.tuner, spec, &kernel.model, &TILES[tile], pair, m, n, k))
    };
    let tile = match choice {
        TileChoice::Tile(tile) | TileChoice::SplitTail { tile, .. } => tile.min(TILES.len() - 1),
        TileChoice::StreamK { .. } => 0,
        TileChoice::Auto | TileChoice::TransposedA { .. } => {
            let plans = (0..TILES.len()).map(plan_of).collect::<Result<Vec<_>>>()?;
            let tile = choose_tile(device.model(), pair, &plans, m, n, k);
            return Ok((&TILE_KERNELS[tile][index], plans[tile]));
        }
    };
    Ok((&TILE_KERNELS[tile][index], plan_of(tile)?))
}

/// The index in [`TILES`] of a tile kernel.
pub fn tile_of(spec: &KernelSpec) -> usize {
    TILE_KERNELS.iter().position(|kernels| kernels.iter().any(|k| k.name == spec.name)).unwrap_or(0)
}

/// The NN or NT kernel and its plan for a panel of `rows` rows of A^T in the
/// work buffer at `scratch` (module docs, "Transposed A"): the chosen tile,
/// unsplit (the work buffer holds the panel, not partial sums).
#[allow(clippy::too_many_arguments)]
fn panel_multiply(
    handle: &Handle,
    tb: Transpose,
    rows: u64,
    n: u64,
    k: u64,
    scratch: u64,
    b: u64,
    ldb: i64,
) -> Result<(&'static KernelSpec, LaunchPlan)> {
    let vec =
        vec4_applies(Transpose::No, tb, rows as i64, n as i64, k as i64, scratch, transposed_a_ld(rows) as i64, b, ldb);
    let (spec, plan) = plan_multiply(handle, Transpose::No, tb, rows, n, k, vec, TileChoice::Auto)?;
    if plan.geometry.grid.2 <= 1 {
        return Ok((spec, plan));
    }
    Ok((spec, unsplit(handle, spec, &plan, rows, n)?))
}

/// `plan` with its block and one split (a split forced for the kernel included).
fn unsplit(handle: &Handle, spec: &KernelSpec, plan: &LaunchPlan, m: u64, n: u64) -> Result<LaunchPlan> {
    let kernel = handle.device.kernel(spec.name)?;
    Ok(LaunchPlan::of_shape(
        handle.device.model(),
        &kernel.model,
        spec,
        &Problem { m, n, k: 0 },
        LaunchShape { split: 1, ..plan.shape },
    ))
}

/// What a multiply runs: a tile kernel and its plan, after A^T is copied
/// in panels of `transposed_a_panel_rows` rows when that is set (the kernel
/// and plan are then the first panel's).
#[derive(Clone, Copy, Debug)]
pub struct MultiplyPlan {
    pub kernel: &'static KernelSpec,
    pub plan: LaunchPlan,
    pub transposed_a_panel_rows: Option<u64>,
    /// With a split tail, `kernel` and `plan` are the main part's.
    pub split_tail: Option<SplitTail>,
    /// With A^T copied: the first panel's plans, which [`sgemm_with`] runs
    /// rather than plan them again.
    pub(crate) first_panel: Option<PanelPlan>,
    /// Stream-K over `plan` (not with a split tail; with A^T copied, the
    /// first panel's).
    pub stream_k: Option<StreamK>,
}

/// The plan of a multiply as [`sgemm`] runs it (module docs).
#[allow(clippy::too_many_arguments)]
pub fn plan_call(
    handle: &Handle,
    ta: Transpose,
    tb: Transpose,
    m: u64,
    n: u64,
    k: u64,
    a: u64,
    lda: i64,
    b: u64,
    ldb: i64,
    choice: TileChoice,
) -> Result<MultiplyPlan> {
    let vec = vec4_applies(ta, tb, m as i64, n as i64, k as i64, a, lda, b, ldb);
    let (kernel, plan) = plan_multiply(handle, ta, tb, m, n, k, vec, choice)?;
    if let Some(panel_rows) = transposed_a_choice(handle, ta, tb, m, n, k, b, ldb, (kernel, &plan), choice)? {
        let first_panel = panel_plan(handle, tb, panel_rows.min(m), n, k, 256, b, ldb)?;
        let (kernel, plan, split_tail) = first_panel.tailed;
        let stream_k = first_panel.stream_k;
        return Ok(MultiplyPlan {
            kernel,
            plan,
            transposed_a_panel_rows: Some(panel_rows),
            split_tail,
            first_panel: Some(first_panel),
            stream_k,
        });
    }
    // C's address does not enter a plan.
    let product = Product { m, n, k, x: Operands { ta, a, lda, tb, b, ldb, c: 0, ldc: m.max(1) as i64 } };
    let (kernel, plan, split_tail) = match choice {
        TileChoice::SplitTail { cut, main, .. } if main > 0 && main < if cut == Cut::Columns { n } else { m } => {
            let (kernel, plan, tail) = split_tail_on(handle, &product, tile_of(kernel), cut, main)?;
            (kernel, plan, Some(tail))
        }
        TileChoice::Auto => match split_tail_rule(handle, &product, (kernel, &plan))? {
            Some((kernel, plan, tail)) => (kernel, plan, Some(tail)),
            None => (kernel, plan, None),
        },
        _ => (kernel, plan, None),
    };
    // Forced stream-K runs over the unsplit grid, and so does stream-K in
    // place of a split (its rule then shares every tile).
    let plan = if plan.geometry.grid.2 <= 1 {
        plan
    } else if matches!(choice, TileChoice::StreamK { .. }) {
        unsplit(handle, kernel, &plan, m, n)?
    } else if split_tail.is_none() && stream_k_may_replace_split(kernel, choice) {
        let whole = unsplit(handle, kernel, &plan, m, n)?;
        let device = handle.device.model();
        let pair = pair_index(ta, tb);
        if stream_k_replaces_split(device, &TILES[0], pair, (&plan, &whole), m, n, k) { whole } else { plan }
    } else {
        plan
    };
    let stream_k = if split_tail.is_none() {
        stream_k_plan(handle, (kernel, &plan), pair_index(ta, tb), (m, n, k), choice)
    } else {
        None
    };
    Ok(MultiplyPlan { kernel, plan, transposed_a_panel_rows: None, split_tail, first_panel: None, stream_k })
}

/// Whether the rule may put stream-K in place of a split: as for a last
/// round ([`stream_k_plan`]), a kernel with a stream-K twin (256×128).
fn stream_k_may_replace_split(kernel: &'static KernelSpec, choice: TileChoice) -> bool {
    matches!(choice, TileChoice::Auto | TileChoice::Tile(_)) && stream_k_twin(kernel).is_some() && stream_k_enabled()
}

/// Stream-K over a direct plan: forced, or where [`stream_k_choice`] says it pays.
fn stream_k_plan(
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

/// op(A)·op(B) over an m × n × k shape and its operands, as the split tail's planning sees it.
#[derive(Clone, Copy)]
struct Product {
    m: u64,
    n: u64,
    k: u64,
    x: Operands,
}

impl Product {
    /// The product over `count` columns of op(B) and C, or rows of op(A) and C, from `first` on.
    fn part(&self, cut: Cut, first: u64, count: u64) -> Product {
        let x = self.x.part(cut, first);
        match cut {
            Cut::Columns => Product { n: count, x, ..*self },
            Cut::Rows => Product { m: count, x, ..*self },
        }
    }

    fn vec4(&self) -> bool {
        let x = &self.x;
        vec4_applies(x.ta, x.tb, self.m as i64, self.n as i64, self.k as i64, x.a, x.lda, x.b, x.ldb)
    }
}

/// A split tail cut after `main` columns or rows: the main part's kernel and
/// plan (`tile`, unsplit) and the rest's, as [`plan_multiply`] chooses.
fn split_tail_on(
    handle: &Handle,
    product: &Product,
    tile: usize,
    cut: Cut,
    main: u64,
) -> Result<(&'static KernelSpec, LaunchPlan, SplitTail)> {
    let len = if cut == Cut::Columns { product.n } else { product.m };
    let (main_kernel, main_plan) = unsplit_on(handle, &product.part(cut, 0, main), tile)?;
    let rest = product.part(cut, main, len - main);
    let (kernel, plan) =
        plan_multiply(handle, rest.x.ta, rest.x.tb, rest.m, rest.n, rest.k, rest.vec4(), TileChoice::Auto)?;
    Ok((main_kernel, main_plan, SplitTail { cut, main, kernel, plan }))
}

/// A panel of `rows` rows of A^T's multiply (module docs, "Transposed A").
#[derive(Clone, Copy, Debug)]
pub(crate) struct PanelPlan {
    rows: u64,
    /// [`panel_multiply`]'s kernel and plan, for all of the panel.
    whole: (&'static KernelSpec, LaunchPlan),
    /// With a split tail where the rule says (its partial sums then go after
    /// the panel): the main part's kernel and plan, and the tail.
    tailed: (&'static KernelSpec, LaunchPlan, Option<SplitTail>),
    /// Without a split tail, stream-K where the rule says (its pieces after the panel).
    stream_k: Option<StreamK>,
}

impl PanelPlan {
    /// Work buffer after the panel: the split tail's partial sums or the stream-K pieces.
    fn after_panel_bytes(&self, n: u64) -> u64 {
        self.tailed.2.map_or(0, |t| t.partial_bytes(self.rows, n)) + self.stream_k.map_or(0, |s| s.piece_bytes())
    }
}

/// The plans of a panel of `rows` rows of A^T at `scratch`.
#[allow(clippy::too_many_arguments)]
fn panel_plan(
    handle: &Handle,
    tb: Transpose,
    rows: u64,
    n: u64,
    k: u64,
    scratch: u64,
    b: u64,
    ldb: i64,
) -> Result<PanelPlan> {
    let whole = panel_multiply(handle, tb, rows, n, k, scratch, b, ldb)?;
    let x = Operands {
        ta: Transpose::No,
        a: scratch,
        lda: transposed_a_ld(rows) as i64,
        tb,
        b,
        ldb,
        c: 0,
        ldc: rows.max(1) as i64,
    };
    let tailed = match split_tail_rule(handle, &Product { m: rows, n, k, x }, (whole.0, &whole.1))? {
        Some((kernel, plan, tail)) => (kernel, plan, Some(tail)),
        None => (whole.0, whole.1, None),
    };
    let stream_k = if tailed.2.is_none() {
        stream_k_plan(handle, (whole.0, &whole.1), pair_index(Transpose::No, tb), (rows, n, k), TileChoice::Auto)
    } else {
        None
    };
    Ok(PanelPlan { rows, whole, tailed, stream_k })
}

impl SplitTail {
    /// Bytes of partial sums its rest needs (0 unsplit), for a multiply of m rows and n columns in all.
    pub fn partial_bytes(&self, m: u64, n: u64) -> u64 {
        let splits = self.plan.geometry.grid.2 as u64;
        let [_, (rest_m, rest_n)] = self.cut.parts(m, n, self.main);
        if splits <= 1 { 0 } else { partial_ld(rest_m) * rest_n * splits * 4 }
    }
}

/// B's sub-matrix of op(B)'s columns from `first` on: its address.
fn columns_of_b(tb: Transpose, b: u64, ldb: i64, first: u64) -> u64 {
    if tb == Transpose::No { b + first * ldb as u64 * 4 } else { b + first * 4 }
}

/// A's sub-matrix of op(A)'s rows from `first` on: its address.
fn rows_of_a(ta: Transpose, a: u64, lda: i64, first: u64) -> u64 {
    if ta == Transpose::No { a + first * 4 } else { a + first * lda as u64 * 4 }
}

/// `tile`'s kernel for the product, unsplit (a split tail's main part).
fn unsplit_on(handle: &Handle, product: &Product, tile: usize) -> Result<(&'static KernelSpec, LaunchPlan)> {
    let spec = &TILE_KERNELS[tile][kernel_index(product.x.ta, product.x.tb, product.vec4())];
    let kernel = handle.device.kernel(spec.name)?;
    let plan = handle.device.tuner.plan(spec, &kernel.model, &Problem { m: product.m, n: product.n, k: 0 });
    Ok((spec, unsplit(handle, spec, &plan, product.m, product.n)?))
}

/// A split tail where [`split_tail_choice`] says it pays: as [`split_tail_on`].
#[allow(clippy::type_complexity)]
fn split_tail_rule(
    handle: &Handle,
    product: &Product,
    direct: (&'static KernelSpec, &LaunchPlan),
) -> Result<Option<(&'static KernelSpec, LaunchPlan, SplitTail)>> {
    // Cheap exit before any planning: the direct plan fills its rounds, or is split.
    let device = handle.device.model();
    if direct.1.geometry.grid.2 > 1 || direct.1.geometry.blocks() <= direct.1.occupancy.blocks_per_wave(device) {
        return Ok(None);
    }
    // Plans are looked up before the rule runs, so that it cannot fail.
    let &Product { m, n, k, .. } = product;
    let tile = split_tail_tile(device);
    let (_, whole) = unsplit_on(handle, product, tile)?;
    let mut candidates = Vec::with_capacity(2);
    for cut in [Cut::Columns, Cut::Rows] {
        if let Some(main) = split_tail_main(device, &TILES[tile], &whole, cut, m, n) {
            let (kernel, plan, tail) = split_tail_on(handle, product, tile, cut, main)?;
            candidates.push((cut.parts(m, n, main), kernel, plan, tail));
        }
    }
    let main_plan = |_: usize, m: u64, n: u64| candidates.iter().find(|c| c.0[0] == (m, n)).map_or(whole, |c| c.2);
    let rest_plan = |m: u64, n: u64| {
        candidates
            .iter()
            .find(|c| c.0[1] == (m, n))
            .map_or((tile_of(direct.0), *direct.1), |c| (tile_of(c.3.kernel), c.3.plan))
    };
    let chosen = split_tail_choice(
        device,
        pair_index(product.x.ta, product.x.tb),
        (tile_of(direct.0), direct.1),
        m,
        n,
        k,
        main_plan,
        rest_plan,
    );
    Ok(chosen
        .and_then(|(_, cut, main)| candidates.into_iter().find(|c| c.3.cut == cut && c.3.main == main))
        .map(|c| (c.1, c.2, c.3)))
}

/// Panel rows for copying A^T first, when `choice` forces it or the rule says it pays.
#[allow(clippy::too_many_arguments)]
fn transposed_a_choice(
    handle: &Handle,
    ta: Transpose,
    tb: Transpose,
    m: u64,
    n: u64,
    k: u64,
    b: u64,
    ldb: i64,
    direct: (&'static KernelSpec, &LaunchPlan),
    choice: TileChoice,
) -> Result<Option<u64>> {
    if ta == Transpose::No {
        return Ok(None);
    }
    let panel_rows = match (choice, transposed_a_panel_rows(m, k)) {
        (TileChoice::TransposedA { panel_rows }, _) => {
            return Ok(Some(panel_rows.clamp(1, transposed_a::PANEL_ROWS_MAX)));
        }
        (TileChoice::Auto, Some(rows)) => rows,
        _ => return Ok(None),
    };
    // The work buffer's address does not change the plans: any 256-byte aligned one will do.
    // Kernels are looked up before the rule runs, so that it cannot fail.
    let mut plans = Vec::with_capacity(2);
    for (_, rows) in panels(m, panel_rows).take(1).chain(panels(m, panel_rows).last()) {
        let (spec, plan) = panel_multiply(handle, tb, rows, n, k, 256, b, ldb)?;
        plans.push((rows, tile_of(spec), plan));
    }
    let panel_plan = |rows: u64| plans.iter().find(|p| p.0 == rows).map_or((0, *direct.1), |p| (p.1, p.2));
    Ok(transposed_a_pays(
        handle.device.model(),
        pair_index(ta, tb),
        (tile_of(direct.0), direct.1),
        m,
        n,
        k,
        panel_rows,
        panel_plan,
    )
    .then_some(panel_rows))
}

/// C = alpha·op(A)·op(B) + beta·C (cuBLAS `cublasSgemm`).
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    handle: &Handle,
    transa: i32,
    transb: i32,
    m: i64,
    n: i64,
    k: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    b: u64,
    ldb: i64,
    beta: Scalar,
    c: u64,
    ldc: i64,
) -> Result<()> {
    sgemm_with(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, TileChoice::Auto).map(|_| ())
}

/// [`sgemm`] with the tile forced or chosen, saying what it did.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn sgemm_with(
    handle: &Handle,
    transa: i32,
    transb: i32,
    m: i64,
    n: i64,
    k: i64,
    alpha: Scalar,
    a: u64,
    lda: i64,
    b: u64,
    ldb: i64,
    beta: Scalar,
    c: u64,
    ldc: i64,
    choice: TileChoice,
) -> Result<GemmDecision> {
    let (ta, tb) = check_arguments(transa, transb, m, n, k, lda, ldb, ldc)?;
    let path = path(m, n, k, alpha, beta);
    let mut decision = GemmDecision {
        path,
        kernel: None,
        plan: None,
        transposed_a_panel_rows: None,
        split_tail: None,
        stream_k: None,
        as_gemv: None,
        skinny: None,
    };
    if path == GemmPath::QuickReturn {
        return Ok(decision);
    }
    if c == 0 || (path == GemmPath::Multiply && (a == 0 || b == 0)) {
        return Err(Error::InvalidValue("SGEMM: A, B or C is NULL".into()));
    }
    let device = &handle.device;
    let (um, un, uk) = (m as u64, n as u64, k as u64);
    let (beta_value, beta_address) = beta.kernel_args();
    let _bound = ContextGuard::bind(device.context())?;

    if path == GemmPath::ScaleOnly {
        let kernel = device.kernel(SCALE.name)?;
        let plan = device.tuner.plan(&SCALE, &kernel.model, &Problem { m: um, n: un, k: 0 });
        // SAFETY: arguments as in kernels/gemm.cu; C spans ldc·(n−1)+m floats (the caller's promise, as with cuBLAS).
        unsafe {
            kernel.launch(
                handle.stream(),
                &plan.geometry,
                &plan.shape,
                &[I64(m), I64(n), beta_value, beta_address, Ptr(c), I64(ldc)],
            )?
        };
        return Ok(decision);
    }
    if choice == TileChoice::Auto
        && let Some(g) = as_gemv(ta, tb, m, n, k, (a, lda), (b, ldb), (c, ldc))
    {
        decision.as_gemv = Some(g);
        return super::gemv::sgemv(handle, g.trans, g.m, g.n, alpha, g.a, g.lda, g.x, g.incx, beta, g.y, g.incy)
            .map(|()| decision);
    }
    if choice == TileChoice::Auto
        && let Some(skinny) = as_skinny(ta, tb, m, n, k, (a, lda), (b, ldb), (c, ldc))
        && let Some((kernel, plan)) = skinny.plan(handle)?
    {
        let plan = launch_skinny(handle, &skinny, kernel, plan, alpha, beta)?;
        (decision.skinny, decision.kernel, decision.plan) = (Some(skinny), Some(skinny.spec()), Some(plan));
        return Ok(decision);
    }

    let MultiplyPlan { kernel: mut spec, mut plan, transposed_a_panel_rows, mut split_tail, first_panel, mut stream_k } =
        plan_call(handle, ta, tb, um, un, uk, a, lda, b, ldb, choice)?;
    let (alpha_value, alpha_address) = alpha.kernel_args();
    let scalars = [alpha_value, alpha_address, beta_value, beta_address];
    // The panel of A^T, then room for the panels' split tails' partial sums.
    // Panels have at most two heights (the last may be shorter): their plans,
    // once (the work buffer's address, 256-byte aligned, does not change them);
    // plan_call has made the first panel's.
    let panel_bytes = transposed_a_panel_rows.map_or(0, |rows| (transposed_a_ld(rows) * uk * 4).next_multiple_of(256));
    let mut panel_plans = Vec::with_capacity(2);
    if let (Some(panel_rows), Some(first)) = (transposed_a_panel_rows, first_panel) {
        panel_plans.push(first);
        if let Some((_, rows)) = panels(um, panel_rows).last().filter(|&(_, rows)| rows != first.rows) {
            panel_plans.push(panel_plan(handle, tb, rows, un, uk, 256, b, ldb)?);
        }
    }
    let tail_bytes = panel_plans.iter().map(|p| p.after_panel_bytes(un)).max().unwrap_or(0);
    // Without the work buffer for A^T (its limit, or no memory to grow it):
    // panels without split tails or stream-K, or else the direct plan.
    let mut panel_tails = true;
    let mut copy_area = None;
    if transposed_a_panel_rows.is_some() {
        for (bytes, tails) in [(panel_bytes + tail_bytes, true), (panel_bytes, false)] {
            match handle.work_area(bytes) {
                Ok(work) => {
                    (copy_area, panel_tails) = (Some(work), tails);
                    break;
                }
                Err(Error::AllocFailed(why)) => log::info!(
                    "SGEMM: no {bytes} bytes of work buffer for A^T{} ({why})",
                    if tails { " and split tails" } else { "" }
                ),
                Err(e) => return Err(e),
            }
            if tail_bytes == 0 {
                break; // the panel alone was what failed
            }
        }
        if copy_area.is_none() {
            log::info!("SGEMM: multiplying without copying A^T");
            (spec, plan) = plan_multiply(
                handle,
                ta,
                tb,
                um,
                un,
                uk,
                vec4_applies(ta, tb, m, n, k, a, lda, b, ldb),
                TileChoice::Auto,
            )?;
            (split_tail, stream_k) = (None, None);
        }
    }
    (decision.kernel, decision.plan) = (Some(spec), Some(plan));
    if let (Some(work), Some(panel_rows)) = (copy_area, transposed_a_panel_rows) {
        decision.transposed_a_panel_rows = Some(panel_rows);
        let transpose = device.kernel(TRANSPOSE_A.name)?;
        for (first, rows) in panels(um, panel_rows) {
            let panel = panel_plans
                .iter()
                .find(|p| p.rows == rows)
                .copied()
                .map_or_else(|| panel_plan(handle, tb, rows, un, uk, 256, b, ldb), Ok)?;
            let (panel_spec, panel_plan, panel_tail) =
                if panel_tails { panel.tailed } else { (panel.whole.0, panel.whole.1, None) };
            let panel_stream_k = panel.stream_k.filter(|_| panel_tails);
            let copy_plan = device.tuner.plan(&TRANSPOSE_A, &transpose.model, &Problem { m: rows, n: 0, k: uk });
            let ldt = transposed_a_ld(rows) as i64;
            // SAFETY: columns first … first + rows of A (k × m, lda) lie within
            // A; the work area's scratch holds ldt · k floats of the panel.
            unsafe {
                transpose.launch(
                    handle.stream(),
                    &copy_plan.geometry,
                    &copy_plan.shape,
                    &[
                        I64(k),
                        I64(rows as i64),
                        alpha_value,
                        alpha_address,
                        Ptr(a + first * lda as u64 * 4),
                        I64(lda),
                        Ptr(work.scratch()),
                        I64(ldt),
                    ],
                )?;
            }
            let operands =
                Operands { ta: Transpose::No, a: work.scratch(), lda: ldt, tb, b, ldb, c: c + first * 4, ldc };
            if let Some(stream_k) = panel_stream_k {
                let pieces = (work.counters(), work.scratch() + panel_bytes);
                decision.stream_k = launch_stream_k(
                    handle,
                    panel_spec,
                    &panel_plan,
                    stream_k,
                    (rows, un, uk),
                    scalars,
                    &operands,
                    Some(pieces),
                )?;
                continue;
            }
            let partials = Partials::At(work.scratch() + panel_bytes);
            decision.split_tail = launch_with_tail(
                handle,
                (panel_spec, &panel_plan),
                panel_tail,
                (rows, un, uk),
                scalars,
                &operands,
                partials,
            )?
            .or(decision.split_tail);
        }
        return Ok(decision);
    }

    let operands = Operands { ta, a, lda, tb, b, ldb, c, ldc };
    if split_tail.is_some() {
        decision.split_tail = launch_with_tail(
            handle,
            (spec, &plan),
            split_tail,
            (um, un, uk),
            scalars,
            &operands,
            Partials::FromHandle,
        )?;
    } else if let Some(stream_k) = stream_k {
        decision.stream_k = launch_stream_k(handle, spec, &plan, stream_k, (um, un, uk), scalars, &operands, None)?;
    } else {
        decision.plan =
            Some(launch_multiply(handle, spec, &plan, (um, un, uk), scalars, &operands, Partials::FromHandle)?);
    }
    Ok(decision)
}

/// Where a split multiply's partial sums go.
#[derive(Clone, Copy)]
enum Partials {
    /// The handle's work area, asked for at the launch.
    FromHandle,
    /// This address in a work area the caller holds, with room for them.
    At(u64),
}

/// For the tools: what an automatic call with one, or 2 to
/// [`skinny::MAX_N`], columns or rows of C runs instead of a tile kernel
/// ("gemv" or "skinny"), its kernel, plan and tuner problem; None for the others.
#[allow(clippy::too_many_arguments)]
pub fn small_side_plan(
    handle: &Handle,
    ta: Transpose,
    tb: Transpose,
    m: i64,
    n: i64,
    k: i64,
    a: (u64, i64),
    b: (u64, i64),
    c: (u64, i64),
) -> Result<Option<(&'static str, &'static KernelSpec, LaunchPlan, Problem)>> {
    use super::gemv;
    if let Some(g) = as_gemv(ta, tb, m, n, k, a, b, c) {
        let op = if g.trans == 0 { gemv::Op::N } else { gemv::Op::T };
        let (spec, plan) = gemv::plan(handle, op, g.m, g.n, g.a, g.lda, gemv::x_reads(g.x, g.incx))?;
        return Ok(Some(("gemv", spec, plan, gemv::problem(g.m, g.n))));
    }
    let Some(skinny) = as_skinny(ta, tb, m, n, k, a, b, c) else { return Ok(None) };
    let Some((_, plan)) = skinny.plan(handle)? else { return Ok(None) };
    Ok(Some(("skinny", skinny.spec(), plan, skinny.problem())))
}

/// Runs a [`Skinny`] multiply with its kernel and plan ([`Skinny::plan`]):
/// the plan's split, its partial sums in the work buffer, unsplit without
/// one. Returns the plan that ran.
fn launch_skinny(
    handle: &Handle,
    skinny: &Skinny,
    kernel: &crate::launch::Kernel,
    mut plan: LaunchPlan,
    alpha: Scalar,
    beta: Scalar,
) -> Result<LaunchPlan> {
    let device = &handle.device;
    let problem = skinny.problem();
    let (mut per_split, splits) = skinny_split(&problem, skinny.rows_per_block(), plan.shape.split);
    // Held until the launch is queued (as SGEMV's): the counters and partial sums are this launch's.
    let work = if splits <= 1 {
        None
    } else {
        match handle.work_area(splits as u64 * problem.m * problem.n * 4) {
            Ok(work) => Some(work),
            Err(Error::AllocFailed(why)) => {
                log::info!("SGEMM: skinny multiply not split ({why})");
                plan.shape.split = 1;
                plan.geometry = (skinny.spec().geometry)(&problem, &plan.shape);
                (per_split, _) = skinny_split(&problem, skinny.rows_per_block(), 1);
                None
            }
            Err(e) => return Err(e),
        }
    };
    let (counters, partials) = work.as_ref().map_or((0, 0), |work| (work.counters(), work.scratch()));
    let (alpha_value, alpha_address) = alpha.kernel_args();
    let (beta_value, beta_address) = beta.kernel_args();
    let _bound = ContextGuard::bind(device.context())?;
    // SAFETY: the argument list matches SKINNY_PARAMS in kernels/gemm.cu; P, Q
    // and D span what their strides and sizes say (SGEMM's operands, checked
    // as cuBLAS checks them); the work area holds splits · M · N floats.
    unsafe {
        kernel.launch(
            handle.stream(),
            &plan.geometry,
            &plan.shape,
            &[
                I64(skinny.m),
                I32(skinny.n as i32),
                I64(skinny.k),
                I64(per_split as i64),
                alpha_value,
                alpha_address,
                Ptr(skinny.p),
                I64(skinny.ldp),
                Ptr(skinny.q),
                I64(skinny.qsl),
                I64(skinny.qsj),
                beta_value,
                beta_address,
                Ptr(skinny.d),
                I64(skinny.dsi),
                I64(skinny.dsj),
                Ptr(counters),
                Ptr(partials),
            ],
        )?;
    }
    Ok(plan)
}

/// `main` over the first columns or rows of C (all of C without a split
/// tail), then the split tail's rest. Returns the tail with the plan its rest ran.
fn launch_with_tail(
    handle: &Handle,
    main: (&'static KernelSpec, &LaunchPlan),
    tail: Option<SplitTail>,
    (m, n, k): (u64, u64, u64),
    scalars: [crate::launch::KernelArg; 4],
    x: &Operands,
    partials: Partials,
) -> Result<Option<SplitTail>> {
    let Some(mut tail) = tail else {
        launch_unsplit(handle, main.0, main.1, (m, n, k), scalars, x)?;
        return Ok(None);
    };
    let [(main_m, main_n), (rest_m, rest_n)] = tail.cut.parts(m, n, tail.main);
    launch_unsplit(handle, main.0, main.1, (main_m, main_n, k), scalars, x)?;
    tail.plan = launch_multiply(
        handle,
        tail.kernel,
        &tail.plan,
        (rest_m, rest_n, k),
        scalars,
        &x.part(tail.cut, tail.main),
        partials,
    )?;
    Ok(Some(tail))
}

/// A multiply by one tile kernel, split along k as `plan` says (the partial
/// C tiles in the work buffer, then the reduction) or not; unsplit when the
/// work buffer cannot be had. Returns the plan that ran.
fn launch_multiply(
    handle: &Handle,
    spec: &'static KernelSpec,
    plan: &LaunchPlan,
    (m, n, k): (u64, u64, u64),
    scalars: [crate::launch::KernelArg; 4],
    x: &Operands,
    partials: Partials,
) -> Result<LaunchPlan> {
    let splits = plan.geometry.grid.2;
    if splits <= 1 {
        return launch_unsplit(handle, spec, plan, (m, n, k), scalars, x).map(|_| *plan);
    }
    // Split-K: partial C per split in the work buffer (alpha 1, beta 0), then the reduction.
    let device = &handle.device;
    let kernel = device.kernel(spec.name)?;
    let ldp = partial_ld(m);
    let split_stride = ldp * n;
    // Held until the launches are queued: nothing may regrow the buffer under them.
    let held;
    let scratch = match partials {
        Partials::At(address) => address,
        Partials::FromHandle => {
            held = match handle.work_area(split_stride * splits as u64 * 4) {
                Err(Error::AllocFailed(why)) => {
                    log::info!("SGEMM: not splitting k ({why})");
                    let unsplit = unsplit(handle, spec, plan, m, n)?;
                    return launch_unsplit(handle, spec, &unsplit, (m, n, k), scalars, x).map(|_| unsplit);
                }
                other => other?,
            };
            held.scratch()
        }
    };
    let [alpha_value, alpha_address, beta_value, beta_address] = scalars;
    let reduce_spec = reduce_spec(device.model(), m, n, splits);
    let reduce = device.kernel(reduce_spec.name)?;
    let reduce_plan = device.tuner.plan(reduce_spec, &reduce.model, &Problem { m, n, k: 0 });
    let (m, n, k) = (m as i64, n as i64, k as i64);
    // SAFETY: as in launch_unsplit; the work buffer holds splits × split_stride
    // floats, 256-byte aligned, with ldp and split_stride multiples of 4 (float4 stores).
    unsafe {
        kernel.launch(
            handle.stream(),
            &plan.geometry,
            &plan.shape,
            &[
                I64(m),
                I64(n),
                I64(k),
                F32(1.0),
                Ptr(0),
                Ptr(x.a),
                I64(x.lda),
                Ptr(x.b),
                I64(x.ldb),
                F32(0.0),
                Ptr(0),
                Ptr(scratch),
                I64(ldp as i64),
                I64(split_stride as i64),
                I32(1),
            ],
        )?;
        reduce.launch(
            handle.stream(),
            &reduce_plan.geometry,
            &reduce_plan.shape,
            &[
                I64(m),
                I64(n),
                I32(splits as i32),
                Ptr(scratch),
                I64(ldp as i64),
                I64(split_stride as i64),
                alpha_value,
                alpha_address,
                beta_value,
                beta_address,
                Ptr(x.c),
                I64(x.ldc),
            ],
        )?;
    }
    Ok(*plan)
}

/// A multiply with stream-K (module docs): the pieces and the counters in
/// the work buffer, in the area `held` gives (counters, pieces) of a work
/// area the caller holds, or else asked for here. Without the work buffer,
/// `spec`'s plain launch instead. Returns the stream-K that ran, if it did.
#[allow(clippy::too_many_arguments)]
fn launch_stream_k(
    handle: &Handle,
    spec: &KernelSpec,
    plan: &LaunchPlan,
    stream_k: StreamK,
    (m, n, k): (u64, u64, u64),
    scalars: [crate::launch::KernelArg; 4],
    x: &Operands,
    held: Option<(u64, u64)>,
) -> Result<Option<StreamK>> {
    // Held until the launches are queued: nothing may regrow the buffer under them.
    let work;
    let (counters, pieces) = match held {
        Some(area) => area,
        None => {
            work = match handle.work_area(stream_k.piece_bytes()) {
                Err(Error::AllocFailed(why)) => {
                    log::info!("SGEMM: no stream-K ({why})");
                    return launch_unsplit(handle, spec, plan, (m, n, k), scalars, x).map(|_| None);
                }
                other => other?,
            };
            (work.counters(), work.scratch())
        }
    };
    let kernel = handle.device.kernel(stream_k.kernel.name)?;
    // The tiles before the stream-K ones run whole, on the plain kernel.
    let whole = plan.geometry.blocks() - stream_k.tiles;
    if whole > 0 {
        let whole_plan = LaunchPlan { geometry: Geometry { grid: (whole as u32, 1, 1), ..plan.geometry }, ..*plan };
        launch_unsplit(handle, spec, &whole_plan, (m, n, k), scalars, x)?;
    }
    let geometry = Geometry { grid: (stream_k.blocks, 1, 1), ..plan.geometry };
    let [alpha_value, alpha_address, beta_value, beta_address] = scalars;
    // SAFETY: as in launch_unsplit; the work area holds the counters (all 0,
    // more than `tiles`) and a piece slot per stream-K tile and block at
    // `pieces`, and stays held until the launch is queued.
    unsafe {
        kernel.launch(
            handle.stream(),
            &geometry,
            &plan.shape,
            &[
                I64(m as i64),
                I64(n as i64),
                I64(k as i64),
                alpha_value,
                alpha_address,
                Ptr(x.a),
                I64(x.lda),
                Ptr(x.b),
                I64(x.ldb),
                beta_value,
                beta_address,
                Ptr(x.c),
                I64(x.ldc),
                I64(0),
                I32(x.c_vec()),
                I32(whole as i32),
                Ptr(counters),
                Ptr(pieces),
            ],
        )?;
    }
    Ok(Some(stream_k))
}

/// Device addresses and leading dimensions of a multiply's A, B and C, and the transposes.
#[derive(Clone, Copy)]
struct Operands {
    ta: Transpose,
    a: u64,
    lda: i64,
    tb: Transpose,
    b: u64,
    ldb: i64,
    c: u64,
    ldc: i64,
}

impl Operands {
    /// 1 when the tile kernels may store C as float4 (16-byte aligned, ldc a multiple of 4).
    fn c_vec(&self) -> i32 {
        (self.c.is_multiple_of(16) && self.ldc % 4 == 0) as i32
    }

    /// The sub-matrices from column `first` of op(B) and C on, or from row `first` of op(A) and C on.
    fn part(&self, cut: Cut, first: u64) -> Operands {
        match cut {
            Cut::Columns => Operands {
                b: columns_of_b(self.tb, self.b, self.ldb, first),
                c: self.c + first * self.ldc as u64 * 4,
                ..*self
            },
            Cut::Rows => Operands { a: rows_of_a(self.ta, self.a, self.lda, first), c: self.c + first * 4, ..*self },
        }
    }
}

/// One unsplit tile-kernel launch: C = alpha·op(A)·op(B) + beta·C over (m, n,
/// k); `scalars` are alpha's and beta's kernel arguments.
fn launch_unsplit(
    handle: &Handle,
    spec: &KernelSpec,
    plan: &LaunchPlan,
    (m, n, k): (u64, u64, u64),
    scalars: [crate::launch::KernelArg; 4],
    x: &Operands,
) -> Result<()> {
    let kernel = handle.device.kernel(spec.name)?;
    let [alpha_value, alpha_address, beta_value, beta_address] = scalars;
    // SAFETY: arguments as in kernels/gemm.cu; A, B, C span what their
    // dimensions and leading dimensions say (the caller's promise).
    unsafe {
        kernel.launch(
            handle.stream(),
            &plan.geometry,
            &plan.shape,
            &[
                I64(m as i64),
                I64(n as i64),
                I64(k as i64),
                alpha_value,
                alpha_address,
                Ptr(x.a),
                I64(x.lda),
                Ptr(x.b),
                I64(x.ldb),
                beta_value,
                beta_address,
                Ptr(x.c),
                I64(x.ldc),
                I64(0),
                I32(x.c_vec()),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuner::{ForcedShapes, KernelModel, RecipeBook, Tuner};

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
        let tuner = Tuner::new(
            DeviceModel::h100_sxm(),
            crate::tuner::RecipeBook::built_in(),
            crate::tuner::ForcedShapes::new(),
        );
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
            [&SCALE, &SPLITK_REDUCE, &SPLITK_REDUCE4, &TRANSPOSE_A]
                .iter()
                .all(|spec| KERNEL_NAMES.contains(&spec.name))
        );
        // Stream-K twins: the 256×128 NN, NT and TN _vec kernels, suffixed _sk.
        for (ta, tb) in
            [(Transpose::No, Transpose::No), (Transpose::No, Transpose::Yes), (Transpose::Yes, Transpose::No)]
        {
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
            "128x128_t128" => {
                KernelModel { registers_per_thread: 232, static_shared_bytes: 0, max_threads_per_block: 128 }
            }
            "128x128" => {
                KernelModel { registers_per_thread: 128, static_shared_bytes: 16_896, max_threads_per_block: 256 }
            }
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
                assert_ne!(
                    tile, t128,
                    "pair {pair} {m} × {n} × {k}: {} split {split}, {blocks} blocks",
                    TILES[tile].name
                );
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
        let direct_plan =
            tile_plan(&tuner, &TILE_KERNELS[direct][pair * 2], &model(direct), &TILES[direct], pair, m, n, k);
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
        let direct_plan =
            tile_plan(&tuner, &TILE_KERNELS[direct][pair * 2], &model(direct), &TILES[direct], pair, m, n, k);
        let main_plan = |tile: usize, m: u64, n: u64| {
            tuner.plan(&TILE_KERNELS[tile][pair * 2], &model(tile), &Problem { m, n, k: 0 })
        };
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
                rows <= transposed_a::PANEL_ROWS_MAX
                    && (rows == m || rows.is_multiple_of(transposed_a::PANEL_ROW_GRANULE)),
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
        for (m, n, k) in [
            (3000u64, 3000u64, 3000u64),
            (4096, 4096, 4096),
            (6144, 6144, 6144),
            (8192, 8192, 8192),
            (1024, 8192, 1024),
        ] {
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
                let plan =
                    tile_plan(&tuner, &TILE_KERNELS[tile][pair * 2 + 1], &model(tile), &TILES[tile], pair, m, n, k);
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
}
