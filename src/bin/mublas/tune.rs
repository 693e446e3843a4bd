//! `mublas tune`: the offline analyzer (method.md §4).
//!
//! Runs every candidate shape of each kernel at a sampling size, takes the
//! configurations that reach `--target` (default 98 %) of the best one's
//! performance, and derives the kernel's tuning recipe from them: the
//! smallest Warp- and Block-Occupancy, the fewest threads, the largest Ty/Tx.
//! The recipes are merged into the recipe file (`MUBLAS_RECIPES`, else the
//! per-user cache) and used by every later mublasCreate.
//!
//! The paper needed over an hour for SGEMV-N alone. We prune: a short timing
//! of every candidate (median of 5), then a longer one (median of 25) of the
//! few within 15 % of the best, and the recipe comes from the longer timings.

use crate::workload::{AxpyLayout, MublasSession, Workload};
use mublas::capi::types::*;
use mublas::harness::{EventTimer, Random};
use mublas::tuner::optimizer::candidates;
use mublas::tuner::{LaunchShape, Occupancy, RecipeBook, TuningRecipe};
use std::time::Instant;

pub const ROUTINES: &[&str] = &["saxpy", "sgemv", "strmv", "sgemm"];

struct Options {
    routines: Vec<String>,
    size: Option<usize>,
    target: f64,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options { routines: Vec::new(), size: None, target: 0.98 };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--routine" => options.routines.push(it.next().ok_or("--routine needs a name")?.clone()),
            "--size" => options.size = Some(it.next().and_then(|v| v.parse().ok()).ok_or("--size needs a number")?),
            "--target" => options.target = it.next().and_then(|v| v.parse().ok()).ok_or("--target needs a fraction")?,
            other => return Err(format!("unknown tune argument {other:?}")),
        }
    }
    if options.routines.is_empty() {
        options.routines = ROUTINES.iter().map(|r| r.to_string()).collect();
    }
    if !(0.5..=1.0).contains(&options.target) {
        return Err("--target must be between 0.5 and 1".into());
    }
    Ok(options)
}

/// The workloads that exercise each kernel of a routine at its sampling size.
pub fn sampling_workloads(h: &mublas::Handle, handle: mublasHandle_t, routine: &str, size: Option<usize>, random: &mut Random) -> Result<Vec<Workload>, String> {
    match routine {
        "saxpy" => {
            // The paper's sampling size for SAXPY: large enough to stream, small
            // enough that block size still matters.
            let n = size.unwrap_or(409_600);
            Ok(vec![
                Workload::saxpy(h, handle, n, AxpyLayout::Aligned, random)?,
                Workload::saxpy(h, handle, n, AxpyLayout::Misaligned, random)?,
            ])
        }
        "sgemv" => {
            // The paper's sampling size for the matrix routines; m = n + 1 (odd lda) exercises the scalar kernels.
            use mublas::routines::gemv::Op;
            let n = size.unwrap_or(8192);
            Ok(vec![
                Workload::sgemv(h, handle, Op::N, n, n, random)?,
                Workload::sgemv(h, handle, Op::T, n, n, random)?,
                Workload::sgemv(h, handle, Op::N, n + 1, n, random)?,
                Workload::sgemv(h, handle, Op::T, n + 1, n, random)?,
            ])
        }
        "strmv" => {
            // Each pass-1 kernel (LNN for op N, LTN for op T; aligned: vec4, misaligned: scalar),
            // then pass 2 (trmv_sum_f32) under the calls of LNN.
            let n = size.unwrap_or(8192);
            let mut all = Vec::new();
            for (trans, misaligned) in [(0, false), (0, true), (1, false), (1, true)] {
                all.push(Workload::strmv(h, handle, 0, trans, 0, n, misaligned, random)?);
            }
            let mut sum = Workload::strmv(h, handle, 0, 0, 0, n, false, random)?;
            sum.spec = &mublas::routines::trmv::TRMV_SUM;
            sum.problem = mublas::tuner::Problem { n: n as u64, ..Default::default() };
            all.push(sum);
            Ok(all)
        }
        "sgemm" => {
            // The tile kernels at the paper's matrix size (4096 here: 8192 takes 20 ms a call),
            // and a small C with long k for the split dimension.
            let n = size.unwrap_or(4096);
            Ok(vec![
                Workload::sgemm(h, handle, 0, 0, n, n, n, random)?,
                Workload::sgemm(h, handle, 1, 0, n, n, n, random)?,
                Workload::sgemm(h, handle, 0, 0, 256, 256, 65536, random)?,
            ])
        }
        other => Err(format!("unknown routine {other:?} (routines: {})", ROUTINES.join(", "))),
    }
}

/// One timed candidate.
pub struct Sample {
    pub shape: LaunchShape,
    pub occupancy: Occupancy,
    pub us: f64,
}

/// Times every candidate shape of the workload's kernel, forced one at a time,
/// with a short timing; the forcing is cleared afterwards.
pub fn time_candidates(h: &mublas::Handle, workload: &Workload, timer: &EventTimer, warmups: usize, reps: usize) -> Result<Vec<Sample>, String> {
    let device = &h.device;
    let kernel = device.kernel(workload.spec.name).map_err(|e| e.to_string())?;
    let mut samples = Vec::new();
    for (shape, _geometry, occupancy) in candidates(device.model(), &kernel.model, workload.spec, &workload.problem) {
        device.tuner.forced().set(workload.spec.name, Some(shape));
        let timed = workload.time_mublas(timer, warmups, reps);
        device.tuner.forced().set(workload.spec.name, None);
        samples.push(Sample { shape, occupancy, us: timed? });
    }
    Ok(samples)
}

/// The paper's derivation: over the samples that reach `target` × the best
/// performance, the smallest occupancies and thread count, the largest Ty/Tx.
pub fn derive_recipe(samples: &[Sample], target: f64, two_dimensional: bool) -> TuningRecipe {
    let best = samples.iter().map(|s| s.us).fold(f64::INFINITY, f64::min);
    let reaching: Vec<&Sample> = samples.iter().filter(|s| best / s.us >= target).collect();
    TuningRecipe {
        warp_occupancy_min: reaching.iter().map(|s| s.occupancy.warp).fold(f64::INFINITY, f64::min),
        block_occupancy_min: reaching.iter().map(|s| s.occupancy.block).fold(f64::INFINITY, f64::min),
        threads_min: reaching.iter().map(|s| s.shape.tx * s.shape.ty).min().unwrap_or(0),
        ty_per_tx_max: two_dimensional.then(|| reaching.iter().map(|s| s.shape.ty as f64 / s.shape.tx as f64).fold(0.0, f64::max)),
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    let started = Instant::now();
    let session = MublasSession::open()?;
    let (h, handle) = (session.handle(), session.raw());
    let model = h.device.model().clone();
    let timer = EventTimer::new(h.device.context(), h.stream()).map_err(|e| e.to_string())?;
    let mut random = Random::new(409_600);
    let mut derived = RecipeBook::default();
    for routine in &options.routines {
        for workload in sampling_workloads(h, handle, routine, options.size, &mut random)? {
            let kernel_started = Instant::now();
            let mut samples = time_candidates(h, &workload, &timer, 1, 5)?;
            let best = samples.iter().map(|s| s.us).fold(f64::INFINITY, f64::min);
            // Refine the contenders with longer timings.
            for sample in samples.iter_mut().filter(|s| best / s.us >= 0.85) {
                h.device.tuner.forced().set(workload.spec.name, Some(sample.shape));
                let timed = workload.time_mublas(&timer, 2, 25);
                h.device.tuner.forced().set(workload.spec.name, None);
                sample.us = timed?;
            }
            let two_dimensional = workload.spec.space.ty_max > 1;
            let recipe = derive_recipe(&samples, options.target, two_dimensional);
            let best = samples.iter().map(|s| s.us).fold(f64::INFINITY, f64::min);
            println!("{} {} ({}): {} candidates in {:.1} s", routine, workload.label, workload.spec.name, samples.len(), kernel_started.elapsed().as_secs_f64());
            println!("  {:>5} {:>4} {:>5} {:>6} {:>6} {:>6} {:>9} {:>8}  reaches {:.0} %", "Tx", "Ty", "split", "warp", "block", "grid", "us", workload.unit.label(), options.target * 100.0);
            for s in &samples {
                println!(
                    "  {:>5} {:>4} {:>5} {:>6.3} {:>6.3} {:>6.3} {:>9.2} {:>8.0}  {}",
                    s.shape.tx, s.shape.ty, s.shape.split, s.occupancy.warp, s.occupancy.block, s.occupancy.grid, s.us, workload.rate(s.us),
                    if best / s.us >= options.target { "yes" } else { "" }
                );
            }
            println!("  recipe: {recipe:?}");
            derived.insert(&model.name, model.compute_capability, workload.spec.name, recipe);
        }
    }
    let (mut book, warning) = RecipeBook::load_default();
    if let Some(w) = warning {
        eprintln!("mublas tune: {w}");
    }
    book.merge(&derived);
    let path = mublas::tuner::recipe::RecipeLocations::from_env().file_to_write().map(|p| p.to_path_buf()).ok_or("no place to write recipes: set MUBLAS_RECIPES or HOME")?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&path, book.serialise()).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("recipes written to {}", path.display());
    println!("tuning took {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
