//! mublasCreate, mublasDestroy, streams, pointer modes, version.

use super::types::*;
use super::{ffi_boundary, handle_ref, status_of, try_status};
use crate::handle::{Handle, PointerMode};
use std::ffi::c_int;

/// Creates a handle bound to the context current on the calling thread (the
/// device's primary context, which the CUDA runtime uses, or one the program
/// made with cuCtxCreate), loads the kernels and reserves the work buffer.
///
/// # Safety
/// `handle` must be null (→ INVALID_VALUE) or point to writable memory for one handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasCreate(handle: *mut mublasHandle_t) -> mublasStatus_t {
    ffi_boundary!({
        if handle.is_null() {
            return MUBLAS_STATUS_INVALID_VALUE;
        }
        match Handle::create() {
            Ok(h) => {
                // SAFETY: checked non-null; the caller provides room for one pointer.
                unsafe { *handle = registered(h) };
                MUBLAS_STATUS_SUCCESS
            }
            Err(e) => status_of(Err(e)),
        }
    })
}

/// `h` boxed as a C handle that the entry points accept and `mublasDestroy` frees.
fn registered(h: Handle) -> mublasHandle_t {
    let raw = Box::into_raw(Box::new(h)) as mublasHandle_t;
    super::register_handle(raw);
    raw
}

/// A C handle whose launches are planned for another GPU
/// ([`Handle::create_planned_for`]), destroyed by `mublasDestroy`: for the GPU
/// tests, which call the entry points with it. Rust only, not in the C ABI.
pub fn create_planned_for(profile: crate::tuner::DeviceModel) -> crate::status::Result<mublasHandle_t> {
    Handle::create_planned_for(profile).map(registered)
}

/// Destroys a handle. Work already queued on its stream is not waited for;
/// the work buffer is freed once the device is done with it (cuMemFree waits).
///
/// # Safety
/// Any value: a null, destroyed or foreign handle gives NOT_INITIALIZED.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasDestroy(handle: mublasHandle_t) -> mublasStatus_t {
    ffi_boundary!({
        if handle.is_null() || !super::unregister_handle(handle) {
            return MUBLAS_STATUS_NOT_INITIALIZED;
        }
        // SAFETY: a live handle's box, made by mublasCreate, unregistered just now: freed once.
        drop(unsafe { Box::from_raw(handle as *mut Handle) });
        MUBLAS_STATUS_SUCCESS
    })
}

/// Sets the stream later calls run on; NULL is the legacy default stream.
///
/// # Safety
/// `handle` must be null or live; `stream` a stream of the handle's device, or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSetStream(handle: mublasHandle_t, stream: *mut CUstream_st) -> mublasStatus_t {
    ffi_boundary!({
        // SAFETY: per this function's contract.
        let h = try_status!(unsafe { handle_ref(handle) });
        h.set_stream(stream as crate::launch::CUstream);
        MUBLAS_STATUS_SUCCESS
    })
}

/// # Safety
/// `handle` must be null or live; `stream` null (→ INVALID_VALUE) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasGetStream(handle: mublasHandle_t, stream: *mut *mut CUstream_st) -> mublasStatus_t {
    ffi_boundary!({
        // SAFETY: per this function's contract.
        let h = try_status!(unsafe { handle_ref(handle) });
        if stream.is_null() {
            return MUBLAS_STATUS_INVALID_VALUE;
        }
        // SAFETY: checked non-null.
        unsafe { *stream = h.stream() as *mut CUstream_st };
        MUBLAS_STATUS_SUCCESS
    })
}

/// # Safety
/// `handle` must be null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSetPointerMode(handle: mublasHandle_t, mode: mublasPointerMode_t) -> mublasStatus_t {
    ffi_boundary!({
        // SAFETY: per this function's contract.
        let h = try_status!(unsafe { handle_ref(handle) });
        match PointerMode::from_code(mode) {
            Some(m) => {
                h.set_pointer_mode(m);
                MUBLAS_STATUS_SUCCESS
            }
            None => MUBLAS_STATUS_INVALID_VALUE,
        }
    })
}

/// # Safety
/// `handle` must be null or live; `mode` null (→ INVALID_VALUE) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasGetPointerMode(
    handle: mublasHandle_t,
    mode: *mut mublasPointerMode_t,
) -> mublasStatus_t {
    ffi_boundary!({
        // SAFETY: per this function's contract.
        let h = try_status!(unsafe { handle_ref(handle) });
        if mode.is_null() {
            return MUBLAS_STATUS_INVALID_VALUE;
        }
        // SAFETY: checked non-null.
        unsafe { *mode = h.pointer_mode() as mublasPointerMode_t };
        MUBLAS_STATUS_SUCCESS
    })
}

/// The library version, major·10000 + minor·100 + patch (cuBLAS's encoding).
/// Needs no GPU: the handle may be null.
///
/// # Safety
/// `version` must be null (→ INVALID_VALUE) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasGetVersion(handle: mublasHandle_t, version: *mut c_int) -> mublasStatus_t {
    ffi_boundary!({
        let _ = handle;
        if version.is_null() {
            return MUBLAS_STATUS_INVALID_VALUE;
        }
        // SAFETY: checked non-null.
        unsafe { *version = MUBLAS_VERSION };
        MUBLAS_STATUS_SUCCESS
    })
}
