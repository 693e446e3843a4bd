//! Level-1 exports: mublasSaxpy and mublasSaxpy_64.

use super::types::*;
use super::{ffi_boundary, handle_ref, status_of, try_status};
use crate::handle::{Handle, PointerMode};
use crate::routines::{self, Scalar};
use std::ffi::c_int;

/// Reads a scalar argument per the handle's pointer mode. A null pointer is
/// INVALID_VALUE here, where cuBLAS would crash in host mode.
///
/// # Safety
/// A non-null `value` must be readable in host mode.
pub(crate) unsafe fn scalar_arg(handle: &Handle, value: *const f32) -> Result<Scalar, mublasStatus_t> {
    if value.is_null() {
        log::warn!("a scalar argument (alpha or beta) is NULL");
        return Err(MUBLAS_STATUS_INVALID_VALUE);
    }
    Ok(match handle.pointer_mode() {
        // SAFETY: host mode: the caller's pointer to one float.
        PointerMode::Host => Scalar::Host(unsafe { value.read() }),
        PointerMode::Device => Scalar::Device(value as u64),
    })
}

/// The body of `mublasSaxpy`, `mublasSaxpy_64` and of the interposed `cublasSaxpy_v2`/`_v2_64`.
///
/// # Safety
/// As `mublasSaxpy`.
pub(crate) unsafe fn saxpy(
    h: &Handle,
    n: i64,
    alpha: *const f32,
    x: *const f32,
    incx: i64,
    y: *mut f32,
    incy: i64,
) -> mublasStatus_t {
    if n <= 0 {
        return MUBLAS_STATUS_SUCCESS;
    }
    // SAFETY: per this function's contract.
    let alpha = try_status!(unsafe { scalar_arg(h, alpha) });
    status_of(routines::axpy::saxpy(h, n, alpha, x as u64, incx, y as u64, incy))
}

/// y = alpha·x + y (cuBLAS `cublasSaxpy`). n ≤ 0 and a host alpha of 0 return
/// at once. Increments follow reference BLAS: negative ones walk backwards,
/// incx = 0 repeats `x[0]`, and incy = 0 adds every term into `y[0]` (in a fixed
/// order, so repeated calls give the same bits).
///
/// # Safety
/// `handle` null or live; `alpha` per the pointer mode; x and y device vectors
/// of n elements with their increments.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSaxpy(
    handle: mublasHandle_t,
    n: c_int,
    alpha: *const f32,
    x: *const f32,
    incx: c_int,
    y: *mut f32,
    incy: c_int,
) -> mublasStatus_t {
    // SAFETY: per this function's contract, which is the 64-bit form's.
    unsafe { mublasSaxpy_64(handle, n as i64, alpha, x, incx as i64, y, incy as i64) }
}

/// `mublasSaxpy` with 64-bit n and increments (cuBLAS `cublasSaxpy_64`), for
/// vectors past 2^31 elements.
///
/// # Safety
/// As `mublasSaxpy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSaxpy_64(
    handle: mublasHandle_t,
    n: i64,
    alpha: *const f32,
    x: *const f32,
    incx: i64,
    y: *mut f32,
    incy: i64,
) -> mublasStatus_t {
    ffi_boundary!({
        // SAFETY: per this function's contract.
        let h = try_status!(unsafe { handle_ref(handle) });
        // SAFETY: per this function's contract.
        unsafe { saxpy(h, n, alpha, x, incx, y, incy) }
    })
}
