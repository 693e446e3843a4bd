//! Interposed level-1 entry points: cublasSaxpy_v2 and cublasSaxpy_v2_64.

use super::{entry_index, note_served, route, Route};
use crate::capi::blas1::saxpy;
use crate::capi::ffi_boundary;
use crate::capi::types::mublasStatus_t;
use crate::real_cublas::CublasHandle;
use std::ffi::c_int;

/// # Safety
/// As cuBLAS's `cublasSaxpy_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasSaxpy_v2(handle: CublasHandle, n: c_int, alpha: *const f32, x: *const f32, incx: c_int, y: *mut f32, incy: c_int) -> mublasStatus_t {
    ffi_boundary!({
        let entry = entry_index("cublasSaxpy_v2");
        match route(handle, entry) {
            Err(status) => status,
            // SAFETY (all arms): the caller's arguments, as cuBLAS takes them.
            Ok(Route::Forward(real)) => unsafe { (real.saxpy)(handle, n, alpha, x, incx, y, incy) },
            Ok(Route::Ours(h)) => unsafe { saxpy(h, n as i64, alpha, x, incx as i64, y, incy as i64) },
            Ok(Route::Shadow(h)) => {
                note_served(entry);
                unsafe { saxpy(&h, n as i64, alpha, x, incx as i64, y, incy as i64) }
            }
        }
    })
}

/// # Safety
/// As cuBLAS's `cublasSaxpy_v2_64`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasSaxpy_v2_64(handle: CublasHandle, n: i64, alpha: *const f32, x: *const f32, incx: i64, y: *mut f32, incy: i64) -> mublasStatus_t {
    ffi_boundary!({
        let entry = entry_index("cublasSaxpy_v2_64");
        match route(handle, entry) {
            Err(status) => status,
            // SAFETY (all arms): the caller's arguments, as cuBLAS takes them.
            Ok(Route::Forward(real)) => match real.saxpy_64 {
                Some(f) => unsafe { f(handle, n, alpha, x, incx, y, incy) },
                None => crate::status::Status::NotSupported as mublasStatus_t,
            },
            Ok(Route::Ours(h)) => unsafe { saxpy(h, n, alpha, x, incx, y, incy) },
            Ok(Route::Shadow(h)) => {
                note_served(entry);
                unsafe { saxpy(&h, n, alpha, x, incx, y, incy) }
            }
        }
    })
}
