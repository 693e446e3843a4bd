//! op(A) copied first: A^T for TN and TT, A on an aligned leading dimension for NN and NT.
//!
//! TN and TT copy A along k, 4 bytes at a time (TN's B also goes through a
//! staged transpose), and run 3–5 % (TN) and 7–10 % (TT) slower than NN and
//! NT on the H100. Where
//! the product is large enough to pay for it, A^T is first copied into the
//! work buffer as an untransposed matrix (`gemm_transpose_a_f32`, one read and
//! one write of A) and the NN or NT kernels multiply it: in panels of rows of
//! C when A^T is larger than [`PANEL_BYTES_MAX`], each panel
//! copied, then multiplied. Every output is the same sum in the same order as
//! the NN or NT kernel's on an explicitly transposed A. Panels run without
//! split-K (the work buffer holds the panel); a panel's last round may still
//! be split off (split tail) or shared (stream-K), their partial sums after
//! the panel. [`copied_a_pays`] decides, by
//! [`estimated_time`] and this module's measured constants: on the
//! H100 for squares TT from n = 2048 and TN from 3000 (`decisions_table` in
//! the tests).
//!
//! NN and NT whose A takes no float4 (m or lda not a multiple of 4, or A off
//! 16 bytes: an odd m with lda = m) run the tile kernels that copy A four
//! bytes at a time. With B in float4s, the same panels of A copied as they
//! are (`gemm_copy_a_f32`) onto a leading dimension of whole float4s let the
//! `_vec` kernels multiply them; [`copied_a_pays`] weighs the copy against
//! [`NON_VEC_OVER_VEC`].
//!
//! Both copies write zeros past a panel's last row to a whole float4
//! ([`copied_a_ld`]), which the `_vec` kernels then read whole: a panel
//! whose rows are not a multiple of 4 runs them too
//! (`Operands::a_rows_padded` in `launch`).

use super::Transpose;
use super::kernels::{TILES, Tile, pair_index};
use super::launch::Operands;
use super::plan::{TileChoice, plan_multiply, tile_of, unsplit};
use super::split_tail::{Product, SplitTail, split_tail_rule};
use super::stream_k::{StreamK, stream_k_plan};
use super::tile_choice::{MAX_PARTIAL_BYTES, estimated_time};
use crate::handle::Handle;
use crate::status::Result;
use crate::tuner::{DeviceModel, KernelSpec, LaunchPlan};

/// A panel of op(A) takes at most this much of the work buffer (as split-K's partial sums).
pub const PANEL_BYTES_MAX: u64 = MAX_PARTIAL_BYTES;
/// Panels are whole multiples of the largest tile's rows, so that only the last has an edge.
pub const PANEL_ROW_GRANULE: u64 = 256;
/// Rows of a panel at most: 65535 × 32, the reach of the copy's grid when
/// its rows went along y (they go along x now; the bound stayed).
pub const PANEL_ROWS_MAX: u64 = 65535 * 32 / PANEL_ROW_GRANULE * PANEL_ROW_GRANULE;
/// µs of TT over NT on the H100 at n = 2048–8192 for the same tile
/// (`mublas bench sgemm-transposed`, "direct/that"): 1.073–1.122
/// ((4096, 4096, 256) 1.04–1.07, (512, 8192, 1024) 1.07–1.08). TN over NN
/// measured 1.020–1.033 there since its staged B is transposed early
/// ((4096, 4096, 256) 1.021, (512, 8192, 1024) 1.022), which the
/// 256×128 tile's efficiencies carry (1.09 / 1.05).
pub const TT_OVER_NT: f64 = 1.075;
/// µs of a multiply on the tile kernels without float4 operands over the
/// `_vec` kernels' for the same tile, where the rule weighs a copy that turns
/// one into the other. Measured on an H200 (kernel time by graph replay,
/// `scripts/sgemm-builds.py`, A copied against not), the direct time over
/// the copied path's less the copy's model time: NN 4095×4096×4096 1.056
/// (2867.6 → 2776.1 µs), NT 986×4188×5364 1.087 (949.8 → 897.1), NN
/// 2047×2048×2048 1.017 (362.3 → 375.9: slower). 1.05 copies the first two.
pub const NON_VEC_OVER_VEC: f64 = 1.05;
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

/// µs of reading and writing m × k floats of A beyond the copies' launches ([`BYTES_PER_US`]).
fn copy_us(m: u64, k: u64) -> f64 {
    8.0 * m as f64 * k as f64 / BYTES_PER_US
}

/// Floats between consecutive columns (k) of a panel of op(A) copied: its rows rounded up to 4 (zeros past them).
pub fn copied_a_ld(rows: u64) -> u64 {
    rows.div_ceil(4) * 4
}

/// Rows of op(A) per panel when op(A) is copied: all m when they fit in
/// [`PANEL_BYTES_MAX`], else the fewest panels of equal whole
/// [`PANEL_ROW_GRANULE`]s that do (the last one shorter). None
/// when not even one granule fits (k > 65536).
pub fn copied_a_panel_rows(m: u64, k: u64) -> Option<u64> {
    let column_bytes = k.max(1) * 4;
    if m <= PANEL_ROWS_MAX && copied_a_ld(m) * column_bytes <= PANEL_BYTES_MAX {
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

/// What [`copied_a_pays`] multiplies a plan's [`estimated_time`] by: for a
/// plan without float4 operands (`vec` false) its tile's own loss there,
/// and [`NON_VEC_OVER_VEC`] only against a side that has them (`other_vec`:
/// measured as such; where both lack them the rule is the one measured for
/// A^T).
fn plan_weight(tile: &Tile, pair: usize, vec: bool, other_vec: bool) -> f64 {
    tile.time_factor(pair, vec) * if !vec && other_vec { NON_VEC_OVER_VEC } else { 1.0 }
}

/// Whether copying op(A) pays ([module docs](self)): the direct plan's
/// [`estimated_time`] against the panels' copies and multiplies. `direct`:
/// the direct plan's tile, plan and whether it runs the `_vec` kernels;
/// `panel_plan(rows)` the same of the NN or NT kernel for a panel (unsplit:
/// the work buffer holds the panel, not partial sums). A plan without float4
/// operands counts its model's time times its tile's
/// [`Tile::time_factor`](super::Tile::time_factor), and times
/// [`NON_VEC_OVER_VEC`] where the other side (the direct plan or the first
/// panel) runs the `_vec` kernels. TN's panels
/// are timed as NN, by each tile's own NN efficiency (the 64×64 tile of 128
/// threads runs TN far slower than NN at long k, see
/// [`Tile::efficiency_at`](super::Tile::efficiency_at)); TT's by TT's model
/// divided by the measured [`TT_OVER_NT`], since the tiles' TT efficiencies
/// were not measured against NT. NN and NT gain only where the panels run
/// `_vec` and the direct plan does not. Only where the constants were
/// measured: GPUs that run the asynchronous-copy tiles (sm_80 on).
#[allow(clippy::too_many_arguments)]
pub fn copied_a_pays(
    device: &DeviceModel,
    pair: usize,
    direct: (usize, &LaunchPlan, bool),
    m: u64,
    n: u64,
    k: u64,
    panel_rows: u64,
    mut panel_plan: impl FnMut(u64) -> (usize, LaunchPlan, bool),
) -> bool {
    if device.compute_capability < (8, 0) {
        return false;
    }
    let panels_vec = panel_plan(panel_rows.min(m)).2;
    let direct_time = estimated_time(device, &TILES[direct.0], pair, direct.1, m, n, k)
        * plan_weight(&TILES[direct.0], pair, direct.2, panels_vec);
    let mut time = copy_us(m, k);
    let mut last: Option<(u64, f64)> = None;
    for (_, rows) in panels(m, panel_rows) {
        let panel_time = match last {
            Some((r, t)) if r == rows => t,
            _ => {
                let (tile, plan, vec) = panel_plan(rows);
                if pair < 2 && (direct.2 || !vec) {
                    return false; // the same kernels on a copy
                }
                let multiply = match pair {
                    0 | 1 => estimated_time(device, &TILES[tile], pair, &plan, rows, n, k),
                    2 => estimated_time(device, &TILES[tile], 0, &plan, rows, n, k),
                    _ => estimated_time(device, &TILES[tile], pair, &plan, rows, n, k) / TT_OVER_NT,
                };
                // The panels run NN or NT kernels (TN's and TT's too).
                let t = multiply * plan_weight(&TILES[tile], pair % 2, vec, direct.2) + LAUNCH_US;
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

/// The NN or NT multiply's operands for a panel of `rows` rows of op(A)
/// copied to `scratch`, with B and `(c, ldc)` the panel's C. NN's and NT's
/// panels read the copy's zeros past the last row (the `_vec` kernels at any
/// height); TN's and TT's keep the float4 rule their copies were measured
/// with: TT 12199×1088×618's panel of odd height ran 9.6 % slower on the
/// `_vec` kernels (H200, C staged at k = 618).
pub(super) fn panel_operands(
    (ta, tb): (Transpose, Transpose),
    rows: u64,
    scratch: u64,
    b: u64,
    ldb: i64,
    (c, ldc): (u64, i64),
) -> Operands {
    let a_rows_padded = ta == Transpose::No;
    Operands { ta: Transpose::No, a: scratch, lda: copied_a_ld(rows) as i64, tb, b, ldb, c, ldc, a_rows_padded }
}

/// The NN or NT kernel and its plan for a panel of `rows` rows of op(A) with
/// operands `x` ([`panel_operands`]; module docs): the chosen tile, unsplit
/// (the work buffer holds the panel, not partial sums); and whether it is a
/// `_vec` kernel. A panel starts a whole number of [`PANEL_ROW_GRANULE`]s
/// in, so every panel's C aligns as C does, and C's own address will do for
/// all of them.
pub(super) fn panel_multiply(
    handle: &Handle,
    x: &Operands,
    rows: u64,
    n: u64,
    k: u64,
) -> Result<(&'static KernelSpec, LaunchPlan, bool)> {
    let vec = x.runs_vec_kernels(rows, n, k);
    let (spec, plan) = plan_multiply(handle, Transpose::No, x.tb, rows, n, k, vec, TileChoice::Auto)?;
    if plan.geometry.grid.2 <= 1 {
        return Ok((spec, plan, vec));
    }
    Ok((spec, unsplit(handle, spec, &plan, rows, n)?, vec))
}

/// A panel of `rows` rows of op(A)'s multiply (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PanelPlan {
    pub(super) rows: u64,
    /// [`panel_multiply`]'s kernel and plan, for all of the panel.
    pub(super) whole: (&'static KernelSpec, LaunchPlan),
    /// With a split tail where the rule says (its partial sums then go after
    /// the panel): the main part's kernel and plan, and the tail.
    pub(super) tailed: (&'static KernelSpec, LaunchPlan, Option<SplitTail>),
    /// Without a split tail, stream-K where the rule says (its pieces after the panel).
    pub(super) stream_k: Option<StreamK>,
}

impl PanelPlan {
    /// Work buffer after the panel: the split tail's partial sums or the stream-K pieces.
    pub(super) fn after_panel_bytes(&self, n: u64) -> u64 {
        self.tailed.2.map_or(0, |t| t.partial_bytes(self.rows, n)) + self.stream_k.map_or(0, |s| s.piece_bytes())
    }
}

/// The plans of a panel of `rows` rows of op(A) at `scratch`; `(c, ldc)`: C, whose
/// alignment alone enters them (see [`panel_multiply`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn panel_plan(
    handle: &Handle,
    (ta, tb): (Transpose, Transpose),
    rows: u64,
    n: u64,
    k: u64,
    scratch: u64,
    b: u64,
    ldb: i64,
    (c, ldc): (u64, i64),
) -> Result<PanelPlan> {
    let x = panel_operands((ta, tb), rows, scratch, b, ldb, (c, ldc));
    let (spec, plan, _) = panel_multiply(handle, &x, rows, n, k)?;
    let whole = (spec, plan);
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

/// Panel rows for copying op(A) first, when `choice` forces it or the rule
/// says it pays. `c`: C's address and ldc, whose alignment alone enters the
/// panels' plans; `direct`: the direct plan's kernel, plan and whether it
/// runs the `_vec` kernels.
#[allow(clippy::too_many_arguments)]
pub(super) fn copied_a_choice(
    handle: &Handle,
    ta: Transpose,
    tb: Transpose,
    m: u64,
    n: u64,
    k: u64,
    b: u64,
    ldb: i64,
    c: (u64, i64),
    direct: (&'static KernelSpec, &LaunchPlan, bool),
    choice: TileChoice,
) -> Result<Option<u64>> {
    let panel_rows = match (choice, copied_a_panel_rows(m, k)) {
        (TileChoice::CopiedA { panel_rows }, _) => {
            return Ok(Some(panel_rows.clamp(1, PANEL_ROWS_MAX)));
        }
        (TileChoice::Auto, Some(rows)) => rows,
        _ => return Ok(None),
    };
    let device = handle.device.model();
    let pair = pair_index(ta, tb);
    // NN and NT: only a direct plan without float4 operands whose panels
    // would have them, and the copy less than the most it could save (the
    // common calls, aligned or small, plan no panels).
    if ta == Transpose::No {
        let tile = &TILES[tile_of(direct.0)];
        let could_save =
            estimated_time(device, tile, pair, direct.1, m, n, k) * (plan_weight(tile, pair, false, true) - 1.0);
        let first_rows = panel_rows.min(m);
        let panel_vec = panel_operands((ta, tb), first_rows, 256, b, ldb, c).runs_vec_kernels(first_rows, n, k);
        if direct.2 || !panel_vec || copy_us(m, k) >= could_save {
            return Ok(None);
        }
    }
    // The work buffer's address does not change the plans: any 256-byte aligned one will do.
    // Kernels are looked up before the rule runs, so that it cannot fail.
    let mut plans = Vec::with_capacity(2);
    for (_, rows) in panels(m, panel_rows).take(1).chain(panels(m, panel_rows).last()) {
        let (spec, plan, vec) = panel_multiply(handle, &panel_operands((ta, tb), rows, 256, b, ldb, c), rows, n, k)?;
        plans.push((rows, tile_of(spec), plan, vec));
    }
    let panel_plan =
        |rows: u64| plans.iter().find(|p| p.0 == rows).map_or((0, *direct.1, direct.2), |p| (p.1, p.2, p.3));
    Ok(copied_a_pays(device, pair, (tile_of(direct.0), direct.1, direct.2), m, n, k, panel_rows, panel_plan)
        .then_some(panel_rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routines::gemm::testing::*;
    use crate::routines::gemm::*;
    use crate::tuner::{DeviceModel, Problem};

    #[test]
    fn panels_of_a_transposed_fit_the_work_buffer() {
        // 4096 × 4096: 64 MiB, one panel.
        assert_eq!(copied_a_panel_rows(4096, 4096), Some(4096));
        assert_eq!(copied_a_panel_rows(4095, 4096), Some(4095));
        // 8192²: four panels of 2048 rows; 6144²: three of 2048; 5000 × 8192: three of 1792 (the last 1416).
        assert_eq!(copied_a_panel_rows(8192, 8192), Some(2048));
        assert_eq!(copied_a_panel_rows(6144, 6144), Some(2048));
        assert_eq!(copied_a_panel_rows(5000, 8192), Some(1792));
        assert_eq!(panels(5000, 1792).collect::<Vec<_>>(), [(0, 1792), (1792, 1792), (3584, 1416)]);
        assert_eq!(panels(7, 3).collect::<Vec<_>>(), [(0, 3), (3, 3), (6, 1)]);
        for (m, k) in [(8192u64, 8192u64), (100_000, 3000), (3_000_000, 1), (1, 65536), (20000, 20000), (257, 65535)] {
            let rows = copied_a_panel_rows(m, k).unwrap();
            assert!(copied_a_ld(rows) * k * 4 <= copied_a::PANEL_BYTES_MAX, "({m}, {k}): {rows} rows");
            assert!(
                rows <= copied_a::PANEL_ROWS_MAX && (rows == m || rows.is_multiple_of(copied_a::PANEL_ROW_GRANULE)),
                "({m}, {k}): {rows}"
            );
        }
        // Not even 256 rows fit.
        assert_eq!(copied_a_panel_rows(1000, 65537), None);
    }

    #[test]
    fn large_tn_and_tt_copy_a_transposed_first() {
        // On the H100 (copied_a's constants): TT gains from n = 2048 and
        // TN, whose direct kernel is within 3–5 % of NN's, from 3000 (at
        // 2048 the copy took 17–19 µs, and TN direct measured 1 % faster than
        // with it); both for the wide C of
        // gpu_sgemm_with_a_copied_first.
        for (m, n, k) in [
            (3000u64, 3000u64, 3000u64),
            (4096, 4096, 4096),
            (6144, 6144, 6144),
            (8192, 8192, 8192),
            (1024, 8192, 1024),
        ] {
            for pair in [2, 3] {
                assert!(decide_copied_a(pair, m, n, k).is_some(), "pair {pair}, ({m}, {n}, {k})");
            }
        }
        for (m, n, k) in [(2048u64, 2048u64, 2048u64), (512, 8192, 1024)] {
            assert!(decide_copied_a(3, m, n, k).is_some(), "TT ({m}, {n}, {k})");
            assert_eq!(decide_copied_a(2, m, n, k), None, "TN ({m}, {n}, {k})");
        }
        for n in [256u64, 512, 1024] {
            for pair in [2, 3] {
                assert_eq!(decide_copied_a(pair, n, n, n), None, "pair {pair}, n = {n}");
            }
        }
        // Not measured before Ampere: never there.
        let mut volta = DeviceModel::h100_sxm();
        volta.compute_capability = (7, 0);
        let plan = tuner().plan(&TILE_KERNELS[2][4], &model(2), &Problem { m: 4096, n: 4096, k: 0 });
        assert!(!copied_a_pays(&volta, 2, (2, &plan, true), 4096, 4096, 4096, 4096, |_| (2, plan, true)));
        // Split-K shapes keep their split: the panel would run unsplit.
        for (m, n, k) in [(256u64, 256u64, 65536u64), (8192, 128, 8192), (127, 129, 1023)] {
            assert_eq!(decide_copied_a(2, m, n, k), None, "({m}, {n}, {k})");
        }
    }

    #[test]
    fn panels_of_any_height_run_the_vec_kernels_where_b_and_c_allow() {
        // An odd m with lda = m: A takes no float4, its copy does (zeros past the last row).
        let (b, c) = (1 << 21, 1 << 22);
        for tb in [Transpose::No, Transpose::Yes] {
            let panel = panel_operands((Transpose::No, tb), 4095, 256, b, 4096, (c, 4095));
            assert_eq!(panel.lda, 4096);
            assert!(panel.runs_vec_kernels(4095, 4096, 4096), "{tb:?}");
            assert!(
                !Operands { a: 1 << 20, lda: 4095, a_rows_padded: false, ..panel }.runs_vec_kernels(4095, 4096, 4096)
            );
            // B without float4 (k or n odd) keeps the panel off them.
            assert!(
                !panel_operands((Transpose::No, tb), 4095, 256, b, 4095, (c, 4095)).runs_vec_kernels(4095, 4095, 4095),
                "{tb:?}"
            );
            // TN's and TT's panels keep the float4 rule they were measured with.
            assert!(
                !panel_operands((Transpose::Yes, tb), 4095, 256, b, 4096, (c, 4095)).runs_vec_kernels(4095, 4096, 4096)
            );
        }
    }

    #[test]
    fn tt_without_float4_on_either_side_weighs_as_a_transposed_alone() {
        // TT 12199 × 1088 × 618 (m odd, C staged): by the model, A^T copied
        // loses 0.1 %, but NON_VEC_OVER_VEC counted on both sides made it a
        // 0.2 % gain. A copy measured (its panels then on the _vec kernels)
        // ran 9.6 % slower (H200).
        assert_eq!(decide_copied_a_vec(3, 12199, 1088, 618, false, false), None);
        // The large squares copy whichever kernels both sides run.
        for vec in [false, true] {
            assert_eq!(decide_copied_a_vec(3, 4096, 4096, 4096, vec, vec), Some(4096), "{vec}");
        }
    }

    #[test]
    fn nn_and_nt_copy_a_without_float4_only_where_it_pays() {
        for pair in [0, 1] {
            for (m, n, k) in [(4095u64, 4096u64, 4096u64), (8191, 8192, 8192), (3001, 3000, 3000)] {
                let rows = copied_a_panel_rows(m, k);
                assert_eq!(decide_copied_a_vec(pair, m, n, k, false, true), rows, "pair {pair}, ({m}, {n}, {k})");
                // The same kernels on a copy gain nothing.
                assert_eq!(decide_copied_a_vec(pair, m, n, k, true, true), None, "pair {pair}, ({m}, {n}, {k})");
                assert_eq!(decide_copied_a_vec(pair, m, n, k, false, false), None, "pair {pair}, ({m}, {n}, {k})");
            }
            // Small products: the copy's launch and bytes outweigh what float4s save.
            for (m, n, k) in [(127u64, 129u64, 1023u64), (1023, 256, 1024), (255, 255, 255), (4095, 64, 4096)] {
                assert_eq!(decide_copied_a_vec(pair, m, n, k, false, true), None, "pair {pair}, ({m}, {n}, {k})");
            }
        }
    }
}
