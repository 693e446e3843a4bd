//! Interposed level-1 entry points: cublasSaxpy_v2 and cublasSaxpy_v2_64.

use super::{dispatch, forward_64};
use crate::capi::blas1::saxpy;
use crate::capi::ffi_boundary;
use crate::capi::types::mublasStatus_t;
use crate::real_cublas::CublasHandle;
use std::ffi::c_int;

/// # Safety
/// As cuBLAS's `cublasSaxpy_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasSaxpy_v2(
    handle: CublasHandle,
    n: c_int,
    alpha: *const f32,
    x: *const f32,
    incx: c_int,
    y: *mut f32,
    incy: c_int,
) -> mublasStatus_t {
    // SAFETY (both closures): the caller's arguments, as cuBLAS takes them.
    ffi_boundary!({
        dispatch(
            handle,
            "cublasSaxpy_v2",
            |_| None,
            |real| unsafe { (real.saxpy)(handle, n, alpha, x, incx, y, incy) },
            |h| unsafe { saxpy(h, n as i64, alpha, x, incx as i64, y, incy as i64) },
        )
    })
}

/// # Safety
/// As cuBLAS's `cublasSaxpy_v2_64`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasSaxpy_v2_64(
    handle: CublasHandle,
    n: i64,
    alpha: *const f32,
    x: *const f32,
    incx: i64,
    y: *mut f32,
    incy: i64,
) -> mublasStatus_t {
    // SAFETY (both closures): the caller's arguments, as cuBLAS takes them.
    ffi_boundary!({
        dispatch(
            handle,
            "cublasSaxpy_v2_64",
            |_| None,
            |real| forward_64(real.saxpy_64, |f| unsafe { f(handle, n, alpha, x, incx, y, incy) }),
            |h| unsafe { saxpy(h, n, alpha, x, incx, y, incy) },
        )
    })
}
