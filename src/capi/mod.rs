//! The C ABI: `extern "C"` exports with cuBLAS's signatures, enum values and
//! status codes. Only this layer dereferences pointers from callers; every
//! export that returns a status runs inside `ffi_boundary`, which turns a
//! panic into `MUBLAS_STATUS_INTERNAL_ERROR` instead of unwinding into C (the
//! status-name exports catch panics themselves and return the unrecognized
//! name).
//!
//! Enumerations arrive as plain C ints (`typedef int mublasOperation_t;` in the
//! header, ABI-identical to cuBLAS's enums) and are validated before use.

pub mod blas1;
pub mod blas2;
pub mod gemm;
pub mod handle;
pub mod memory;
pub mod status;
pub mod trmv;
pub mod types;

pub use types::*;

use crate::handle::Handle;
use crate::status::{Error, Status};

/// Runs an export's body, catching any panic. The body returns a status code.
macro_rules! ffi_boundary {
    ($body:block) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| -> $crate::capi::types::mublasStatus_t {
            $body
        })) {
            Ok(status) => status,
            Err(payload) => $crate::capi::panic_status(payload),
        }
    }};
}
pub(crate) use ffi_boundary;

#[cold]
pub(crate) fn panic_status(payload: Box<dyn std::any::Any + Send>) -> mublasStatus_t {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    log::error!("internal error (panic stopped at the C boundary): {what}");
    Status::InternalError as mublasStatus_t
}

/// Maps a routine's result to a status, logging what went wrong.
pub(crate) fn status_of(result: crate::status::Result<()>) -> mublasStatus_t {
    match result {
        Ok(()) => Status::Success as mublasStatus_t,
        Err(error) => {
            match &error {
                Error::InvalidValue(_) => log::warn!("{error}"),
                // Including InvalidArgument: cuBLAS prints "On entry to SGEMM parameter number N had an
                // illegal value" (as reference BLAS's XERBLA does), and at error level it shows without MUBLAS_LOG.
                _ => log::error!("{error}"),
            }
            error.status() as mublasStatus_t
        }
    }
}

/// Addresses of the live handles made by `mublasCreate`: a destroyed or foreign
/// handle is NOT_INITIALIZED instead of a dangling dereference, and the
/// interposed cuBLAS entry points tell our handles from cuBLAS's.
static LIVE_HANDLES: parking_lot::RwLock<Vec<usize>> = parking_lot::RwLock::new(Vec::new());

pub(crate) fn register_handle(handle: mublasHandle_t) {
    LIVE_HANDLES.write().push(handle as usize);
}

/// False when the handle was not live.
pub(crate) fn unregister_handle(handle: mublasHandle_t) -> bool {
    let mut live = LIVE_HANDLES.write();
    match live.iter().position(|h| *h == handle as usize) {
        Some(i) => {
            live.swap_remove(i);
            true
        }
        None => false,
    }
}

pub(crate) fn is_live_handle(handle: *const std::ffi::c_void) -> bool {
    LIVE_HANDLES.read().contains(&(handle as usize))
}

/// The handle behind a C pointer, or NOT_INITIALIZED for a null, destroyed or foreign one.
///
/// # Safety
/// The pointer is only dereferenced once it is known to be a live handle of ours.
pub(crate) unsafe fn handle_ref<'a>(handle: mublasHandle_t) -> Result<&'a Handle, mublasStatus_t> {
    if handle.is_null() || !is_live_handle(handle as *const _) {
        return Err(Status::NotInitialized as mublasStatus_t);
    }
    // SAFETY: a live handle from mublasCreate is the Handle its box holds.
    Ok(unsafe { &*(handle as *const Handle) })
}

/// Returns early from an export with a status when the expression is an Err.
macro_rules! try_status {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(status) => return status,
        }
    };
}
pub(crate) use try_status;
