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
