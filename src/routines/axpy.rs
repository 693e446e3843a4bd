//! SAXPY: y = alpha * x + y.

use super::Scalar;
use super::vector::StridedVector;
use crate::handle::Handle;
use crate::launch::KernelArg;
use crate::launch::KernelArg::{I32, I64, Ptr};
use crate::launch::context::ContextGuard;
use crate::status::{Error, Result};
use crate::tuner::{Geometry, KernelSpec, LaunchShape, LaunchSpace, Problem};

/// float4 loads per thread in `axpy_f32_vec4` and elements per thread in
/// `axpy_f32_strided`: AXPY_UNROLL in kernels/axpy.cu.
const UNROLL: u64 = 2;

/// The launch space, from `mublas report` on the H100 (mean rate relative to the
/// best candidate over 49 sizes 2^12…2^24, per size range): blocks of 96–288
/// threads reached 0.92–0.96 of the best below 2^16 (latency-bound, near the noise)
/// and 0.94–0.99 above; 512 threads 0.86–0.97 (coarse blocks drain the last wave
/// unevenly) and 32 threads 0.76–0.93 from 2^16 on. So the space is 64…288.
/// The kernels can loop grid-stride over several chunks per thread, but one chunk
/// was fastest at every size from 2^18 to 2^24 (2, 4, 8 chunks: 1–25 % slower),
/// so the split stays at 1.
const AXPY_SPACE: LaunchSpace =
    LaunchSpace { tx_step: 32, tx_min: 64, tx_max: 288, ty_min: 1, ty_max: 1, splits: &[1] };

/// Unit increments, x and y equally aligned: problem.n = float4 groups in the aligned body.
pub static AXPY_VEC4: KernelSpec = KernelSpec { name: "axpy_f32_vec4", space: AXPY_SPACE, geometry: one_dimensional };
/// The same, up to SINGLE_MAX_ELEMENTS: problem.n = threads, one per float4
/// group of the body and one per head or tail element.
pub static AXPY_VEC4_SINGLE: KernelSpec =
    KernelSpec { name: "axpy_f32_vec4_single", space: AXPY_SPACE, geometry: one_thread_each };
/// Any increments and alignment: problem.n = elements.
pub static AXPY_STRIDED: KernelSpec =
    KernelSpec { name: "axpy_f32_strided", space: AXPY_SPACE, geometry: one_dimensional };
/// incy = 0, every term added into `y[0]` in a fixed order: problem.n = elements.
pub static AXPY_SUM_TO_Y0: KernelSpec =
    KernelSpec { name: "axpy_f32_sum_to_y0", space: AXPY_SPACE, geometry: sum_blocks };

pub const KERNEL_NAMES: &[&str] = &[AXPY_VEC4.name, AXPY_VEC4_SINGLE.name, AXPY_STRIDED.name, AXPY_SUM_TO_Y0.name];

/// `axpy_f32_sum_to_y0`: at least this many terms per thread (fewer blocks,
/// so fewer partial sums to add at the end), and at most SUM_MAX_BLOCKS
/// blocks, whose partial sums fit the work buffer's scratch with room to spare.
const SUM_TERMS_PER_THREAD: u64 = 16;
pub const SUM_MAX_BLOCKS: u64 = 1024;

/// The float4 vectors up to this many elements go to `axpy_f32_vec4_single`:
/// kernel time on the H100 (`scripts/saxpy-ab.py`, calls replayed in a CUDA
/// graph, inputs rotated past the L2) 1.14 µs against 1.21 for
/// `axpy_f32_vec4` at 2^10, 1.95 against 2.01 at 2^16, 2.69 against 2.78 at
/// 2^18, 18.4 against 18.6 at 2^22, and level at 2^24. The larger ones keep
/// the looping kernel, whose 2^28 figures are the benchmark's.
pub const SINGLE_MAX_ELEMENTS: i64 = 1 << 22;

fn one_thread_each(problem: &Problem, shape: &LaunchShape) -> Geometry {
    let blocks = problem.n.div_ceil(shape.tx as u64).max(1);
    Geometry { grid: (blocks.min(i32::MAX as u64) as u32, 1, 1), dynamic_shared_bytes: 0 }
}

fn sum_blocks(problem: &Problem, shape: &LaunchShape) -> Geometry {
    let blocks = problem.n.div_ceil(shape.tx as u64 * SUM_TERMS_PER_THREAD).clamp(1, SUM_MAX_BLOCKS);
    Geometry { grid: (blocks as u32, 1, 1), dynamic_shared_bytes: 0 }
}

/// Terms per block of `axpy_f32_sum_to_y0` on `blocks` blocks: ranges of
/// equal length, the last one shorter.
fn sum_terms_per_block(n: u64, blocks: u32) -> u64 {
    n.div_ceil(blocks as u64).max(1)
}

fn one_dimensional(problem: &Problem, shape: &LaunchShape) -> Geometry {
    // `split`: chunks per thread; the kernels loop grid-stride over them.
    let per_block = shape.tx as u64 * UNROLL * shape.split.max(1) as u64;
    let blocks = problem.n.div_ceil(per_block).max(1);
    Geometry { grid: (blocks.min(i32::MAX as u64) as u32, 1, 1), dynamic_shared_bytes: 0 }
}

/// The vec4 kernel needs x and y at the same offset modulo 16 bytes, so that
/// once y is aligned, x is too; and fewer than 2^30 float4 groups, because it
/// counts them in 32 bits (the 64-bit API's larger vectors go strided).
pub fn vec4_applies(x: &StridedVector, y: &StridedVector) -> bool {
    x.is_contiguous()
        && y.is_contiguous()
        && (x.base % 16) == (y.base % 16)
        && x.base.is_multiple_of(4)
        && y.len < (1 << 32)
}

/// The float4 kernels' split of n elements: (head, groups), the elements
/// before y is 16-byte aligned and the float4 groups after them (the rest,
/// n - head - 4 groups < 4, is the tail).
fn vec4_split(n: i64, y_base: u64) -> (u64, u64) {
    let head = ((16 - (y_base % 16)) % 16 / 4).min(n as u64);
    (head, (n as u64 - head) / 4)
}

/// The argument list of `axpy_f32_vec4_single` for n elements of x and y at
/// these addresses (unit increments, equally aligned): the routine's, and the
/// overhead benchmark's bare launch. n ≤ SINGLE_MAX_ELEMENTS, so every count
/// fits the kernel's 32-bit arguments.
pub fn single_pass_args(n: i64, x: u64, y: u64, alpha_value: KernelArg, alpha_address: KernelArg) -> [KernelArg; 7] {
    debug_assert!(n <= SINGLE_MAX_ELEMENTS);
    let (head, groups) = vec4_split(n, y);
    [I32(n as i32), I32(head as i32), I32(groups as i32), alpha_value, alpha_address, Ptr(x), Ptr(y)]
}

/// Which kernel, and the problem size the tuner sees for it.
pub fn select_kernel(n: i64, x: &StridedVector, y: &StridedVector) -> (&'static KernelSpec, Problem) {
    if y.inc == 0 && n > 1 {
        return (&AXPY_SUM_TO_Y0, Problem { n: n as u64, ..Problem::default() });
    }
    if !vec4_applies(x, y) {
        return (&AXPY_STRIDED, Problem { n: n as u64, ..Problem::default() });
    }
    let (_, groups) = vec4_split(n, y.base);
    if n <= SINGLE_MAX_ELEMENTS {
        // A thread per group and per head or tail element.
        (&AXPY_VEC4_SINGLE, Problem { n: n as u64 - 3 * groups, ..Problem::default() })
    } else {
        (&AXPY_VEC4, Problem { n: groups, ..Problem::default() })
    }
}

/// y = alpha * x + y over n elements. Reference BLAS checks no arguments:
/// n ≤ 0 or a host alpha of 0 return at once, touching nothing. An increment
/// of 0 is reference BLAS's too: incx = 0 repeats `x[0]`, incy = 0 adds every
/// term into `y[0]`.
pub fn saxpy(handle: &Handle, n: i64, alpha: Scalar, x: u64, incx: i64, y: u64, incy: i64) -> Result<()> {
    if n <= 0 || alpha.is(0.0) {
        return Ok(());
    }
    if x == 0 || y == 0 {
        return Err(Error::InvalidValue("SAXPY: x or y is NULL".into()));
    }
    let x = StridedVector { base: x, len: n, inc: incx };
    let y = StridedVector { base: y, len: n, inc: incy };
    let device = &handle.device;
    let (spec, problem) = select_kernel(n, &x, &y);
    let kernel = device.kernel(spec.name)?;
    let plan = device.tuner.plan(spec, &kernel.model, &problem);
    let (alpha_value, alpha_address) = alpha.kernel_args();
    if std::ptr::eq(spec, &AXPY_SUM_TO_Y0) {
        return sum_to_y0(handle, kernel, plan, n, (alpha_value, alpha_address), &x, &y);
    }
    let _bound = ContextGuard::bind(device.context())?;
    // SAFETY: the argument lists match kernels/axpy.cu; x and y span n elements
    // with their increments, which the caller vouches for as cuBLAS's does.
    unsafe {
        if std::ptr::eq(spec, &AXPY_VEC4) {
            kernel.launch(
                handle.stream(),
                &plan.geometry,
                &plan.shape,
                &[I64(n), alpha_value, alpha_address, Ptr(x.base), Ptr(y.base)],
            )
        } else if std::ptr::eq(spec, &AXPY_VEC4_SINGLE) {
            let args = single_pass_args(n, x.base, y.base, alpha_value, alpha_address);
            kernel.launch(handle.stream(), &plan.geometry, &plan.shape, &args)
        } else {
            kernel.launch(
                handle.stream(),
                &plan.geometry,
                &plan.shape,
                &[
                    I64(n),
                    alpha_value,
                    alpha_address,
                    Ptr(x.first_element()),
                    I64(incx),
                    Ptr(y.first_element()),
                    I64(incy),
                ],
            )
        }
    }
}

/// `axpy_f32_sum_to_y0` (incy = 0). Several blocks need the work buffer for
/// their partial sums and the arrival counter; the area is held until the
/// launch is queued, so no other call of this handle shares them meanwhile.
/// Without it (its limit, or no memory) the sum runs in one block.
fn sum_to_y0(
    handle: &Handle,
    kernel: &crate::launch::Kernel,
    plan: crate::tuner::LaunchPlan,
    n: i64,
    (alpha_value, alpha_address): (KernelArg, KernelArg),
    x: &StridedVector,
    y: &StridedVector,
) -> Result<()> {
    let mut geometry = plan.geometry;
    let work = if geometry.grid.0 > 1 {
        match handle.work_area(geometry.grid.0 as u64 * 4) {
            Ok(work) => Some(work),
            Err(Error::AllocFailed(why)) => {
                log::info!("SAXPY with incy = 0: summing in one block ({why})");
                geometry.grid = (1, 1, 1);
                None
            }
            Err(e) => return Err(e),
        }
    } else {
        None
    };
    let (counter, partials) = work.as_ref().map_or((0, 0), |work| (work.counters(), work.scratch()));
    let per_block = sum_terms_per_block(n as u64, geometry.grid.0);
    let _bound = ContextGuard::bind(handle.device.context())?;
    // SAFETY: the argument list matches axpy_f32_sum_to_y0; x spans n elements
    // with its increment and y one element; with more than one block the work
    // area holds the counter (0 between launches) and a partial sum per block.
    unsafe {
        kernel.launch(
            handle.stream(),
            &geometry,
            &plan.shape,
            &[
                I64(n),
                I64(per_block as i64),
                alpha_value,
                alpha_address,
                Ptr(x.first_element()),
                I64(x.inc),
                Ptr(y.base),
                Ptr(counter),
                Ptr(partials),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(base: u64, len: i64, inc: i64) -> StridedVector {
        StridedVector { base, len, inc }
    }

    #[test]
    fn vec4_needs_unit_increments_and_equal_alignment() {
        assert!(vec4_applies(&v(4096, 10, 1), &v(8192, 10, 1)));
        assert!(vec4_applies(&v(4100, 10, 1), &v(8196, 10, 1)));
        assert!(!vec4_applies(&v(4100, 10, 1), &v(8192, 10, 1)));
        assert!(!vec4_applies(&v(4096, 10, -1), &v(8192, 10, -1)));
        assert!(!vec4_applies(&v(4096, 10, 2), &v(8192, 10, 2)));
    }

    #[test]
    fn vec4_problem_counts_the_aligned_body() {
        // Past SINGLE_MAX_ELEMENTS, y offset by one float: 3 head elements, then (n - 3) / 4 groups.
        let n = SINGLE_MAX_ELEMENTS + 103;
        let (spec, problem) = select_kernel(n, &v(4100, n, 1), &v(8196, n, 1));
        assert_eq!(spec.name, "axpy_f32_vec4");
        assert_eq!(problem.n, (n as u64 - 3) / 4);
        assert_eq!(vec4_split(n, 8196), (3, (n as u64 - 3) / 4));
    }

    #[test]
    fn single_kernel_has_a_thread_per_group_and_per_leftover_element() {
        // 103 elements, y offset by one float: 3 head elements, 25 groups, no tail.
        let (spec, problem) = select_kernel(103, &v(4100, 103, 1), &v(8196, 103, 1));
        assert_eq!(spec.name, "axpy_f32_vec4_single");
        assert_eq!(problem.n, 25 + 3);
        assert_eq!(vec4_split(103, 8196), (3, 25));
        let args = single_pass_args(103, 4100, 8196, KernelArg::F32(0.5), Ptr(0));
        assert_eq!(format!("{args:?}"), "[I32(103), I32(3), I32(25), F32(0.5), Ptr(0), Ptr(4100), Ptr(8196)]");
        // Aligned, 2 tail elements.
        let (_, problem) = select_kernel(102, &v(4096, 102, 1), &v(8192, 102, 1));
        assert_eq!(problem.n, 25 + 2);
        // Fewer elements than the head: no body, a thread per element.
        let (_, problem) = select_kernel(2, &v(4100, 2, 1), &v(8196, 2, 1));
        assert_eq!(problem.n, 2);
        assert_eq!(vec4_split(2, 8196), (2, 0));
        // The limit is inclusive; one more goes to the looping kernel.
        let n = SINGLE_MAX_ELEMENTS;
        assert_eq!(select_kernel(n, &v(4096, n, 1), &v(8192, n, 1)).0.name, "axpy_f32_vec4_single");
        assert_eq!(select_kernel(n + 1, &v(4096, n + 1, 1), &v(8192, n + 1, 1)).0.name, "axpy_f32_vec4");
        // One thread each: ceil(threads / Tx) blocks.
        let shape = LaunchShape { tx: 128, ty: 1, split: 1 };
        assert_eq!(one_thread_each(&Problem { n: 256, ..Default::default() }, &shape).grid, (2, 1, 1));
        assert_eq!(one_thread_each(&Problem { n: 257, ..Default::default() }, &shape).grid, (3, 1, 1));
    }

    #[test]
    fn incy_zero_sums_into_y0_over_fixed_ranges() {
        // Any x, y with increment 0 and more than one element: the summing kernel.
        for (x, y) in [
            (v(4096, 1000, 1), v(8192, 1000, 0)),
            (v(4100, 1000, -3), v(8192, 1000, 0)),
            (v(4096, 1000, 0), v(8192, 1000, 0)),
        ] {
            let (spec, problem) = select_kernel(1000, &x, &y);
            assert_eq!(spec.name, "axpy_f32_sum_to_y0");
            assert_eq!(problem.n, 1000);
        }
        // One element has nothing to race with.
        assert_ne!(select_kernel(1, &v(4096, 1, 1), &v(8192, 1, 0)).0.name, "axpy_f32_sum_to_y0");
        // At least 16 terms per thread, 1 to SUM_MAX_BLOCKS blocks, equal ranges covering n.
        let shape = LaunchShape { tx: 64, ty: 1, split: 1 };
        let blocks = |n: u64| sum_blocks(&Problem { n, ..Default::default() }, &shape).grid.0;
        assert_eq!(blocks(2), 1);
        assert_eq!(blocks(1024), 1);
        assert_eq!(blocks(1025), 2);
        assert_eq!(blocks(1 << 30), SUM_MAX_BLOCKS as u32);
        for n in [2u64, 1025, 30_001, 1 << 30] {
            let per_block = sum_terms_per_block(n, blocks(n));
            assert!(per_block * blocks(n) as u64 >= n && per_block * (blocks(n) as u64 - 1) < n, "n = {n}");
        }
    }

    #[test]
    fn grid_covers_the_work_with_at_least_one_block() {
        let shape = LaunchShape { tx: 256, ty: 1, split: 1 };
        assert_eq!(one_dimensional(&Problem { n: 0, ..Default::default() }, &shape).grid, (1, 1, 1));
        let per_block = 256 * UNROLL;
        assert_eq!(one_dimensional(&Problem { n: per_block, ..Default::default() }, &shape).grid, (1, 1, 1));
        assert_eq!(one_dimensional(&Problem { n: per_block + 1, ..Default::default() }, &shape).grid, (2, 1, 1));
        assert_eq!(
            one_dimensional(&Problem { n: 1 << 26, ..Default::default() }, &shape).grid,
            ((1 << 26) / per_block as u32, 1, 1)
        );
    }
}
