//! `mublas bench decisions`: what the online optimizer costs on the host, per
//! call, cached (a repeated size) and cold (a new size). With a GPU it uses the
//! device's model and the loaded kernels' resources; without one, the H100
//! model and the resources ptxas reports for sm_90 (kept here by hand;
//! `scripts/ptxas-report.sh` prints them).

use mublas::tuner::{DeviceModel, ForcedShapes, KernelModel, KernelSpec, Problem, RecipeBook, Tuner};

/// (kernel spec, registers per thread on sm_90, static shared memory in bytes).
fn kernels() -> Vec<(&'static KernelSpec, u32, u32)> {
    use mublas::routines::{axpy, gemv, trmv};
    vec![
        (&axpy::AXPY_VEC4, 32, 0),
        (&axpy::AXPY_VEC4_SINGLE, 18, 0),
        (&axpy::AXPY_STRIDED, 32, 0),
        (&gemv::GEMV_N, 62, 8193),
        (&gemv::GEMV_N_SHORT, 60, 8193),
        (&gemv::GEMV_T, 64, 8193),
        (&trmv::TRMV_N_VEC4, 64, 0),
        (&trmv::TRMV_T_VEC4, 62, 0),
        (&trmv::TRMV_SUM, 28, 0),
    ]
}

pub fn run() {
    // The GPU's own models where there is one, so the figures match the device.
    let gpu = mublas::Handle::create().ok();
    let device = gpu.as_ref().map(|h| h.device.model().clone()).unwrap_or_else(DeviceModel::h100_sxm);
    let tuner = Tuner::new(device, RecipeBook::built_in(), ForcedShapes::new());
    let source = if gpu.is_some() { "this GPU's device and kernel models" } else { "H100 model, no GPU" };
    println!("decision cost on the host ({source}; mean over distinct sizes, then over repeats of them):");
    println!("  {:<24} {:>8} {:>12} {:>12}", "kernel", "shapes", "cold ns", "cached ns");
    for (spec, registers, static_shared_bytes) in kernels() {
        let loaded = gpu.as_ref().and_then(|h| h.device.kernel(spec.name).ok()).map(|k| k.model.clone());
        let kernel = loaded.unwrap_or(KernelModel {
            registers_per_thread: registers,
            static_shared_bytes,
            max_threads_per_block: 1024,
        });
        let problems: Vec<Problem> =
            (0..2000u64).map(|i| Problem { m: 1000 + 7 * i, n: 4096 + 131 * i, k: 0 }).collect();
        let shapes = mublas::tuner::optimizer::candidates(tuner.device(), &kernel, spec, &problems[0]).len();
        let cost = tuner.measure_decision_cost(spec, &kernel, &problems, 50);
        println!("  {:<24} {:>8} {:>12.0} {:>12.1}", spec.name, shapes, cost.cold_nanoseconds, cost.cached_nanoseconds);
    }
}
