//! op T: the paired kernels split over rows (for float4 A and for any A);
//! where they serve and pay (in one wave, for the tail of the unsplit grid's
//! last wave, on long columns), and the split they take.

use super::geometry::{Layout, reduction_split, t_columns_per_block};
use super::kernels::XReads;
use super::paired::{PAIRED_MAX_ROWS, PAIRED_SPACE, paired_serves};
use crate::handle::SPLIT_COUNTER_SLOTS;
use crate::status::Result;
use crate::tuner::optimizer;
use crate::tuner::{DeviceModel, KernelModel, KernelSpec, LaunchPlan, LaunchShape, LaunchSpace, Problem};

/// `gemv_t_f32_paired_split`: the paired kernel's blocks, split over rows;
/// `paired_split_plan` weighs these splits (2 to 3 blocks per SM for 1 to
/// 128 blocks of columns on 132 SMs).
pub(super) const PAIRED_SPLIT_SPACE: LaunchSpace = LaunchSpace {
    tx_step: 32,
    tx_min: 256,
    tx_max: 256,
    ty_min: 1,
    ty_max: 1,
    splits: &[2, 3, 4, 5, 6, 8, 12, 16, 24, 33, 48, 66, 132, 198, 264],
};
/// The split paired kernel's row ranges are whole stretches of 128 rows (a
/// float4 per lane; the kernel needs multiples of 4). Ranges of 2048 rows
/// left a short last range: 32771 × 768 in 4 ranges ran 30.26 µs in ranges
/// of 10240 rows, 29.19 in 9216 and 28.76 in 8320 (H200, kernel time)…
pub(super) const PAIRED_ROW_GRANULE: u64 = 128;
/// …and at least this long, one round of the kernel's loads: 2048 × 512 ran
/// 4.22 µs in 2 ranges, 4.62 in 4 (H200, kernel time; 5.37 on the default).
const PAIRED_SPLIT_MIN_RANGE: u64 = 1024;
/// On at most PAIRED_SPLIT_SHORT_RANGE_MAX_COLUMNS columns, where ranges of
/// PAIRED_SPLIT_MIN_RANGE rows give no grid that pays, ranges of half as
/// many: there the default ran 4 to 8 blocks (H200, kernel time, µs,
/// `scripts/gemv-ab.py`: 4096 × 64 6.19 on the default, 3.76 split 8 ways
/// into 512-row ranges, cuBLAS 3.74). On more columns the short ranges lost
/// to the routine's kernels (2048 × 128: 3.77 split 4 ways, 3.69 lean).
const PAIRED_SPLIT_SHORT_RANGE: u64 = 512;
const PAIRED_SPLIT_SHORT_RANGE_MAX_COLUMNS: u64 = 64;
/// From PAIRED_MIN_COLUMNS columns on, where the unsplit paired kernel
/// serves, the split one serves matrices of at least this many rows where
/// the unsplit grid leaves an eighth of the SMs idle or more: on fewer, the
/// unsplit kernel was as fast or faster (H200, kernel time, µs, unsplit /
/// split 2 / 3 / 4: 20000 × 1024 22.6 / 23.5 / 23.5 / 24.2, 8192 × 1024
/// 10.75 / 11.64; 16384 × 768 16.5 / 16.0 / 16.6 / 16.3; 32768 × 768 30.7 /
/// 28.7 / 30.4 / 28.2)…
const PAIRED_SPLIT_MIN_ROWS: i64 = 32768;
/// …and this many where it engages more SMs: 65536 × 1024 (128 blocks of
/// columns) ran 68.1 µs unsplit against 69.7 split 2 ways, 40003 × 1030
/// 43.2 against 44.0, where 100000 × 1024 ran 104.9 against 97.1 and
/// 1000000 × 1024 972.5 against 914.0 (H200, `scripts/sgemv-builds.py`).
const PAIRED_SPLIT_MIN_ROWS_FULL_GRID: i64 = 100_000;
/// Where the unsplit paired kernel's grid needs two waves or more, at most
/// this many, and fills the last to less than PAIRED_TAIL_MAX_LAST_FILL, the
/// split paired kernel takes matrices of PAIRED_SPLIT_MIN_ROWS rows or more
/// in PAIRED_TAIL_SPLIT ranges ([`paired_tail_split_serves`]): blocks a
/// quarter as long shorten a part-filled last wave, whose few blocks do not
/// keep DRAM busy. H200, kernel time, `OP=T GRANULE=128 scripts/gemv-ab.py`, µs,
/// unsplit / split 4 / cuBLAS (3 blocks of 8 columns per SM, 396 a wave):
/// 65536 × 3200 (400 blocks, the last wave 0.01 full) 220.5 / 201.7 /
/// 213.4, 65536 × 3584 241.0 / 225.1 / 238.4, 65536 × 4096 (0.29) 265.1 /
/// 255.2 / 273.6, 65536 × 5120 (0.62) 325.7 / 318.2 / 333.0, 65536 × 7040
/// (3 waves, 0.22) 447.2 / 428.6 / 459.1, 131072 × 3500 462.0 / 432.5 /
/// 454.6, 200000 × 3456 689.6 / 634.2 / 674.0, 262144 × 5000 1247.1 /
/// 1184.2 / 1266.9, 32768 × 3500 123.2 / 116.3 / 119.4. Split 2 and 8 were
/// within 2 % of 4 or slower, but for 8 on 200000 rows and more (up to 1.9 %
/// faster). Where the last wave is fuller the split was level or slower
/// (65536 × 6144 (0.94) 373.4 / 374.6, 65536 × 3072 (one wave, 0.97) 191.5
/// / 194.0), as on more waves (65536 × 16384 (6 waves) 965.6 / 972.8,
/// 20000² 360.4 / 375.0) and on shorter columns (16384 × 4000 63.1 / 65.2,
/// 24576 × 4000 93.3 / 93.8). The one loss measured inside the rule:
/// 32768 × 8192 (3 waves, 0.59) 254.9 / 257.0.
const PAIRED_TAIL_MAX_WAVES: u64 = 3;
const PAIRED_TAIL_MAX_LAST_FILL: f64 = 0.85;
const PAIRED_TAIL_SPLIT: u32 = 4;
/// Where x lies an odd number of floats off A's float4s in some column
/// (lda odd, or A and x at floats of different parity: shifts of 1 and 3
/// floats), the split paired kernel for any A takes columns of more than
/// this many rows whether or not its grid fits one wave
/// (`long_any_split_serves`)… Unsplit, or split to fit one wave, those
/// calls fell behind from 50000 rows on; with x 0 or 2 floats off (even
/// lda, x and A of one parity) they did not, nor did the float4 kernel.
/// H200, kernel time (`OP=T GRANULE=128 scripts/gemv-ab.py`), µs, unsplit
/// / best split (of 2, 3, 5, 8) / cuBLAS: odd lda 40001 × 2001 78.6 / 81.1
/// / 80.5, 65537 × 2001 140.7 / 132.1 / 131.5, 100001 × 2001 214.5 / 192.3
/// / 208.0, 200001 × 2001 431.1 / 370.8 / 394.2, 400001 × 2001 875.4 /
/// 728.8 / 752.3, 131073 × 1001 162.3 / 128.6 / 136.6 (split 2, one wave:
/// 142.1); lda 16-byte aligned, x 1 float off: 65536 × 2001 172.7 / 150.6 /
/// 130.0, 100000 × 2001 247.7 / 214.0 / 202.4, 100000 × 1001 183.1 / 106.1
/// / 102.8; x 2 floats off: 100000 × 2001 184.1 / 187.0 / 202.3; lda ≡ 2
/// (mod 4): 65538 × 2001 123.9 / 131.7 / 128.6, 200002 × 2001 360.4 /
/// 361.8 / 383.7; float4: 131072 × 2048 246.8 / 253.4 / 271.6. The x 1
/// float off figures predate the sm_90 fix of that loop (kernels/gemv.cu,
/// gemv_t_paired_rows): since, unsplit 100000 × 2001 188.7 against split
/// 2 191.0, 65536 × 4000 247.4 / 251.0, where odd lda still wants the
/// split (200001 × 2001 381.7 / 369.8).
const PAIRED_ANY_LONG_MIN_ROWS: i64 = 60_000;
/// …cut into ranges of at most this many rows (`long_any_split_plan`: the
/// smallest split of its space that gives them). The fastest splits timed
/// above had ranges of 16385 to 50001 rows; this rule's split was the
/// fastest or within 3 % of it, except at 131073 × 1001 (3 ranges: 137.6
/// against 128.6 on 8).
const PAIRED_ANY_MAX_RANGE_ROWS: u64 = 48_000;

/// Whether `gemv_t_f32_paired_split` can take a T call from `gemv_t_f32`
/// (`plan`, which then needs [`paired_split_pays`]; x as float4 is the
/// caller's check): rows in 32 bits, two ranges of PAIRED_SPLIT_MIN_RANGE
/// rows at least, at most one column per arrival counter, and where the
/// unsplit paired kernel serves, PAIRED_SPLIT_MIN_ROWS rows (where its
/// blocks of 8 columns leave at least 1/8 of the SMs idle) or
/// PAIRED_SPLIT_MIN_ROWS_FULL_GRID (where they do not).
pub(super) fn paired_split_serves(device: &DeviceModel, m: i64, n: i64) -> bool {
    let unsplit_blocks = (n as u64).div_ceil(t_columns_per_block(m as u64, PAIRED_SPACE.tx_min));
    let min_rows = if 8 * unsplit_blocks <= 7 * device.sm_count as u64 {
        PAIRED_SPLIT_MIN_ROWS
    } else {
        PAIRED_SPLIT_MIN_ROWS_FULL_GRID
    };
    m <= PAIRED_MAX_ROWS
        && m as u64 >= 2 * PAIRED_SPLIT_MIN_RANGE
        && n as u64 <= SPLIT_COUNTER_SLOTS
        && (!paired_serves(m, n) || m >= min_rows)
}

/// The split paired kernel's shape: of the splits of its space whose grid
/// runs in one wave with more blocks than SMs (where there is none, with
/// blocks on a quarter of the SMs or more), and ranges of at least
/// PAIRED_SPLIT_MIN_RANGE rows (where none pays, on at most
/// PAIRED_SPLIT_SHORT_RANGE_MAX_COLUMNS columns, PAIRED_SPLIT_SHORT_RANGE),
/// the one whose grid best fills the fewest
/// blocks per SM that hold it (k = ⌈blocks / SMs⌉: the Grid-Occupancy of a
/// device that runs k blocks per SM), ties to the smaller split. So 64
/// blocks of columns (512) split 4 ways on 132 SMs (256 blocks, 0.97 of two
/// per SM), not 3 (0.73) or 5 (0.81), and 96 (768 columns) 4 ways (384,
/// 0.97 of three), not 2 or 3 (0.73). Measured on an H200 (kernel time,
/// `scripts/gemv-ab.py`, ranges of 128 rows, µs, this rule's split first):
/// 65536 × 512 35.9 (split 2 40.3, 6 38.4), 8192 × 512 7.84 (2: 8.02, 6:
/// 7.97), 100000 × 256 28.6 (12: 28.8), 16384 × 256 7.72 (4: 7.95, 12:
/// 8.01), 1000000 × 128 121.8 (24: 122.0), 300000 × 64 22.2 (49: 23.2),
/// 1048576 × 16 20.8 (198: 22.2), 200000 × 768 144.1 (3: 149.2), 100000 ×
/// 1024 98.8 (3: 99.4); the worst, 50000 × 384 23.2 against 22.2 on a split
/// of 5 (240 blocks, 0.91 of two). On matrices too small for two blocks per
/// SM (µs, this rule's split first, then cuBLAS): 4096 × 256 4.31 (split
/// 2: 5.02; 4.27), 8192 × 128 4.61 (4: 4.99; 5.07), 16384 × 64 4.90 (8:
/// 5.01; 5.07), 3000 × 512 5.18 (6.55), 2048 × 512 4.22 (3.36; the
/// unsplit paired kernel, which does not serve fewer than
/// PAIRED_MIN_COLUMNS columns, 3.59). Without such a split, the space's
/// first.
pub(super) fn paired_split_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> LaunchPlan {
    let sms = device.sm_count as u64;
    let tx = spec.space.tx_min;
    let plans: Vec<LaunchPlan> = paired_split_plans(device, kernel, spec, problem).collect();
    // The best plan that pays on ranges of at least `min_range` rows, by (more blocks than SMs, fill) in that order.
    let best_on = |min_range: u64| {
        let mut best: Option<((bool, f64), LaunchPlan)> = None;
        for &plan in &plans {
            let (per_split, _) = reduction_split(Layout::TPaired, problem, &plan.shape);
            let blocks = plan.geometry.blocks();
            if !paired_split_pays(device, &plan) || per_split < min_range {
                continue;
            }
            let score = (blocks > sms, blocks as f64 / (blocks.div_ceil(sms) * sms) as f64);
            let better = |(more, fill): (bool, f64)| (score.0 && !more) || (score.0 == more && score.1 > fill + 1e-9);
            if best.is_none_or(|(best_score, _)| better(best_score)) {
                best = Some((score, plan));
            }
        }
        best.map(|(_, plan)| plan)
    };
    best_on(PAIRED_SPLIT_MIN_RANGE)
        .or_else(|| {
            (problem.n <= PAIRED_SPLIT_SHORT_RANGE_MAX_COLUMNS).then(|| best_on(PAIRED_SPLIT_SHORT_RANGE)).flatten()
        })
        .or(plans.first().copied())
        .unwrap_or_else(|| LaunchPlan::of_shape(device, kernel, spec, problem, LaunchShape { tx, ty: 1, split: 1 }))
}

/// Whether a split paired plan replaces the default's: split, in one wave,
/// with blocks on a quarter of the SMs or more. Below half of them the
/// default's and lean kernels were slower still (H200, kernel time, µs,
/// `scripts/gemv-ab.py`, the routine's kernel / split / cuBLAS): 4096 × 128
/// 6.21 / 4.03 (4 ranges, 64 blocks) / 4.52.
pub(super) fn paired_split_pays(device: &DeviceModel, plan: &LaunchPlan) -> bool {
    plan.geometry.grid.1 > 1
        && optimizer::waves(device, plan) == 1
        && 4 * plan.geometry.blocks() >= device.sm_count as u64
}

/// Whether the split paired kernel takes a T call from the unsplit one
/// (`paired`, its plan) for the tail of its last wave: at least
/// PAIRED_SPLIT_MIN_ROWS rows in 32 bits, no more columns than the split's
/// counters, and an unsplit grid of two to PAIRED_TAIL_MAX_WAVES waves, the
/// last filled to less than PAIRED_TAIL_MAX_LAST_FILL. It then runs in
/// PAIRED_TAIL_SPLIT ranges (`paired_tail_split_plan`). The unsplit plan is
/// asked for only past the size checks, which most calls fail.
pub(super) fn paired_tail_split_serves(
    device: &DeviceModel,
    m: i64,
    n: i64,
    paired: impl FnOnce() -> Result<LaunchPlan>,
) -> Result<bool> {
    if !(PAIRED_SPLIT_MIN_ROWS..=PAIRED_MAX_ROWS).contains(&m) || n as u64 > SPLIT_COUNTER_SLOTS {
        return Ok(false);
    }
    let paired = paired()?;
    Ok((2..=PAIRED_TAIL_MAX_WAVES).contains(&optimizer::waves(device, &paired))
        && optimizer::last_wave_fill(device, &paired) < PAIRED_TAIL_MAX_LAST_FILL)
}

/// The split paired kernel's shape for the tail of the unsplit one's last wave: PAIRED_TAIL_SPLIT ranges.
pub(super) fn paired_tail_split_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
) -> LaunchPlan {
    let shape = LaunchShape { tx: spec.space.tx_min, ty: 1, split: PAIRED_TAIL_SPLIT };
    LaunchPlan::of_shape(device, kernel, spec, problem, shape)
}

/// Whether x lies an odd number of floats off A's float4s in some column
/// (lda odd, or A and x at floats of different parity), where the any-A
/// kernels shift x by 1 or 3 floats.
pub(super) fn x_off_a_by_odd_floats(a: u64, lda: i64, x: XReads) -> bool {
    let a_odd = (a / 4) % 2 == 1;
    lda % 2 != 0
        || match x {
            XReads::Float4 => a_odd,
            XReads::UnitStride { odd_float } => a_odd != odd_float,
            XReads::Strided => false,
        }
}

/// Whether the split paired kernel for any A takes a call for its long
/// columns alone, in as many waves as it needs: x an odd number of floats
/// off A's float4s (`odd_shift`, [`x_off_a_by_odd_floats`]), more than
/// PAIRED_ANY_LONG_MIN_ROWS rows, on no more columns than the split's counters.
pub(super) fn long_any_split_serves(m: i64, n: i64, odd_shift: bool) -> bool {
    odd_shift && m > PAIRED_ANY_LONG_MIN_ROWS && m <= PAIRED_MAX_ROWS && n as u64 <= SPLIT_COUNTER_SLOTS
}

/// The split paired kernel for any A's shape on long columns
/// ([`long_any_split_serves`]): `plan` (`paired_split_plan`'s, which the
/// tuner caches for every call of the problem's size) where that pays on
/// ranges of at most PAIRED_ANY_MAX_RANGE_ROWS rows, or pays at all where
/// lda is even; else the smallest split of its space whose ranges are that
/// short. With every column's x one float off (lda even) the split that
/// pays was the fastest on 1001 columns, with lda odd the short ranges
/// (H200, kernel time, µs, split 2 (one wave) / 5 / 8: x 1 float off,
/// 200000 × 1001 208.6 / 225.3 / 210.2, 100000 × 1001 106.1 / 117.9 /
/// 110.4; lda odd, 200001 × 1001 213.1 / 191.3 (6) / 189.9).
pub(super) fn long_any_split_plan(
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    problem: &Problem,
    plan: LaunchPlan,
    odd_lda: bool,
) -> LaunchPlan {
    let short_ranges =
        |plan: &LaunchPlan| reduction_split(Layout::TPaired, problem, &plan.shape).0 <= PAIRED_ANY_MAX_RANGE_ROWS;
    if paired_split_pays(device, &plan) && (short_ranges(&plan) || !odd_lda) {
        return plan;
    }
    paired_split_plans(device, kernel, spec, problem).find(short_ranges).unwrap_or(plan)
}

/// The split paired kernels' plans, one per split of their space (on its one
/// block size), in the space's order.
fn paired_split_plans<'a>(
    device: &'a DeviceModel,
    kernel: &'a KernelModel,
    spec: &'a KernelSpec,
    problem: &'a Problem,
) -> impl Iterator<Item = LaunchPlan> + 'a {
    let tx = spec.space.tx_min;
    spec.space
        .splits
        .iter()
        .map(move |&split| LaunchPlan::of_shape(device, kernel, spec, problem, LaunchShape { tx, ty: 1, split }))
}
