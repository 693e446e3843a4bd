//! Interposed cublasStrmv_v2 and cublasStrmv_v2_64.

use super::{dispatch, forward_64};
use crate::capi::ffi_boundary;
use crate::capi::status_of;
use crate::capi::types::mublasStatus_t;
use crate::real_cublas::CublasHandle;
use crate::routines::trmv::strmv;
use std::ffi::c_int;

/// # Safety
/// As cuBLAS's `cublasStrmv_v2`.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn cublasStrmv_v2(
    handle: CublasHandle,
    uplo: c_int,
    trans: c_int,
    diag: c_int,
    n: c_int,
    A: *const f32,
    lda: c_int,
    x: *mut f32,
    incx: c_int,
) -> mublasStatus_t {
    ffi_boundary!({
        dispatch(
            handle,
            "cublasStrmv_v2",
            |_| None,
            // SAFETY: the caller's arguments, as cuBLAS takes them.
            |real| unsafe { (real.strmv)(handle, uplo, trans, diag, n, A, lda, x, incx) },
            |h| status_of(strmv(h, uplo, trans, diag, n as i64, A as u64, lda as i64, x as u64, incx as i64)),
        )
    })
}

/// # Safety
/// As cuBLAS's `cublasStrmv_v2_64`.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn cublasStrmv_v2_64(
    handle: CublasHandle,
    uplo: c_int,
    trans: c_int,
    diag: c_int,
    n: i64,
    A: *const f32,
    lda: i64,
    x: *mut f32,
    incx: i64,
) -> mublasStatus_t {
    ffi_boundary!({
        dispatch(
            handle,
            "cublasStrmv_v2_64",
            |_| None,
            // SAFETY: the caller's arguments, as cuBLAS takes them.
            |real| forward_64(real.strmv_64, |f| unsafe { f(handle, uplo, trans, diag, n, A, lda, x, incx) }),
            |h| status_of(strmv(h, uplo, trans, diag, n, A as u64, lda, x as u64, incx)),
        )
    })
}
