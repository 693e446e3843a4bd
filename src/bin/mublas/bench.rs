//! `mublas bench`: mublas against the real cuBLAS in the same run.
//!
//! Method (shared/docs/testing.md): CUDA events around each call on the
//! stream, 3 warm-up calls, the median of `--reps` (default 30) timed calls
//! (at least 1000 where a call takes under 20 µs: `LAUNCH_BOUND_US`),
//! inputs rotated over 512 MiB (the H100's L2 is 50 MB), random data, cuBLAS
//! measured the same way in the same run, in blocks of calls alternating with
//! mublas's (`Workload::time_against_cublas`).

use crate::workload::{AxpyLayout, BLOCK_CALLS, MublasSession, Timing, WARMUPS, Workload};
use mublas::capi::types::*;
use mublas::harness::{EventTimer, Random};
use mublas::real_cublas::RealCublas;
use std::fmt::Write as _;

pub const ROUTINES: &[&str] = &[
    "saxpy",
    "sgemv",
    "strmv",
    "sgemm",
    "sgemm-tiles",
    "sgemm-transposed",
    "sgemm-tail",
    "sgemm-stream-k",
    "sgemv-sawtooth",
    "sgemv-shapes",
    "floor",
    "decisions",
    "overhead",
];

struct Options {
    routines: Vec<String>,
    reps: usize,
    quick: bool,
    csv: Option<String>,
    /// How the two libraries are timed (`Workload::time_against_cublas`).
    timing: Timing,
    /// `sgemm-tiles` over these shapes instead of its own ([`shapes_file`]).
    shapes: Option<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options =
        Options { routines: Vec::new(), reps: 30, quick: false, csv: None, timing: Timing::Blocks, shapes: None };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--alternate" | "--queued" => {
                let timing = if arg == "--queued" { Timing::Queued } else { Timing::Alternate };
                if options.timing != Timing::Blocks && options.timing != timing {
                    return Err("--alternate or --queued, not both".into());
                }
                options.timing = timing;
            }
            "--reps" => options.reps = it.next().and_then(|v| v.parse().ok()).ok_or("--reps needs a number")?,
            "--csv" => options.csv = Some(it.next().ok_or("--csv needs a file")?.clone()),
            "--shapes" => options.shapes = Some(it.next().ok_or("--shapes needs a file")?.clone()),
            r if ROUTINES.contains(&r) => options.routines.push(arg.clone()),
            other => return Err(format!("unknown benchmark argument {other:?} (routines: {})", ROUTINES.join(", "))),
        }
    }
    if options.routines.is_empty() {
        options.routines.push("saxpy".into());
    }
    Ok(options)
}

/// The workloads of one routine's benchmark.
/// Builds one workload when called: each is made, timed and dropped in turn, so
/// that only one rotation pool is on the device at a time.
type MakeWorkload<'a> = Box<dyn FnOnce(&mut Random) -> Result<Workload, String> + 'a>;

/// The workloads of one routine's benchmark, to be built one at a time.
/// Issue 4's SGEMV shapes, (m, n): the square sizes, then the short-wide and
/// tall-skinny ones (`sgemv` and `floor` benchmark the same list).
pub fn sgemv_sizes(quick: bool) -> Vec<(usize, usize)> {
    if quick {
        return vec![(1024, 1024), (4096, 4096), (16384, 16384)];
    }
    let mut all: Vec<(usize, usize)> =
        [256, 512, 1000, 1024, 2000, 2048, 3000, 4096, 4097, 5000, 8192, 10000, 16384, 20000, 32768]
            .iter()
            .map(|&n| (n, n))
            .collect();
    all.extend([(1024, 65536), (65536, 1024), (16, 1048576), (1048576, 16)]);
    all
}

fn workloads<'a>(
    h: &'a mublas::Handle,
    handle: mublasHandle_t,
    routine: &str,
    quick: bool,
) -> Result<Vec<MakeWorkload<'a>>, String> {
    match routine {
        "saxpy" => {
            let powers: Vec<u32> = if quick { vec![12, 16, 20, 24, 26] } else { (10..=28).collect() };
            Ok(powers
                .into_iter()
                .map(|p| -> MakeWorkload<'a> {
                    Box::new(move |r| Workload::saxpy(h, handle, 1 << p, AxpyLayout::Aligned, r))
                })
                .collect())
        }
        "sgemv" => {
            use mublas::routines::gemv::Op;
            let mut all: Vec<MakeWorkload<'a>> = Vec::new();
            for (m, n) in sgemv_sizes(quick) {
                for op in [Op::N, Op::T] {
                    all.push(Box::new(move |r| Workload::sgemv(h, handle, op, m, n, r)));
                }
            }
            Ok(all)
        }
        "strmv" => {
            // The SGEMV square sweep; LNN, UNN, LTN, UTN at each size.
            let sizes: &[usize] = if quick {
                &[1024, 4096, 8192, 16384]
            } else {
                &[256, 512, 1000, 1024, 2000, 2048, 3000, 4096, 4097, 5000, 8192, 10000, 16384, 20000, 32768]
            };
            let variants = [(0, 0), (1, 0), (0, 1), (1, 1)]; // (uplo, trans), non-unit
            let mut all: Vec<MakeWorkload<'a>> = Vec::new();
            for &n in sizes {
                for (uplo, trans) in variants {
                    all.push(Box::new(move |r| Workload::strmv(h, handle, uplo, trans, 0, n, false, r)));
                }
            }
            Ok(all)
        }
        "sgemm" => {
            // Square sizes for every transpose pair, then the other shapes, also
            // for every pair (one pair under --quick).
            let squares: &[usize] =
                if quick { &[1024, 2048, 4096] } else { &[256, 512, 1024, 2048, 3000, 4096, 6144, 8192] };
            let pairs: &[(i32, i32)] = if quick { &[(0, 0)] } else { &[(0, 0), (0, 1), (1, 0), (1, 1)] };
            let shapes: &[(usize, usize, usize)] = if quick {
                &[(127, 129, 1023)]
            } else {
                &[(4096, 4096, 256), (256, 256, 65536), (8192, 128, 8192), (127, 129, 1023)]
            };
            let mut all: Vec<MakeWorkload<'a>> = Vec::new();
            for &(ta, tb) in pairs {
                for &n in squares {
                    all.push(Box::new(move |r| Workload::sgemm(h, handle, ta, tb, n, n, n, r)));
                }
            }
            for &(ta, tb) in pairs {
                for &(m, n, k) in shapes {
                    all.push(Box::new(move |r| Workload::sgemm(h, handle, ta, tb, m, n, k, r)));
                }
            }
            // Few columns or rows of C, as fp32 nn.Linear calls SGEMM for a small
            // batch (forward TN, m = out, n = batch, k = in; input gradient NN),
            // up to the 128×64 tile's batches (64) and past them (192 to 768).
            let small_sides: &[SgemmShape] = if quick {
                &[(1, 0, 4096, 8, 4096)]
            } else {
                &[
                    (1, 0, 4096, 1, 4096),
                    (1, 0, 4096, 8, 4096),
                    (1, 0, 4096, 16, 4096),
                    (1, 0, 4096, 32, 4096),
                    (0, 0, 4096, 8, 4096),
                    (0, 0, 4096, 32, 4096),
                    (0, 1, 8, 4096, 4096),
                    (0, 1, 32, 4096, 4096),
                    (1, 0, 4096, 64, 4096),
                    (1, 0, 11008, 64, 4096),
                    (1, 0, 4096, 192, 4096),
                    (0, 0, 4096, 64, 4096),
                    // Batches of 384 and 768: a few rounds of 256×128 blocks split along k.
                    (1, 0, 4096, 384, 4096),
                    (0, 0, 4096, 768, 4096),
                    // 12 tiles of 256×128 over a long k, split 11 ways into one round
                    // (routines/gemm/tile_choice.rs, candidate_splits), as cuBLAS splits them.
                    (0, 0, 256, 1536, 8192),
                    (1, 0, 256, 1536, 8192),
                ]
            };
            for &(ta, tb, m, n, k) in small_sides {
                all.push(Box::new(move |r| Workload::sgemm(h, handle, ta, tb, m, n, k, r)));
            }
            Ok(all)
        }
        other => Err(format!("unknown routine {other:?}")),
    }
}

struct Row {
    /// The benchmark that made the row ("sgemv", "sgemv-sawtooth", …).
    bench: String,
    routine: &'static str,
    label: String,
    mublas_us: f64,
    cublas_us: Option<f64>,
    mublas_rate: f64,
    cublas_rate: Option<f64>,
    unit: &'static str,
    plan: String,
}

impl Row {
    /// The row of `workload` in benchmark `bench`, with its times and the plan its call makes.
    fn of(
        bench: &str,
        h: &mublas::Handle,
        workload: &Workload,
        mublas_us: f64,
        cublas_us: Option<f64>,
    ) -> Result<Row, String> {
        let plan = workload.plan(h)?;
        Ok(Row {
            bench: bench.to_string(),
            routine: workload.routine,
            label: workload.label.clone(),
            mublas_us,
            cublas_us,
            mublas_rate: workload.rate(mublas_us),
            cublas_rate: cublas_us.map(|us| workload.rate(us)),
            unit: workload.unit.label(),
            plan: format!(
                "{} {}x{}x{} grid {:?} occ w{:.2} b{:.2} g{:.2}",
                workload.spec.name,
                plan.shape.tx,
                plan.shape.ty,
                plan.shape.split,
                plan.geometry.grid,
                plan.occupancy.warp,
                plan.occupancy.block,
                plan.occupancy.grid
            ),
        })
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    if options.routines.iter().any(|r| r == "decisions") {
        crate::decisions::run();
        if options.routines.len() == 1 {
            return Ok(());
        }
    }
    let session = MublasSession::open()?;
    let (h, handle) = (session.handle(), session.raw());
    let cublas = RealCublas::get().map_err(|e| eprintln!("mublas bench: no cuBLAS to compare with: {e}")).ok();
    println!(
        "device: {} ({} SMs); cuBLAS: {}",
        h.device.model().name,
        h.device.model().sm_count,
        cublas.map(|c| c.soname).unwrap_or("none")
    );
    if cublas.is_some() {
        match options.timing {
            Timing::Alternate => println!("timing: mublas's and cuBLAS's calls alternating one by one (--alternate)"),
            Timing::Blocks => println!(
                "timing: blocks of {BLOCK_CALLS} calls of one library, alternating, the first of each block untimed"
            ),
            Timing::Queued => println!(
                "timing: blocks of {BLOCK_CALLS} calls of one library queued back to back (--queued: kernel time and \
                 the gaps between calls, not the launch from idle), alternating, the first of each block untimed"
            ),
        }
    }
    let timer = EventTimer::new(h.device.context(), h.stream()).map_err(|e| e.to_string())?;
    let mut random = Random::new(2026);
    let mut rows = Vec::new();
    let table =
        TableRun { h, handle, cublas, timer: &timer, quick: options.quick, reps: options.reps, timing: options.timing };
    if options.routines.iter().any(|r| r == "overhead") {
        crate::overhead::run(h, handle, cublas, options.timing)?;
    }
    if options.routines.iter().any(|r| r == "sgemm-tiles") {
        let shapes = options.shapes.as_deref().map(shapes_file).transpose()?;
        sgemm_tiles(&table, shapes, &mut random)?;
    }
    if options.routines.iter().any(|r| r == "sgemm-transposed") {
        sgemm_transposed(&table, &mut random)?;
    }
    if options.routines.iter().any(|r| r == "sgemm-tail") {
        sgemm_tail(&table, &mut random)?;
    }
    if options.routines.iter().any(|r| r == "sgemm-stream-k") {
        sgemm_stream_k(&table, &mut random)?;
    }
    if options.routines.iter().any(|r| r == "sgemv-shapes") {
        sgemv_shapes(h, handle, &timer, &mut random, options.quick)?;
    }
    if options.routines.iter().any(|r| r == "floor") {
        crate::floor::run(h, handle, cublas, &timer, &mut random, options.quick, options.reps)?;
    }
    let own_tables = [
        "decisions",
        "overhead",
        "sgemm-tiles",
        "sgemm-transposed",
        "sgemm-tail",
        "sgemm-stream-k",
        "sgemv-shapes",
        "floor",
    ];
    for routine in options.routines.iter().filter(|r| !own_tables.contains(&r.as_str())) {
        if routine == "sgemv-sawtooth" {
            rows.extend(sgemv_sawtooth(&table, &mut random)?);
            continue;
        }
        for make in workloads(h, handle, routine, options.quick)? {
            let workload = make(&mut random)?;
            let (mublas_us, cublas_us) = table.time(&workload)?;
            rows.push(Row::of(routine, h, &workload, mublas_us, cublas_us)?);
        }
    }
    // Benches that print their own lines (sgemm-transposed) leave no rows.
    if !rows.is_empty() {
        print_table(&rows);
    }
    if options.routines.iter().any(|r| r == "sgemv-sawtooth") {
        println!(
            "sgemv-sawtooth: {SWEEP_PASSES} passes over the sizes, upward and downward in n in turn; \
             each size's time is the median of its passes'"
        );
        print_spread(&rows);
    }
    if let Some(path) = &options.csv {
        std::fs::write(path, csv(&rows)).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}

/// `mublas bench sgemv-shapes`: at each of issue 4's shapes up to n = 10000
/// (N and T), every candidate shape of the kernel forced in turn (median of 5,
/// then of 25 for those within 15 % of the fastest), beside the tuner's
/// choice: how far the optimizer's choice is from the fastest candidate, and
/// the five fastest.
fn sgemv_shapes(
    h: &mublas::Handle,
    handle: mublasHandle_t,
    timer: &EventTimer,
    random: &mut Random,
    quick: bool,
) -> Result<(), String> {
    use mublas::routines::gemv::Op;
    let mut sizes: Vec<(usize, usize)> = if quick {
        vec![(1024, 1024), (4096, 4096)]
    } else {
        [256, 512, 1000, 1024, 2000, 2048, 3000, 4096, 5000, 8192, 10000].iter().map(|&n| (n, n)).collect()
    };
    if !quick {
        sizes.extend([(1024, 65536), (65536, 1024), (16, 1048576), (1048576, 16)]);
    }
    for (m, n) in sizes {
        for op in [Op::N, Op::T] {
            let workload = Workload::sgemv(h, handle, op, m, n, random)?;
            let chosen = workload.plan(h)?.shape;
            let mut samples = crate::tune::time_candidates(h, &workload, timer, 1, 5)?;
            let best = samples.iter().map(|s| s.us).fold(f64::INFINITY, f64::min);
            for sample in samples.iter_mut().filter(|s| best / s.us >= 0.85 || s.shape == chosen) {
                h.device.tuner.forced().set(workload.spec.name, Some(sample.shape));
                let timed = workload.time_mublas(timer, 2, 25);
                h.device.tuner.forced().set(workload.spec.name, None);
                sample.us = timed?;
            }
            samples.sort_by(|a, b| a.us.total_cmp(&b.us));
            let at = |shape: mublas::tuner::LaunchShape| {
                samples.iter().find(|s| s.shape == shape).map_or(f64::NAN, |s| s.us)
            };
            let fastest: Vec<String> = samples
                .iter()
                .take(6)
                .map(|s| {
                    format!(
                        "{}x{}x{} {:.1} (w{:.2} g{:.2})",
                        s.shape.tx, s.shape.ty, s.shape.split, s.us, s.occupancy.warp, s.occupancy.grid
                    )
                })
                .collect();
            // The routine's own launch can lie outside the tuner's candidates (the cluster kernels' splits):
            // then it is timed as the routine makes it.
            let (chosen_us, outside) = match at(chosen) {
                us if us.is_nan() => (workload.time_mublas(timer, 2, 25)?, " (not a candidate)"),
                us => (us, ""),
            };
            println!(
                "shapes {:<16} chosen {}x{}x{}{outside} {:.1} µs = {:.0} % of fastest | {}",
                workload.label,
                chosen.tx,
                chosen.ty,
                chosen.split,
                chosen_us,
                100.0 * samples[0].us / chosen_us,
                fastest.join(", ")
            );
            let all: Vec<String> = samples
                .iter()
                .map(|s| format!("{}x{}x{}:{:.1}", s.shape.tx, s.shape.ty, s.shape.split, s.us))
                .collect();
            println!("all {:<16} {}", workload.label, all.join(" "));
        }
    }
    Ok(())
}

/// What the benchmark's tables share: the session, cuBLAS if there is one, the
/// timer and the method's settings.
#[derive(Clone, Copy)]
struct TableRun<'a> {
    h: &'a mublas::Handle,
    handle: mublasHandle_t,
    cublas: Option<&'a RealCublas>,
    timer: &'a EventTimer,
    quick: bool,
    reps: usize,
    timing: Timing,
}

/// Calls whose median is below this many µs are timed again with at least
/// LAUNCH_BOUND_REPS repetitions, and the second timing counts. At 6-9 µs a
/// call is mostly the launch: the event-timed samples of one call spread over
/// 2-3 µs (10th to 90th percentile), so a median of 30 moved the SAXPY ratios
/// at 2^10 to 2^18 by ±5 % between runs. H100, three runs each, calls alternating one by one:
/// medians of 300 gave 0.98-1.08 against cuBLAS, medians of 1000 gave 1.00-1.08.
const LAUNCH_BOUND_US: f64 = 20.0;
const LAUNCH_BOUND_REPS: usize = 1000;

impl TableRun<'_> {
    /// mublas's median µs and, when there is cuBLAS, cuBLAS's, timed in alternating blocks.
    fn time(&self, workload: &Workload) -> Result<(f64, Option<f64>), String> {
        let timed = self.time_with(workload, self.reps)?;
        if timed.0 < LAUNCH_BOUND_US {
            return self.time_with(workload, LAUNCH_BOUND_REPS.max(10 * self.reps));
        }
        Ok(timed)
    }

    fn time_with(&self, workload: &Workload, reps: usize) -> Result<(f64, Option<f64>), String> {
        match self.cublas {
            Some(c) => workload.time_against_cublas(c, self.timer, WARMUPS, reps, self.timing),
            None => Ok((workload.time_mublas(self.timer, WARMUPS, reps)?, None)),
        }
    }
}

/// An SGEMM shape: (ta, tb, m, n, k), transposes as cuBLAS's codes.
type SgemmShape = (i32, i32, usize, usize, usize);

/// SGEMM shapes from a file of lines "ta,tb,m,n,k" (0 = N, 1 = T; blank lines
/// and lines starting with "#" skipped; more fields ignored), as
/// scripts/sgemm-builds.py reads them.
fn shapes_file(path: &str) -> Result<Vec<SgemmShape>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut shapes = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let field = |i: usize| fields.get(i).and_then(|f| f.parse::<usize>().ok());
        match (field(0), field(1), field(2), field(3), field(4)) {
            (Some(ta @ 0..=1), Some(tb @ 0..=1), Some(m), Some(n), Some(k)) => {
                shapes.push((ta as i32, tb as i32, m, n, k))
            }
            _ => return Err(format!("{path}: not \"ta,tb,m,n,k\": {line:?}")),
        }
    }
    Ok(shapes)
}

/// `mublas bench sgemm-tiles`: every SGEMM tile forced on each shape (with the
/// split the tuner gives it, and on some shapes forced splits too) beside
/// cuBLAS and the automatic choice, to see which tile each shape wants. Times
/// in µs, then cuBLAS time / this time (above 1: faster than cuBLAS). With
/// `--shapes FILE`, the file's shapes ([`shapes_file`]) and no forced splits.
fn sgemm_tiles(table: &TableRun, given: Option<Vec<SgemmShape>>, random: &mut Random) -> Result<(), String> {
    let TableRun { h, handle, timer, quick, reps, .. } = *table;
    use mublas::routines::gemm::{self, TILES, TileChoice};
    use mublas::tuner::LaunchShape;
    let squares: &[usize] = if quick { &[1024, 4096] } else { &[256, 512, 1024, 2048, 3000, 4096, 8192] };
    let mut shapes: Vec<SgemmShape> = squares.iter().map(|&n| (0, 0, n, n, n)).collect();
    if !quick {
        for (ta, tb) in [(0, 1), (1, 0), (1, 1)] {
            shapes.extend([(ta, tb, 1024, 1024, 1024), (ta, tb, 4096, 4096, 4096)]);
        }
        shapes.extend([
            (0, 0, 4096, 4096, 256),
            (0, 0, 256, 256, 65536),
            (0, 0, 8192, 128, 8192),
            (0, 0, 127, 129, 1023),
        ]);
    }
    // (shape, tile, splits) forced beyond the tuner's own split.
    type SplitTrial = ((usize, usize, usize), &'static str, &'static [u32]);
    let split_trials: &[SplitTrial] = if quick || given.is_some() {
        &[]
    } else {
        &[
            ((256, 256, 256), "64x64", &[4, 8, 16]),
            ((256, 256, 256), "64x64_t128", &[4, 8, 16]),
            ((256, 256, 256), "128x128", &[4, 8]),
            ((256, 256, 256), "128x128_t128", &[4, 8]),
            ((512, 512, 512), "64x64", &[2, 4, 8]),
            ((512, 512, 512), "64x64_t128", &[2, 4, 8]),
            ((512, 512, 512), "128x128", &[4, 8, 16]),
            ((512, 512, 512), "128x128_t128", &[8, 16]),
            ((1024, 1024, 1024), "128x128", &[2, 4]),
            ((1024, 1024, 1024), "128x128_t128", &[2, 4]),
            ((1024, 1024, 1024), "256x128", &[4, 8]),
            ((127, 129, 1023), "64x64", &[8, 16, 24, 32]),
            ((127, 129, 1023), "64x64_t128", &[8, 16, 24, 32]),
            ((127, 129, 1023), "128x128", &[8, 16]),
        ]
    };
    let device = h.device.model();
    let plan_text = |w: &crate::workload::Workload| -> String {
        let split = w.plan(h).map(|plan| plan.geometry.grid.2).unwrap_or(0);
        format!("{} split {split}", w.spec.name.trim_start_matches("gemm_f32_"))
    };
    let shapes = given.unwrap_or(shapes);
    let ops = [gemm::Transpose::No, gemm::Transpose::Yes];
    println!("sgemm-tiles: µs (cuBLAS time / this time) per tile, the tuner's split unless forced");
    for (ta, tb, m, n, k) in shapes {
        let auto = Workload::sgemm(h, handle, ta, tb, m, n, k, random)?;
        let (auto_us, cublas_us) = table.time(&auto)?;
        let ratio = |us: f64| cublas_us.map(|c| format!("{:.2}", c / us)).unwrap_or_else(|| "-".into());
        println!(
            "{:<22} cuBLAS {:>9} | auto {:>9.1} ({}) {:.1} TFLOP/s [{}]",
            auto.label,
            cublas_us.map(|c| format!("{c:.1}")).unwrap_or_else(|| "-".into()),
            auto_us,
            ratio(auto_us),
            auto.rate(auto_us),
            plan_text(&auto)
        );
        drop(auto);
        let mut line = String::new();
        for (tile, info) in TILES.iter().enumerate() {
            if !gemm::tile_suits(device, info) {
                continue;
            }
            let w = Workload::sgemm_with(h, handle, ta, tb, m, n, k, TileChoice::Tile(tile), random)?;
            let us = w.time_mublas(timer, WARMUPS, reps)?;
            let _ = write!(
                line,
                " | {} {:.1} ({}) s{}",
                info.name,
                us,
                ratio(us),
                plan_text(&w).rsplit(' ').next().unwrap_or("")
            );
        }
        println!("{:<22}{line}", "");
        for &((sm, sn, sk), name, splits) in split_trials {
            if (sm, sn, sk) != (m, n, k) || (ta, tb) != (0, 0) {
                continue;
            }
            let Some(tile) = TILES.iter().position(|t| t.name == name && gemm::tile_suits(device, t)) else { continue };
            let mut line = String::new();
            for &split in splits {
                let probe = Workload::sgemm_with(h, handle, ta, tb, m, n, k, TileChoice::Tile(tile), random)?;
                let kernel = probe.spec.name;
                h.device.tuner.forced().set(kernel, Some(LaunchShape { tx: TILES[tile].threads, ty: 1, split }));
                let us = probe.time_mublas(timer, WARMUPS, reps);
                // The split the forced calls made (the probe's plan predates the forcing).
                let vec = kernel.ends_with("_vec");
                let applied = gemm::plan_multiply(
                    h,
                    ops[ta as usize],
                    ops[tb as usize],
                    m as u64,
                    n as u64,
                    k as u64,
                    vec,
                    TileChoice::Tile(tile),
                )
                .map(|(_, plan)| format!("{} split {}", kernel.trim_start_matches("gemm_f32_"), plan.geometry.grid.2))
                .unwrap_or_default();
                h.device.tuner.forced().set(kernel, None);
                let us = us?;
                let _ = write!(line, " | split {split}: {us:.1} ({}) [{applied}]", ratio(us));
            }
            println!("{:<22} {name} forced{line}", "");
        }
    }
    Ok(())
}

/// cuBLAS's time over `us`, or "-" without cuBLAS.
fn cublas_ratio(cublas_us: Option<f64>, us: f64) -> String {
    cublas_us.map(|c| format!("{:.2}", c / us)).unwrap_or_else(|| "-".into())
}

/// The tile kernel SGEMM runs for a workload's shape without an A^T copy or a
/// split tail (the workloads' matrices are 256-byte aligned, leading dimensions equal to their rows).
fn direct_kernel(
    h: &mublas::Handle,
    ta: mublas::routines::gemm::Transpose,
    tb: mublas::routines::gemm::Transpose,
    m: usize,
    n: usize,
    k: usize,
) -> Result<&'static mublas::tuner::KernelSpec, String> {
    use mublas::routines::gemm::{self, TileChoice, Transpose};
    let lda = if ta == Transpose::No { m } else { k } as i64;
    let ldb = if tb == Transpose::No { k } else { n } as i64;
    let vec = gemm::vec4_applies(ta, tb, m as i64, n as i64, k as i64, 256, lda, 256, ldb);
    gemm::plan_multiply(h, ta, tb, m as u64, n as u64, k as u64, vec, TileChoice::Auto)
        .map(|(spec, _)| spec)
        .map_err(|e| e.to_string())
}

/// `mublas bench sgemm-transposed`: TN and TT each way in one run, to fit
/// `routines::gemm::copied_a`'s constants: as called (the rule's choice,
/// against cuBLAS), directly on the rule's tile, with A^T copied first (forced,
/// the rule's panels), and NN or NT, the same multiply without the copy. The
/// copy's cost is A^T's time over NN's or NT's; the direct kernels' loss,
/// their time over NN's or NT's (TT: `copied_a::TT_OVER_NT`).
fn sgemm_transposed(table: &TableRun, random: &mut Random) -> Result<(), String> {
    let TableRun { h, handle, timer, quick, reps, .. } = *table;
    use mublas::routines::gemm::{self, TileChoice, Transpose};
    let shapes: &[(usize, usize, usize)] = if quick {
        &[(2048, 2048, 2048), (4096, 4096, 4096)]
    } else {
        &[
            (2048, 2048, 2048),
            (3000, 3000, 3000),
            (4096, 4096, 4096),
            (6144, 6144, 6144),
            (8192, 8192, 8192),
            (4096, 4096, 256),
            (512, 8192, 1024),
        ]
    };
    println!(
        "sgemm-transposed: µs (cuBLAS time / this time); copy = A^T − untransposed, as bytes of A read and written per µs"
    );
    for &(m, n, k) in shapes {
        for tb in [0, 1] {
            let transb = if tb == 0 { Transpose::No } else { Transpose::Yes };
            let auto = Workload::sgemm(h, handle, 1, tb, m, n, k, random)?;
            let (auto_us, cublas_us) = table.time(&auto)?;
            let label = auto.label.clone();
            drop(auto);
            let ratio = |us: f64| cublas_ratio(cublas_us, us);
            let direct_spec = direct_kernel(h, Transpose::Yes, transb, m, n, k)?;
            let timed = |choice: TileChoice, ta: i32, random: &mut Random| -> Result<f64, String> {
                Workload::sgemm_with(h, handle, ta, tb, m, n, k, choice, random)?.time_mublas(timer, WARMUPS, reps)
            };
            let direct_us = timed(TileChoice::Tile(gemm::tile_of(direct_spec)), 1, random)?;
            let untransposed_us = timed(TileChoice::Auto, 0, random)?;
            let mut line = format!(
                "{label:<22} cuBLAS {:>9} | as called {auto_us:>9.1} ({}) | direct {direct_us:>9.1} ({}) | {} {untransposed_us:>9.1}, direct/that {:.3}",
                cublas_us.map(|c| format!("{c:.1}")).unwrap_or_else(|| "-".into()),
                ratio(auto_us),
                ratio(direct_us),
                if tb == 0 { "NN" } else { "NT" },
                direct_us / untransposed_us
            );
            if let Some(panel_rows) = gemm::copied_a_panel_rows(m as u64, k as u64) {
                let copied_us = timed(TileChoice::CopiedA { panel_rows }, 1, random)?;
                let copy_us = copied_us - untransposed_us;
                let _ = write!(
                    line,
                    " | A^T/{panel_rows} {copied_us:.1} ({}), copy {copy_us:.1} µs, {:.2e} B/µs",
                    ratio(copied_us),
                    8.0 * m as f64 * k as f64 / copy_us
                );
            }
            println!("{line}");
        }
    }
    Ok(())
}

/// `mublas bench sgemm-tail`: NN and NT on shapes whose direct plan ends in
/// a nearly empty round (squares, wide and tall C), as called (against cuBLAS, in alternating blocks) and then,
/// both timed alone, with and without the split tail (gemm/split_tail.rs).
fn sgemm_tail(table: &TableRun, random: &mut Random) -> Result<(), String> {
    let TableRun { h, handle, timer, quick, reps, .. } = *table;
    use mublas::routines::gemm::{self, TileChoice, Transpose};
    let shapes: &[(usize, usize, usize)] = if quick {
        &[(3000, 3000, 3000)]
    } else {
        &[
            (3000, 3000, 3000),
            (5000, 5000, 5000),
            (6144, 6144, 6144),
            (8192, 8192, 8192),
            (10000, 10000, 10000),
            (3000, 3000, 1000),
            (2500, 6000, 2000),
            (1024, 8488, 1024),
            (20000, 256, 4096),
            (12000, 512, 4096),
            (30000, 384, 2048),
        ]
    };
    println!(
        "sgemm-tail: µs (cuBLAS time / this time); tail and direct timed alone, direct/tail above 1: the split tail is faster"
    );
    for &(m, n, k) in shapes {
        for tb in [0, 1] {
            let transb = if tb == 0 { Transpose::No } else { Transpose::Yes };
            let auto = Workload::sgemm(h, handle, 0, tb, m, n, k, random)?;
            let (auto_us, cublas_us) = table.time(&auto)?;
            let tail_us = auto.time_mublas(timer, WARMUPS, reps)?;
            let label = auto.label.clone();
            drop(auto);
            let ratio = |us: f64| cublas_ratio(cublas_us, us);
            let direct_spec = direct_kernel(h, Transpose::No, transb, m, n, k)?;
            let direct =
                Workload::sgemm_with(h, handle, 0, tb, m, n, k, TileChoice::Tile(gemm::tile_of(direct_spec)), random)?;
            let direct_us = direct.time_mublas(timer, WARMUPS, reps)?;
            println!(
                "{label:<28} cuBLAS {:>9} | as called {auto_us:>9.1} ({}) | alone {tail_us:>9.1} | direct {} {direct_us:>9.1} ({}), direct/that {:.3}",
                cublas_us.map(|c| format!("{c:.1}")).unwrap_or_else(|| "-".into()),
                ratio(auto_us),
                direct_spec.name,
                ratio(direct_us),
                direct_us / tail_us
            );
        }
    }
    Ok(())
}

/// `mublas bench sgemm-stream-k`: multiplies with few tiles and long k,
/// which the tuner splits along k, as called (against cuBLAS, in alternating
/// blocks) and, timed alone, with every tile shared by one round of stream-K
/// blocks instead (gemm/stream_k.rs; forced, 256×128). With
/// MUBLAS_STREAM_K=0 "as called" is the split the rule would replace.
fn sgemm_stream_k(table: &TableRun, random: &mut Random) -> Result<(), String> {
    let TableRun { h, handle, timer, quick, reps, .. } = *table;
    use mublas::routines::gemm::{TILES, TileChoice};
    let shapes: &[(usize, usize, usize)] = if quick {
        &[(4096, 384, 4096)]
    } else {
        // Where the rule takes stream-K on the H100 (48 to 120 tiles; NT also 8192 × 384 × 8192), then
        // where it does not.
        &[
            (4096, 384, 4096),
            (1536, 1024, 2048),
            (3072, 512, 8192),
            (6144, 256, 4096),
            (5120, 384, 2048),
            (4096, 640, 4096),
            (3072, 768, 3072),
            (4096, 768, 4096),
            (4096, 512, 4096),
            (8192, 384, 8192),
            (4096, 256, 4096),
        ]
    };
    let blocks = h.device.model().sm_count;
    println!(
        "sgemm-stream-k: µs (cuBLAS time / this time); stream-K: every tile shared by {blocks} blocks, timed alone"
    );
    for &(m, n, k) in shapes {
        for (ta, tb) in [(0, 0), (1, 0), (0, 1)] {
            let auto = Workload::sgemm(h, handle, ta, tb, m, n, k, random)?;
            let (auto_us, cublas_us) = table.time(&auto)?;
            let label = auto.label.clone();
            drop(auto);
            let tiles = (m as u64).div_ceil(TILES[0].rows) * (n as u64).div_ceil(TILES[0].cols);
            let shared =
                Workload::sgemm_with(h, handle, ta, tb, m, n, k, TileChoice::StreamK { tiles, blocks }, random)?;
            let shared_us = shared.time_mublas(timer, WARMUPS, reps)?;
            let ratio = |us: f64| cublas_ratio(cublas_us, us);
            println!(
                "{label:<28} cuBLAS {:>9} | as called {auto_us:>9.1} ({}) | stream-K {shared_us:>9.1} ({}) {}",
                cublas_us.map(|c| format!("{c:.1}")).unwrap_or_else(|| "-".into()),
                ratio(auto_us),
                ratio(shared_us),
                shared.spec.name
            );
        }
    }
    Ok(())
}

/// The saw-tooth sweep's rows of one op ("N" or "T"), with their n.
fn sweep_rows<'r>(rows: &'r [Row], op: &'r str) -> impl Iterator<Item = (usize, &'r Row)> + 'r {
    rows.iter()
        .filter(|r| r.bench == "sgemv-sawtooth")
        .filter_map(move |r| Some((r.label.strip_prefix(op)?.trim().split('x').next()?.parse::<usize>().ok()?, r)))
}

/// Passes over the saw-tooth sweep, upward and downward in n in turn (even).
/// The machines drift: in three H100 sweeps of 2026-12-06, one pass upward
/// each, the sizes timed a second time after the sweep came out 2-3 % faster
/// for mublas and 3-6 % for cuBLAS (median over 47 to 73 sizes), so that one
/// pass turned a drift in time into a slope over n. Over an even number of
/// passes in alternating directions each size's median is the middle of its
/// passes', and a drift linear in time adds the same to every size's; a
/// disturbance that slows one pass moves no size's median far.
const SWEEP_PASSES: usize = 4;

/// The order in which pass `pass` of the sweep visits its `len` sizes:
/// upward in even passes, downward in odd ones.
fn sweep_pass_order(len: usize, pass: usize) -> impl Iterator<Item = usize> {
    (0..len).map(move |i| if pass.is_multiple_of(2) { i } else { len - 1 - i })
}

/// `mublas bench sgemv-sawtooth`: issue 4's saw-tooth check, every n from 4096
/// to 4224 (4096…4112 with --quick), N then T, in SWEEP_PASSES passes; each
/// size's row carries the median of its passes' times (each pass's time the
/// table's median of `--reps` calls, its workload built afresh).
fn sgemv_sawtooth(table: &TableRun, random: &mut Random) -> Result<Vec<Row>, String> {
    use mublas::harness::timing::median;
    use mublas::routines::gemv::Op;
    let top = if table.quick { 4112 } else { 4224 };
    let sizes: Vec<(Op, usize)> =
        [Op::N, Op::T].into_iter().flat_map(|op| (4096..=top).map(move |n| (op, n))).collect();
    let mut mublas_us = vec![Vec::with_capacity(SWEEP_PASSES); sizes.len()];
    let mut cublas_us = vec![Vec::with_capacity(SWEEP_PASSES); sizes.len()];
    let mut rows: Vec<Option<Row>> = (0..sizes.len()).map(|_| None).collect();
    for pass in 0..SWEEP_PASSES {
        for i in sweep_pass_order(sizes.len(), pass) {
            let (op, n) = sizes[i];
            let workload = Workload::sgemv(table.h, table.handle, op, n, n, random)?;
            let (mu, cu) = table.time(&workload)?;
            mublas_us[i].push(mu);
            cublas_us[i].extend(cu);
            if pass + 1 == SWEEP_PASSES {
                let cublas_median = (!cublas_us[i].is_empty()).then(|| median(&mut cublas_us[i]));
                rows[i] =
                    Some(Row::of("sgemv-sawtooth", table.h, &workload, median(&mut mublas_us[i]), cublas_median)?);
            }
        }
    }
    Ok(rows.into_iter().flatten().collect())
}

/// For the saw-tooth sweep of neighbouring sizes: the spread of mublas's and
/// cuBLAS's times per op (the saw-tooth a badly chosen launch shape shows),
/// and of their rates: the bytes grow 6 % over n = 4096…4224, so the time of
/// the largest sizes is ~3 % above the median without any saw-tooth.
fn print_spread(rows: &[Row]) {
    for op in ["N", "T"] {
        let pick =
            |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<f64> { sweep_rows(rows, op).filter_map(|(_, r)| f(r)).collect() };
        let series = [
            ("mublas", pick(&|r: &Row| Some(r.mublas_us)), pick(&|r: &Row| Some(r.mublas_rate))),
            ("cuBLAS", pick(&|r: &Row| r.cublas_us), pick(&|r: &Row| r.cublas_rate)),
        ];
        for (who, mut times, mut rates) in series {
            if times.is_empty() {
                continue;
            }
            let median = mublas::harness::timing::median(&mut times);
            let (lo, hi) = (times[0], times[times.len() - 1]);
            let median_rate = mublas::harness::timing::median(&mut rates);
            println!(
                "spread {op} {who}: {} sizes, µs min {lo:.1} median {median:.1} max {hi:.1}: slowest {:.1} % above the median; \
                 GB/s median {median_rate:.0} min {:.0}: {:.1} % below",
                times.len(),
                100.0 * (hi / median - 1.0),
                rates[0],
                100.0 * (1.0 - rates[0] / median_rate)
            );
        }
    }
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<7} {:<24} {:>10} {:>8} {:>10} {:>8} {:>6}  mublas plan",
        "routine", "size", "mublas us", "rate", "cuBLAS us", "rate", "mu/cu"
    );
    for r in rows {
        let (cu_us, cu_rate, ratio) = match (r.cublas_us, r.cublas_rate) {
            (Some(us), Some(rate)) => (format!("{us:.1}"), format!("{rate:.1}"), format!("{:.2}", us / r.mublas_us)),
            _ => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "{:<7} {:<24} {:>10.1} {:>8.1} {:>10} {:>8} {:>6}  {} [{}]",
            r.routine, r.label, r.mublas_us, r.mublas_rate, cu_us, cu_rate, ratio, r.plan, r.unit
        );
    }
    println!("(rate in the unit in brackets; mu/cu = cuBLAS time / mublas time, above 1 means mublas is faster)");
}

fn csv(rows: &[Row]) -> String {
    let mut out = String::from("routine,size,mublas_us,cublas_us,mublas_rate,cublas_rate,unit,plan\n");
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{:.3},{},{:.1},{},{},\"{}\"",
            r.routine,
            r.label,
            r.mublas_us,
            r.cublas_us.map(|c| format!("{c:.3}")).unwrap_or_default(),
            r.mublas_rate,
            r.cublas_rate.map(|c| format!("{c:.1}")).unwrap_or_default(),
            r.unit,
            r.plan
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(bench: &str, label: &str) -> Row {
        Row {
            bench: bench.into(),
            routine: "sgemv",
            label: label.into(),
            mublas_us: 1.0,
            cublas_us: None,
            mublas_rate: 1.0,
            cublas_rate: None,
            unit: "GB/s",
            plan: String::new(),
        }
    }

    #[test]
    fn the_sweep_is_the_sawtooth_rows_of_one_op() {
        // The `sgemv` table's 4096 and 4097 rows are not part of the sweep.
        let rows = [
            row("sgemv", "N 4096x4096"),
            row("sgemv-sawtooth", "N 4096x4096"),
            row("sgemv-sawtooth", "T 4097x4097"),
            row("sgemv-sawtooth", "N 4100x4100"),
        ];
        let n: Vec<usize> = sweep_rows(&rows, "N").map(|(n, _)| n).collect();
        assert_eq!(n, [4096, 4100]);
        let t: Vec<usize> = sweep_rows(&rows, "T").map(|(n, _)| n).collect();
        assert_eq!(t, [4097]);
    }

    #[test]
    fn a_drift_during_the_sweep_adds_the_same_to_every_size() {
        // Sizes of different true times, timed while the machine slows steadily: each pass visits
        // every size once, and over the passes every size's median moves by the same amount.
        let truth = [30.0, 31.0, 29.5, 30.2, 32.0, 30.0, 31.5];
        for pass in 0..SWEEP_PASSES {
            let mut seen: Vec<usize> = sweep_pass_order(truth.len(), pass).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..truth.len()).collect::<Vec<_>>());
        }
        let shifts = |passes: usize| -> Vec<f64> {
            let mut clock = 0.0;
            let mut timed = vec![Vec::new(); truth.len()];
            for pass in 0..passes {
                for i in sweep_pass_order(truth.len(), pass) {
                    timed[i].push(truth[i] + 0.05 * clock);
                    clock += 1.0;
                }
            }
            timed.iter_mut().zip(truth).map(|(t, us)| mublas::harness::timing::median(t) - us).collect()
        };
        let swept = shifts(SWEEP_PASSES);
        assert!(swept.iter().all(|s| (s - swept[0]).abs() < 1e-9), "{swept:?}");
        // One upward pass, as the sweep was timed before: the drift shows as a slope over n.
        let one_pass = shifts(1);
        assert!(one_pass[6] - one_pass[0] > 0.25, "{one_pass:?}");
    }

    #[test]
    fn calls_are_timed_in_blocks_unless_asked_otherwise() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let blocks = parse(&args(&["saxpy"])).unwrap();
        assert_eq!(blocks.timing, Timing::Blocks);
        let alternate = parse(&args(&["sgemm", "--alternate", "--reps", "40"])).unwrap();
        assert_eq!(alternate.timing, Timing::Alternate);
        assert_eq!((alternate.routines, alternate.reps), (vec!["sgemm".to_string()], 40));
        assert_eq!(parse(&args(&["--queued", "sgemm"])).unwrap().timing, Timing::Queued);
        assert!(parse(&args(&["sgemm", "--queued", "--alternate"])).is_err());
        assert_eq!(parse(&args(&["sgemm", "--queued", "--queued"])).unwrap().timing, Timing::Queued);
    }

    #[test]
    fn shapes_file_reads_the_scripts_lines() {
        let path = std::env::temp_dir().join(format!("mublas-shapes-{}.txt", std::process::id()));
        std::fs::write(&path, "# comment\n1,0,1357,4607,195\n\n0,1,82,10158,438,83\n").unwrap();
        let read = shapes_file(path.to_str().unwrap());
        std::fs::write(&path, "2,0,1,1,1\n").unwrap();
        let bad = shapes_file(path.to_str().unwrap());
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read.unwrap(), [(1, 0, 1357, 4607, 195), (0, 1, 82, 10158, 438)]);
        assert!(bad.is_err(), "transpose codes are 0 or 1");
        let args = ["sgemm-tiles", "--shapes", "f.txt"].map(String::from);
        assert_eq!(parse(&args).unwrap().shapes.as_deref(), Some("f.txt"));
    }
}
