//! The control for gpu_alpha_zero_reads_nothing: a kernel that does read an
//! [`UnmappedRange`] faults, so that test's silence means nothing was read.
//! SAXPY with alpha 1 reads x from the range; the call is queued and the
//! fault surfaces when the stream is waited for. The fault loses the context,
//! hence a binary of one test (and none of compute-sanitizer's memcheck runs,
//! which would report the fault it is here to cause). Skipped, saying so,
//! without a GPU.

mod common;

use common::{driver_or_skip, say};
use mublas::capi::blas1::mublasSaxpy;
use mublas::capi::handle::{mublasCreate, mublasDestroy};
use mublas::capi::types::*;
use mublas::harness::{GuardedBuffer, UnmappedRange};

#[test]
fn gpu_a_kernel_reading_an_unmapped_range_faults() {
    let test = "gpu_a_kernel_reading_an_unmapped_range_faults";
    if !driver_or_skip(test) {
        return;
    }
    let mut handle: mublasHandle_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { mublasCreate(&mut handle) }, MUBLAS_STATUS_SUCCESS);
    // SAFETY: a live handle from mublasCreate is a Handle.
    let inner = unsafe { &*(handle as *const mublas::Handle) };
    let context = inner.device.context();
    let n = 4096;
    let unmapped = UnmappedRange::new(context, 4 * n).unwrap();
    let y = GuardedBuffer::from_slice(context, &vec![1.0f32; n], 0).unwrap();
    let alpha = 1.0f32;
    // SAFETY: host pointer mode, alpha on the host; x is the unmapped range, y a device buffer of n floats.
    let status = unsafe {
        mublasSaxpy(handle, n as i32, &alpha, unmapped.address() as *const f32, 1, y.address() as *mut f32, 1)
    };
    // The fault comes when the kernel runs: at the wait, or already at the launch where launches block
    // (CUDA_LAUNCH_BLOCKING=1).
    let waited = mublas::harness::stream::synchronize(context, inner.stream());
    assert!(
        status != MUBLAS_STATUS_SUCCESS || waited.is_err(),
        "SAXPY read x from an unmapped range and neither the call nor the stream reported an error"
    );
    say(&format!("{test}: the read faulted as it must (status {status}, wait {waited:?})"));
    // The context is lost: freeing and destroying may report it (the buffers ignore it, and so does this test).
    drop((unmapped, y));
    // SAFETY: created above, destroyed once.
    let _ = unsafe { mublasDestroy(handle) };
}
