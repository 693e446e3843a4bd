//! Interposed level-2 entry points: cublasSgemv_v2 and cublasSgemv_v2_64.

use super::{dispatch, forward_64};
use crate::capi::blas2::sgemv;
use crate::capi::ffi_boundary;
use crate::capi::types::mublasStatus_t;
use crate::real_cublas::CublasHandle;
use std::ffi::c_int;

/// # Safety
/// As cuBLAS's `cublasSgemv_v2`.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn cublasSgemv_v2(
    handle: CublasHandle,
    trans: c_int,
    m: c_int,
    n: c_int,
    alpha: *const f32,
    A: *const f32,
    lda: c_int,
    x: *const f32,
    incx: c_int,
    beta: *const f32,
    y: *mut f32,
    incy: c_int,
) -> mublasStatus_t {
    // SAFETY (both closures): the caller's arguments, as cuBLAS takes them.
    ffi_boundary!({
        dispatch(
            handle,
            "cublasSgemv_v2",
            |_| None,
            |real| unsafe { (real.sgemv)(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) },
            |h| unsafe {
                sgemv(h, trans, m as i64, n as i64, alpha, A, lda as i64, x, incx as i64, beta, y, incy as i64)
            },
        )
    })
}

/// # Safety
/// As cuBLAS's `cublasSgemv_v2_64`.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn cublasSgemv_v2_64(
    handle: CublasHandle,
    trans: c_int,
    m: i64,
    n: i64,
    alpha: *const f32,
    A: *const f32,
    lda: i64,
    x: *const f32,
    incx: i64,
    beta: *const f32,
    y: *mut f32,
    incy: i64,
) -> mublasStatus_t {
    // SAFETY (both closures): the caller's arguments, as cuBLAS takes them.
    ffi_boundary!({
        dispatch(
            handle,
            "cublasSgemv_v2_64",
            |_| None,
            |real| {
                forward_64(real.sgemv_64, |f| unsafe { f(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) })
            },
            |h| unsafe { sgemv(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) },
        )
    })
}
