//! The online optimizer, "mublas-optimizer" (method.md §5; paper 003, Fig. 3):
//! before each launch, choose the block shape that maximises Grid-Occupancy
//! subject to the tuning recipe.
//!
//! # The paper's rule, generalised
//!
//! Shapes are visited in this order: Tx from the largest allowed down by the
//! kernel's Tx step, then Ty upwards, then the split upwards. Tx runs over the
//! kernel's lattice `tx_min, tx_min + step, …` up to `min(tx_max, ThMax)`
//! (ThMax = the kernel's and the device's threads-per-block limit) and down to
//! `max(tx_min, ceil(ThMin / ty_max))` — the paper's `TxMin = ThMin` for 1-D
//! kernels. Ty runs from `max(ty_min, ceil(ThMin / Tx))` to
//! `min(ty_max, ThMax / Tx)`, and to at most `TyPerTxMax · Tx` when the recipe
//! sets it. ThMin 0 means the Tx step (paper lines 3–4). The paper writes
//! `TyMin = ThMin / Tx` (rounded down); we round up, so that every shape has
//! at least ThMin threads, as its rule (5) says. Shapes of which no block fits
//! on an SM are skipped.
//!
//! A shape replaces the best so far when (paper lines 17–19)
//!
//! ```text
//! g > best.g  &&  (w > best.w || w >= WrpOcpMin)  &&  (b > best.b || b >= BlkOcpMin)
//! ```
//!
//! which is the paper's `w > min(best.w, WrpOcpMin)` with the recipe's minimum
//! made inclusive. The pseudo-code writes `>` throughout, but the text asks for
//! Warp-Occupancy "WrpOcpMin 以上" (at least WrpOcpMin), and the paper's Table 3
//! stores values just below the measured ones (0.49 for 32/64 warps, 0.12 for
//! 2/16 blocks), so `>` against those is `>=` against the measured value. Our
//! analyzer writes the measured value itself, hence `>=` (within 1e-9). The
//! comparisons with the best so far stay strict, so among equal
//! Grid-Occupancies the shape visited first wins: **ties go to the largest Tx,
//! then the smallest Ty, then the smallest split**.
//!
//! Because the best starts at zero, the first runnable shape is always taken:
//! the recipe's minimums are soft. A shape below a minimum can stay chosen if
//! it was visited first and no later shape has a strictly larger
//! Grid-Occupancy while meeting the minimum (or beating its occupancy). We keep
//! this as published. When *no* visited shape meets the minimums, or the
//! recipe leaves no shape at all (say ThMin above the kernel's limit), we
//! ignore the recipe and take the largest Grid-Occupancy over every runnable
//! shape, with the same tie order. Only a kernel of which no shape can run
//! gets `None`.
//!
//! # Extension: SM coverage for grids smaller than the GPU
//!
//! The paper names small problems as an open problem. When a grid has fewer
//! blocks than the GPU has SMs, Grid-Occupancy (blocks over the device's
//! capacity) measures threads, not where they run: 7 blocks of 672 threads and
//! 128 blocks of 32 threads score the same, but the first uses 7 SMs' load
//! units and the second 128 (measured on the H100: SAXPY n = 2^16 runs 15 %
//! faster on 128 small blocks). So before the paper's rule we compare the SMs
//! a grid can engage, `min(blocks, SMs) / SMs`: more wins; equal coverage (in
//! particular full coverage, every problem of a wave or more) falls through to
//! the paper's rule unchanged.
//!
//! # Extension: the split is for filling the GPU
//!
//! A kernel's extra dimension (a reduction split) costs partial results and a
//! longer final reduction; its only use is to give a small problem more blocks.
//! So after SM coverage, the smaller split wins, and only equal splits go to
//! the paper's rule (measured on the H100: SGEMV-N 4096² took 75 µs with the
//! 256-way split that maximised Grid-Occupancy, against 34 µs for cuBLAS; over
//! a size sweep the smallest split that engages every SM was within 2 % of the
//! best candidate at most sizes).
//!
//! # Extension: at equal Grid-Occupancy, fewer waves
//!
//! Grid-Occupancy is the grid over the blocks of the whole waves it needs, so
//! a grid whose block count does not depend on the block size ties with
//! itself across waves: 256 blocks that fit one wave of 2 per SM (132 SMs)
//! score 0.97, and so do the same 256 blocks of twice the threads, one per
//! SM, in two waves. The paper's order then keeps the larger block, whose
//! second wave runs with a tail (measured on the H100: SGEMV-T m = 2^20,
//! n = 16, 256 row ranges, 42 µs with 1024 threads in two waves against
//! 37.6–38.2 µs with 512 in one). So a shape whose Grid-Occupancy equals the
//! best's (within 1e-12) and that meets the paper's occupancy conditions wins
//! when it needs fewer waves; equal waves keep the visiting order.

use super::device_model::DeviceModel;
use super::kernel_model::{Geometry, KernelModel, KernelSpec, LaunchShape, Problem};
use super::occupancy::{self, Occupancy, max_active_blocks_per_sm};
use super::recipe::TuningRecipe;

/// The launch the tuner chose for one problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchPlan {
    pub shape: LaunchShape,
    pub geometry: Geometry,
    pub occupancy: Occupancy,
}

impl LaunchPlan {
    /// The plan of one shape: its geometry for the problem and its occupancies.
    pub fn of_shape(
        device: &DeviceModel,
        kernel: &KernelModel,
        spec: &KernelSpec,
        problem: &Problem,
        shape: LaunchShape,
    ) -> LaunchPlan {
        let geometry = (spec.geometry)(problem, &shape);
        LaunchPlan { shape, geometry, occupancy: Occupancy::of(device, kernel, &shape, &geometry) }
    }
}

/// Occupancies computed from integer ratios can sit a rounding step away from
/// a minimum typed in decimal (1/3 against 0.3333333333).
const MINIMUM_TOLERANCE: f64 = 1e-9;

/// Chooses the shape for a problem (see the module documentation for the rule).
/// `None` only when no shape of the kernel can run on the device.
pub fn choose(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    recipe: &TuningRecipe,
    problem: &Problem,
) -> Option<LaunchPlan> {
    let threads_min = if recipe.threads_min == 0 { spec.space.effective_tx_step() } else { recipe.threads_min };
    let bounds = ShapeBounds { threads_min, ty_per_tx_max: recipe.ty_per_tx_max, prune_splits: true };

    let mut best: Option<LaunchPlan> = None;
    let mut any_meets_minimums = false;
    visit_runnable_shapes(device, kernel, spec, problem, &bounds, |candidate| {
        let occupancy = &candidate.occupancy;
        any_meets_minimums |=
            meets(occupancy.warp, recipe.warp_occupancy_min) && meets(occupancy.block, recipe.block_occupancy_min);
        let best_occupancy = best.map_or(Occupancy::NONE, |plan| plan.occupancy);
        let occupancies_qualify = (occupancy.warp > best_occupancy.warp
            || meets(occupancy.warp, recipe.warp_occupancy_min))
            && (occupancy.block > best_occupancy.block || meets(occupancy.block, recipe.block_occupancy_min));
        let paper_rule = occupancy.grid > best_occupancy.grid && occupancies_qualify;
        let fewer_waves =
            occupancies_qualify && best.is_some_and(|plan| ties_in_fewer_waves(device, &candidate, &plan));
        if covers_more(device, &candidate, best.as_ref()).unwrap_or(paper_rule || fewer_waves) {
            best = Some(candidate);
        }
    });
    if any_meets_minimums && best.is_some() {
        return best;
    }
    best_grid_occupancy_ignoring_recipe(device, kernel, spec, problem)
}

/// Every shape of the kernel's launch space that can run on the device, with
/// its geometry and occupancies, in the optimizer's visiting order. No recipe
/// applies. The analyzer samples these; the GPU tests compare each one's
/// `active_blocks_per_sm` with the driver's.
pub fn candidates(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> Vec<(LaunchShape, Geometry, Occupancy)> {
    let mut all = Vec::new();
    visit_runnable_shapes(device, kernel, spec, problem, &ShapeBounds::UNCONSTRAINED, |plan| {
        all.push((plan.shape, plan.geometry, plan.occupancy));
    });
    all
}

fn best_grid_occupancy_ignoring_recipe(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> Option<LaunchPlan> {
    let mut best: Option<LaunchPlan> = None;
    visit_runnable_shapes(
        device,
        kernel,
        spec,
        problem,
        &ShapeBounds { prune_splits: true, ..ShapeBounds::UNCONSTRAINED },
        |candidate| {
            let paper_rule = best.is_none_or(|plan| {
                candidate.occupancy.grid > plan.occupancy.grid || ties_in_fewer_waves(device, &candidate, &plan)
            });
            if covers_more(device, &candidate, best.as_ref()).unwrap_or(paper_rule) {
                best = Some(candidate);
            }
        },
    );
    best
}

/// The fraction of the device's SMs a grid can engage.
pub fn sm_coverage(device: &DeviceModel, plan: &LaunchPlan) -> f64 {
    if device.sm_count == 0 {
        return 0.0;
    }
    plan.geometry.blocks().min(device.sm_count as u64) as f64 / device.sm_count as f64
}

/// The extensions' verdict before the paper's rule: Some(true) when the
/// candidate engages more SMs than the best so far, or as many with a smaller
/// split; Some(false) for fewer SMs or a larger split; None when both tie (the
/// paper's rule decides).
fn covers_more(device: &DeviceModel, candidate: &LaunchPlan, best: Option<&LaunchPlan>) -> Option<bool> {
    let best = best?;
    let (mine, theirs) = (sm_coverage(device, candidate), sm_coverage(device, best));
    if mine != theirs {
        return Some(mine > theirs);
    }
    if candidate.shape.split != best.shape.split {
        return Some(candidate.shape.split < best.shape.split);
    }
    None
}

/// Waves of blocks the plan's grid needs.
pub fn waves(device: &DeviceModel, plan: &LaunchPlan) -> u64 {
    occupancy::waves(plan.geometry.blocks(), plan.occupancy.blocks_per_wave(device))
}

/// The share of a wave the plan's last wave fills: 1 when every wave is full
/// (0 when nothing fits or nothing is launched).
pub fn last_wave_fill(device: &DeviceModel, plan: &LaunchPlan) -> f64 {
    let per_wave = plan.occupancy.blocks_per_wave(device);
    let waves = waves(device, plan);
    if per_wave == 0 || waves == 0 {
        return 0.0;
    }
    (plan.geometry.blocks() - (waves - 1) * per_wave) as f64 / per_wave as f64
}

/// The fewer-waves extension: the same Grid-Occupancy as `best` in fewer waves.
fn ties_in_fewer_waves(device: &DeviceModel, candidate: &LaunchPlan, best: &LaunchPlan) -> bool {
    (candidate.occupancy.grid - best.occupancy.grid).abs() < 1e-12 && waves(device, candidate) < waves(device, best)
}

fn meets(occupancy: f64, minimum: f64) -> bool {
    occupancy >= minimum - MINIMUM_TOLERANCE
}

/// The recipe's part in which shapes are visited.
struct ShapeBounds {
    threads_min: u32,
    ty_per_tx_max: Option<f64>,
    /// Skip the larger splits of a block shape once one engages every SM: under
    /// the optimizer's rule they can never win (no more coverage, larger split).
    prune_splits: bool,
}

impl ShapeBounds {
    const UNCONSTRAINED: ShapeBounds = ShapeBounds { threads_min: 0, ty_per_tx_max: None, prune_splits: false };
}

/// Calls `visit` with the plan of every runnable shape within `bounds`, in the
/// order Tx down, Ty up, split up.
fn visit_runnable_shapes(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
    bounds: &ShapeBounds,
    mut visit: impl FnMut(LaunchPlan),
) {
    let space = &spec.space;
    let tx_step = space.effective_tx_step();
    let threads_max = kernel.max_threads_per_block.min(device.max_threads_per_block);
    let tx_top = space.tx_max.min(threads_max);
    let ty_bottom = space.ty_min.max(1);
    if tx_top < space.tx_min || space.ty_max < ty_bottom {
        return;
    }
    // The largest Tx on the lattice, and the smallest that can reach ThMin.
    let tx_largest = space.tx_min + (tx_top - space.tx_min) / tx_step * tx_step;
    let tx_smallest = space.tx_min.max(bounds.threads_min.div_ceil(space.ty_max)).max(1);

    let mut splits: Vec<u32> = if space.splits.is_empty() { vec![1] } else { space.splits.to_vec() };
    splits.sort_unstable();
    splits.dedup();

    let mut tx = tx_largest;
    while tx >= tx_smallest {
        let ty_min = ty_bottom.max(bounds.threads_min.div_ceil(tx));
        let mut ty_max = space.ty_max.min((threads_max / tx).max(1));
        if let Some(ratio) = bounds.ty_per_tx_max {
            // The small tolerance keeps 1.9 · 10 from flooring to 18.
            ty_max = ty_max.min((ratio * tx as f64 + MINIMUM_TOLERANCE).floor().min(u32::MAX as f64) as u32);
        }
        for ty in ty_min..=ty_max {
            // Active blocks per SM depend on the block and its shared memory, not on
            // the split or the grid: computed once per (block, shared memory).
            let mut memo: Option<(u32, u32)> = None;
            for &split in &splits {
                let shape = LaunchShape { tx, ty, split };
                let geometry = (spec.geometry)(problem, &shape);
                let active = match memo {
                    Some((bytes, active)) if bytes == geometry.dynamic_shared_bytes => active,
                    _ => {
                        let active = max_active_blocks_per_sm(device, kernel, tx * ty, geometry.dynamic_shared_bytes);
                        memo = Some((geometry.dynamic_shared_bytes, active));
                        active
                    }
                };
                let occupancy = Occupancy::with_active_blocks(device, tx * ty, active, &geometry);
                if occupancy.is_runnable() {
                    let plan = LaunchPlan { shape, geometry, occupancy };
                    let covers_all = sm_coverage(device, &plan) >= 1.0;
                    visit(plan);
                    if bounds.prune_splits && covers_all {
                        break;
                    }
                }
            }
        }
        match tx.checked_sub(tx_step) {
            Some(next) => tx = next,
            None => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuner::kernel_model::LaunchSpace;

    /// Elements per thread: 16-byte loads of f32.
    const NT: u64 = 4;

    fn axpy_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
        let blocks = problem.n.div_ceil(shape.tx as u64 * NT);
        Geometry { grid: (blocks.min(u32::MAX as u64) as u32, 1, 1), dynamic_shared_bytes: 0 }
    }

    const AXPY: KernelSpec = KernelSpec {
        name: "axpy_f32_vec4",
        space: LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 1024, ty_min: 1, ty_max: 1, splits: &[1] },
        geometry: axpy_geometry,
    };

    /// The poster's SGEMV-N: Tx = 32 fixed, Ty = 4 … 16, ceil(M / (Tx·4))
    /// blocks, x staged in shared memory as Tx·Ty float4.
    fn poster_gemv_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
        let blocks = problem.m.div_ceil(shape.tx as u64 * NT);
        Geometry { grid: (blocks as u32, 1, 1), dynamic_shared_bytes: shape.tx * shape.ty * 16 }
    }

    const POSTER_GEMV: KernelSpec = KernelSpec {
        name: "gemv_n_f32",
        space: LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 32, ty_min: 4, ty_max: 16, splits: &[1] },
        geometry: poster_gemv_geometry,
    };

    /// A fixed number of blocks whatever the shape, so that Grid-Occupancy
    /// ties are easy to make.
    fn fixed_blocks_geometry(problem: &Problem, _shape: &LaunchShape) -> Geometry {
        Geometry { grid: (problem.n as u32, 1, 1), dynamic_shared_bytes: 0 }
    }

    const FIXED_BLOCKS_2D: KernelSpec = KernelSpec {
        name: "fixed_blocks",
        space: LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 1024, ty_min: 1, ty_max: 8, splits: &[4, 1, 2] },
        geometry: fixed_blocks_geometry,
    };

    fn kernel(registers_per_thread: u32) -> KernelModel {
        KernelModel { registers_per_thread, static_shared_bytes: 0, max_threads_per_block: 1024 }
    }

    fn recipe(warp: f64, block: f64, threads: u32, ratio: Option<f64>) -> TuningRecipe {
        TuningRecipe {
            warp_occupancy_min: warp,
            block_occupancy_min: block,
            threads_min: threads,
            ty_per_tx_max: ratio,
        }
    }

    fn vector(n: u64) -> Problem {
        Problem { m: 0, n, k: 0 }
    }

    fn shape(tx: u32, ty: u32, split: u32) -> LaunchShape {
        LaunchShape { tx, ty, split }
    }

    /// M = 20000 on a K20m (13 SMX): 157 blocks whatever Ty. Grid-Occupancy
    /// by Ty (see occupancy.rs for the active blocks): 4 → 157/312, 5 → 157/234,
    /// 6 → 157/208, 7, 8 → 157/234, 9 → 157/195, 10–12 → 157/208,
    /// 13–16 → 157/195. With no minimums the first of the best is Ty = 9.
    #[test]
    fn poster_sgemv_picks_the_smallest_ty_of_the_best_grid_occupancy() {
        let device = DeviceModel::kepler_k20();
        let problem = Problem { m: 20_000, n: 20_000, k: 0 };
        let plan = choose(&device, &kernel(39), &POSTER_GEMV, &TuningRecipe::permissive(32), &problem).unwrap();
        assert_eq!(plan.shape, shape(32, 9, 1));
        assert_eq!(plan.occupancy.grid, 157.0 / 195.0);
        assert_eq!(plan.occupancy.warp, 45.0 / 64.0);
    }

    /// With WrpOcpMin = 0.72: Ty = 4 is taken first (w 48/64); Ty = 5
    /// (w 45/64 < 0.72, not above 0.75) is refused; Ty = 6 (157/208, w 0.75)
    /// is taken; Ty = 9 and 13 (w 45/64, 39/64) are refused; Ty = 16 (157/195,
    /// w 0.75) is taken.
    #[test]
    fn poster_sgemv_with_a_warp_occupancy_minimum() {
        let device = DeviceModel::kepler_k20();
        let problem = Problem { m: 20_000, n: 20_000, k: 0 };
        let plan = choose(&device, &kernel(39), &POSTER_GEMV, &recipe(0.72, 0.0, 0, None), &problem).unwrap();
        assert_eq!(plan.shape, shape(32, 16, 1));
        // The minimum is inclusive: 0.75 admits the same shapes as 0.72.
        let plan = choose(&device, &kernel(39), &POSTER_GEMV, &recipe(0.75, 0.0, 0, None), &problem).unwrap();
        assert_eq!(plan.shape, shape(32, 16, 1));
    }

    /// 1056 blocks on H100 (32 registers): 256 threads → 8 blocks per SM → one
    /// full wave; 512 → 4, 1024 → 2: two and four whole waves. Everything with
    /// a Grid-Occupancy of 1 ties; the fewest waves win (256 threads), and among
    /// those the first visited, Tx = 256, Ty = 1, with the smallest split,
    /// although the splits are listed as [4, 1, 2].
    #[test]
    fn ties_go_to_fewer_waves_then_large_tx_then_small_ty_then_small_split() {
        let device = DeviceModel::h100_sxm();
        let plan =
            choose(&device, &kernel(32), &FIXED_BLOCKS_2D, &TuningRecipe::permissive(32), &vector(1056)).unwrap();
        assert_eq!(plan.shape, shape(256, 1, 1));
        assert_eq!(plan.occupancy.grid, 1.0);
        assert_eq!(waves(&device, &plan), 1);
        // 64 registers: 1024 threads hold an SM alone (8 waves), 128 threads
        // fit 8 per SM (one wave, the fewest).
        let plan =
            choose(&device, &kernel(64), &FIXED_BLOCKS_2D, &TuningRecipe::permissive(32), &vector(1056)).unwrap();
        assert_eq!((plan.shape, plan.occupancy.grid), (shape(128, 1, 1), 1.0));
        // A kernel limited to 256 threads: Tx = 256, Ty = 1 before Tx = 128, Ty = 2.
        let small = KernelModel { max_threads_per_block: 256, ..kernel(32) };
        let plan = choose(&device, &small, &FIXED_BLOCKS_2D, &TuningRecipe::permissive(32), &vector(1056)).unwrap();
        assert_eq!(plan.shape, shape(256, 1, 1));
    }

    fn split_rows_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
        let tiles = problem.m.div_ceil(shape.tx as u64 * NT);
        Geometry { grid: (tiles as u32, shape.split, 1), dynamic_shared_bytes: 0 }
    }

    const SPLIT_ROWS: KernelSpec = KernelSpec {
        name: "split_rows",
        space: LaunchSpace {
            tx_step: 32,
            tx_min: 32,
            tx_max: 256,
            ty_min: 1,
            ty_max: 1,
            splits: &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
        },
        geometry: split_rows_geometry,
    };

    /// A split is taken only while it engages more SMs: the smallest split that
    /// fills the GPU, never the huge one that maximises Grid-Occupancy.
    #[test]
    fn the_split_only_fills_the_gpu() {
        let device = DeviceModel::h100_sxm();
        let problem = Problem { m: 4096, n: 4096, k: 0 };
        let plan = choose(&device, &kernel(32), &SPLIT_ROWS, &TuningRecipe::permissive(32), &problem).unwrap();
        let tiles = 4096u64.div_ceil(plan.shape.tx as u64 * NT);
        // The split is the smallest power of two giving at least one block per SM.
        assert!(tiles * plan.shape.split as u64 >= 132, "{plan:?}");
        assert!(plan.shape.split == 1 || tiles * (plan.shape.split as u64 / 2) < 132, "{plan:?}");
        // A problem with a block per SM already: no split at all.
        let large = choose(
            &device,
            &kernel(32),
            &SPLIT_ROWS,
            &TuningRecipe::permissive(32),
            &Problem { m: 1 << 20, n: 64, k: 0 },
        )
        .unwrap();
        assert_eq!(large.shape.split, 1);
    }

    /// A grid smaller than the GPU: the shape engaging the most SMs wins, where
    /// the paper's Grid-Occupancy cannot tell them apart; ThMin still bounds Tx.
    #[test]
    fn small_grids_engage_the_most_sms() {
        let device = DeviceModel::h100_sxm();
        // 16384 elements: Tx = 32 gives 128 blocks, Tx = 64 gives 64, Tx = 1024 gives 4.
        let plan = choose(&device, &kernel(32), &AXPY, &recipe(0.5, 0.0, 32, None), &vector(16_384)).unwrap();
        assert_eq!(plan.shape, shape(32, 1, 1));
        assert_eq!(plan.geometry.blocks(), 128);
        let plan = choose(&device, &kernel(32), &AXPY, &recipe(0.5, 0.0, 128, None), &vector(16_384)).unwrap();
        assert_eq!(plan.shape, shape(128, 1, 1));
        // A grid of at least one block per SM for every shape: the paper's rule alone.
        let large = choose(&device, &kernel(32), &AXPY, &TuningRecipe::permissive(32), &vector(1 << 24)).unwrap();
        assert!(sm_coverage(&device, &large) == 1.0);
    }

    /// With the recipe's minimums at zero the rule is a plain argmax of
    /// (SM coverage, Grid-Occupancy) in visiting order; check against a brute
    /// force over many vector lengths, and that the answer does not change
    /// between calls.
    #[test]
    fn permissive_recipe_maximises_grid_occupancy() {
        let device = DeviceModel::h100_sxm();
        let axpy = kernel(16);
        let recipe = recipe(0.0, 0.0, 32, None);
        for n in (1..200_000u64).step_by(997).chain([540_672, 4_096 * 265, 1 << 24]) {
            let plan = choose(&device, &axpy, &AXPY, &recipe, &vector(n)).unwrap();
            let all = candidates(&device, &axpy, &AXPY, &vector(n));
            let coverage = |blocks: u64| blocks.min(device.sm_count as u64);
            let key = |(_, geometry, occupancy): &(LaunchShape, Geometry, Occupancy)| {
                (coverage(geometry.blocks()), occupancy.grid)
            };
            let best =
                all.iter().map(key).fold((0, 0.0), |a, b| if b.0 > a.0 || (b.0 == a.0 && b.1 > a.1) { b } else { a });
            let first_best = all.iter().find(|c| key(c) == best).unwrap();
            assert_eq!(plan.shape, first_best.0, "n = {n}");
            assert_eq!(choose(&device, &axpy, &AXPY, &recipe, &vector(n)), Some(plan));
        }
    }

    /// Hand-computed AXPY on H100 with 32 registers: a block of Tx threads
    /// covers 4·Tx elements and min(32, 64 / (Tx/32)) blocks fit per SM.
    /// n = 4096·132 = 540672:
    ///
    /// | Tx   | blocks/SM | per wave | blocks | GrdOcp        |
    /// |------|-----------|----------|--------|---------------|
    /// | 1024 | 2         | 264      | 132    | 132/264 = 0.5 |
    /// |  736 | 2         | 264      | 184    | 184/264       |
    /// |  704 | 2         | 264      | 192    | 192/264 = 8/11 (best for Tx ≥ 128) |
    /// |  544 | 3         | 396      | 249    | 249/396       |
    /// |   32 | 32        | 4224     | 4224   | 1             |
    ///
    /// Every Tx ≥ 128 has WrpOcp ≥ 0.5, so with ThMin = 128 the answer is
    /// Tx = 704; without ThMin it would be Tx = 32 (a full wave).
    #[test]
    fn axpy_hand_computed() {
        let device = DeviceModel::h100_sxm();
        let problem = vector(4096 * 132);
        let plan = choose(&device, &kernel(32), &AXPY, &recipe(0.5, 0.0, 128, None), &problem).unwrap();
        assert_eq!(plan.shape, shape(704, 1, 1));
        assert_eq!(plan.occupancy.grid, 192.0 / 264.0);
        assert_eq!(plan.occupancy.warp, 44.0 / 64.0);
        let plan = choose(&device, &kernel(32), &AXPY, &recipe(0.0, 0.0, 32, None), &problem).unwrap();
        assert_eq!(plan.shape, shape(32, 1, 1));
        assert_eq!(plan.occupancy.grid, 1.0);
    }

    #[test]
    fn threads_min_and_ty_per_tx_max_bound_the_shapes() {
        let device = DeviceModel::h100_sxm();
        // ThMin = 512 on a 1-D kernel: Tx from 1024 down to 512 only.
        for n in [1u64, 1000, 123_457, 1 << 22] {
            let plan = choose(&device, &kernel(32), &AXPY, &recipe(0.0, 0.0, 512, None), &vector(n)).unwrap();
            assert!(plan.shape.tx >= 512, "n = {n}: {:?}", plan.shape);
        }
        // Ty/Tx ≤ 1/32 with Tx ≤ 128 (a kernel limit of 128 threads) means Ty ≤ 4
        // at Tx = 128 and Ty = 1 at Tx = 32..63; ThMin 64 means Tx·Ty ≥ 64.
        let small = KernelModel { max_threads_per_block: 128, ..kernel(32) };
        for n in [1u64, 100, 1057, 5000] {
            let plan =
                choose(&device, &small, &FIXED_BLOCKS_2D, &recipe(0.0, 0.0, 64, Some(1.0 / 32.0)), &vector(n)).unwrap();
            let LaunchShape { tx, ty, .. } = plan.shape;
            assert!(ty as f64 <= tx as f64 / 32.0 && tx * ty >= 64 && tx * ty <= 128, "n = {n}: {:?}", plan.shape);
        }
    }

    /// 40 registers: 48 warps per SM. Tx = 1024 (32 warps) → 1 block, WrpOcp 0.5;
    /// Tx = 768 (24 warps) → 2 blocks, WrpOcp 0.75. n = 4096·132: Tx = 1024 has
    /// 132 blocks in a 132-block wave → GrdOcp 1. It is visited first, so the
    /// published rule keeps it although WrpOcpMin = 0.6 and Tx = 768 meets it
    /// (its GrdOcp is 176/264): the minimum is soft (module docs).
    #[test]
    fn the_published_rule_keeps_a_first_shape_below_the_minimum() {
        let device = DeviceModel::h100_sxm();
        let plan = choose(&device, &kernel(40), &AXPY, &recipe(0.6, 0.0, 128, None), &vector(4096 * 132)).unwrap();
        assert_eq!(plan.shape, shape(1024, 1, 1));
        assert_eq!(plan.occupancy.warp, 0.5);
    }

    /// 128 registers: a warp takes 4096, 4 warps per sub-partition → at most
    /// 16 warps per SM, WrpOcp ≤ 0.25 for every shape, and Tx ≤ 512. No shape
    /// meets WrpOcpMin = 0.5, so the recipe is ignored and the plain best
    /// Grid-Occupancy over all runnable shapes is chosen.
    #[test]
    fn unsatisfiable_recipes_fall_back_to_the_best_grid_occupancy() {
        let device = DeviceModel::h100_sxm();
        let heavy = kernel(128);
        for n in [1u64, 255_360, 1 << 20, 3_000_001] {
            let plan = choose(&device, &heavy, &AXPY, &recipe(0.5, 0.0, 128, None), &vector(n)).unwrap();
            let fallback = best_grid_occupancy_ignoring_recipe(&device, &heavy, &AXPY, &vector(n)).unwrap();
            assert_eq!(plan, fallback, "n = {n}");
            assert!(plan.occupancy.warp <= 0.25);
        }
        // ThMin above what the kernel can launch leaves no shape: same fallback.
        let plan = choose(&device, &kernel(32), &AXPY, &recipe(0.0, 0.0, 4096, None), &vector(1 << 20)).unwrap();
        assert_eq!(plan, best_grid_occupancy_ignoring_recipe(&device, &kernel(32), &AXPY, &vector(1 << 20)).unwrap());
    }

    #[test]
    fn none_only_when_nothing_can_run() {
        let device = DeviceModel::h100_sxm();
        assert_eq!(choose(&device, &kernel(300), &AXPY, &TuningRecipe::permissive(32), &vector(1000)), None);
        assert!(candidates(&device, &kernel(300), &AXPY, &vector(1000)).is_empty());
        // An empty problem still gets a plan (nothing will be launched).
        let plan = choose(&device, &kernel(32), &AXPY, &TuningRecipe::permissive(32), &vector(0)).unwrap();
        assert_eq!(plan.geometry.blocks(), 0);
        // A launch space above the kernel's limit: nothing to visit.
        let tiny = KernelModel { max_threads_per_block: 16, ..kernel(32) };
        assert_eq!(choose(&device, &tiny, &AXPY, &TuningRecipe::permissive(32), &vector(1000)), None);
    }

    #[test]
    fn candidates_cover_the_whole_space_in_visiting_order() {
        let device = DeviceModel::h100_sxm();
        let all = candidates(&device, &kernel(32), &AXPY, &vector(1 << 20));
        let txs: Vec<u32> = all.iter().map(|(shape, _, _)| shape.tx).collect();
        assert_eq!(txs, (1..=32).rev().map(|warps| warps * 32).collect::<Vec<_>>());
        let all = candidates(&device, &kernel(32), &FIXED_BLOCKS_2D, &vector(10));
        // Σ over Tx = 32·k of min(8, 32 / k) Ty values, × 3 splits.
        let expected: u32 = (1..=32u32).map(|k| (32 / k).min(8)).sum::<u32>() * 3;
        assert_eq!(all.len() as u32, expected);
        assert!(all.iter().all(|(shape, _, _)| FIXED_BLOCKS_2D.space.contains(shape)));
        assert_eq!(all[0].0, shape(1024, 1, 1));
        assert_eq!(all[1].0, shape(1024, 1, 2));
        assert_eq!(all[3].0, shape(992, 1, 1));
    }

    #[test]
    fn a_space_lists_the_shapes_the_optimizer_visits() {
        let device = DeviceModel::h100_sxm();
        for (spec, problem) in [(&AXPY, vector(1 << 20)), (&FIXED_BLOCKS_2D, vector(10))] {
            let mut visited: Vec<LaunchShape> =
                candidates(&device, &kernel(32), spec, &problem).into_iter().map(|(shape, _, _)| shape).collect();
            let mut listed: Vec<LaunchShape> = spec.space.shapes(1024).collect();
            let key = |s: &LaunchShape| (s.tx, s.ty, s.split);
            visited.sort_by_key(key);
            listed.sort_by_key(key);
            assert_eq!(listed, visited, "{}", spec.name);
        }
        // Fewer threads allowed: only the shapes within them.
        assert!(FIXED_BLOCKS_2D.space.shapes(256).all(|s| s.tx * s.ty <= 256));
        assert_eq!(FIXED_BLOCKS_2D.space.shapes(32).count(), 3, "Tx 32, Ty 1, three splits");
    }
}
