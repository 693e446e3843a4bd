//! Level-2 exports: mublasStrmv and mublasStrmv_64. (A file of its own so that SGEMV's exports
//! can live in blas2.rs without the two changing one file.)

use super::types::*;
use super::{ffi_boundary, handle_ref, status_of, try_status};
use crate::routines;
use std::ffi::c_int;

/// x := op(A)·x for a triangular n × n matrix A (cuBLAS `cublasStrmv`).
/// Arguments are checked in reference-BLAS order (1 uplo, 2 trans, 3 diag,
/// 4 n < 0, 6 lda < max(1, n), 8 incx = 0) after the handle; n = 0 returns at
/// once. incx may be negative (reference-BLAS indexing). Where the work
/// buffer cannot hold the partial sums of the whole n (past
/// `MUBLAS_WORKSPACE_LIMIT_BYTES`, out of device memory, or a larger buffer
/// needed while the stream is being captured into a graph), it multiplies in
/// diagonal blocks; ALLOC_FAILED only where not even blocks of 64 fit.
///
/// # Safety
/// `handle` null or live; A a device matrix holding the referenced triangle
/// with leading dimension lda; x a device vector of n elements with increment
/// incx, not overlapping A.
#[unsafe(no_mangle)]
#[allow(non_snake_case)] // `A`, as cuBLAS's header spells it
pub unsafe extern "C" fn mublasStrmv(
    handle: mublasHandle_t,
    uplo: mublasFillMode_t,
    trans: mublasOperation_t,
    diag: mublasDiagType_t,
    n: c_int,
    A: *const f32,
    lda: c_int,
    x: *mut f32,
    incx: c_int,
) -> mublasStatus_t {
    // SAFETY: per this function's contract, which is the 64-bit form's.
    unsafe { mublasStrmv_64(handle, uplo, trans, diag, n as i64, A, lda as i64, x, incx as i64) }
}

/// `mublasStrmv` with 64-bit n, leading dimension and increment (cuBLAS
/// `cublasStrmv_64`).
///
/// # Safety
/// As `mublasStrmv`.
#[unsafe(no_mangle)]
#[allow(non_snake_case)]
pub unsafe extern "C" fn mublasStrmv_64(
    handle: mublasHandle_t,
    uplo: mublasFillMode_t,
    trans: mublasOperation_t,
    diag: mublasDiagType_t,
    n: i64,
    A: *const f32,
    lda: i64,
    x: *mut f32,
    incx: i64,
) -> mublasStatus_t {
    ffi_boundary!({
        // SAFETY: per this function's contract.
        let h = try_status!(unsafe { handle_ref(handle) });
        status_of(routines::trmv::strmv(h, uplo, trans, diag, n, A as u64, lda, x as u64, incx))
    })
}
