//! A nearly empty last round of blocks split off and split along k.
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

use super::Transpose;
use super::kernels::{TILE_KERNELS, TILES, Tile, kernel_index, pair_index, partial_ld};
use super::launch::Operands;
use super::plan::{TileChoice, plan_multiply, tile_of, unsplit};
use super::tile_choice::{estimated_time, tile_suits};
use crate::handle::Handle;
use crate::status::Result;
use crate::tuner::{DeviceModel, KernelSpec, LaunchPlan, Problem};

/// The split tail's own µs: the second launch, in the stream behind the first.
pub const SPLIT_TAIL_LAUNCH_US: f64 = 3.0;
/// The main part's last round must be this full: where whole tile columns
/// (rows) cannot fill it, a cut only moves the idle SMs into that round
/// (measured on the H100: 3000², 5000² (91 %) and 1024 × 8488 gained 5–17 %;
/// 8192² (79 %) 0.6 %, and a cut at NT 10000² lost 2.8 %).
pub const SPLIT_TAIL_MAIN_FILL: f64 = 0.9;

/// Which way a split tail cuts C (module docs).
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
/// covers, for a tile whose unsplit plan for all of C is `plan` (module docs):
/// the whole tile columns (rows) that fill all rounds but the
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
/// by [`estimated_time`] (module docs); columns first at equal
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

/// A split tail: C cut after its first `main` columns or rows; the rest
/// multiplied by this kernel and plan.
#[derive(Clone, Copy, Debug)]
pub struct SplitTail {
    pub cut: Cut,
    pub main: u64,
    pub kernel: &'static KernelSpec,
    pub plan: LaunchPlan,
}

/// op(A)·op(B) over an m × n × k shape and its operands, as the split tail's planning sees it.
#[derive(Clone, Copy)]
pub(super) struct Product {
    pub(super) m: u64,
    pub(super) n: u64,
    pub(super) k: u64,
    pub(super) x: Operands,
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
        self.x.runs_vec_kernels(self.m, self.n, self.k)
    }
}

/// A split tail cut after `main` columns or rows: the main part's kernel and
/// plan (`tile`, unsplit) and the rest's, as [`plan_multiply`] chooses.
pub(super) fn split_tail_on(
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

impl SplitTail {
    /// Bytes of partial sums its rest needs (0 unsplit), for a multiply of m rows and n columns in all.
    pub fn partial_bytes(&self, m: u64, n: u64) -> u64 {
        let splits = self.plan.geometry.grid.2 as u64;
        let [_, (rest_m, rest_n)] = self.cut.parts(m, n, self.main);
        if splits <= 1 { 0 } else { partial_ld(rest_m) * rest_n * splits * 4 }
    }
}

/// B's sub-matrix of op(B)'s columns from `first` on: its address.
pub(super) fn columns_of_b(tb: Transpose, b: u64, ldb: i64, first: u64) -> u64 {
    if tb == Transpose::No { b + first * ldb as u64 * 4 } else { b + first * 4 }
}

/// A's sub-matrix of op(A)'s rows from `first` on: its address.
pub(super) fn rows_of_a(ta: Transpose, a: u64, lda: i64, first: u64) -> u64 {
    if ta == Transpose::No { a + first * 4 } else { a + first * lda as u64 * 4 }
}

/// `tile`'s kernel for the product, unsplit (a split tail's main part).
pub(super) fn unsplit_on(handle: &Handle, product: &Product, tile: usize) -> Result<(&'static KernelSpec, LaunchPlan)> {
    let spec = &TILE_KERNELS[tile][kernel_index(product.x.ta, product.x.tb, product.vec4())];
    let kernel = handle.device.kernel(spec.name)?;
    let plan = handle.device.tuner.plan(spec, &kernel.model, &Problem { m: product.m, n: product.n, k: 0 });
    Ok((spec, unsplit(handle, spec, &plan, product.m, product.n)?))
}

/// A split tail where [`split_tail_choice`] says it pays: as [`split_tail_on`].
#[allow(clippy::type_complexity)]
pub(super) fn split_tail_rule(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routines::gemm::testing::*;
    use crate::routines::gemm::*;
    use crate::tuner::{DeviceModel, Problem};

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
}
