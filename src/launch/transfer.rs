//! Copies between host and device memory, with strides, and raw allocations:
//! what mublasSetVector/GetMatrix/Alloc and friends need. These calls have no
//! handle: they work in the context current on the thread, or (a C or Fortran
//! program without the CUDA runtime) in the primary context of device 0.

use super::context::ContextGuard;
use super::driver::{self, describe};
use crate::status::{Error, Result};
use cudarc::driver::{result, sys};
use std::sync::OnceLock;

/// One end of a copy.
#[derive(Clone, Copy, Debug)]
pub enum Memory {
    Host(*const u8),
    HostMut(*mut u8),
    Device(u64),
}

/// A strided 2-D copy: `height` runs of `width_bytes`, consecutive runs
/// `source_pitch` / `destination_pitch` bytes apart.
#[derive(Clone, Copy, Debug)]
pub struct Copy2d {
    pub source: Memory,
    pub source_pitch: usize,
    pub destination: Memory,
    pub destination_pitch: usize,
    pub width_bytes: usize,
    pub height: usize,
}

/// The current context, or device 0's primary context, retained for the process.
fn context_for_handleless_calls() -> Result<ContextGuard> {
    driver::init()?;
    if let Some(current) = result::ctx::get_current().map_err(|e| Error::NotInitialized(describe(&e)))? {
        return ContextGuard::bind(current);
    }
    static PRIMARY: OnceLock<std::result::Result<usize, String>> = OnceLock::new();
    let primary = PRIMARY.get_or_init(|| {
        let device = result::device::get(0).map_err(|e| describe(&e))?;
        // SAFETY: device 0 exists (init checked the count); the retain is kept for the process.
        unsafe { result::primary_ctx::retain(device) }.map(|c| c as usize).map_err(|e| describe(&e))
    });
    let context = primary.clone().map_err(Error::NotInitialized)?;
    ContextGuard::bind(context as sys::CUcontext)
}

/// Performs a copy, synchronously or enqueued on `stream`.
///
/// # Safety
/// Both ends must be valid for the strided extent the copy touches.
pub unsafe fn copy_2d(copy: &Copy2d, stream: Option<sys::CUstream>) -> Result<()> {
    let _bound = context_for_handleless_calls()?;
    if copy.height > 1 && copy.source_pitch.max(copy.destination_pitch) <= max_pitch() {
        // SAFETY: the caller's promise.
        return unsafe { one_2d_copy(copy, stream) };
    }
    // One run, or pitches the driver refuses (an increment or leading
    // dimension past 2^31 bytes, which cuBLAS's int arguments allow): a
    // plain copy per run.
    for run in 0..copy.height {
        let source = copy.source.offset(run * copy.source_pitch);
        let destination = copy.destination.offset(run * copy.destination_pitch);
        // SAFETY: each run lies inside the extent the caller vouches for.
        unsafe { one_run(source, destination, copy.width_bytes, stream) }?;
    }
    Ok(())
}

impl Memory {
    fn offset(self, bytes: usize) -> Memory {
        match self {
            Memory::Host(h) => Memory::Host(h.wrapping_add(bytes)),
            Memory::HostMut(h) => Memory::HostMut(h.wrapping_add(bytes)),
            Memory::Device(d) => Memory::Device(d + bytes as u64),
        }
    }
}

/// The largest pitch cuMemcpy2D takes (CU_DEVICE_ATTRIBUTE_MAX_PITCH,
/// 2^31 − 1 bytes on the GPUs we know), asked of the current context's
/// device once per process.
fn max_pitch() -> usize {
    static MAX_PITCH: OnceLock<usize> = OnceLock::new();
    *MAX_PITCH.get_or_init(|| {
        let mut device = 0;
        let mut pitch = 0;
        // SAFETY: out-pointers; a context is current (copy_2d bound one).
        let asked = unsafe {
            sys::cuCtxGetDevice(&mut device).result().and_then(|()| {
                sys::cuDeviceGetAttribute(&mut pitch, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_PITCH, device)
                    .result()
            })
        };
        match asked {
            Ok(()) if pitch > 0 => pitch as usize,
            _ => i32::MAX as usize,
        }
    })
}

/// One strided copy through cuMemcpy2D.
///
/// # Safety
/// As [`copy_2d`]; the pitches within [`max_pitch`].
unsafe fn one_2d_copy(copy: &Copy2d, stream: Option<sys::CUstream>) -> Result<()> {
    let (src_type, src_host, src_device) = match copy.source {
        Memory::Host(h) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, h as *const std::ffi::c_void, 0),
        Memory::HostMut(h) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, h as *const std::ffi::c_void, 0),
        Memory::Device(d) => (sys::CUmemorytype::CU_MEMORYTYPE_DEVICE, std::ptr::null(), d),
    };
    let (dst_type, dst_host, dst_device) = match copy.destination {
        Memory::HostMut(h) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, h as *mut std::ffi::c_void, 0),
        Memory::Host(_) => return Err(Error::Internal("copy into read-only host memory".into())),
        Memory::Device(d) => (sys::CUmemorytype::CU_MEMORYTYPE_DEVICE, std::ptr::null_mut(), d),
    };
    let p = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: src_type,
        srcHost: src_host,
        srcDevice: src_device,
        srcArray: std::ptr::null_mut(),
        srcPitch: copy.source_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: dst_type,
        dstHost: dst_host,
        dstDevice: dst_device,
        dstArray: std::ptr::null_mut(),
        dstPitch: copy.destination_pitch,
        WidthInBytes: copy.width_bytes,
        Height: copy.height,
    };
    // SAFETY: the caller vouches for both extents; `p` is fully initialised.
    let status = unsafe {
        match stream {
            Some(s) => sys::cuMemcpy2DAsync_v2(&p, s),
            None => sys::cuMemcpy2D_v2(&p),
        }
    };
    // cuBLAS reports a failed copy as a mapping error.
    status.result().map_err(|e| Error::Mapping(describe(&e)))
}

/// One contiguous run of `bytes` between host and device, or device and device.
///
/// # Safety
/// Both ends valid for `bytes`.
unsafe fn one_run(source: Memory, destination: Memory, bytes: usize, stream: Option<sys::CUstream>) -> Result<()> {
    use Memory::{Device, Host, HostMut};
    // SAFETY: the caller's promise; the host ends are plain pointers the driver reads or writes.
    let status = unsafe {
        match (source, destination, stream) {
            (Host(h), Device(d), None) => sys::cuMemcpyHtoD_v2(d, h as *const _, bytes),
            (HostMut(h), Device(d), None) => sys::cuMemcpyHtoD_v2(d, h as *const _, bytes),
            (Host(h), Device(d), Some(s)) => sys::cuMemcpyHtoDAsync_v2(d, h as *const _, bytes, s),
            (HostMut(h), Device(d), Some(s)) => sys::cuMemcpyHtoDAsync_v2(d, h as *const _, bytes, s),
            (Device(d), HostMut(h), None) => sys::cuMemcpyDtoH_v2(h as *mut _, d, bytes),
            (Device(d), HostMut(h), Some(s)) => sys::cuMemcpyDtoHAsync_v2(h as *mut _, d, bytes, s),
            (Device(from), Device(to), None) => sys::cuMemcpyDtoD_v2(to, from, bytes),
            (Device(from), Device(to), Some(s)) => sys::cuMemcpyDtoDAsync_v2(to, from, bytes, s),
            (_, Host(_), _) => return Err(Error::Internal("copy into read-only host memory".into())),
            (Host(_) | HostMut(_), HostMut(_), _) => return Err(Error::Internal("host-to-host copy".into())),
        }
    };
    status.result().map_err(|e| Error::Mapping(describe(&e)))
}

/// Device memory outside any handle (mublasAlloc).
pub fn alloc(bytes: usize) -> Result<u64> {
    let _bound = context_for_handleless_calls()?;
    // SAFETY: a context is current; the size is non-zero.
    unsafe { result::malloc_sync(bytes.max(1)) }.map_err(|e| Error::AllocFailed(describe(&e)))
}

/// Frees what `alloc` returned (mublasFree).
///
/// # Safety
/// `address` must come from `alloc` and not be freed yet.
pub unsafe fn free(address: u64) -> Result<()> {
    let _bound = context_for_handleless_calls()?;
    // SAFETY: the caller's promise.
    unsafe { result::free_sync(address) }.map_err(|e| Error::Internal(describe(&e)))
}
