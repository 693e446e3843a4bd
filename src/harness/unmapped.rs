//! Device address space that is reserved but never backed: any load from it
//! faults (CUDA_ERROR_ILLEGAL_ADDRESS). Handed to a routine as an operand it
//! must not read (A and B of SGEMM with alpha = 0 from the device, say), it
//! turns a read that a NaN would not reveal into an error.

use crate::launch::context::ContextGuard;
use crate::launch::driver::describe;
use crate::status::{Error, Result};
use cudarc::driver::sys::{self, CUcontext};

/// Reservations are whole multiples of this (the driver asks for multiples of
/// its allocation granularity, 2 MiB on current GPUs; reserving costs no memory).
const RESERVATION_STEP: usize = 32 << 20;

pub struct UnmappedRange {
    context: CUcontext,
    base: sys::CUdeviceptr,
    bytes: usize,
}

impl UnmappedRange {
    /// At least `bytes` of address space in `context`, nothing mapped at any of it.
    pub fn new(context: CUcontext, bytes: usize) -> Result<UnmappedRange> {
        let bytes = bytes.max(1).div_ceil(RESERVATION_STEP) * RESERVATION_STEP;
        let _bound = ContextGuard::bind(context)?;
        let mut base: sys::CUdeviceptr = 0;
        // SAFETY: a valid out-pointer; the driver picks the address (0) at its own alignment (0).
        unsafe { sys::cuMemAddressReserve(&mut base, bytes, 0, 0, 0) }
            .result()
            .map_err(|e| Error::AllocFailed(format!("cuMemAddressReserve({bytes} bytes): {}", describe(&e))))?;
        Ok(UnmappedRange { context, base, bytes })
    }

    /// The first address of the range (aligned to at least 2 MiB).
    pub fn address(&self) -> u64 {
        self.base
    }
}

impl Drop for UnmappedRange {
    fn drop(&mut self) {
        if let Ok(_bound) = ContextGuard::bind(self.context) {
            // SAFETY: reserved above with this size, never mapped, released once.
            let _ = unsafe { sys::cuMemAddressFree(self.base, self.bytes) };
        }
    }
}
