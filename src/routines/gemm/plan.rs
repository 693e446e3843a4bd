//! The plan of a whole multiply: the tile, then op(A) copied first, a split tail or stream-K.

use super::Transpose;
use super::copied_a::{PanelPlan, copied_a_choice, panel_plan};
use super::kernels::{TILE_KERNELS, TILES, kernel_index, pair_index};
use super::launch::Operands;
use super::split_tail::{Cut, Product, SplitTail, split_tail_on, split_tail_rule};
use super::stream_k::{StreamK, stream_k_may_replace_split, stream_k_plan, stream_k_replaces_split};
use super::tile_choice::{choose_tile, split_worthwhile, tile_plan};
use crate::handle::Handle;
use crate::status::Result;
use crate::tuner::plan_cache::DecisionCache;
use crate::tuner::{KernelSpec, LaunchPlan, LaunchShape, Problem};

/// How to run a multiply: forced (tests, experiments) or chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileChoice {
    Auto,
    /// This tile; the split still comes from the tuner (force it with `tuner.forced()`).
    Tile(usize),
    /// op(A) copied in panels of this many rows ([`copied_a`](super::copied_a)): A^T for TN
    /// and TT, A onto a leading dimension of float4s for NN and NT; each
    /// multiplied without split-K on the tile the rule chooses (its last
    /// round split off or shared where those rules say).
    CopiedA {
        panel_rows: u64,
    },
    /// A split tail ([`split_tail`](super::split_tail)): C's first `main` columns or rows (by
    /// `cut`) unsplit on this tile, the rest as chosen.
    SplitTail {
        tile: usize,
        cut: Cut,
        main: u64,
    },
    /// Stream-K ([`stream_k`](super::stream_k)) on the 256×128 tile, where the pair and
    /// alignment have a stream-K kernel: its last `tiles` tiles shared by
    /// `blocks` blocks (both capped so that every block gets k to do);
    /// elsewhere as `Tile(0)`.
    StreamK {
        tiles: u64,
        blocks: u32,
    },
}

/// The problem the tuner sees for a tile kernel ([`tile_choice`](super::tile_choice), steps 1–2):
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

/// The tile kernel and plan for a multiply, by [`tile_choice`](super::tile_choice)'s rule.
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
        TileChoice::Auto | TileChoice::CopiedA { .. } => {
            let plans = (0..TILES.len()).map(plan_of).collect::<Result<Vec<_>>>()?;
            let tile = choose_tile(device.model(), pair, vec, &plans, m, n, k);
            return Ok((&TILE_KERNELS[tile][index], plans[tile]));
        }
    };
    Ok((&TILE_KERNELS[tile][index], plan_of(tile)?))
}

/// The index in [`TILES`] of a tile kernel.
pub fn tile_of(spec: &KernelSpec) -> usize {
    TILE_KERNELS.iter().position(|kernels| kernels.iter().any(|k| k.name == spec.name)).unwrap_or(0)
}

/// `plan` with its block and one split (a split forced for the kernel included).
pub(super) fn unsplit(handle: &Handle, spec: &KernelSpec, plan: &LaunchPlan, m: u64, n: u64) -> Result<LaunchPlan> {
    let kernel = handle.device.kernel(spec.name)?;
    Ok(LaunchPlan::of_shape(
        handle.device.model(),
        &kernel.model,
        spec,
        &Problem { m, n, k: 0 },
        LaunchShape { split: 1, ..plan.shape },
    ))
}

/// What a multiply runs: a tile kernel and its plan, after op(A) is copied
/// in panels of `copied_a_panel_rows` rows when that is set (the kernel
/// and plan are then the first panel's).
#[derive(Clone, Copy, Debug)]
pub struct MultiplyPlan {
    pub kernel: &'static KernelSpec,
    pub plan: LaunchPlan,
    pub copied_a_panel_rows: Option<u64>,
    /// With a split tail, `kernel` and `plan` are the main part's.
    pub split_tail: Option<SplitTail>,
    /// With op(A) copied: the first panel's plans, which [`sgemm_with`](super::sgemm_with) runs
    /// rather than plan them again.
    pub(crate) first_panel: Option<PanelPlan>,
    /// Stream-K over `plan` (not with a split tail; with op(A) copied, the
    /// first panel's).
    pub stream_k: Option<StreamK>,
}

/// What an automatic call's plan reads: the pair, the sizes, the leading
/// dimensions and each pointer's offset within 16 bytes (whether operands,
/// panels and split tails take float4 follows from these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallKey {
    pair: (Transpose, Transpose),
    sizes: (u64, u64, u64),
    leading: (i64, i64, i64),
    offsets: (u8, u8, u8),
}

/// Automatic calls' plans, per handle ([`Tuner::decide_with`](crate::tuner::Tuner::decide_with)). Deciding
/// one runs the tile rule over every tile, and for TN and TT again for
/// op(A)'s panels (at 127 × 129 × 1023 too, where the rule then keeps the
/// direct plan): 0.6 µs per tile rule even with every tuner plan cached
/// (H100 model, on the build machine's CPU), three times for TN and TT. In
/// the benchmark's launch-bound calls TN and TT 127 × 129 × 1023 took
/// 2.4–5.6 µs longer than NN, on kernels as fast as NN's (graph replay,
/// H100: 6.9–7.2 µs against 7.0). A repeated call costs one lookup instead.
pub type SgemmPlans = DecisionCache<CallKey, MultiplyPlan>;

/// [`SgemmPlans`]' entries; each is about 500 bytes.
pub const SGEMM_PLANS_CAPACITY: usize = 1024;

/// The plan of a multiply as [`sgemm`](super::sgemm) runs it (the [`gemm`](super) module docs).
/// C enters only by whether it takes float4 stores ([`runs_vec_kernels`](super::runs_vec_kernels)).
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
    c: u64,
    ldc: i64,
    choice: TileChoice,
) -> Result<MultiplyPlan> {
    if choice != TileChoice::Auto {
        return plan_call_uncached(handle, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, choice);
    }
    let key = CallKey {
        pair: (ta, tb),
        sizes: (m, n, k),
        leading: (lda, ldb, ldc),
        offsets: ((a % 16) as u8, (b % 16) as u8, (c % 16) as u8),
    };
    handle.device.tuner.decide_with(&handle.sgemm_plans, key, || {
        plan_call_uncached(handle, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, choice)
    })
}

/// [`plan_call`]'s decision, made anew (the tests compare the two).
#[allow(clippy::too_many_arguments)]
pub fn plan_call_uncached(
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
    c: u64,
    ldc: i64,
    choice: TileChoice,
) -> Result<MultiplyPlan> {
    let x = Operands { ta, a, lda, tb, b, ldb, c, ldc, a_rows_padded: false };
    let vec = x.runs_vec_kernels(m, n, k);
    let (kernel, plan) = plan_multiply(handle, ta, tb, m, n, k, vec, choice)?;
    if let Some(panel_rows) = copied_a_choice(handle, ta, tb, m, n, k, b, ldb, (c, ldc), (kernel, &plan, vec), choice)?
    {
        let first_panel = panel_plan(handle, (ta, tb), panel_rows.min(m), n, k, 256, b, ldb, (c, ldc))?;
        let (kernel, plan, split_tail) = first_panel.tailed;
        let stream_k = first_panel.stream_k;
        return Ok(MultiplyPlan {
            kernel,
            plan,
            copied_a_panel_rows: Some(panel_rows),
            split_tail,
            first_panel: Some(first_panel),
            stream_k,
        });
    }
    let product = Product { m, n, k, x };
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
    Ok(MultiplyPlan { kernel, plan, copied_a_panel_rows: None, split_tail, first_panel: None, stream_k })
}
