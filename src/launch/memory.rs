//! Owned device memory: the handle's work buffer, and buffers for tests and
//! benchmarks. Freed in the context that allocated it.

use super::context::ContextGuard;
use super::driver::describe;
use crate::status::{Error, Result};
use cudarc::driver::{result, sys};

pub struct DeviceBuffer {
    address: sys::CUdeviceptr,
    bytes: usize,
    context: sys::CUcontext,
}

// SAFETY: device memory is not tied to a host thread; frees bind the owning context.
unsafe impl Send for DeviceBuffer {}
unsafe impl Sync for DeviceBuffer {}

impl DeviceBuffer {
    /// Allocates `bytes` (at least 1) in `context`.
    pub fn new(context: sys::CUcontext, bytes: usize) -> Result<DeviceBuffer> {
        let _bound = ContextGuard::bind(context)?;
        // SAFETY: the context is current; the size is non-zero.
        let address = unsafe { result::malloc_sync(bytes.max(1)) }
            .map_err(|e| Error::AllocFailed(format!("cuMemAlloc({bytes} bytes): {}", describe(&e))))?;
        Ok(DeviceBuffer { address, bytes, context })
    }

    /// Sets every byte to zero, synchronously.
    pub fn zero(&self) -> Result<()> {
        let _bound = ContextGuard::bind(self.context)?;
        // SAFETY: the whole allocation, in its own context.
        unsafe { sys::cuMemsetD8_v2(self.address, 0, self.bytes.max(1)) }
            .result()
            .map_err(|e| Error::ExecutionFailed(describe(&e)))?;
        settle()
    }

    pub fn address(&self) -> u64 {
        self.address
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Copies host data into the buffer at byte `offset`, synchronously.
    pub fn write<T: Copy>(&self, offset: usize, data: &[T]) -> Result<()> {
        let bytes = std::mem::size_of_val(data);
        assert!(offset + bytes <= self.bytes, "write past the end of a device buffer");
        let _bound = ContextGuard::bind(self.context)?;
        // SAFETY: the range lies within this allocation; `data` is plain old data.
        unsafe { sys::cuMemcpyHtoD_v2(self.address + offset as u64, data.as_ptr() as *const _, bytes) }
            .result()
            .map_err(|e| Error::ExecutionFailed(describe(&e)))?;
        settle()
    }

    /// Copies from the buffer at byte `offset` into `out`, synchronously.
    pub fn read<T: Copy>(&self, offset: usize, out: &mut [T]) -> Result<()> {
        let bytes = std::mem::size_of_val(out);
        assert!(offset + bytes <= self.bytes, "read past the end of a device buffer");
        let _bound = ContextGuard::bind(self.context)?;
        // SAFETY: the range lies within this allocation; `out` is plain old data.
        unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut _, self.address + offset as u64, bytes) }
            .result()
            .map_err(|e| Error::ExecutionFailed(describe(&e)))
    }
}

impl DeviceBuffer {
    /// Copies `bytes` from byte offset `from` to byte offset `to` of this buffer, on the device, synchronously.
    pub fn copy_within(&self, from: usize, to: usize, bytes: usize) -> Result<()> {
        assert!(from.max(to) + bytes <= self.bytes, "copy past the end of a device buffer");
        let _bound = ContextGuard::bind(self.context)?;
        // SAFETY: both ranges lie within this allocation (they may not overlap: callers copy disjoint slots).
        unsafe { sys::cuMemcpyDtoD_v2(self.address + to as u64, self.address + from as u64, bytes) }
            .result()
            .map_err(|e| Error::ExecutionFailed(describe(&e)))?;
        settle()
    }
}

/// Waits until the copy or memset just issued has landed. The "synchronous"
/// cuMemcpyHtoD returns once pageable data is staged, and cuMemset and
/// device-to-device copies are asynchronous; both go on the legacy default
/// stream, which a kernel on a non-blocking stream does not wait for.
fn settle() -> Result<()> {
    // SAFETY: the null stream is always valid in the current context.
    unsafe { sys::cuStreamSynchronize(std::ptr::null_mut()) }.result().map_err(|e| Error::ExecutionFailed(describe(&e)))
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if let Ok(_bound) = ContextGuard::bind(self.context) {
            // SAFETY: allocated by cuMemAlloc in this context, freed once.
            let _ = unsafe { result::free_sync(self.address) };
        }
    }
}
