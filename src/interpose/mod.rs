//! cuBLAS interposition: `LD_PRELOAD=libmublas.so ./app` makes an unmodified
//! cuBLAS program run mublas's kernels (shared/docs/cublas-abi.md, "Interposition").
//!
//! The compute entry points are exported under cuBLAS's names
//! (`cublasSaxpy_v2`, …); the program's handles come from the real
//! `cublasCreate_v2`. A handle is served by mublas when it is one of ours
//! (`mublasCreate`) or when the real library can tell us its stream and pointer
//! mode: then a *shadow* mublas handle, one per foreign handle, holds our
//! per-device state and work buffer. Foreign handles are never dereferenced.
//! Whatever mublas does not serve goes to the real function, unchanged.
//!
//! `cublasDestroy_v2` is exported too: it runs the real one and then drops
//! the handle's shadow, whose work buffer would otherwise stay allocated for
//! the life of the process, one per handle a program ever used. It hands out
//! nothing (unlike an exported `cublasCreate_v2`, which would give foreign
//! code a handle the real library cannot use).
//!
//! `MUBLAS_INTERPOSE=0` forwards everything. `MUBLAS_LOG=info` logs, once per
//! entry point, that mublas served it; `mublasInterposedCalls` counts.
//! Nothing here runs before the first interposed call: a preloaded library is
//! loaded into every child process, shells included.

pub mod blas1;
pub mod blas2;
pub mod gemm;
pub mod trmv;

use crate::capi::types::mublasStatus_t;
use crate::handle::{Handle, PointerMode};
use crate::real_cublas::{CublasHandle, RealCublas};
use crate::status::Status;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{CStr, c_char};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The entry points mublas serves, in the order of `SERVED_CALLS`.
pub const ENTRY_POINTS: &[&str] = &[
    "cublasSaxpy_v2",
    "cublasSaxpy_v2_64",
    "cublasSgemv_v2",
    "cublasSgemv_v2_64",
    "cublasStrmv_v2",
    "cublasStrmv_v2_64",
    "cublasSgemm_v2",
    "cublasSgemm_v2_64",
    "cublasGemmEx",
];

static SERVED_CALLS: [AtomicU64; ENTRY_POINTS.len()] = [const { AtomicU64::new(0) }; ENTRY_POINTS.len()];
static FORWARDED_CALLS: [AtomicU64; ENTRY_POINTS.len()] = [const { AtomicU64::new(0) }; ENTRY_POINTS.len()];

pub(crate) fn entry_index(name: &str) -> usize {
    ENTRY_POINTS.iter().position(|n| *n == name).expect("known entry point")
}

/// Counts a call mublas served; logs the first one of each entry point.
pub(crate) fn note_served(entry: usize) {
    if SERVED_CALLS[entry].fetch_add(1, Ordering::Relaxed) == 0 {
        log::info!("mublas served {} (interposed)", ENTRY_POINTS[entry]);
    }
}

pub(crate) fn note_forwarded(entry: usize, why: &str) {
    if FORWARDED_CALLS[entry].fetch_add(1, Ordering::Relaxed) == 0 {
        log::info!("{} forwarded to the real cuBLAS: {why}", ENTRY_POINTS[entry]);
    }
}

/// Interposition is on unless MUBLAS_INTERPOSE=0.
pub(crate) fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| {
        crate::logging::init();
        std::env::var("MUBLAS_INTERPOSE").map(|v| v != "0").unwrap_or(true)
    })
}

/// How one interposed call is carried out.
pub(crate) enum Route<'a> {
    /// By mublas, on one of our own handles.
    Ours(&'a Handle),
    /// By mublas, on the shadow of a foreign cuBLAS handle (of this real library).
    Shadow(Arc<Handle>, &'static RealCublas),
    /// By the real cuBLAS.
    Forward(&'static RealCublas),
}

/// Carries out one interposed call of entry point `name`: `serve` runs it with
/// mublas on our own handle or a foreign handle's shadow, `forward` hands it to
/// the real cuBLAS. For a foreign handle, `declines` may give a reason to
/// forward a call mublas could run (a math mode that allows TF32, say), and a
/// call mublas cannot get its work buffer for (ALLOC_FAILED, which mublas
/// returns before launching anything) goes to the real cuBLAS as well.
pub(crate) fn dispatch(
    handle: CublasHandle,
    name: &str,
    declines: impl FnOnce(&'static RealCublas) -> Option<&'static str>,
    forward: impl FnOnce(&'static RealCublas) -> mublasStatus_t,
    serve: impl FnOnce(&Handle) -> mublasStatus_t,
) -> mublasStatus_t {
    let entry = entry_index(name);
    match route(handle, entry) {
        Err(status) => status,
        Ok(Route::Forward(real)) => forward(real),
        Ok(Route::Ours(h)) => serve(h),
        Ok(Route::Shadow(h, real)) => match declines(real) {
            Some(why) => {
                note_forwarded(entry, why);
                forward(real)
            }
            None => match serve(&h) {
                status if status == Status::AllocFailed as mublasStatus_t => {
                    note_forwarded(entry, "mublas could not have the work buffer it needs");
                    forward(real)
                }
                status => {
                    note_served(entry);
                    status
                }
            },
        },
    }
}

/// Calls an optional entry point of the real library (the 64-bit forms, GemmEx),
/// or NOT_SUPPORTED where it has none.
pub(crate) fn forward_64<F>(entry: Option<F>, call: impl FnOnce(F) -> mublasStatus_t) -> mublasStatus_t {
    match entry {
        Some(f) => call(f),
        None => Status::NotSupported as mublasStatus_t,
    }
}

/// Shadow handles, by the address of the foreign cuBLAS handle.
static SHADOWS: Mutex<Option<HashMap<usize, Arc<Handle>>>> = Mutex::new(None);

/// Decides who serves a call on `handle`, and prepares the shadow's stream and pointer mode.
pub(crate) fn route<'a>(handle: CublasHandle, entry: usize) -> Result<Route<'a>, mublasStatus_t> {
    // Before anything can log: the errors below must show without MUBLAS_LOG.
    crate::logging::init();
    if handle.is_null() {
        return Err(Status::NotInitialized as mublasStatus_t);
    }
    if crate::capi::is_live_handle(handle) {
        // SAFETY: a live handle of ours is the Handle its box holds; it lives until
        // mublasDestroy, which a caller cannot run concurrently with a call on it.
        return Ok(Route::Ours(unsafe { &*(handle as *const Handle) }));
    }
    let real = match RealCublas::in_process() {
        Ok(real) => real,
        Err(why) => {
            log::error!("{}: not a mublas handle and no cuBLAS in the process: {why}", ENTRY_POINTS[entry]);
            return Err(Status::NotInitialized as mublasStatus_t);
        }
    };
    if !enabled() {
        note_forwarded(entry, "MUBLAS_INTERPOSE=0");
        return Ok(Route::Forward(real));
    }
    match shadow_of_foreign(real, handle) {
        Ok(shadow) => Ok(Route::Shadow(shadow, real)),
        Err(why) => {
            note_forwarded(entry, &why);
            Ok(Route::Forward(real))
        }
    }
}

/// mublas's exports catch the calls of every cuBLAS in the process and ask the
/// one found first (`RealCublas::in_process`) about each handle and for each
/// forwarded call: with two majors loaded (frameworks built for CUDA 12 and
/// 13 in one process) the other's handles would be misread. Said once, as an
/// error (it shows without MUBLAS_LOG), when a new handle meets it.
fn warn_if_several_cublas(real: &RealCublas) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let resident = RealCublas::resident_sonames();
    if resident.len() > 1 && !WARNED.swap(true, Ordering::Relaxed) {
        log::error!(
            "{} are all loaded: under LD_PRELOAD mublas serves and forwards every cuBLAS handle with {}'s \
             functions, and the others' handles would be misread; run this program without the preload",
            resident.join(", "),
            real.soname
        );
    }
}

const NOT_PRIMARY: &str = "the calling thread's context is not its device's primary context, where mublas runs";

/// The shadow of a cuBLAS handle, with the stream and pointer mode the real library reports.
fn shadow_of_foreign(real: &RealCublas, handle: CublasHandle) -> Result<Arc<Handle>, String> {
    let mut stream = std::ptr::null_mut();
    let mut mode = 0;
    // SAFETY: the real library's own accessors on its own handle.
    unsafe {
        if (real.get_stream)(handle, &mut stream) != 0 || (real.get_pointer_mode)(handle, &mut mode) != 0 {
            return Err("the real cuBLAS does not know this handle".into());
        }
    }
    let mode = PointerMode::from_code(mode).ok_or("unknown pointer mode")?;
    let current = crate::launch::driver::CurrentContext::get().map_err(|e| e.to_string())?;
    let ordinal = current.ordinal;
    let mut shadows = SHADOWS.lock();
    let map = shadows.get_or_insert_with(HashMap::new);
    let shadow = match map.get(&(handle as usize)) {
        // A handle address reused on another device gets a new shadow.
        Some(s) if s.device.ordinal == ordinal => s.clone(),
        // Creating one allocates and waits, which would invalidate the capture.
        _ if crate::launch::context::stream_is_capturing_here(stream as crate::launch::CUstream) => {
            return Err("the handle's first call is inside a CUDA graph capture, where mublas cannot set up".into());
        }
        // No shadow (nor the primary context it would retain) for a handle of a context of the program's own.
        _ if !matches!(current.own(), Ok(None)) => {
            return Err(NOT_PRIMARY.into());
        }
        _ => {
            warn_if_several_cublas(real);
            let s = Arc::new(Handle::create_on(ordinal).map_err(|e| format!("mublas cannot serve this device: {e}"))?);
            map.insert(handle as usize, s.clone());
            s
        }
    };
    // The map is not needed for the switch, which may call the driver: other threads' calls go on.
    drop(shadows);
    // mublas runs in the device's primary context (the CUDA runtime's). A program that made a
    // context of its own (cuCtxCreate: PyCUDA, some MPI codes) has its cuBLAS handle, streams and
    // memory there, which kernels in another context cannot use.
    if current.context.is_some_and(|c| c != shadow.device.context()) {
        return Err(NOT_PRIMARY.into());
    }
    shadow.set_stream(stream as crate::launch::CUstream);
    shadow.set_pointer_mode(mode);
    Ok(shadow)
}

/// How many calls of a cuBLAS entry point (e.g. "cublasSgemv_v2") mublas has
/// served in this process, or -1 for a name it does not interpose. For tests
/// and for users checking that the preload took effect.
///
/// # Safety
/// `entry_point` must be null (→ -1) or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasInterposedCalls(entry_point: *const c_char) -> i64 {
    std::panic::catch_unwind(|| {
        if entry_point.is_null() {
            return -1;
        }
        // SAFETY: the caller's promise.
        let name = unsafe { CStr::from_ptr(entry_point) }.to_string_lossy();
        match ENTRY_POINTS.iter().position(|n| *n == name) {
            Some(i) => SERVED_CALLS[i].load(Ordering::Relaxed) as i64,
            None => -1,
        }
    })
    .unwrap_or(-1)
}

/// Drops the shadow of a foreign handle that is being destroyed (none: nothing to do).
fn release_shadow(handle: CublasHandle) {
    // Taken out under the lock, dropped after it: the drop frees the work buffer.
    let released = SHADOWS.lock().as_mut().and_then(|map| map.remove(&(handle as usize)));
    if released.is_some() {
        log::debug!("shadow of cuBLAS handle {handle:p} released");
    }
}

/// cuBLAS's `cublasDestroy_v2`: the real library's, then the handle's shadow
/// is released. The real destroy comes first because it waits for the
/// device (cuBLAS documents an implicit cudaDeviceSynchronize), so no launch
/// of ours on the handle's stream can still be using the shadow's work
/// buffer. One of our own handles passed under this name (a program linked
/// with mublas) is destroyed as by `mublasDestroy`.
///
/// # Safety
/// As cuBLAS's `cublasDestroy_v2`: `handle` is not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasDestroy_v2(handle: CublasHandle) -> mublasStatus_t {
    crate::capi::ffi_boundary!({
        crate::logging::init();
        if crate::capi::is_live_handle(handle) {
            // SAFETY: a live handle of ours, which the caller gives up.
            return unsafe { crate::capi::handle::mublasDestroy(handle as crate::capi::types::mublasHandle_t) };
        }
        let real = match RealCublas::in_process() {
            Ok(real) => real,
            Err(why) => {
                log::error!("cublasDestroy_v2: not a mublas handle and no cuBLAS in the process: {why}");
                return Status::NotInitialized as mublasStatus_t;
            }
        };
        // SAFETY: the real library's own destroy on the caller's handle.
        let status = unsafe { (real.destroy)(handle) };
        release_shadow(handle);
        status
    })
}

/// How many shadow handles (one per foreign cuBLAS handle mublas has served
/// and that is not destroyed yet) this process holds. For tests, and for
/// users checking that handles are released.
#[unsafe(no_mangle)]
pub extern "C" fn mublasInterposedShadows() -> i64 {
    std::panic::catch_unwind(|| SHADOWS.lock().as_ref().map_or(0, |map| map.len() as i64)).unwrap_or(-1)
}
