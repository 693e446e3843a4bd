//! The tuner on the GPU: the occupancy model against the driver's own
//! calculator for every kernel and candidate shape, and every shape the tuner
//! may choose giving correct results. Skipped, saying so, without a GPU.

mod common;

use common::*;
use mublas::capi::blas1::mublasSaxpy;
use mublas::harness::GuardedBuffer;
use mublas::tuner::occupancy::max_active_blocks_per_sm;
use mublas::tuner::optimizer::candidates;
use mublas::tuner::{KernelSpec, Problem};

/// Every kernel of SAXPY, SGEMV and STRMV (SGEMM's: `gpu_gemm_occupancy_model_matches_the_driver`).
fn kernel_specs() -> Vec<&'static KernelSpec> {
    use mublas::routines::{axpy, gemv, trmv};
    let axpy = [&axpy::AXPY_VEC4, &axpy::AXPY_VEC4_SINGLE, &axpy::AXPY_STRIDED, &axpy::AXPY_SUM_TO_Y0];
    let trmv = [&trmv::TRMV_N_VEC4, &trmv::TRMV_N_SCALAR, &trmv::TRMV_T_VEC4, &trmv::TRMV_T_SCALAR, &trmv::TRMV_SUM];
    axpy.into_iter().chain(gemv::KERNEL_SPECS).chain(trmv).collect()
}

#[test]
fn gpu_occupancy_model_matches_the_driver() {
    let Some(gpu) = gpu_or_skip("gpu_occupancy_model_matches_the_driver") else { return };
    let device = &gpu.inner().device;
    // The driver's occupancy query needs the kernel's context current.
    let _bound = mublas::launch::context::ContextGuard::bind(device.context()).unwrap();
    let mut compared = 0;
    for spec in kernel_specs() {
        let kernel = device.kernel(spec.name).unwrap();
        for problem in [Problem { m: 1000, n: 1000, k: 64 }, Problem { m: 1 << 20, n: 1 << 20, k: 1 }] {
            let shapes = candidates(device.model(), &kernel.model, spec, &problem);
            assert!(!shapes.is_empty(), "{}: no runnable shape", spec.name);
            for (shape, geometry, occupancy) in shapes {
                let threads = shape.tx * shape.ty;
                let driver = kernel.driver_max_active_blocks_per_sm(threads, geometry.dynamic_shared_bytes).unwrap();
                let model =
                    max_active_blocks_per_sm(device.model(), &kernel.model, threads, geometry.dynamic_shared_bytes);
                assert_eq!(
                    model, driver,
                    "{} {:?} ({} registers, {} B dynamic shared): model {model}, driver {driver}",
                    spec.name, shape, kernel.model.registers_per_thread, geometry.dynamic_shared_bytes
                );
                assert_eq!(occupancy.active_blocks_per_sm, driver);
                compared += 1;
            }
        }
        // Also every block size from 1 to the kernel's maximum, not only the lattice.
        for threads in 1..=kernel.model.max_threads_per_block {
            let driver = kernel.driver_max_active_blocks_per_sm(threads, 0).unwrap();
            let model = max_active_blocks_per_sm(device.model(), &kernel.model, threads, 0);
            assert_eq!(model, driver, "{} with {threads} threads", spec.name);
            compared += 1;
        }
    }
    say(&format!("gpu_occupancy_model_matches_the_driver: {compared} comparisons, all equal"));
}

#[test]
fn gpu_every_saxpy_shape_is_correct() {
    use mublas::routines::axpy::{
        AXPY_STRIDED, AXPY_SUM_TO_Y0, AXPY_VEC4, AXPY_VEC4_SINGLE, SINGLE_MAX_ELEMENTS, select_kernel,
    };
    use mublas::routines::vector::StridedVector;
    let Some(gpu) = gpu_or_skip("gpu_every_saxpy_shape_is_correct") else { return };
    let mut random = random("gpu_every_saxpy_shape_is_correct");
    let device = &gpu.inner().device;
    let ctx = gpu.context();
    let alpha = 0.75f32;
    let mut checked = 0;
    // x at offset 0 takes a float4 kernel (the single-pass one up to
    // SINGLE_MAX_ELEMENTS; n odd, so it has a tail); at offset 1 (y at 0), or
    // with increments other than 1 (here negative on x), the strided one.
    let large = SINGLE_MAX_ELEMENTS as usize + 5;
    for (spec, n, x_offset, incx, incy) in [
        (&AXPY_VEC4_SINGLE, 100_003, 0usize, 1i64, 1i64),
        (&AXPY_VEC4, large, 0, 1, 1),
        (&AXPY_STRIDED, 100_003, 1, 1, 1),
        (&AXPY_STRIDED, 30_001, 0, -2, 3),
        // incy = 0: every term into y[0], on as many blocks as the shape gives (2 to 30).
        (&AXPY_SUM_TO_Y0, 30_001, 0, -2, 0),
    ] {
        let (x, y) = (random.vector(span(n, incx) + 1), random.vector(span(n, incy)));
        let kernel = device.kernel(spec.name).unwrap();
        let dx = GuardedBuffer::from_slice(ctx, &x, 0).unwrap();
        let x_address = dx.address() + 4 * x_offset as u64;
        // y, like dx, starts a buffer: it has dx's alignment.
        let vector = |base, inc| StridedVector { base, len: n as i64, inc };
        let chosen = select_kernel(n as i64, &vector(x_address, incx), &vector(dx.address(), incy)).0;
        assert_eq!(chosen.name, spec.name, "the routine must take the kernel whose shapes are forced");
        let problem = Problem { n: n as u64, ..Problem::default() };
        // Storage of y after the call: its elements updated, the floats between them as they were.
        let (expected, magnitude) = saxpy_reference(n, alpha, &x[x_offset..], incx, &y, incy);
        // One multiply-add per element, or with incy = 0 a sum of n terms.
        let ulps = if incy == 0 { sum_to_y0_roundings(n) } else { 2.0 };
        for (shape, _, _) in candidates(device.model(), &kernel.model, spec, &problem) {
            let dy = GuardedBuffer::from_slice(ctx, &y, 0).unwrap();
            device.tuner.forced().set(spec.name, Some(shape));
            let status = unsafe {
                mublasSaxpy(
                    gpu.handle,
                    n as i32,
                    &alpha,
                    x_address as *const f32,
                    incx as i32,
                    dy.address() as *mut f32,
                    incy as i32,
                )
            };
            device.tuner.forced().set(spec.name, None);
            assert_eq!(status, 0);
            let what = format!("{} forced to {shape:?}, incx {incx}, incy {incy}", spec.name);
            assert_close(&what, &dy.read().unwrap(), &expected, &magnitude, ulps);
            assert!(dy.guards_intact().unwrap(), "{what}: guard zone overwritten");
            checked += 1;
        }
    }
    say(&format!("gpu_every_saxpy_shape_is_correct: {checked} shapes correct"));
}

/// A handle planned for another GPU ([`mublas::Handle::create_planned_for`]) plans with that GPU's model and
/// runs the code its compute capability gets (the newest PTX not above it where it is older than this GPU);
/// a profile with more of anything than this GPU (one more SM) is refused with INVALID_VALUE, which is how
/// the `_planned_for_other_gpus` tests skip a profile a smaller GPU cannot hold.
#[test]
fn gpu_handles_planned_for_other_gpus() {
    use mublas::launch::images::ImageChoice;
    let test = "gpu_handles_planned_for_other_gpus";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let this = gpu.inner().device.model().clone();
    for profile in mublas::tuner::DeviceModel::other_gpus() {
        let planned = match mublas::Handle::create_planned_for(profile.clone()) {
            Ok(planned) => planned,
            Err(e) => {
                assert!(
                    !profile.limits_exceeding(&this).is_empty(),
                    "{}: refused though this GPU holds it: {e}",
                    profile.name
                );
                say(&format!("{test}: {} is larger than this GPU in some limit: refused ({e})", profile.name));
                continue;
            }
        };
        assert_eq!(planned.device.model(), &profile);
        let expected = if profile.compute_capability < this.compute_capability {
            ImageChoice::Ptx(if profile.compute_capability >= (8, 0) { 80 } else { 70 })
        } else {
            gpu.inner().device.loaded_images[0].1
        };
        for (image, choice) in &planned.device.loaded_images {
            assert_eq!(*choice, expected, "{}: image {image}", profile.name);
        }
        // Not shared: a plain handle still gets this GPU's own state.
        assert!(!std::sync::Arc::ptr_eq(&planned.device, &gpu.inner().device));
    }
    let larger = mublas::tuner::DeviceModel { sm_count: this.sm_count + 1, ..this.clone() };
    match mublas::Handle::create_planned_for(larger) {
        Err(mublas::Error::InvalidValue(why)) => assert!(why.contains("SMs"), "{why}"),
        Err(e) => panic!("one SM more than this GPU: {e}"),
        Ok(_) => panic!("one SM more than this GPU was accepted"),
    }
    say(&format!("{test}: passed"));
}
