//! Interposed level-2 entry points: cublasSgemv_v2 and cublasSgemv_v2_64.

use super::{entry_index, note_served, route, Route};
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
    ffi_boundary!({
        let entry = entry_index("cublasSgemv_v2");
        match route(handle, entry) {
            Err(status) => status,
            // SAFETY (all arms): the caller's arguments, as cuBLAS takes them.
            Ok(Route::Forward(real)) => unsafe { (real.sgemv)(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) },
            Ok(Route::Ours(h)) => unsafe { sgemv(h, trans, m as i64, n as i64, alpha, A, lda as i64, x, incx as i64, beta, y, incy as i64) },
            Ok(Route::Shadow(h)) => {
                note_served(entry);
                unsafe { sgemv(&h, trans, m as i64, n as i64, alpha, A, lda as i64, x, incx as i64, beta, y, incy as i64) }
            }
        }
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
    ffi_boundary!({
        let entry = entry_index("cublasSgemv_v2_64");
        match route(handle, entry) {
            Err(status) => status,
            // SAFETY (all arms): the caller's arguments, as cuBLAS takes them.
            Ok(Route::Forward(real)) => match real.sgemv_64 {
                Some(f) => unsafe { f(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) },
                None => crate::status::Status::NotSupported as mublasStatus_t,
            },
            Ok(Route::Ours(h)) => unsafe { sgemv(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) },
            Ok(Route::Shadow(h)) => {
                note_served(entry);
                unsafe { sgemv(&h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy) }
            }
        }
    })
}
