//! A CUDA stream the harness creates (a non-default stream for tests).

use crate::launch::context::ContextGuard;
use crate::launch::driver::describe;
use crate::status::{Error, Result};
use cudarc::driver::{result, sys};

pub struct Stream {
    raw: sys::CUstream,
    context: sys::CUcontext,
}

impl Stream {
    pub fn new(context: sys::CUcontext) -> Result<Stream> {
        let _bound = ContextGuard::bind(context)?;
        let raw = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| Error::Internal(describe(&e)))?;
        Ok(Stream { raw, context })
    }

    pub fn raw(&self) -> sys::CUstream {
        self.raw
    }

    pub fn synchronize(&self) -> Result<()> {
        synchronize(self.context, self.raw)
    }
}

/// Waits for `stream` (null: the legacy default stream) in `context`.
pub fn synchronize(context: sys::CUcontext, stream: sys::CUstream) -> Result<()> {
    crate::launch::context::synchronize_stream(context, stream)
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let Ok(_bound) = ContextGuard::bind(self.context) {
            // SAFETY: created by us, destroyed once.
            let _ = unsafe { result::stream::destroy(self.raw) };
        }
    }
}
