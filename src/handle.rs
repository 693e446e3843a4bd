//! The handle behind `mublasHandle_t`: which device, which stream, which
//! pointer mode, and the work buffer of the routines that need one.

use crate::launch::context::{
    OwnedEvent, StreamKey, is_legacy_stream, stream_is_capturing, synchronize_context, synchronize_stream,
};
use crate::launch::{CUstream, DeviceBuffer, DeviceState};
use crate::routines;
use crate::status::{Error, Result};
use crate::tuner::plan_cache::DecisionCache;
use cudarc::driver::sys::CUstream_st;
use parking_lot::Mutex;
use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};

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

/// The work buffer starts zeroed (also after growing). Its first
/// [`SPLIT_COUNTER_BYTES`] are the split reductions' arrival counters, which
/// every kernel that uses them leaves at zero again; then SGEMV's split slots
/// ([`SPLIT_SLOT_BYTES`]), which its kernels also leave at zero and nothing
/// else writes; the scratch space after them is for partial sums of any
/// routine ([`WorkArea`]), so that these never overwrite the counters or the
/// slots. It is shared by all of a handle's calls, whatever their stream: a
/// call on another stream than the buffer's last user is ordered after that
/// use on the device (`WorkFence`), except for calls captured into a CUDA
/// graph, whose launches the program orders (a graph launched while the
/// handle's other calls run shares the buffer with them, as a cuBLAS handle's
/// workspace would be shared).
///
/// Scratch size rule: 4 MiB, or 64 KiB per SM when that is more (8.25 MiB on
/// a 132-SM H100), after the counters and slots ([`WORK_FIXED_BYTES`]). Enough
/// for TRMV's partial sums (256 bytes an element at most) up to n = 16384 at
/// 4 MiB, about 33 000 on an H100; routines that
/// need more grow it (`Handle::work_area`). `MUBLAS_WORKSPACE_BYTES` overrides.
pub fn work_buffer_bytes(sm_count: u32) -> usize {
    if let Some(bytes) = std::env::var("MUBLAS_WORKSPACE_BYTES").ok().and_then(|v| v.parse::<usize>().ok()) {
        return bytes;
    }
    (4usize << 20).max(sm_count as usize * (64 << 10))
}

/// The most work buffer a call may use: `MUBLAS_WORKSPACE_LIMIT_BYTES`, else no
/// limit. A call that would need more gets ALLOC_FAILED from
/// [`Handle::work_area`], as when the driver cannot grow the buffer; SGEMM
/// and SGEMV then run without the work buffer (no A^T copy, no split), STRMV
/// in diagonal blocks whose partial sums fit (returning the status where not
/// even the smallest do).
pub fn work_limit_bytes() -> usize {
    std::env::var("MUBLAS_WORKSPACE_LIMIT_BYTES").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(usize::MAX)
}

/// Arrival counters at the start of the work buffer, one per row tile (SGEMV-N)
/// or column group (SGEMV-T) of a split launch: a launch with more tiles than
/// this does not split.
pub const SPLIT_COUNTER_SLOTS: u64 = 16384;
/// Bytes the counters take; SGEMV's split slots start there (a multiple of 256).
pub const SPLIT_COUNTER_BYTES: u64 = SPLIT_COUNTER_SLOTS * 4;
/// SGEMV's split slots after the counters: a partial sum and a flag in 8
/// bytes each (kernels/common.cuh, SplitSlot), a slot per range of the split
/// and element of y. The kernels wait for a slot's flag instead of a fence, so
/// no other routine may write here: stale bits could pass for a flag. A
/// launch whose split needs more does not split that far (src/routines/gemv/).
pub const SPLIT_SLOTS: u64 = 1 << 20;
/// Bytes the slots take (8 MiB).
pub const SPLIT_SLOT_BYTES: u64 = SPLIT_SLOTS * 8;
/// The counters and the slots: the scratch space starts here (a multiple of 256).
pub const WORK_FIXED_BYTES: u64 = SPLIT_COUNTER_BYTES + SPLIT_SLOT_BYTES;

/// One call's hold on the work buffer: the split counters, SGEMV's split
/// slots and at least the scratch bytes it asked for, its alone until dropped
/// (other calls on the handle wait, and so does `Handle::set_stream`: the
/// handle's stream is `stream` meanwhile, so every launch of the call goes
/// there). Dropped after the call's launches are queued on `stream`.
pub struct WorkArea<'a> {
    work: parking_lot::MutexGuard<'a, WorkBuffer>,
    stream: CUstream,
    key: StreamKey,
    capturing: bool,
}

impl WorkArea<'_> {
    /// [`SPLIT_COUNTER_SLOTS`] u32 counters, all 0 between launches.
    pub fn counters(&self) -> u64 {
        self.work.buffer.address()
    }

    /// [`SPLIT_SLOTS`] SGEMV split slots, all 0 between launches.
    pub fn slots(&self) -> u64 {
        self.work.buffer.address() + SPLIT_COUNTER_BYTES
    }

    /// Scratch space after the counters and slots, 256-byte aligned.
    pub fn scratch(&self) -> u64 {
        self.work.buffer.address() + WORK_FIXED_BYTES
    }
}

impl Drop for WorkArea<'_> {
    /// On a stream the program made, or a thread's default stream, the call's
    /// use of the buffer is fenced now, while the stream is surely alive and
    /// the calling thread's (`WorkFence`).
    fn drop(&mut self) {
        if is_legacy_stream(self.stream) || self.capturing {
            return;
        }
        if let Err(e) = self.work.fence.record(self.stream, self.key) {
            log::warn!("fencing the work buffer's use ({e}): waiting for the stream instead");
            if let Err(e) = synchronize_stream(self.work.fence.event.context(), self.stream) {
                log::warn!("waiting for the stream: {e}");
            }
        }
    }
}

/// The buffer, the fence of its last use, and the buffers it outgrew while a
/// CUDA graph held their addresses.
struct WorkBuffer {
    buffer: DeviceBuffer,
    fence: WorkFence,
    /// Whether a captured call has used `buffer`: a graph keeps the
    /// addresses its kernels were captured with for all its launches, so when
    /// the buffer grows, this one is kept until the handle is destroyed
    /// (as cuBLAS keeps a handle's workspace) instead of freed.
    captured: bool,
    outgrown: Vec<DeviceBuffer>,
}

/// Where the work buffer was last used, for a call on another stream to wait
/// for (an event, so the host does not wait). Recorded after each call on a
/// stream the program made, which it may destroy as soon as it switches the
/// handle away (the driver crashes on a destroyed stream's handle, so nothing
/// may ask that stream anything later), and on CU_STREAM_PER_THREAD, which is
/// a stream of each calling thread; and at the switch itself on the legacy
/// default stream, which outlives the handle and is every thread's (so its
/// calls pay nothing).
struct WorkFence {
    event: OwnedEvent,
    /// The stream of the last record, while a call on another stream has yet
    /// to wait for it.
    pending_on: Option<StreamKey>,
}

impl WorkFence {
    /// Records on `stream`, a live stream of the handle's context, whose key is `key`.
    fn record(&mut self, stream: CUstream, key: StreamKey) -> Result<()> {
        self.event.record(stream)?;
        self.pending_on = Some(key);
        Ok(())
    }

    /// Orders what `stream` (live, not capturing; its key is `key`) queues
    /// from now on after the last fenced use on another stream.
    fn order_before(&mut self, stream: CUstream, key: StreamKey) -> Result<()> {
        match self.pending_on {
            Some(fenced) if !fenced.same_as(key) => {
                self.event.make_wait(stream)?;
                self.pending_on = None;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

pub struct Handle {
    /// Freed first, by Drop, before `device` can release the context.
    work: ManuallyDrop<Mutex<WorkBuffer>>,
    pub device: Arc<DeviceState>,
    /// Read on every call: atomics, not locks (the per-call host time shows in
    /// launch-bound timings). Writers are serialised by `stream_switch`.
    stream: AtomicPtr<CUstream_st>,
    stream_switch: Mutex<()>,
    pointer_mode: AtomicI32,
    /// See [`work_limit_bytes`].
    work_limit: AtomicUsize,
    /// SGEMM's plans of automatic calls, so that a repeated call does not decide again.
    pub sgemm_plans: routines::gemm::SgemmPlans,
    /// SGEMV's, likewise.
    pub sgemv_plans: routines::gemv::SgemvPlans,
}

impl Drop for Handle {
    /// The work buffer and its fence event go first, while `device` still
    /// holds the context. After a reset of the primary context
    /// ([`DeviceState::context_was_reset`]) they went with it, and their stale
    /// driver handles are left alone.
    fn drop(&mut self) {
        if self.device.context_was_reset() {
            log::info!("destroying a handle whose context was reset: its work buffer went with the context");
            return;
        }
        // SAFETY: dropped once, here, and not used after.
        unsafe { ManuallyDrop::drop(&mut self.work) };
    }
}

/// The device and, where the program made it (cuCtxCreate), the context
/// current on the calling thread: what a new handle binds to.
fn current_context() -> Result<(i32, Option<crate::launch::CUcontext>)> {
    crate::logging::init();
    crate::launch::driver::init()?;
    let current = crate::launch::driver::CurrentContext::get()?;
    Ok((current.ordinal, current.own()?))
}

impl Handle {
    /// Binds a new handle to the context current on the calling thread (as
    /// cuBLAS does): the device's primary context, which the CUDA runtime uses,
    /// or one the program made itself (cuCtxCreate), which it must then keep
    /// until the handle is destroyed.
    pub fn create() -> Result<Handle> {
        let (ordinal, own_context) = current_context()?;
        Handle::create_in(ordinal, own_context)
    }

    /// A handle in device `ordinal`'s primary context.
    pub fn create_on(ordinal: i32) -> Result<Handle> {
        Handle::create_in(ordinal, None)
    }

    /// A handle as [`create`](Self::create) makes, whose launches are planned
    /// for `profile`, another GPU no larger than this one (one of
    /// [`DeviceModel::other_gpus`](crate::tuner::DeviceModel::other_gpus)),
    /// with the code that GPU gets, and run on this one: the tests' way to
    /// meet the rules that read the device on GPUs they do not have. Its
    /// device state is its own (kernels loaded again, a tuner of its own).
    pub fn create_planned_for(profile: crate::tuner::DeviceModel) -> Result<Handle> {
        let (ordinal, own_context) = current_context()?;
        Handle::create_with(
            ordinal,
            DeviceState::open_planned_for(ordinal, own_context, profile, routines::ENTRY_POINTS)?,
        )
    }

    fn create_in(ordinal: i32, own_context: Option<crate::launch::CUcontext>) -> Result<Handle> {
        crate::logging::init();
        Handle::create_with(ordinal, DeviceState::open(ordinal, own_context, routines::ENTRY_POINTS)?)
    }

    /// A handle on `device`: its work buffer and an empty plan cache.
    fn create_with(ordinal: i32, device: Arc<DeviceState>) -> Result<Handle> {
        let work_limit = work_limit_bytes();
        let scratch = work_buffer_bytes(device.model().sm_count);
        let bytes =
            (WORK_FIXED_BYTES as usize).saturating_add(scratch).min(work_limit).max(SPLIT_COUNTER_BYTES as usize);
        let work = DeviceBuffer::new(device.context(), bytes)?;
        work.zero()?;
        let fence = WorkFence { event: OwnedEvent::new(device.context())?, pending_on: None };
        let work = WorkBuffer { buffer: work, fence, captured: false, outgrown: Vec::new() };
        log::debug!("handle on device {ordinal}: work buffer {bytes} bytes");
        Ok(Handle {
            device,
            stream: AtomicPtr::new(std::ptr::null_mut()),
            stream_switch: Mutex::new(()),
            pointer_mode: AtomicI32::new(PointerMode::Host as i32),
            work: ManuallyDrop::new(Mutex::new(work)),
            work_limit: AtomicUsize::new(work_limit),
            sgemm_plans: DecisionCache::with_capacity(routines::gemm::SGEMM_PLANS_CAPACITY),
            sgemv_plans: DecisionCache::with_capacity(routines::gemv::SGEMV_PLANS_CAPACITY),
        })
    }

    pub fn stream(&self) -> CUstream {
        self.stream.load(Ordering::Acquire)
    }

    /// Sets the stream of later calls, returning at once as cuBLAS's
    /// cublasSetStream does: the work buffer's users on the old stream are
    /// fenced (`WorkFence`), and the next call on the new stream that uses
    /// it waits for them on the device. Leaving the legacy default stream
    /// records the fence now (a program's stream, and a thread's default
    /// stream, fenced each of their calls; after a chain of switches the fence is the last one's, which
    /// waited for those before). Not when either stream is capturing a CUDA
    /// graph: a dependency between a capture and work outside it would
    /// invalidate the capture (a blocking stream's, even through the legacy
    /// default stream), and captured calls run only when the program launches
    /// the graph, after what it has ordered before (PyTorch synchronises the
    /// device before it captures). A call that holds the work buffer on
    /// another thread finishes queueing its launches first, on the old stream.
    pub fn set_stream(&self, stream: CUstream) {
        let _switching = self.stream_switch.lock();
        let current = self.stream();
        if current == stream {
            return;
        }
        let mut work = self.work.lock();
        let context = self.device.context();
        // After a reset of the context the fence event is gone with it (and the handle's calls fail).
        if is_legacy_stream(current)
            && !stream_is_capturing(context, current)
            && !stream_is_capturing(context, stream)
            && !self.device.context_was_reset()
        {
            let key = StreamKey::of(current);
            let fenced = work.fence.order_before(current, key).and_then(|()| work.fence.record(current, key));
            if let Err(e) = fenced {
                log::warn!("fencing the previous stream's work ({e}): waiting for the device instead");
                if let Err(e) = synchronize_context(context) {
                    log::warn!("waiting for the device before switching streams: {e}");
                }
                work.fence.pending_on = None;
            }
        }
        self.stream.store(stream, Ordering::Release);
    }

    pub fn pointer_mode(&self) -> PointerMode {
        PointerMode::from_code(self.pointer_mode.load(Ordering::Relaxed)).unwrap_or(PointerMode::Host)
    }

    pub fn set_pointer_mode(&self, mode: PointerMode) {
        self.pointer_mode.store(mode as i32, Ordering::Relaxed);
    }

    /// The work buffer, grown first to hold the counters, the slots and
    /// `scratch_bytes` after them. Growing frees the old buffer, which the
    /// driver does only after work already queued has finished. ALLOC_FAILED when that is
    /// more than the handle's limit or the driver has no memory for it, and
    /// when the handle's stream is capturing a CUDA graph (the allocation
    /// would invalidate the capture; a call before it grows the buffer).
    pub fn work_area(&self, scratch_bytes: u64) -> Result<WorkArea<'_>> {
        let bytes = (WORK_FIXED_BYTES + scratch_bytes) as usize;
        let limit = self.work_limit.load(Ordering::Relaxed);
        if bytes > limit {
            return Err(Error::AllocFailed(format!(
                "work buffer: {bytes} bytes asked for, over the handle's limit of {limit}"
            )));
        }
        // After a reset of the context its buffer and fence event went with it (and Kernel::launch refuses too).
        self.device.ensure_not_reset()?;
        let mut work = self.work.lock();
        // Read under the lock, which set_stream takes too: the stream stays the call's until the area is dropped.
        let stream = self.stream();
        let capturing = stream_is_capturing(self.device.context(), stream);
        // Asked once per call, for the fence (not used while capturing).
        let key = if capturing { StreamKey::Unknown } else { StreamKey::of(stream) };
        if work.buffer.bytes() < bytes {
            if capturing {
                return Err(Error::AllocFailed(format!(
                    "work buffer: {bytes} bytes asked for, {} held, and the stream is capturing a CUDA graph, \
                     during which nothing may allocate (a call before the capture grows it)",
                    work.buffer.bytes()
                )));
            }
            log::info!("growing the work buffer from {} to {bytes} bytes", work.buffer.bytes());
            let grown = DeviceBuffer::new(self.device.context(), bytes)
                .map_err(|e| Error::AllocFailed(format!("work buffer: {e}")))?;
            grown.zero()?;
            let outgrown = std::mem::replace(&mut work.buffer, grown);
            if std::mem::take(&mut work.captured) {
                log::info!("keeping the outgrown work buffer: a CUDA graph may still use it");
                work.outgrown.push(outgrown);
            }
        }
        if capturing {
            // Not ordered after the previous stream's use: see set_stream.
            work.captured = true;
        } else {
            work.fence.order_before(stream, key)?;
        }
        Ok(WorkArea { work, stream, key, capturing })
    }

    /// Sets the most work buffer a call may use (see [`work_limit_bytes`]).
    pub fn set_work_limit(&self, bytes: usize) {
        self.work_limit.store(bytes, Ordering::Relaxed);
    }

    pub fn work_buffer_size(&self) -> usize {
        self.work.lock().buffer.bytes()
    }

    /// How many split counters and SGEMV split slots are not 0, once the
    /// device has finished its work: the kernels leave every one at 0, which
    /// the next split launch counts on (tests).
    #[doc(hidden)]
    pub fn split_state_left_over(&self) -> Result<(usize, usize)> {
        synchronize_context(self.device.context())?;
        let work = self.work.lock();
        let held = work.buffer.bytes() as u64;
        let mut counters = vec![0u32; SPLIT_COUNTER_SLOTS.min(held / 4) as usize];
        work.buffer.read(0, &mut counters)?;
        let mut slots = vec![0u64; SPLIT_SLOTS.min(held.saturating_sub(SPLIT_COUNTER_BYTES) / 8) as usize];
        work.buffer.read(SPLIT_COUNTER_BYTES as usize, &mut slots)?;
        Ok((counters.iter().filter(|&&c| c != 0).count(), slots.iter().filter(|&&s| s != 0).count()))
    }
}
