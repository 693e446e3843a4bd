//! The tuner of one device: what the launch layer asks before every launch.

use std::collections::HashSet;
use std::hash::Hash;
use std::time::Instant;

use parking_lot::Mutex;

use super::device_model::DeviceModel;
use super::forcing::{ForcedShapes, format_shape};
use super::kernel_model::{KernelModel, KernelSpec, LaunchShape, Problem};
use super::occupancy::Occupancy;
use super::optimizer::{self, LaunchPlan};
use super::plan_cache::{DecisionCache, PlanCache};
use super::recipe::{RecipeBook, TuningRecipe};

/// Chooses launch plans for one device: forced shapes first, then the plan
/// cache, then the optimizer under the device's recipes.
#[derive(Debug)]
pub struct Tuner {
    device: DeviceModel,
    recipes: RecipeBook,
    cache: PlanCache,
    forced: ForcedShapes,
    /// Forcings already warned about, so that a bad one is logged once, not per call.
    warned_forcings: Mutex<HashSet<(&'static str, LaunchShape)>>,
}

/// The plan cache's name for the optimizer's plans ([`Tuner::plan`]).
const OPTIMIZER: &str = "optimizer";

/// What a plan costs, from [`Tuner::measure_decision_cost`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecisionCost {
    /// Mean time of a plan the cache did not have (the optimizer runs).
    pub cold_nanoseconds: f64,
    /// Mean time of a plan the cache had.
    pub cached_nanoseconds: f64,
}

impl Tuner {
    pub fn new(device: DeviceModel, recipes: RecipeBook, forced: ForcedShapes) -> Tuner {
        Tuner { device, recipes, cache: PlanCache::new(), forced, warned_forcings: Mutex::new(HashSet::new()) }
    }

    pub fn device(&self) -> &DeviceModel {
        &self.device
    }

    pub fn recipes(&self) -> &RecipeBook {
        &self.recipes
    }

    pub fn forced(&self) -> &ForcedShapes {
        &self.forced
    }

    /// The recipe this tuner applies to a kernel.
    pub fn recipe_for(&self, spec: &KernelSpec) -> TuningRecipe {
        self.recipes.recipe_for(&self.device.name, self.device.compute_capability, spec.name)
    }

    /// The plan for one launch. Never panics and always returns a plan: when
    /// no shape of the kernel can run, the smallest declared shape with zero
    /// occupancy, so that the launch fails with the driver's own error.
    ///
    /// A forced shape wins when it is in the kernel's launch space and can run
    /// (otherwise it is ignored with one warning). Forced plans bypass the
    /// cache in both directions, so setting or clearing a forcing needs no
    /// cache flush.
    pub fn plan(&self, spec: &KernelSpec, kernel: &KernelModel, problem: &Problem) -> LaunchPlan {
        self.plan_with(spec, kernel, problem, OPTIMIZER, || self.plan_uncached(spec, kernel, problem))
    }

    /// [`Self::plan`] with the caller's rule in place of the optimizer, for a
    /// routine that chooses among its kernel's shapes by a model of its own
    /// (SGEMM's split): a forced shape still wins, and the rule's plan is
    /// cached under `rule_name` beside the kernel and problem, so a kernel
    /// shaped by two rules keeps a plan of each. The rule's plan may depend on
    /// nothing but the device, the kernel and the problem.
    pub fn plan_with(
        &self,
        spec: &KernelSpec,
        kernel: &KernelModel,
        problem: &Problem,
        rule_name: &'static str,
        rule: impl FnOnce() -> LaunchPlan,
    ) -> LaunchPlan {
        if let Some(shape) = self.forced.get(spec.name)
            && let Some(plan) = self.forced_plan(spec, kernel, problem, shape)
        {
            return plan;
        }
        if let Some(plan) = self.cache.get(spec.name, rule_name, kernel, problem) {
            return plan;
        }
        let plan = rule();
        self.cache.insert(spec.name, rule_name, kernel, problem, plan);
        plan
    }

    /// A routine's own decision for a call, one composed of several plans
    /// (SGEMM's whole plan, SGEMV's kernel among its twins): from `cache` by
    /// `key`, else `decide`'s, which is kept. While any shape is forced
    /// nothing is looked up or kept: forcing (MUBLAS_FORCE_SHAPE, the tools,
    /// the tests) may change from one call to the next.
    pub fn decide_with<K: Hash + Eq, V: Copy, E>(
        &self,
        cache: &DecisionCache<K, V>,
        key: K,
        decide: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E> {
        let forced = || !self.forced.is_empty();
        if forced() {
            return decide();
        }
        if let Some(decision) = cache.get(&key) {
            return Ok(decision);
        }
        let decision = decide()?;
        if !forced() {
            cache.insert(key, decision);
        }
        Ok(decision)
    }

    /// What [`Self::plan`] decides without forcing or cache: the optimizer
    /// under this device's recipe for the kernel.
    pub fn plan_uncached(&self, spec: &KernelSpec, kernel: &KernelModel, problem: &Problem) -> LaunchPlan {
        let recipe = self.recipe_for(spec);
        optimizer::choose(&self.device, kernel, spec, &recipe, problem).unwrap_or_else(|| {
            let space = &spec.space;
            let smallest = LaunchShape {
                tx: space.tx_min.max(1),
                ty: space.ty_min.max(1),
                split: space.splits.first().copied().unwrap_or(1),
            };
            LaunchPlan { shape: smallest, geometry: (spec.geometry)(problem, &smallest), occupancy: Occupancy::NONE }
        })
    }

    /// Forgets every cached plan (after the recipes or the kernel models change).
    pub fn clear_cache(&self) {
        self.cache.clear();
    }

    /// Plans cached now.
    pub fn cached_plans(&self) -> usize {
        self.cache.len()
    }

    /// Times [`Self::plan`] for the CLI's benchmark: first every problem once
    /// from an empty cache, then `cached_rounds` passes over the same problems.
    /// Empties the cache first. Forcing, if any, applies as usual.
    pub fn measure_decision_cost(
        &self,
        spec: &KernelSpec,
        kernel: &KernelModel,
        problems: &[Problem],
        cached_rounds: u32,
    ) -> DecisionCost {
        self.clear_cache();
        let mean = |elapsed: std::time::Duration, calls: usize| elapsed.as_nanos() as f64 / calls.max(1) as f64;
        let start = Instant::now();
        for problem in problems {
            std::hint::black_box(self.plan(spec, kernel, std::hint::black_box(problem)));
        }
        let cold_nanoseconds = mean(start.elapsed(), problems.len());
        let start = Instant::now();
        for _ in 0..cached_rounds {
            for problem in problems {
                std::hint::black_box(self.plan(spec, kernel, std::hint::black_box(problem)));
            }
        }
        let cached_nanoseconds = mean(start.elapsed(), problems.len() * cached_rounds as usize);
        DecisionCost { cold_nanoseconds, cached_nanoseconds }
    }

    /// The plan of a forced shape, or None (with a warning, once) when the
    /// shape is outside the kernel's launch space or cannot run.
    fn forced_plan(
        &self,
        spec: &KernelSpec,
        kernel: &KernelModel,
        problem: &Problem,
        shape: LaunchShape,
    ) -> Option<LaunchPlan> {
        let threads_max = kernel.max_threads_per_block.min(self.device.max_threads_per_block);
        let fits =
            spec.space.contains(&shape) && shape.tx.checked_mul(shape.ty).is_some_and(|threads| threads <= threads_max);
        let plan = fits.then(|| LaunchPlan::of_shape(&self.device, kernel, spec, problem, shape));
        match plan {
            Some(plan) if plan.occupancy.is_runnable() => Some(plan),
            _ => {
                if self.warned_forcings.lock().insert((spec.name, shape)) {
                    let space = &spec.space;
                    log::warn!(
                        "forced shape {}={} is ignored: not a runnable shape of this kernel on {} \
                         (Tx {}..={} step {}, Ty {}..={}, splits {:?}, at most {} threads, {} registers per thread)",
                        spec.name,
                        format_shape(&shape),
                        self.device.name,
                        space.tx_min,
                        space.tx_max,
                        space.effective_tx_step(),
                        space.ty_min,
                        space.ty_max,
                        space.splits,
                        threads_max,
                        kernel.registers_per_thread,
                    );
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuner::kernel_model::{Geometry, LaunchSpace};

    fn axpy_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
        let blocks = problem.n.div_ceil(shape.tx as u64 * 4);
        Geometry { grid: (blocks.min(u32::MAX as u64) as u32, 1, 1), dynamic_shared_bytes: 0 }
    }

    static AXPY: KernelSpec = KernelSpec {
        name: "axpy_f32_vec4",
        space: LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 1024, ty_min: 1, ty_max: 1, splits: &[1] },
        geometry: axpy_geometry,
    };

    const AXPY_KERNEL: KernelModel =
        KernelModel { registers_per_thread: 16, static_shared_bytes: 0, max_threads_per_block: 1024 };

    fn vector(n: u64) -> Problem {
        Problem { m: 0, n, k: 0 }
    }

    fn h100_tuner() -> Tuner {
        Tuner::new(DeviceModel::h100_sxm(), RecipeBook::built_in(), ForcedShapes::new())
    }

    #[test]
    fn tuner_is_shareable_between_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Tuner>();
    }

    #[test]
    fn plans_come_from_the_optimizer_then_the_cache() {
        let tuner = h100_tuner();
        let recipe = tuner.recipe_for(&AXPY);
        assert_eq!(
            recipe,
            crate::tuner::recipe::built_in_recipe((9, 0), "axpy_f32_vec4").unwrap(),
            "built-in Hopper AXPY recipe"
        );
        let expected = optimizer::choose(tuner.device(), &AXPY_KERNEL, &AXPY, &recipe, &vector(1_000_000)).unwrap();
        assert_eq!(tuner.plan(&AXPY, &AXPY_KERNEL, &vector(1_000_000)), expected);
        assert_eq!(tuner.cached_plans(), 1);
        assert_eq!(tuner.plan(&AXPY, &AXPY_KERNEL, &vector(1_000_000)), expected);
        assert_eq!(tuner.cached_plans(), 1);
        tuner.plan(&AXPY, &AXPY_KERNEL, &vector(7));
        assert_eq!(tuner.cached_plans(), 2);
        tuner.clear_cache();
        assert_eq!(tuner.cached_plans(), 0);
    }

    #[test]
    fn forced_shapes_win_and_are_not_cached() {
        let tuner = h100_tuner();
        let problem = vector(1 << 20);
        let chosen = tuner.plan(&AXPY, &AXPY_KERNEL, &problem);
        let forced = LaunchShape { tx: 96, ty: 1, split: 1 };
        assert_ne!(chosen.shape, forced);
        tuner.forced().set("axpy_f32_vec4", Some(forced));
        let plan = tuner.plan(&AXPY, &AXPY_KERNEL, &problem);
        assert_eq!(plan.shape, forced);
        assert_eq!(plan.geometry.grid.0, (1 << 20) / 384 + 1);
        assert!(plan.occupancy.is_runnable());
        assert_eq!(tuner.cached_plans(), 1);
        tuner.forced().set("axpy_f32_vec4", None);
        assert_eq!(tuner.plan(&AXPY, &AXPY_KERNEL, &problem), chosen);
    }

    #[test]
    fn a_callers_rule_is_cached_and_forced_shapes_still_win() {
        let tuner = h100_tuner();
        let problem = vector(1 << 20);
        let mine = LaunchPlan::of_shape(
            tuner.device(),
            &AXPY_KERNEL,
            &AXPY,
            &problem,
            LaunchShape { tx: 64, ty: 1, split: 1 },
        );
        assert_ne!(tuner.plan_uncached(&AXPY, &AXPY_KERNEL, &problem).shape, mine.shape);
        let mut calls = 0;
        for _ in 0..3 {
            let plan = tuner.plan_with(&AXPY, &AXPY_KERNEL, &problem, "mine", || {
                calls += 1;
                mine
            });
            assert_eq!(plan, mine);
        }
        assert_eq!((calls, tuner.cached_plans()), (1, 1), "the rule ran once, then the cache answered");
        let forced = LaunchShape { tx: 96, ty: 1, split: 1 };
        tuner.forced().set("axpy_f32_vec4", Some(forced));
        assert_eq!(tuner.plan_with(&AXPY, &AXPY_KERNEL, &problem, "mine", || mine).shape, forced);
        tuner.forced().set("axpy_f32_vec4", None);
        assert_eq!(tuner.plan_with(&AXPY, &AXPY_KERNEL, &problem, "mine", || unreachable!("cached")), mine);
        // The optimizer's plan and another rule's for the same kernel and problem are cached apart.
        assert_eq!(tuner.plan(&AXPY, &AXPY_KERNEL, &problem), tuner.plan_uncached(&AXPY, &AXPY_KERNEL, &problem));
        let theirs = LaunchPlan { shape: LaunchShape { tx: 128, ..mine.shape }, ..mine };
        assert_eq!(tuner.plan_with(&AXPY, &AXPY_KERNEL, &problem, "theirs", || theirs), theirs);
        assert_eq!(tuner.plan_with(&AXPY, &AXPY_KERNEL, &problem, "mine", || unreachable!("cached")), mine);
        assert_eq!(tuner.cached_plans(), 3);
    }

    #[test]
    fn a_routines_decision_is_cached_but_not_while_a_shape_is_forced() {
        let tuner = h100_tuner();
        let cache = DecisionCache::<u32, u64>::with_capacity(8);
        let mut calls = 0;
        let mut decide = |key: u32| {
            tuner.decide_with(&cache, key, || {
                calls += 1;
                Ok::<_, ()>(u64::from(key) * 10)
            })
        };
        assert_eq!((decide(1), decide(1), decide(2)), (Ok(10), Ok(10), Ok(20)));
        assert_eq!((calls, cache.len()), (2, 2), "decided once per key, then the cache answered");
        tuner.forced().set("axpy_f32_vec4", Some(LaunchShape { tx: 96, ty: 1, split: 1 }));
        let mut forced_calls = 0;
        for _ in 0..2 {
            let decision = tuner.decide_with(&cache, 1, || {
                forced_calls += 1;
                Ok::<_, ()>(11)
            });
            assert_eq!(decision, Ok(11), "forced: decided anew, the cached 10 not looked up");
        }
        assert_eq!(tuner.decide_with(&cache, 3, || Ok::<_, ()>(30)), Ok(30));
        assert_eq!((forced_calls, cache.len(), cache.get(&1)), (2, 2, Some(10)), "nothing kept while forced");
        tuner.forced().set("axpy_f32_vec4", None);
        assert_eq!(tuner.decide_with(&cache, 4, || Err("no kernel")), Err("no kernel"));
        assert_eq!(cache.get(&4), None, "a failed decision is not kept");
        assert_eq!(tuner.decide_with(&cache, 1, || -> Result<u64, ()> { unreachable!("cached") }), Ok(10));
    }

    #[test]
    fn invalid_forced_shapes_are_ignored() {
        let tuner = h100_tuner();
        let problem = vector(123_456);
        let chosen = tuner.plan(&AXPY, &AXPY_KERNEL, &problem);
        let heavy = KernelModel { registers_per_thread: 255, ..AXPY_KERNEL };
        let heavy_choice = tuner.plan_uncached(&AXPY, &heavy, &problem);
        for bad in [
            LaunchShape { tx: 100, ty: 1, split: 1 },  // off the Tx lattice
            LaunchShape { tx: 2048, ty: 1, split: 1 }, // above tx_max
            LaunchShape { tx: 256, ty: 2, split: 1 },  // a 1-D kernel
            LaunchShape { tx: 256, ty: 1, split: 3 },  // an undeclared split
        ] {
            tuner.forced().set("axpy_f32_vec4", Some(bad));
            assert_eq!(tuner.plan(&AXPY, &AXPY_KERNEL, &problem), chosen, "{bad:?}");
        }
        // In the space, but 1024 threads of 255 registers cannot run.
        tuner.forced().set("axpy_f32_vec4", Some(LaunchShape { tx: 1024, ty: 1, split: 1 }));
        assert_eq!(tuner.plan(&AXPY, &heavy, &problem), heavy_choice);
        assert!(heavy_choice.shape.tx <= 256, "255 registers: 8 warps at most");
    }

    #[test]
    fn a_kernel_that_cannot_run_gets_the_smallest_shape() {
        let tuner = h100_tuner();
        let impossible = KernelModel { registers_per_thread: 300, ..AXPY_KERNEL };
        let plan = tuner.plan(&AXPY, &impossible, &vector(1000));
        assert_eq!(plan.shape, LaunchShape { tx: 32, ty: 1, split: 1 });
        assert_eq!(plan.occupancy, Occupancy::NONE);
        assert_eq!(plan.geometry.grid.0, 8);
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        fn zero_geometry(_: &Problem, _: &LaunchShape) -> Geometry {
            Geometry { grid: (0, 0, 0), dynamic_shared_bytes: u32::MAX }
        }
        static ODD: KernelSpec = KernelSpec {
            name: "odd",
            space: LaunchSpace { tx_step: 0, tx_min: 0, tx_max: u32::MAX, ty_min: 0, ty_max: u32::MAX, splits: &[] },
            geometry: zero_geometry,
        };
        static EMPTY: KernelSpec = KernelSpec {
            name: "empty",
            space: LaunchSpace { tx_step: 32, tx_min: 64, tx_max: 32, ty_min: 2, ty_max: 1, splits: &[] },
            geometry: zero_geometry,
        };
        let mut odd_device = DeviceModel::h100_sxm();
        odd_device.warp_size = 0;
        odd_device.sm_count = 0;
        for device in [DeviceModel::h100_sxm(), DeviceModel::kepler_k20(), odd_device] {
            let tuner = Tuner::new(device, RecipeBook::built_in(), ForcedShapes::parse("odd=1x1x1,empty=64x2").0);
            for spec in [&ODD, &EMPTY, &AXPY] {
                for kernel in [
                    AXPY_KERNEL,
                    KernelModel {
                        registers_per_thread: u32::MAX,
                        static_shared_bytes: u32::MAX,
                        max_threads_per_block: 0,
                    },
                ] {
                    for problem in [Problem::default(), Problem { m: u64::MAX, n: u64::MAX, k: u64::MAX }] {
                        let plan = tuner.plan(spec, &kernel, &problem);
                        assert!(plan.occupancy.grid <= 1.0);
                    }
                }
            }
        }
    }

    /// Prints what a decision costs; a benchmark, not a test of speed.
    /// Run with `cargo test --release --lib tuner -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn print_decision_cost() {
        let tuner = h100_tuner();
        let problems: Vec<Problem> = (0..1000u64).map(|i| vector(1000 + i * 7919)).collect();
        let cost = tuner.measure_decision_cost(&AXPY, &AXPY_KERNEL, &problems, 100);
        println!("AXPY on H100 model: cold {:.0} ns, cached {:.0} ns", cost.cold_nanoseconds, cost.cached_nanoseconds);

        // A 2-D kernel with splits: 119 block shapes × 4 splits, 476 per decision.
        fn gemv_geometry(problem: &Problem, shape: &LaunchShape) -> Geometry {
            let blocks = problem.m.div_ceil(shape.tx as u64 * 4);
            Geometry { grid: (blocks as u32, shape.split, 1), dynamic_shared_bytes: shape.tx * shape.ty * 16 }
        }
        static GEMV: KernelSpec = KernelSpec {
            name: "gemv_n_f32",
            space: LaunchSpace { tx_step: 32, tx_min: 32, tx_max: 1024, ty_min: 1, ty_max: 32, splits: &[1, 2, 4, 8] },
            geometry: gemv_geometry,
        };
        let gemv_kernel = KernelModel { registers_per_thread: 40, static_shared_bytes: 0, max_threads_per_block: 1024 };
        let problems: Vec<Problem> = (0..1000u64).map(|i| Problem { m: 1000 + i * 7919, n: 4096, k: 0 }).collect();
        let cost = tuner.measure_decision_cost(&GEMV, &gemv_kernel, &problems, 100);
        println!(
            "2-D GEMV-like on H100 model: cold {:.0} ns, cached {:.0} ns",
            cost.cold_nanoseconds, cost.cached_nanoseconds
        );
    }
}
