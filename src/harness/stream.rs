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

    /// A stream that synchronises with the legacy default stream (cudaStreamCreate's default).
    pub fn blocking(context: sys::CUcontext) -> Result<Stream> {
        let _bound = ContextGuard::bind(context)?;
        let raw =
            result::stream::create(result::stream::StreamKind::Default).map_err(|e| Error::Internal(describe(&e)))?;
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

/// Holds a stream back: what is queued on it after [`StreamGate::close`]
/// waits until [`StreamGate::open`] (or the gate's drop, or 10 s). The tests
/// use it to show that a call queues its work on the stream it was given and
/// returns without waiting for it: while the gate is closed its output must
/// not change (a copy on the legacy default stream, which a non-blocking
/// stream does not wait for, reads it).
pub struct StreamGate {
    state: std::sync::Arc<GateState>,
}

#[derive(Default)]
struct GateState {
    open: std::sync::Mutex<bool>,
    opened: std::sync::Condvar,
    timed_out: std::sync::atomic::AtomicBool,
}

/// Runs on the driver's thread in stream order: blocks the stream until the gate opens.
unsafe extern "C" fn wait_at_gate(user: *mut std::ffi::c_void) {
    // SAFETY: the reference that StreamGate::close leaked for this call, taken back once.
    let state = unsafe { std::sync::Arc::from_raw(user as *const GateState) };
    let open = state.open.lock().unwrap_or_else(|p| p.into_inner());
    let (_open, wait) = state
        .opened
        .wait_timeout_while(open, std::time::Duration::from_secs(10), |open| !*open)
        .unwrap_or_else(|p| p.into_inner());
    if wait.timed_out() {
        state.timed_out.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

impl StreamGate {
    /// Queues the gate on `stream` (of `context`), closed.
    // An opaque driver handle, never dereferenced here; the driver checks it.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn close(context: sys::CUcontext, stream: sys::CUstream) -> Result<StreamGate> {
        let _bound = ContextGuard::bind(context)?;
        let state = std::sync::Arc::new(GateState::default());
        let user = std::sync::Arc::into_raw(state.clone()) as *mut std::ffi::c_void;
        // SAFETY: a stream of this context; wait_at_gate takes back the reference leaked into `user`.
        let queued = unsafe { sys::cuLaunchHostFunc(stream, Some(wait_at_gate), user) }.result();
        if let Err(e) = queued {
            // SAFETY: not queued, so never taken back there.
            drop(unsafe { std::sync::Arc::from_raw(user as *const GateState) });
            return Err(Error::Internal(describe(&e)));
        }
        Ok(StreamGate { state })
    }

    /// Lets the stream run on.
    pub fn open(&self) {
        *self.state.open.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.state.opened.notify_all();
    }

    /// Whether the stream stayed closed until 10 s had passed (then it opened by itself):
    /// something waited for the stream while the gate was closed.
    pub fn timed_out(&self) -> bool {
        self.state.timed_out.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for StreamGate {
    fn drop(&mut self) {
        self.open();
    }
}
