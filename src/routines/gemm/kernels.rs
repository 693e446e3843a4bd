//! The SGEMM kernels (kernels/gemm.cu) as the tuner sees them: tiles, names,
//! launch spaces and grid geometries.
//!
//! Tile kernels come in seven tiles ([`TILES`]) per transpose pair, each in a
//! 16-byte load version (`_vec`) and a generic one: 256×128 (256 threads),
//! 128×128 (128 threads), 128×64 (64 threads, for 33 to 64 columns of C
//! and other few-tile products) and 256×64 (128 threads, for plans of one
//! round, [`Tile::one_round`]), each thread 16×8 outputs with cp.async
//! pipelines (sm_80 and later); 128×128 (256 threads) and 64×64 (64
//! threads), each thread 8×8 outputs staged through registers (any GPU); and
//! 64×64 of 128 threads, each 4×8 outputs, k tiles of 8 in four cp.async
//! stages (NN, NT) or of 16 in three (TN, TT), which takes the 64-thread 64×64 tile's place from sm_80 on
//! ([`Tile::superseded_from`]): with few k tiles per block (split-K over a
//! small C) the older one waited on its loads. Every tile kernel
//! is its own [`KernelSpec`] with a fixed block (`tx_min == tx_max`) and the
//! split-K factor as the launch space's extra dimension.

use super::skinny::skinny_geometry;
use super::tile_choice::{LARGEST_SPLIT, MAX_PARTIAL_BYTES, MIN_K_PER_SPLIT, time_model};
use super::{Transpose, skinny};
use crate::tuner::{DeviceModel, Geometry, KernelSpec, LaunchShape, LaunchSpace, Problem};

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
    /// 3000 through [`estimated_time`](super::estimated_time)'s model. 256×128 TN: NN's over
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
    /// Planned only where its blocks fit in one round ([`tile_plan`](super::tile_plan),
    /// [`choose_tile`](super::choose_tile)): 256×64, faster than 128×64 in one round (4096 × 192 ×
    /// 4096 split 5, NN 148 against 155 µs on an H200) and slower over
    /// several (NN 14336 × 256 × 14336 split 4, 3.4 rounds: 2410 against 2181).
    pub one_round: bool,
    /// An SM holding c of the a blocks it could runs them at (c / a)^this of
    /// its full speed ([`estimated_time`](super::estimated_time)): [`time_model::FILL_EXPONENT`], or
    /// the tile's own ([`time_model::FILL_EXPONENT_128X128_T128`],
    /// [`time_model::FILL_EXPONENT_64X64_T128`]).
    pub fill_exponent: f64,
    /// The share of a grid's last round, after full ones, whose blocks land
    /// a full SM's worth on the SMs that free first instead of spreading
    /// over all SMs ([`estimated_time`](super::estimated_time)): [`time_model::TAIL_PACKING_128X64`]
    /// for 128×64, 0 for the tiles where it was not seen.
    pub tail_packing: f64,
    /// Dynamic shared memory per block (the asynchronous-copy tiles' stages,
    /// see [`async_shared_bytes`]).
    pub dynamic_shared_bytes: u32,
    /// Time of the tile's kernels without float4 operands over the model's
    /// ([`estimated_time`](super::estimated_time), whose efficiencies were
    /// measured with float4 operands), relative to 256×128's, per pair: a
    /// multiply that runs them ([`runs_vec_kernels`]) weighs each tile's
    /// plan by it ([`Tile::time_factor`]). Measured on an H200 (`mublas bench
    /// sgemm-tiles --shapes scripts/sgemm-worst-odd.txt`, every tile forced;
    /// each time over the model's, over 256×128's of the same shape): NN (4
    /// shapes) 128×64 1.08–1.14; TN (5 of k ≥ 2600) 128×128 of 128 threads
    /// 1.06–1.14, of 256 threads 1.13–1.28 (1.18 at TN 1357 × 4607 × 195 with
    /// C staged). Held at 1 where the signal was weaker or moved with k: NN
    /// 256×64 1.01–1.06 and 64×64 of 128 threads 0.93–1.02, TN 64×64 of 128
    /// threads 0.84–0.95 at long k but 0.98–1.01 at k ≈ 200 (its long-k TN
    /// efficiency, measured with float4s, is that kernel's own); NT and TT
    /// (two shapes, both of fewer than 128 rows).
    pub non_vec_time: [f64; 4],
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

    /// What [`estimated_time`](super::estimated_time) is multiplied by for
    /// this tile's plan of a pair: 1 for the `_vec` kernels, else [`Tile::non_vec_time`].
    pub fn time_factor(&self, pair: usize, vec: bool) -> f64 {
        if vec { 1.0 } else { self.non_vec_time[pair.min(3)] }
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
/// past two rounds"). TT 0.90 since its fragments were double-buffered
/// (H100, the same way; the 23 TT plans it moves ran 1.04× faster by
/// geometric mean, none slower by more than 1 %). The other pairs' new
/// values (NN 0.90, NT 0.96, TN 0.82) moved plans both ways, so they stay.
/// TN 1.1 at short k and 0.72 at long k since its kernel runs four blocks per
/// SM (kernels/gemm.cu): not its speed against 128×128 but the values that
/// keep the tile where it measured faster than the large tiles (k = 64 to
/// 256 on 500 to 2300 blocks, where a second round of four blocks an SM is
/// charged more than it costs) and off them where it measured slower (k = 512
/// on a full round: 256×128 split 2; k = 64 over many rounds: 256×128; long
/// k: 128×128), H200, kernel time (docs/performance.md, "The small tile's TN
/// kernel at four blocks per SM").
/// 128×64: its speed over 256×128's in one round of 4096 × 1024 × 4096 on an
/// H200 (NN 0.959, NT 0.967, TN 0.861; TT 1.017, held at 1.0 to keep the
/// large squares' TT plans that the H100 measured) times 256×128's values.
/// 256×64 the same way (NN 0.980, NT 0.948, TN 0.918; TT 1.002, held at
/// 0.985, 128×64's TT speed in that round, for the same reason).
#[rustfmt::skip]
pub const TILES: [Tile; 7] = [
    //     name                  rows       cols       threads       min cc                          superseded from            efficiency NN, NT, TN, TT      long k                                           one round  fill                                                               tail packing                                   dynamic shared memory                             without float4 NN, NT, TN, TT
    Tile { name: "256x128",      rows: 256, cols: 128, threads: 256, min_compute_capability: (8, 0), superseded_from: None,         efficiency: [1.09, 1.035, 1.05, 1.05], long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT, tail_packing: 0.0, dynamic_shared_bytes: async_shared_bytes(256, 128), non_vec_time: [1.0, 1.0, 1.0, 1.0] },
    Tile { name: "128x128_t128", rows: 128, cols: 128, threads: 128, min_compute_capability: (8, 0), superseded_from: None,         efficiency: [1.01, 0.96, 0.97, 1.03],  long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT_128X128_T128, tail_packing: 0.0, dynamic_shared_bytes: async_shared_bytes(128, 128), non_vec_time: [1.0, 1.0, 1.08, 1.0] },
    Tile { name: "128x128",      rows: 128, cols: 128, threads: 256, min_compute_capability: (7, 0), superseded_from: None,         efficiency: [1.0, 0.93, 0.97, 0.96],   long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT, tail_packing: 0.0, dynamic_shared_bytes: 0, non_vec_time: [1.0, 1.0, 1.2, 1.0] },
    Tile { name: "64x64",        rows: 64,  cols: 64,  threads: 64,  min_compute_capability: (7, 0), superseded_from: Some((8, 0)), efficiency: [0.98, 0.98, 0.92, 0.94], long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT, tail_packing: 0.0, dynamic_shared_bytes: 0, non_vec_time: [1.0, 1.0, 1.0, 1.0] },
    Tile { name: "64x64_t128",   rows: 64,  cols: 64,  threads: 128, min_compute_capability: (8, 0), superseded_from: None,         efficiency: [0.98, 0.98, 1.1, 0.94], long_k_efficiency: Some([0.86, 0.89, 0.72, 0.90]), one_round: false, fill_exponent: time_model::FILL_EXPONENT_64X64_T128, tail_packing: 0.0, dynamic_shared_bytes: 0, non_vec_time: [1.0, 1.0, 1.0, 1.0] },
    Tile { name: "128x64",       rows: 128, cols: 64,  threads: 64,  min_compute_capability: (8, 0), superseded_from: None,         efficiency: [1.045, 1.0, 0.90, 1.0],   long_k_efficiency: None,                           one_round: false, fill_exponent: time_model::FILL_EXPONENT, tail_packing: time_model::TAIL_PACKING_128X64, dynamic_shared_bytes: async_shared_bytes(128, 64), non_vec_time: [1.11, 1.0, 1.0, 1.0] },
    Tile { name: "256x64",       rows: 256, cols: 64,  threads: 128, min_compute_capability: (8, 0), superseded_from: None,         efficiency: [1.067, 0.98, 0.96, 0.985], long_k_efficiency: None,                          one_round: true,  fill_exponent: time_model::FILL_EXPONENT, tail_packing: 0.0, dynamic_shared_bytes: async_shared_bytes(256, 64), non_vec_time: [1.0, 1.0, 1.0, 1.0] },
];

/// Every split a tile kernel may run, 1 to [`LARGEST_SPLIT`]: the tuner
/// plans [`SPLITS`](super::SPLITS) and the round fillers between them
/// ([`candidate_splits`](super::candidate_splits)), and a shape forced
/// through `MUBLAS_FORCE_SHAPE` may name any of these.
pub const TILE_SPLITS: [u32; LARGEST_SPLIT as usize] = {
    let mut splits = [0; LARGEST_SPLIT as usize];
    let mut i = 0;
    while i < splits.len() {
        splits[i] = i as u32 + 1;
        i += 1;
    }
    splits
};

const fn tile_space(threads: u32) -> LaunchSpace {
    LaunchSpace { tx_step: threads, tx_min: threads, tx_max: threads, ty_min: 1, ty_max: 1, splits: &TILE_SPLITS }
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

/// A^T copied into the work buffer ([`copied_a`](super::copied_a)): problem (rows, 0, k).
pub static TRANSPOSE_A: KernelSpec =
    KernelSpec { name: TRANSPOSE_A_NAME, space: TRANSPOSE_SPACE, geometry: transpose_geometry };
const TRANSPOSE_A_NAME: &str = "gemm_transpose_a_f32";
/// A copied as it is to a leading dimension of float4s ([`copied_a`](super::copied_a)): as [`TRANSPOSE_A`].
pub static COPY_A: KernelSpec = KernelSpec { name: COPY_A_NAME, space: TRANSPOSE_SPACE, geometry: transpose_geometry };
const COPY_A_NAME: &str = "gemm_copy_a_f32";
/// The copies of A: op(A) as an untransposed A in the work buffer, for NN/NT (ta N) or TN/TT.
pub fn copy_a_spec(ta: Transpose) -> &'static KernelSpec {
    if ta == Transpose::No { &COPY_A } else { &TRANSPOSE_A }
}
/// A fixed block of 32 × 8 threads (kernels/gemm.cu: each thread has 8 loads in flight).
const TRANSPOSE_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 32, ty_min: 8, ty_max: 8, splits: &[1] };

/// The stream-K twins ([`stream_k`](super::stream_k)) of the 256×128 NN, NT and TN
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

/// The skinny kernels ([`skinny`]): `[NB 4, 8, 16, 32][P along k, along k _vec, along m, along m _vec]`.
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
    let mut names = [""; TILES.len() * 8 + 5 + STREAM_K_NAMES.len() + SKINNY_NAMES.len()];
    let mut i = 0;
    while i < TILES.len() * 8 {
        names[i] = TILE_KERNEL_NAMES[i / 8][i % 8];
        i += 1;
    }
    names[i] = SCALE_NAME;
    names[i + 1] = SPLITK_REDUCE_NAME;
    names[i + 2] = TRANSPOSE_A_NAME;
    names[i + 3] = SPLITK_REDUCE4_NAME;
    names[i + 4] = COPY_A_NAME;
    let mut j = 0;
    while j < STREAM_K_NAMES.len() {
        names[i + 5 + j] = STREAM_K_NAMES[j];
        j += 1;
    }
    let mut s = 0;
    while s < SKINNY_NAMES.len() {
        names[i + 5 + j + s] = SKINNY_NAMES[s];
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

/// Whether an operand can be read as float4: the extent along the contiguous
/// direction (m or n for a tile laid out along d, k for one laid out along k),
/// the leading dimension and the address all multiples of 4 floats.
pub fn operand_is_vec4(address: u64, ld: i64, contiguous_extent: i64) -> bool {
    address.is_multiple_of(16) && ld % 4 == 0 && contiguous_extent % 4 == 0
}

/// Whether C can be stored as float4 by the tile kernels: 16-byte aligned, ldc a multiple of 4.
pub fn c_is_vec4(c: u64, ldc: i64) -> bool {
    c.is_multiple_of(16) && ldc % 4 == 0
}

/// k up to which a multiply whose C takes no float4 runs the tile kernels
/// without float4 operands even where A and B would take them: those store
/// such a C through shared memory, a column's 32 rows at a time, where the
/// `_vec` kernels store 4 rows of 8 columns (kernels/gemm.cu, `store_c_staged`:
/// compiled into the `_vec` kernels it cost them 30–36 registers and 2–4 %).
/// H200, TN and TT with m odd (1023, 3001, 4363), n 1024–8720, kernel time
/// (scripts/sgemm-builds.py): the kernels without float4 took 2.6× less time
/// at k = 16, 1.60× at 64, 1.37× at 128, 1.14× at 256, 1.04× at 512 (worst
/// 0.96×), level at 1024 (0.93–1.09×) and 0.97× at 4096.
pub const STAGED_C_MAX_K: u64 = 512;

/// Whether a multiply runs the `_vec` tile kernels: A and B float4
/// ([`vec4_applies`]), and C too unless k is short ([`STAGED_C_MAX_K`]).
pub fn runs_vec_kernels(operands_vec4: bool, c_vec4: bool, k: u64) -> bool {
    operands_vec4 && (c_vec4 || k > STAGED_C_MAX_K)
}

/// Both operands readable as float4, for a transpose pair.
#[allow(clippy::too_many_arguments)]
pub fn vec4_applies(ta: Transpose, tb: Transpose, m: i64, n: i64, k: i64, a: u64, lda: i64, b: u64, ldb: i64) -> bool {
    // A untransposed: columns of m; transposed: columns of k. B untransposed: columns of k; transposed: of n.
    let a_extent = if ta == Transpose::No { m } else { k };
    let b_extent = if tb == Transpose::No { k } else { n };
    operand_is_vec4(a, lda, a_extent) && operand_is_vec4(b, ldb, b_extent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routines::gemm::testing::*;
    use crate::routines::gemm::*;
    use crate::tuner::{KernelModel, LaunchShape, Problem};

    #[test]
    fn vec4_needs_alignment_leading_dimension_and_extent() {
        let (no, yes) = (Transpose::No, Transpose::Yes);
        assert!(vec4_applies(no, no, 128, 128, 128, 4096, 128, 8192, 128));
        assert!(!vec4_applies(no, no, 128, 128, 128, 4100, 128, 8192, 128), "A offset by one float");
        assert!(!vec4_applies(no, no, 128, 128, 128, 4096, 130, 8192, 128), "lda");
        assert!(!vec4_applies(no, no, 127, 128, 128, 4096, 128, 8192, 128), "m along A's columns");
        assert!(!vec4_applies(no, no, 128, 128, 127, 4096, 128, 8192, 128), "k along B's columns");
        assert!(!vec4_applies(no, no, 128, 128, 128, 4096, 128, 8196, 128), "B offset by one float, A aligned");
        assert!(!vec4_applies(no, no, 128, 128, 128, 4096, 128, 8200, 128), "B offset by two floats");
        assert!(!vec4_applies(no, no, 128, 128, 128, 4096, 128, 8192, 130), "ldb");
        // A^T and B^T: the extents swap.
        assert!(vec4_applies(yes, yes, 127, 132, 128, 4096, 128, 8192, 132), "m is along neither");
        assert!(!vec4_applies(yes, yes, 128, 127, 128, 4096, 128, 8192, 128), "n along B^T's columns");
        assert!(vec4_applies(no, yes, 128, 128, 127, 4096, 128, 8192, 128), "k is along neither");
    }

    #[test]
    fn vec_kernels_need_a_float4_c_up_to_the_staged_k() {
        assert!(c_is_vec4(4096, 128) && !c_is_vec4(4100, 128) && !c_is_vec4(4096, 301));
        assert!(runs_vec_kernels(true, true, 16));
        assert!(!runs_vec_kernels(true, false, 16), "C stored through shared memory");
        assert!(!runs_vec_kernels(true, false, STAGED_C_MAX_K));
        assert!(runs_vec_kernels(true, false, STAGED_C_MAX_K + 1), "long k: the loads count more");
        assert!(!runs_vec_kernels(false, true, 4096));
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
        assert_eq!(KERNEL_NAMES.len(), TILES.len() * 8 + 5 + STREAM_K_KERNELS.len() + 16);
        for (nb, row) in SKINNY_KERNELS.iter().enumerate() {
            for (i, spec) in row.iter().enumerate() {
                let name = format!("gemm_f32_skinny_{}{}{}", ['k', 'm'][i / 2], 4 << nb, ["", "_vec"][i % 2]);
                assert_eq!(spec.name, name);
                assert!(KERNEL_NAMES.contains(&spec.name));
                assert_eq!(spec.space.tx_min * spec.space.ty_min, 256);
            }
        }
        assert!(
            [&SCALE, &SPLITK_REDUCE, &SPLITK_REDUCE4, &TRANSPOSE_A, &COPY_A]
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
        assert_eq!(small.efficiency_at(0, 32.0), 0.98);
        assert_eq!(small.efficiency_at(0, SHORT_K), 0.98);
        assert!((small.efficiency_at(0, 2.0 * SHORT_K) - (0.86 + 0.12 / 2.0)).abs() < 1e-12);
        assert!((small.efficiency_at(0, 4096.0) - 0.86).abs() < 0.01);
        // NT, TN and TT tend to their own long-k values; the other tiles keep one value.
        assert!((small.efficiency_at(2, 4096.0) - 0.72).abs() < 0.02);
        assert!((small.efficiency_at(3, 4096.0) - 0.90).abs() < 0.01);
        assert_eq!(TILES[tile_named("256x128")].efficiency_at(2, 4096.0), 1.05);
    }
}
