//! SGEMM with 2 to 32 columns or rows of C.
//!
//! With 2 to 32 columns of C (n) or else rows (m), the product still reads
//! its large operand once and does 2 to 32 FMAs per element read, about what
//! the memory keeps up with; the tile kernels computed 64 or more columns
//! per tile instead (TN 4096 × 8 × 4096 on an H200: 67 µs of kernel against
//! cuBLAS's 46). The skinny kernels (`gemm_f32_skinny_*` in kernels/gemm.cu)
//! compute D = P·Q: D = C, P = op(A), Q = op(B) for few columns, and the
//! transpose (D = C^T, P = op(B)^T, Q = op(A)^T) for few rows ([`as_skinny`]).
//! Up to 16 columns, each streams P, along k (rows of P contiguous: TN and
//! TT with few columns, NN and TN with few rows) or along m, holds its rows' sums of all N
//! columns in registers and stages Q in shared memory; from 17 to 32, the
//! wide kernels stage both through shared memory and compute 64 × 32 per
//! warp, 8 × 8 per lane, as a tile does (on devices that give a block their
//! 78 KiB; else the tiles run). k is split over the grid's y
//! ([`skinny_plan`]), and the last block of a row block to arrive adds the
//! partial sums in a fixed order, as SGEMV's splits do.

use super::Transpose;
use super::kernels::SKINNY_KERNELS;
use super::tile_choice::MAX_PARTIAL_BYTES;
use crate::handle::Handle;
use crate::status::Result;
use crate::tuner::{Geometry, KernelModel, KernelSpec, LaunchPlan, LaunchShape, Problem, Tuner, optimizer};

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

/// D = P·Q (+ C's scaling) for an SGEMM with at most [`MAX_N`]
/// columns or rows of C (module docs): the kernels' operands.
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
        let nb = if self.n > MAX_N_NARROW {
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
        if self.n > MAX_N_NARROW {
            ROWS_WIDE
        } else if self.along_k {
            ROWS_ALONG_K
        } else {
            ROWS_ALONG_M
        }
    }

    /// Its loaded kernel and the plan (the split) for it ([`skinny_plan`]);
    /// None where no block of it can run (the wide kernels' shared memory is
    /// more than some GPUs give a block: the tiles run instead).
    pub(super) fn plan<'h>(&self, handle: &'h Handle) -> Result<Option<(&'h crate::launch::Kernel, LaunchPlan)>> {
        let kernel = handle.device.kernel(self.spec().name)?;
        let plan = skinny_plan(&handle.device.tuner, self.spec(), &kernel.model, &self.problem());
        Ok(plan.occupancy.is_runnable().then_some((kernel, plan)))
    }
}

/// [`Skinny`] for a valid call whose C has 2 to [`MAX_N`] columns
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
    if m.min(n) < 2 || m.min(n) > MAX_N {
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
    tuner.plan_with(spec, kernel, problem, "skinny_plan", || {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routines::gemm::testing::*;
    use crate::routines::gemm::*;
    use crate::tuner::{DeviceModel, KernelModel, Problem, Tuner};

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
}
