//! Interposition in a process that has no cuBLAS loaded: a handle that is not
//! ours gets NOT_INITIALIZED, and mublas loads no cuBLAS of its own to ask
//! about it (a copy loaded now would not know the program's handles; with
//! libcublas.so.13 on the search path it used to be loaded, and its
//! `cublasGetStream_v2` given this made-up handle). Its own process, so that no
//! other test has loaded cuBLAS; no GPU needed.

use mublas::capi::types::MUBLAS_STATUS_NOT_INITIALIZED;
use mublas::interpose::blas1::cublasSaxpy_v2;
use mublas::real_cublas::RealCublas;

#[test]
fn a_foreign_handle_without_cublas_in_the_process_is_not_initialized() {
    assert!(RealCublas::resident_sonames().is_empty(), "the test process must start without cuBLAS");
    // Not a handle of ours, and no cuBLAS to own it: made up, never dereferenced.
    let foreign = 0x1000 as *mut std::ffi::c_void;
    let (alpha, x, mut y) = (2.0f32, [1.0f32; 4], [0.0f32; 4]);
    // SAFETY: the handle is refused before any pointer is used.
    let status = unsafe { cublasSaxpy_v2(foreign, 4, &alpha, x.as_ptr(), 1, y.as_mut_ptr(), 1) };
    assert_eq!(status, MUBLAS_STATUS_NOT_INITIALIZED);
    assert_eq!(y, [0.0; 4], "nothing written");
    // The refusal logs why; a logger not yet installed would have dropped it.
    assert!(log::max_level() >= log::LevelFilter::Error, "no logger installed for the refusal's error");
    assert!(
        RealCublas::resident_sonames().is_empty(),
        "mublas loaded {:?} for a handle it could not use",
        RealCublas::resident_sonames()
    );
}
