//! Level-2 exports: mublasSgemv and mublasSgemv_64.

use super::blas1::scalar_arg;
use super::types::*;
use super::{ffi_boundary, handle_ref, status_of, try_status};
use crate::routines::{self, gemv};
use std::ffi::c_int;

/// y = alpha·op(A)·x + beta·y (cuBLAS `cublasSgemv`), A column-major m×n with
/// leading dimension lda; op(A) is A for MUBLAS_OP_N and Aᵀ for MUBLAS_OP_T
/// and MUBLAS_OP_C. Bad arguments give INVALID_VALUE in reference-BLAS order
/// (trans, m, n, lda, incx, incy), where cuBLAS checks only lda. m == 0 or
/// n == 0, and a host alpha of 0 with a host beta of 1, return at once. beta = 0:
/// y is not read; alpha = 0: A and x are not read.
///
/// # Safety
/// `handle` null or live; `alpha` and `beta` per the pointer mode (a null one is
/// INVALID_VALUE, where cuBLAS would crash); A a device matrix of lda·(n-1) + m
/// floats; x and y device vectors of their lengths (n and m for N, m and n for
/// T) with their increments.
#[unsafe(no_mangle)]
#[allow(non_snake_case)]
pub unsafe extern "C" fn mublasSgemv(
    handle: mublasHandle_t,
    trans: mublasOperation_t,
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
    // SAFETY: per this function's contract, which is the 64-bit form's.
    unsafe {
        mublasSgemv_64(handle, trans, m as i64, n as i64, alpha, A, lda as i64, x, incx as i64, beta, y, incy as i64)
    }
}

/// `mublasSgemv` with 64-bit sizes, leading dimension and increments (cuBLAS
/// `cublasSgemv_64`), for matrices and vectors past 2^31 elements a side.
///
/// # Safety
/// As `mublasSgemv`.
#[unsafe(no_mangle)]
#[allow(non_snake_case)]
pub unsafe extern "C" fn mublasSgemv_64(
    handle: mublasHandle_t,
    trans: mublasOperation_t,
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
    ffi_boundary!({
        // SAFETY: per this function's contract.
        let h = try_status!(unsafe { handle_ref(handle) });
        // SAFETY: per this function's contract.
        unsafe { sgemv(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) }
    })
}

/// The body of `mublasSgemv`, `mublasSgemv_64` and of the interposed `cublasSgemv_v2`/`_v2_64`.
///
/// # Safety
/// As `mublasSgemv`.
#[allow(non_snake_case, clippy::too_many_arguments)]
pub(crate) unsafe fn sgemv(
    h: &crate::handle::Handle,
    trans: i32,
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
    // Bad arguments before anything is read, empty matrices before the scalars are.
    if let Err(error) = gemv::check_arguments(trans, m, n, lda, incx, incy) {
        return status_of(Err(error));
    }
    if m == 0 || n == 0 {
        return MUBLAS_STATUS_SUCCESS;
    }
    // SAFETY: per this function's contract.
    let alpha = try_status!(unsafe { scalar_arg(h, alpha) });
    // SAFETY: per this function's contract.
    let beta = try_status!(unsafe { scalar_arg(h, beta) });
    status_of(routines::gemv::sgemv(h, trans, m, n, alpha, A as u64, lda, x as u64, incx, beta, y as u64, incy))
}
