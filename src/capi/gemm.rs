//! Level-3 exports: mublasSgemm and mublasSgemm_64.

use super::blas1::scalar_arg;
use super::types::*;
use super::{ffi_boundary, handle_ref, status_of, try_status};
use crate::routines;
use std::ffi::c_int;

/// C = alpha·op(A)·op(B) + beta·C (cuBLAS `cublasSgemm`), column-major.
/// Bad arguments give INVALID_VALUE in reference-BLAS order (1 transa,
/// 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc), before alpha or beta is
/// read; m or n = 0 then returns at once, as does a host beta of 1 with
/// k = 0 or with a host alpha of 0; otherwise k = 0 or alpha = 0 scales C by beta without
/// reading A or B, and beta = 0 never reads C. A NULL alpha or beta is
/// INVALID_VALUE here, where cuBLAS would crash in host pointer mode.
///
/// # Safety
/// `handle` null or live; `alpha` and `beta` per the pointer mode; A, B and C
/// device matrices of the sizes their dimensions and leading dimensions give.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSgemm(
    handle: mublasHandle_t,
    transa: mublasOperation_t,
    transb: mublasOperation_t,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const f32,
    a: *const f32,
    lda: c_int,
    b: *const f32,
    ldb: c_int,
    beta: *const f32,
    c: *mut f32,
    ldc: c_int,
) -> mublasStatus_t {
    // SAFETY: per this function's contract, which is the 64-bit form's.
    unsafe {
        mublasSgemm_64(
            handle, transa, transb, m as i64, n as i64, k as i64, alpha, a, lda as i64, b, ldb as i64, beta, c,
            ldc as i64,
        )
    }
}

/// `mublasSgemm` with 64-bit sizes and leading dimensions (cuBLAS
/// `cublasSgemm_64`).
///
/// # Safety
/// As `mublasSgemm`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSgemm_64(
    handle: mublasHandle_t,
    transa: mublasOperation_t,
    transb: mublasOperation_t,
    m: i64,
    n: i64,
    k: i64,
    alpha: *const f32,
    a: *const f32,
    lda: i64,
    b: *const f32,
    ldb: i64,
    beta: *const f32,
    c: *mut f32,
    ldc: i64,
) -> mublasStatus_t {
    ffi_boundary!({
        // SAFETY: per this function's contract.
        let h = try_status!(unsafe { handle_ref(handle) });
        // SAFETY: per this function's contract.
        unsafe { sgemm(h, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) }
    })
}

/// The body of `mublasSgemm`, `mublasSgemm_64` and of the interposed `cublasSgemm_v2`, `_v2_64`
/// and (FP32) `cublasGemmEx`.
///
/// # Safety
/// As `mublasSgemm`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn sgemm(
    h: &crate::handle::Handle,
    transa: i32,
    transb: i32,
    m: i64,
    n: i64,
    k: i64,
    alpha: *const f32,
    a: *const f32,
    lda: i64,
    b: *const f32,
    ldb: i64,
    beta: *const f32,
    c: *mut f32,
    ldc: i64,
) -> mublasStatus_t {
    if let Err(error) = routines::gemm::check_arguments(transa, transb, m, n, k, lda, ldb, ldc) {
        return status_of(Err(error));
    }
    if m == 0 || n == 0 {
        return MUBLAS_STATUS_SUCCESS;
    }
    // SAFETY: per this function's contract.
    let alpha = try_status!(unsafe { scalar_arg(h, alpha) });
    // SAFETY: per this function's contract.
    let beta = try_status!(unsafe { scalar_arg(h, beta) });
    status_of(routines::gemm::sgemm(
        h, transa, transb, m, n, k, alpha, a as u64, lda, b as u64, ldb, beta, c as u64, ldc,
    ))
}
