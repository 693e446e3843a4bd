//! Interposition in a process that has no cuBLAS loaded: a handle that is not
//! ours gets NOT_INITIALIZED, and mublas loads no cuBLAS of its own to ask
//! about it (a copy loaded now would not know the program's handles; with
//! libcublas.so.13 on the search path it used to be loaded, and its
//! `cublasGetStream_v2` given this made-up handle). Its own process, so that no
//! other test has loaded cuBLAS; no GPU needed.

use mublas::capi::types::MUBLAS_STATUS_NOT_INITIALIZED;
use mublas::interpose::blas1::cublasSaxpy_v2;
use std::ffi::CString;

fn cublas_resident() -> Vec<&'static str> {
    ["libcublas.so.13", "libcublas.so.12", "libcublas.so.11"]
        .into_iter()
        .filter(|soname| {
            let name = CString::new(*soname).unwrap();
            // SAFETY: RTLD_NOLOAD loads nothing; the handle it returns is closed at once.
            let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
            if !handle.is_null() {
                unsafe { libc::dlclose(handle) };
            }
            !handle.is_null()
        })
        .collect()
}

#[test]
fn a_foreign_handle_without_cublas_in_the_process_is_not_initialized() {
    assert!(cublas_resident().is_empty(), "the test process must start without cuBLAS");
    // Not a handle of ours, and no cuBLAS to own it: made up, never dereferenced.
    let foreign = 0x1000 as *mut std::ffi::c_void;
    let (alpha, x, mut y) = (2.0f32, [1.0f32; 4], [0.0f32; 4]);
    // SAFETY: the handle is refused before any pointer is used.
    let status = unsafe { cublasSaxpy_v2(foreign, 4, &alpha, x.as_ptr(), 1, y.as_mut_ptr(), 1) };
    assert_eq!(status, MUBLAS_STATUS_NOT_INITIALIZED);
    assert_eq!(y, [0.0; 4], "nothing written");
    assert!(cublas_resident().is_empty(), "mublas loaded {:?} for a handle it could not use", cublas_resident());
}
