//! The handle behind `mublasHandle_t`: which device, which stream, which
//! pointer mode, and the work buffer of the routines that need one.

use crate::launch::{CUstream, DeviceBuffer, DeviceState};
use crate::routines;
use crate::status::{Error, Result};
use cudarc::driver::sys::CUstream_st;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};
use std::sync::Arc;

/// Where alpha and beta live (cuBLAS's pointer mode, same numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointerMode {
    Host = 0,
    Device = 1,
}

impl PointerMode {
    pub fn from_code(code: i32) -> Option<PointerMode> {
        match code {
            0 => Some(PointerMode::Host),
            1 => Some(PointerMode::Device),
            _ => None,
        }
    }
}

/// The work buffer starts zeroed (also after growing): the split reductions keep
/// per-tile arrival counters at its start, and every kernel that uses them leaves
/// them at zero again. It is shared by all of a handle's calls, whatever their
/// stream: as with cuBLAS's workspace, calls on one handle must not run on two
/// streams at once.
///
/// Work-buffer size rule: 4 MiB, or 64 KiB per SM when that is more (8.25 MiB on
/// a 132-SM H100). Enough for split reductions with a partial vector per split
/// and for TRMV's partial sums up to n ≈ 16k per block column; routines that
/// need more grow it (`Handle::work_buffer`). `MUBLAS_WORKSPACE_BYTES` overrides.
pub fn work_buffer_bytes(sm_count: u32) -> usize {
    if let Some(bytes) = std::env::var("MUBLAS_WORKSPACE_BYTES").ok().and_then(|v| v.parse::<usize>().ok()) {
        return bytes;
    }
    (4usize << 20).max(sm_count as usize * (64 << 10))
}

pub struct Handle {
    pub device: Arc<DeviceState>,
    /// Read on every call: atomics, not locks (the per-call host time shows in
    /// launch-bound timings). Writers are serialised by `stream_switch`.
    stream: AtomicPtr<CUstream_st>,
    stream_switch: Mutex<()>,
    pointer_mode: AtomicI32,
    work: Mutex<DeviceBuffer>,
}

impl Handle {
    /// Binds a new handle to the device current on the calling thread.
    pub fn create() -> Result<Handle> {
        crate::logging::init();
        crate::launch::driver::init()?;
        let ordinal = crate::launch::driver::current_device_ordinal()?;
        Handle::create_on(ordinal)
    }

    pub fn create_on(ordinal: i32) -> Result<Handle> {
        crate::logging::init();
        let device = DeviceState::open(ordinal, routines::ENTRY_POINTS)?;
        let bytes = work_buffer_bytes(device.model().sm_count);
        let work = DeviceBuffer::new(device.context(), bytes)?;
        work.zero()?;
        log::debug!("handle on device {ordinal}: work buffer {bytes} bytes");
        Ok(Handle {
            device,
            stream: AtomicPtr::new(std::ptr::null_mut()),
            stream_switch: Mutex::new(()),
            pointer_mode: AtomicI32::new(PointerMode::Host as i32),
            work: Mutex::new(work),
        })
    }

    pub fn stream(&self) -> CUstream {
        self.stream.load(Ordering::Acquire)
    }

    /// Switching streams first waits for the old one: work queued there may
    /// still be using the work buffer, which the next call on the new stream
    /// would overwrite.
    pub fn set_stream(&self, stream: CUstream) {
        let _switching = self.stream_switch.lock();
        let current = self.stream();
        if current != stream {
            if let Err(e) = crate::launch::context::synchronize_stream(self.device.context(), current) {
                log::warn!("waiting for the previous stream before switching: {e}");
            }
            self.stream.store(stream, Ordering::Release);
        }
    }

    pub fn pointer_mode(&self) -> PointerMode {
        PointerMode::from_code(self.pointer_mode.load(Ordering::Relaxed)).unwrap_or(PointerMode::Host)
    }

    pub fn set_pointer_mode(&self, mode: PointerMode) {
        self.pointer_mode.store(mode as i32, Ordering::Relaxed);
    }

    /// The work buffer, grown to at least `bytes` first. Growing frees the old
    /// buffer, which the driver does only after work already queued has finished.
    pub fn work_buffer(&self, bytes: usize) -> Result<parking_lot::MutexGuard<'_, DeviceBuffer>> {
        let mut work = self.work.lock();
        if work.bytes() < bytes {
            log::info!("growing the work buffer from {} to {bytes} bytes", work.bytes());
            *work = DeviceBuffer::new(self.device.context(), bytes)
                .map_err(|e| Error::AllocFailed(format!("work buffer: {e}")))?;
            work.zero()?;
        }
        Ok(work)
    }

    pub fn work_buffer_size(&self) -> usize {
        self.work.lock().bytes()
    }
}
