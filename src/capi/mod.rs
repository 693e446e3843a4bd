//! The C ABI: `extern "C"` exports with cuBLAS's signatures, enum values and
//! status codes. Only this layer dereferences pointers from callers; every
//! export runs inside [`ffi_boundary`], which turns a panic into
//! `MUBLAS_STATUS_INTERNAL_ERROR` instead of unwinding into C.
//!
//! Enumerations arrive as plain C ints (`typedef int mublasOperation_t;` in the
//! header, ABI-identical to cuBLAS's enums) and are validated before use.

pub mod blas1;
pub mod gemm;
pub mod handle;
pub mod status;
pub mod types;

pub use types::*;

use crate::handle::Handle;
use crate::status::{Error, Status};

/// Runs an export's body, catching any panic. The body returns a status code.
macro_rules! ffi_boundary {
    ($body:block) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| -> $crate::capi::types::mublasStatus_t { $body })) {
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
                Error::InvalidArgument { .. } | Error::InvalidValue(_) => log::warn!("{error}"),
                _ => log::error!("{error}"),
            }
            error.status() as mublasStatus_t
        }
    }
}

/// The handle behind a C pointer, or NOT_INITIALIZED for a null one.
///
/// # Safety
/// A non-null `handle` must come from `mublasCreate` and not be destroyed.
pub(crate) unsafe fn handle_ref<'a>(handle: mublasHandle_t) -> Result<&'a Handle, mublasStatus_t> {
    if handle.is_null() {
        return Err(Status::NotInitialized as mublasStatus_t);
    }
    // SAFETY: the caller's promise; mublasContext is the Handle the box held.
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
