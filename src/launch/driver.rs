//! Driver presence, initialisation and error mapping.

use crate::status::{Error, Result};
use cudarc::driver::{result, sys};
use std::sync::OnceLock;

/// True when `libcuda.so` can be loaded. Checked once: cudarc panics on first
/// use of a missing driver, so nothing calls into `sys` before this says yes.
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen the driver library by its usual names.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// Loads and initialises the driver, or says why it cannot be used.
pub fn init() -> Result<()> {
    if !driver_present() {
        return Err(Error::NotInitialized("no NVIDIA driver (libcuda.so) found".into()));
    }
    result::init().map_err(|e| Error::NotInitialized(format!("cuInit failed: {}", describe(&e))))?;
    let count = result::device::get_count().map_err(|e| Error::NotInitialized(describe(&e)))?;
    if count == 0 {
        return Err(Error::NotInitialized("the driver reports no CUDA device".into()));
    }
    Ok(())
}

/// What is current on the calling thread: its context, if any, and the device
/// it works on (that of the context, as the CUDA runtime would report it, or
/// device 0 when no context is current).
pub struct CurrentContext {
    pub context: Option<sys::CUcontext>,
    pub ordinal: i32,
}

impl CurrentContext {
    pub fn get() -> Result<CurrentContext> {
        let context = result::ctx::get_current().map_err(|e| Error::NotInitialized(describe(&e)))?;
        let mut ordinal: sys::CUdevice = 0;
        if context.is_some() {
            // SAFETY: a context is current; `ordinal` is a valid out-pointer.
            unsafe { sys::cuCtxGetDevice(&mut ordinal) }.result().map_err(|e| Error::NotInitialized(describe(&e)))?;
        }
        Ok(CurrentContext { context, ordinal })
    }

    /// The context when the program made it itself (cuCtxCreate), None when it
    /// is the device's primary context (the CUDA runtime's) or there is none.
    pub fn own(&self) -> Result<Option<sys::CUcontext>> {
        let Some(current) = self.context else { return Ok(None) };
        let (mut flags, mut active) = (0, 0);
        // SAFETY: a valid device and out-pointers.
        unsafe { sys::cuDevicePrimaryCtxGetState(self.ordinal, &mut flags, &mut active) }
            .result()
            .map_err(|e| Error::NotInitialized(describe(&e)))?;
        if active == 0 {
            // A current context is active: this one is not the primary.
            return Ok(Some(current));
        }
        // SAFETY: the primary context is active, so retaining it creates nothing; released at once.
        let primary =
            unsafe { result::primary_ctx::retain(self.ordinal) }.map_err(|e| Error::NotInitialized(describe(&e)))?;
        // SAFETY: balances the retain above.
        let _ = unsafe { result::primary_ctx::release(self.ordinal) };
        Ok((primary != current).then_some(current))
    }
}

/// "CUDA_ERROR_X (text)" for logs and error messages.
pub fn describe(e: &result::DriverError) -> String {
    let name = e.error_name().map(|c| c.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e.error_string().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
    format!("{name} ({text})")
}

/// A failed launch or a failure the driver reports while running.
pub fn execution_error(e: result::DriverError) -> Error {
    Error::ExecutionFailed(describe(&e))
}
