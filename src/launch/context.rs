//! Making the handle's context current for the duration of one call.
//!
//! A handle is bound to the device that was current when it was created; a
//! later call from a thread whose current context differs must still run
//! there, and must leave the thread as it found it.

use super::driver::describe;
use crate::status::{Error, Result};
use cudarc::driver::{result, sys};

/// Binds a context to the calling thread and restores the previous one on drop.
pub struct ContextGuard {
    previous: Option<sys::CUcontext>,
}

impl ContextGuard {
    /// Costs one cuCtxGetCurrent when the context is already current (the common case).
    // A CUcontext is an opaque driver handle that this code never dereferences;
    // the driver checks it.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn bind(context: sys::CUcontext) -> Result<ContextGuard> {
        let current = result::ctx::get_current().map_err(|e| Error::Internal(describe(&e)))?;
        if current == Some(context) {
            return Ok(ContextGuard { previous: None });
        }
        // SAFETY: `context` is alive: a primary context the device state retains, a program's own context
        // that a handle's creator keeps until the handle is destroyed, or the one current when a copy
        // helper was called; the driver checks the handle.
        unsafe { result::ctx::set_current(context) }.map_err(|e| Error::Internal(describe(&e)))?;
        Ok(ContextGuard { previous: Some(current.unwrap_or(std::ptr::null_mut())) })
    }
}

impl Drop for ContextGuard {
    fn drop(&mut self) {
        if let Some(previous) = self.previous {
            // SAFETY: restores exactly what was current (possibly no context) when we bound.
            let _ = unsafe { result::ctx::set_current(previous) };
        }
    }
}

/// The driver's unique id of `context` (cuCtxGetId). A reset of the primary
/// context (cudaDeviceReset) renews it under the same CUcontext; None while
/// the context is destroyed, or reset and not yet retained again.
fn context_id(context: sys::CUcontext) -> Option<u64> {
    let mut id = 0u64;
    // SAFETY: an out-pointer; the driver validates the context.
    unsafe { sys::cuCtxGetId(context, &mut id) }.result().ok().map(|()| id)
}

/// A primary context as it was when our kernels, memory and events were made
/// in it. A reset (cudaDeviceReset) takes them all and renews the context's
/// id under the same CUcontext; the driver may then crash on their stale
/// handles: cuModuleUnload did in 4 runs of 20 on an H200, and so did
/// cuLaunchKernel (c-tests/test_reset.c).
#[derive(Clone, Copy)]
pub struct ContextIncarnation {
    context: sys::CUcontext,
    id: u64,
}

impl ContextIncarnation {
    /// `context` as it is now; None where the driver reports no id.
    pub fn of(context: sys::CUcontext) -> Option<ContextIncarnation> {
        context_id(context).map(|id| ContextIncarnation { context, id })
    }

    /// Whether the context was reset since (one cuCtxGetId: 16 ns on an H200).
    pub fn was_reset(&self) -> bool {
        context_id(self.context) != Some(self.id)
    }

    /// EXECUTION_FAILED once the context was reset: nothing made before may be used.
    pub fn ensure_current(&self) -> Result<()> {
        if self.was_reset() {
            return Err(Error::ExecutionFailed(
                "the device was reset (cudaDeviceReset) after this handle was created; destroy it and create another"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// Waits for `stream` (null: the legacy default stream) of `context`.
// Opaque driver handles, never dereferenced here; the driver checks them.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn synchronize_stream(context: sys::CUcontext, stream: sys::CUstream) -> Result<()> {
    let _bound = ContextGuard::bind(context)?;
    // SAFETY: a valid stream of this context, or null.
    unsafe { result::stream::synchronize(stream) }.map_err(|e| Error::ExecutionFailed(describe(&e)))
}

/// Waits for all work of `context`.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn synchronize_context(context: sys::CUcontext) -> Result<()> {
    let _bound = ContextGuard::bind(context)?;
    result::ctx::synchronize().map_err(|e| Error::ExecutionFailed(describe(&e)))
}

/// Whether `stream` is one of the driver's own streams (the legacy default
/// stream as null or CU_STREAM_LEGACY, and CU_STREAM_PER_THREAD), which no
/// program can destroy. Any other stream may be destroyed at any time after
/// the program stops using it, and the driver crashes on a destroyed
/// stream's handle (cuStreamIsCapturing on one segfaults, driver 580), so
/// mublas touches such a stream only while it is the handle's.
pub fn is_builtin_stream(stream: sys::CUstream) -> bool {
    (stream as usize) <= 2
}

/// Whether `stream` is the legacy default stream (null or CU_STREAM_LEGACY):
/// one stream of the context for every thread, where CU_STREAM_PER_THREAD is
/// a stream of each thread's own.
pub fn is_legacy_stream(stream: sys::CUstream) -> bool {
    (stream as usize) <= 1
}

/// Which stream, in a form that outlives it: the driver may give a destroyed
/// stream's address to the next stream the program makes, never its ID.
#[derive(Clone, Copy, Debug)]
pub enum StreamKey {
    /// The legacy default stream, as null or CU_STREAM_LEGACY.
    Legacy,
    /// CU_STREAM_PER_THREAD from this thread: its default stream.
    PerThread(std::thread::ThreadId),
    Created(u64),
    /// The driver could not say (then it is the same as no other stream).
    Unknown,
}

impl StreamKey {
    /// The key of a live stream (one the program has not destroyed), named by the calling thread.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn of(stream: sys::CUstream) -> StreamKey {
        if is_legacy_stream(stream) {
            return StreamKey::Legacy;
        }
        if is_builtin_stream(stream) {
            return StreamKey::PerThread(std::thread::current().id());
        }
        let mut id = 0;
        // SAFETY: a live stream and an out-pointer.
        match unsafe { sys::cuStreamGetId(stream, &mut id) }.result() {
            Ok(()) => StreamKey::Created(id),
            Err(_) => StreamKey::Unknown,
        }
    }

    pub fn same_as(self, other: StreamKey) -> bool {
        match (self, other) {
            (StreamKey::Legacy, StreamKey::Legacy) => true,
            (StreamKey::PerThread(a), StreamKey::PerThread(b)) => a == b,
            (StreamKey::Created(a), StreamKey::Created(b)) => a == b,
            _ => false,
        }
    }
}

/// An event of mublas's own, which outlives any stream it was recorded on.
pub struct OwnedEvent {
    raw: sys::CUevent,
    context: sys::CUcontext,
}

// SAFETY: an event is a driver handle, usable from any thread with its context bound.
unsafe impl Send for OwnedEvent {}
unsafe impl Sync for OwnedEvent {}

impl OwnedEvent {
    /// An event without timing (recording and waiting cost less) in `context`.
    pub fn new(context: sys::CUcontext) -> Result<OwnedEvent> {
        let _bound = ContextGuard::bind(context)?;
        let raw = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .map_err(|e| Error::Internal(describe(&e)))?;
        Ok(OwnedEvent { raw, context })
    }

    pub fn context(&self) -> sys::CUcontext {
        self.context
    }

    /// Records the work queued on `stream` so far (a live stream of the context).
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn record(&self, stream: sys::CUstream) -> Result<()> {
        let _bound = ContextGuard::bind(self.context)?;
        // SAFETY: a live event; the caller vouches for the stream.
        unsafe { result::event::record(self.raw, stream) }.map_err(|e| Error::ExecutionFailed(describe(&e)))
    }

    /// Makes what is queued on `stream` from now on wait for the last record,
    /// without the host waiting.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn make_wait(&self, stream: sys::CUstream) -> Result<()> {
        let _bound = ContextGuard::bind(self.context)?;
        // SAFETY: a live event; the caller vouches for the stream.
        unsafe { result::stream::wait_event(stream, self.raw, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
            .map_err(|e| Error::ExecutionFailed(describe(&e)))
    }
}

impl Drop for OwnedEvent {
    fn drop(&mut self) {
        if let Ok(_bound) = ContextGuard::bind(self.context) {
            // SAFETY: created by us, destroyed once (the driver keeps a pending record until it completes).
            let _ = unsafe { result::event::destroy(self.raw) };
        }
    }
}

/// Whether `stream` is capturing a CUDA graph. While it is, nothing may
/// allocate memory or wait for a stream on the capturing thread's behalf: in
/// the capture modes most programs use (PyTorch's included) such a call fails
/// and invalidates the whole capture. The legacy default stream (null) never
/// captures and is not asked (the driver answers for it with an error while
/// another stream captures); a query that fails otherwise counts as capturing.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn stream_is_capturing(context: sys::CUcontext, stream: sys::CUstream) -> bool {
    if stream.is_null() {
        return false;
    }
    let Ok(_bound) = ContextGuard::bind(context) else { return true };
    stream_is_capturing_here(stream)
}

/// [`stream_is_capturing`] in the calling thread's current context (a
/// program's stream before mublas has state on its device).
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn stream_is_capturing_here(stream: sys::CUstream) -> bool {
    if stream.is_null() {
        return false;
    }
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: a valid stream of this context and an out-pointer.
    let result = unsafe { sys::cuStreamIsCapturing(stream, &mut status) };
    result != sys::CUresult::CUDA_SUCCESS || status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_drivers_own_streams_count_as_builtin() {
        for builtin in [0usize, 1, 2] {
            assert!(is_builtin_stream(builtin as sys::CUstream), "{builtin}");
        }
        // A created stream's handle is a pointer into the driver's memory.
        assert!(!is_builtin_stream(0x5634_1000usize as sys::CUstream));
    }

    #[test]
    fn stream_keys_match_only_the_same_known_stream() {
        use StreamKey::*;
        assert!(Legacy.same_as(Legacy) && Created(7).same_as(Created(7)));
        assert!(!Legacy.same_as(Created(0)) && !Created(7).same_as(Created(8)));
        assert!(!Unknown.same_as(Unknown));
        // Null and CU_STREAM_LEGACY name one stream; CU_STREAM_PER_THREAD a stream of each thread.
        let [null, legacy, per_thread] = [0usize, 1, 2].map(|s| StreamKey::of(s as sys::CUstream));
        assert!(null.same_as(legacy) && !legacy.same_as(per_thread));
        assert!(per_thread.same_as(StreamKey::of(2usize as sys::CUstream)), "the same thread's");
        let other_thread = std::thread::spawn(|| StreamKey::of(2usize as sys::CUstream)).join().unwrap();
        assert!(!per_thread.same_as(other_thread), "another thread's default stream is another stream");
        assert!(is_legacy_stream(std::ptr::null_mut()) && !is_legacy_stream(2usize as sys::CUstream));
    }
}
