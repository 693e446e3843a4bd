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
//!
//! # Extension: several sampling sizes
//!
//! The paper names the choice of the sampling size an open problem: a recipe
//! derived at one size can steer the optimizer badly at another. So we sample
//! a few sizes per kernel (`--size` repeated, else [`default_sizes`]) and
//! judge each candidate recipe — the one in use and the paper's derivation at
//! each size — by what the optimizer would choose under it at every sampled
//! size, with the timings already taken: the score is the geometric mean over
//! sizes of best time / chosen shape's time. The best score is written; the
//! recipe in use keeps its place on a tie. SGEMM is sampled at one size as
//! before: its tile and split come from its own time model, not the recipe.

use crate::workload::{AxpyLayout, MublasSession, Workload};
use mublas::capi::types::*;
use mublas::harness::{EventTimer, Random};
use mublas::tuner::optimizer::{candidates, choose};
use mublas::tuner::{DeviceModel, KernelModel, KernelSpec, LaunchShape, Occupancy, Problem, RecipeBook, TuningRecipe};
use std::time::Instant;

pub const ROUTINES: &[&str] = &["saxpy", "sgemv", "strmv", "sgemm"];

struct Options {
    routines: Vec<String>,
    sizes: Vec<usize>,
    target: f64,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options { routines: Vec::new(), sizes: Vec::new(), target: 0.98 };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--routine" => options.routines.push(it.next().ok_or("--routine needs a name")?.clone()),
            "--size" => options.sizes.push(it.next().and_then(|v| v.parse().ok()).ok_or("--size needs a number")?),
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

/// The sampling sizes of a routine when `--size` names none: the paper's first
/// (SAXPY 409 600, the matrix routines 8192), then sizes where the problem
/// fills the GPU only once or a few times over, which the paper's size says
/// nothing about. SAXPY's last is past `axpy::SINGLE_MAX_ELEMENTS`, so that
/// the looping float4 kernel is sampled as well as the single-pass one.
pub fn default_sizes(routine: &str) -> Vec<usize> {
    match routine {
        "saxpy" => vec![409_600, 65_536, 4_194_304, 16_777_216],
        "sgemv" | "strmv" => vec![8192, 4096, 1000],
        _ => vec![4096],
    }
}

/// Whether the optimizer under the kernel's recipe makes a routine's choices
/// (SGEMM's tile and split come from its time model instead).
fn chosen_by_optimizer(routine: &str) -> bool {
    routine != "sgemm"
}

/// The workloads that exercise each kernel of a routine at its sampling size.
pub fn sampling_workloads(
    h: &mublas::Handle,
    handle: mublasHandle_t,
    routine: &str,
    size: Option<usize>,
    random: &mut Random,
) -> Result<Vec<Workload>, String> {
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
            // Each workload is pinned to the default kernel, the one the optimizer sizes (a
            // forced shape keeps it: `gemv::plan`), even where the routine would take a twin.
            use mublas::routines::gemv::{self, Op};
            let n = size.unwrap_or(8192);
            let mut all = Vec::new();
            for (op, m) in [(Op::N, n), (Op::T, n), (Op::N, n + 1), (Op::T, n + 1)] {
                let mut workload = Workload::sgemv(h, handle, op, m, n, random)?;
                workload.spec = gemv::select_kernel(op, m as i64, 0, m as i64);
                workload.routine_plan = None;
                all.push(workload);
            }
            Ok(all)
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
pub fn time_candidates(
    h: &mublas::Handle,
    workload: &Workload,
    timer: &EventTimer,
    warmups: usize,
    reps: usize,
) -> Result<Vec<Sample>, String> {
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

/// The samples whose time is a time: finite and positive (a failed or empty
/// timing would make every ratio to the best NaN or infinite).
fn timed(samples: &[Sample]) -> impl Iterator<Item = &Sample> {
    samples.iter().filter(|s| s.us.is_finite() && s.us > 0.0)
}

/// The fastest time among the samples; infinite where none is timed.
fn best_time(samples: &[Sample]) -> f64 {
    timed(samples).map(|s| s.us).fold(f64::INFINITY, f64::min)
}

/// The paper's derivation: over the samples that reach `target` × the best
/// performance, the smallest occupancies and thread count, the largest Ty/Tx.
/// None where no sample is timed: its minimums would be infinite, a recipe
/// the library refuses to read.
pub fn derive_recipe(samples: &[Sample], target: f64, two_dimensional: bool) -> Option<TuningRecipe> {
    let best = best_time(samples);
    let reaching: Vec<&Sample> = timed(samples).filter(|s| best / s.us >= target).collect();
    if reaching.is_empty() {
        return None;
    }
    Some(TuningRecipe {
        warp_occupancy_min: reaching.iter().map(|s| s.occupancy.warp).fold(f64::INFINITY, f64::min),
        block_occupancy_min: reaching.iter().map(|s| s.occupancy.block).fold(f64::INFINITY, f64::min),
        threads_min: reaching.iter().map(|s| s.shape.tx * s.shape.ty).min().unwrap_or(0),
        ty_per_tx_max: two_dimensional
            .then(|| reaching.iter().map(|s| s.shape.ty as f64 / s.shape.tx as f64).fold(0.0, f64::max)),
    })
}

/// One kernel's timed candidates at one sampling size.
pub struct SizeSamples {
    pub size: usize,
    pub problem: Problem,
    pub samples: Vec<Sample>,
}

/// A recipe judged at the sampled sizes: the optimizer's choice under it at
/// each size, with that choice's time as a fraction of the fastest
/// candidate's, and their geometric mean.
pub struct Verdict {
    pub origin: String,
    pub recipe: TuningRecipe,
    pub choices: Vec<(LaunchShape, f64)>,
    pub score: f64,
}

/// What the optimizer would choose under `recipe` at every sampled size, and
/// how fast that is against the best candidate there. None when a choice was
/// not among the timed candidates (both walk the same space) or has no time.
pub fn judge(
    origin: String,
    recipe: TuningRecipe,
    device: &DeviceModel,
    kernel: &KernelModel,
    spec: &KernelSpec,
    sized: &[SizeSamples],
) -> Option<Verdict> {
    let mut choices = Vec::new();
    for at in sized {
        let shape = choose(device, kernel, spec, &recipe, &at.problem)?.shape;
        let us = timed(&at.samples).find(|s| s.shape == shape)?.us;
        choices.push((shape, best_time(&at.samples) / us));
    }
    let score = (choices.iter().map(|(_, f)| f.ln()).sum::<f64>() / choices.len().max(1) as f64).exp();
    Some(Verdict { origin, recipe, choices, score })
}

/// The verdict to keep: the highest score, the earliest on a tie (callers put
/// the recipe in use first, so a new one must be strictly better to replace it).
pub fn best_verdict(verdicts: Vec<Verdict>) -> Option<Verdict> {
    verdicts.into_iter().fold(None, |best: Option<Verdict>, v| match best {
        Some(b) if b.score >= v.score => Some(b),
        _ => Some(v),
    })
}

/// Short timings of every candidate, then longer ones of the contenders.
fn sample(h: &mublas::Handle, workload: &Workload, timer: &EventTimer) -> Result<Vec<Sample>, String> {
    let mut samples = time_candidates(h, workload, timer, 1, 5)?;
    let best = best_time(&samples);
    for sample in samples.iter_mut().filter(|s| best / s.us >= 0.85) {
        h.device.tuner.forced().set(workload.spec.name, Some(sample.shape));
        let timed = workload.time_mublas(timer, 2, 25);
        h.device.tuner.forced().set(workload.spec.name, None);
        sample.us = timed?;
    }
    Ok(samples)
}

fn print_samples(workload: &Workload, samples: &[Sample], target: f64, seconds: f64) {
    let best = best_time(samples);
    println!(
        "{} {} ({}): {} candidates in {:.1} s",
        workload.routine,
        workload.label,
        workload.spec.name,
        samples.len(),
        seconds
    );
    println!(
        "  {:>5} {:>4} {:>5} {:>6} {:>6} {:>6} {:>9} {:>8}  reaches {:.0} %",
        "Tx",
        "Ty",
        "split",
        "warp",
        "block",
        "grid",
        "us",
        workload.unit.label(),
        target * 100.0
    );
    for s in samples {
        println!(
            "  {:>5} {:>4} {:>5} {:>6.3} {:>6.3} {:>6.3} {:>9.2} {:>8.0}  {}",
            s.shape.tx,
            s.shape.ty,
            s.shape.split,
            s.occupancy.warp,
            s.occupancy.block,
            s.occupancy.grid,
            s.us,
            workload.rate(s.us),
            if best / s.us >= target { "yes" } else { "" }
        );
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    let path = mublas::tuner::recipe::RecipeLocations::from_env()
        .file_to_write()
        .map(|p| p.to_path_buf())
        .ok_or("no place to write recipes: set MUBLAS_RECIPES or HOME")?;
    // Before any timing: the rows of a file that does not parse would be lost when it is rewritten.
    let existing = existing_recipes(&path)?;
    let started = Instant::now();
    let session = MublasSession::open()?;
    let (h, handle) = (session.handle(), session.raw());
    let model = h.device.model().clone();
    let timer = EventTimer::new(h.device.context(), h.stream()).map_err(|e| e.to_string())?;
    let mut random = Random::new(409_600);
    let mut derived = RecipeBook::default();
    for routine in &options.routines {
        let sizes = if options.sizes.is_empty() { default_sizes(routine) } else { options.sizes.clone() };
        let sizes = if chosen_by_optimizer(routine) { sizes } else { sizes[..1].to_vec() };
        // Per kernel, in the order first met: its spec and its samples at each size.
        let mut kernels: Vec<(&'static KernelSpec, Vec<SizeSamples>)> = Vec::new();
        for &size in &sizes {
            // One size's buffers at a time: the largest take hundreds of MiB.
            for workload in sampling_workloads(h, handle, routine, Some(size), &mut random)? {
                let kernel_started = Instant::now();
                let samples = sample(h, &workload, &timer)?;
                print_samples(&workload, &samples, options.target, kernel_started.elapsed().as_secs_f64());
                let at = SizeSamples { size, problem: workload.problem, samples };
                match kernels.iter_mut().find(|(spec, _)| spec.name == workload.spec.name) {
                    Some((_, sized)) => sized.push(at),
                    None => kernels.push((workload.spec, vec![at])),
                }
            }
        }
        for (spec, sized) in &kernels {
            let two_dimensional = spec.space.ty_max > 1;
            let paper = |at: &SizeSamples| derive_recipe(&at.samples, options.target, two_dimensional);
            let recipe = if sized.len() == 1 {
                let recipe = paper(&sized[0])
                    .ok_or_else(|| format!("{}: no candidate was timed, no recipe to derive", spec.name))?;
                println!("{}: recipe {recipe:?} (derived at {})", spec.name, sized[0].size);
                recipe
            } else {
                let kernel = h.device.kernel(spec.name).map_err(|e| e.to_string())?;
                let mut verdicts = Vec::new();
                let in_use = h.device.tuner.recipe_for(spec);
                verdicts.extend(judge("in use".into(), in_use, &model, &kernel.model, spec, sized));
                for (at, recipe) in sized.iter().filter_map(|at| Some((at, paper(at)?))) {
                    verdicts.extend(judge(
                        format!("derived at {}", at.size),
                        recipe,
                        &model,
                        &kernel.model,
                        spec,
                        sized,
                    ));
                }
                println!(
                    "{}: candidate recipes judged at sizes {:?} (optimizer's choice and its speed against the best candidate)",
                    spec.name,
                    sized.iter().map(|at| at.size).collect::<Vec<_>>()
                );
                for v in &verdicts {
                    let choices: Vec<String> = v
                        .choices
                        .iter()
                        .map(|(s, f)| format!("{}x{}x{} {:.0} %", s.tx, s.ty, s.split, f * 100.0))
                        .collect();
                    println!(
                        "  {:<18} score {:5.1} %  [{}]  {:?}",
                        v.origin,
                        v.score * 100.0,
                        choices.join(", "),
                        v.recipe
                    );
                }
                let best = best_verdict(verdicts).ok_or_else(|| format!("{}: no recipe could be judged", spec.name))?;
                println!("  kept: {}", best.origin);
                best.recipe
            };
            derived.insert(&model.name, model.compute_capability, spec.name, recipe);
        }
    }
    let mut book = existing;
    book.merge(&derived);
    let text = checked_text(&book)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("recipes written to {}", path.display());
    println!("tuning took {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The recipes already in the file the analyzer writes (none where it does
/// not exist yet); an error where it exists and cannot be read or parsed,
/// whose rows rewriting it would lose.
fn existing_recipes(path: &std::path::Path) -> Result<RecipeBook, String> {
    RecipeBook::read(path)
        .map(Option::unwrap_or_default)
        .map_err(|why| format!("{why}: fix or move it, mublas tune would overwrite it"))
}

/// The book's text, once it is known to read back as the same rows: a file
/// the library would refuse is never written.
fn checked_text(book: &RecipeBook) -> Result<String, String> {
    let text = book.serialise();
    match RecipeBook::parse(&text) {
        Ok(again) if again == *book => Ok(text),
        Ok(_) => Err("the recipes would not read back as written; nothing written".into()),
        Err(e) => Err(format!("the recipes would not read back ({e}); nothing written")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mublas::routines::axpy::{AXPY_VEC4, SINGLE_MAX_ELEMENTS};

    fn sample(us: f64, threads: u32) -> Sample {
        Sample {
            shape: LaunchShape { tx: threads, ty: 1, split: 1 },
            occupancy: Occupancy { active_blocks_per_sm: 1, warp: threads as f64 / 2048.0, block: 0.5, grid: 1.0 },
            us,
        }
    }

    #[test]
    fn a_recipe_comes_only_from_timed_samples() {
        // A zero or NaN time would be the "best" or poison every ratio.
        let samples = [sample(0.0, 64), sample(f64::NAN, 128), sample(2.0, 256), sample(2.02, 512), sample(3.0, 1024)];
        let recipe = derive_recipe(&samples, 0.98, false).unwrap();
        assert_eq!(recipe.threads_min, 256, "the 2.0 and 2.02 µs samples reach 98 %");
        assert_eq!(recipe.warp_occupancy_min, 256.0 / 2048.0);
        assert!(derive_recipe(&[sample(f64::NAN, 64), sample(0.0, 128)], 0.98, false).is_none());
        assert!(derive_recipe(&[], 0.98, true).is_none());
    }

    #[test]
    fn what_the_analyzer_writes_reads_back() {
        let mut book = RecipeBook::default();
        let derived = derive_recipe(&[sample(2.0, 256)], 0.98, true).unwrap();
        book.insert("NVIDIA H100 80GB HBM3", (9, 0), "gemv_n_f32", derived);
        assert_eq!(RecipeBook::parse(&checked_text(&book).unwrap()).unwrap(), book);
        // Infinite minimums (a derivation over no samples, before it was refused) are not written.
        let unreadable = TuningRecipe {
            warp_occupancy_min: f64::INFINITY,
            block_occupancy_min: f64::INFINITY,
            threads_min: 0,
            ty_per_tx_max: Some(0.0),
        };
        book.insert("NVIDIA H100 80GB HBM3", (9, 0), "gemv_t_f32", unreadable);
        assert!(checked_text(&book).is_err());
    }

    #[test]
    fn a_malformed_recipe_file_is_not_overwritten() {
        let dir = std::env::temp_dir().join(format!("mublas-tune-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("recipes.txt");
        assert!(existing_recipes(&path).unwrap().is_empty(), "no file yet: nothing to keep");
        std::fs::write(&path, "* | 9.0 | gemv_n_f32 | 0.5 | 0 | 128 | 0.5\nnot a row\n").unwrap();
        let error = existing_recipes(&path).unwrap_err();
        assert!(error.contains("malformed"), "{error}");
        std::fs::write(&path, "* | 9.0 | gemv_n_f32 | 0.5 | 0 | 128 | 0.5\n").unwrap();
        assert_eq!(existing_recipes(&path).unwrap().len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn saxpy_sampling_reaches_both_float4_kernels() {
        let sizes = default_sizes("saxpy");
        assert!(sizes.iter().any(|&n| n as i64 <= SINGLE_MAX_ELEMENTS));
        assert!(sizes.iter().any(|&n| n as i64 > SINGLE_MAX_ELEMENTS));
    }

    fn kernel() -> KernelModel {
        KernelModel { registers_per_thread: 32, static_shared_bytes: 0, max_threads_per_block: 1024 }
    }

    fn recipe(threads_min: u32) -> TuningRecipe {
        TuningRecipe { warp_occupancy_min: 0.0, block_occupancy_min: 0.0, threads_min, ty_per_tx_max: None }
    }

    /// Every candidate at each size, timed 1 µs where `fast` would choose and 2 µs elsewhere.
    fn sized(device: &DeviceModel, fast: &TuningRecipe, sizes: &[usize]) -> Vec<SizeSamples> {
        sizes
            .iter()
            .map(|&size| {
                let problem = Problem { n: size as u64, ..Problem::default() };
                let fast_shape = choose(device, &kernel(), &AXPY_VEC4, fast, &problem).unwrap().shape;
                let samples = candidates(device, &kernel(), &AXPY_VEC4, &problem)
                    .into_iter()
                    .map(|(shape, _, occupancy)| Sample {
                        shape,
                        occupancy,
                        us: if shape == fast_shape { 1.0 } else { 2.0 },
                    })
                    .collect();
                SizeSamples { size, problem, samples }
            })
            .collect()
    }

    #[test]
    fn a_recipe_is_judged_by_the_optimizers_choices_at_every_size() {
        let device = DeviceModel::h100_sxm();
        // Blocks of 256 threads or more (the kernel allows up to 288), against the optimizer's own choice of 64–224 here.
        let large_blocks = recipe(256);
        let permissive = recipe(0);
        let sizes = [4096, 409_600, 4_194_304];
        let at = sized(&device, &large_blocks, &sizes);
        let shape = |recipe: &TuningRecipe, size: usize| {
            choose(&device, &kernel(), &AXPY_VEC4, recipe, &Problem { n: size as u64, ..Problem::default() })
                .unwrap()
                .shape
        };
        let differing = sizes.iter().filter(|&&s| shape(&large_blocks, s) != shape(&permissive, s)).count();
        assert!(differing > 0, "the two recipes must choose differently somewhere for this test to mean anything");

        let good = judge("large blocks".into(), large_blocks, &device, &kernel(), &AXPY_VEC4, &at).unwrap();
        assert_eq!(good.score, 1.0);
        for ((chosen, fraction), &size) in good.choices.iter().zip(&sizes) {
            assert_eq!((*chosen, *fraction), (shape(&large_blocks, size), 1.0));
        }
        let bad = judge("permissive".into(), permissive, &device, &kernel(), &AXPY_VEC4, &at).unwrap();
        // Half speed at each size where it chooses otherwise: a geometric mean of 1s and 0.5s.
        let expected = 0.5f64.powf(differing as f64 / sizes.len() as f64);
        assert!((bad.score - expected).abs() < 1e-12, "{} against {expected}", bad.score);
    }

    #[test]
    fn the_recipe_in_use_keeps_its_place_on_a_tie() {
        let verdict =
            |origin: &str, score| Verdict { origin: origin.into(), recipe: recipe(0), choices: Vec::new(), score };
        assert_eq!(best_verdict(vec![verdict("in use", 0.97), verdict("derived", 0.97)]).unwrap().origin, "in use");
        assert_eq!(
            best_verdict(vec![verdict("in use", 0.97), verdict("derived", 0.99), verdict("other", 0.98)])
                .unwrap()
                .origin,
            "derived"
        );
        assert!(best_verdict(Vec::new()).is_none());
    }

    #[test]
    fn sizes_per_routine() {
        assert_eq!(default_sizes("saxpy")[0], 409_600, "the paper's sampling size comes first");
        assert_eq!(default_sizes("sgemv")[0], 8192);
        assert!(default_sizes("strmv").len() > 1);
        assert!(!chosen_by_optimizer("sgemm"));
    }
}
