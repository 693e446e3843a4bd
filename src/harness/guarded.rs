//! A device array with guard zones on both sides and an optional offset that
//! makes the data pointer not 16-byte aligned, to catch out-of-bounds writes
//! and alignment assumptions.

use crate::launch::DeviceBuffer;
use crate::status::Result;
use cudarc::driver::sys::CUcontext;

/// Floats of guard before and after the data.
const GUARD: usize = 64;
/// The guard pattern: a signalling-NaN-like bit pattern no kernel computes.
const POISON: u32 = 0x7FA5_A5A5;

pub struct GuardedBuffer {
    buffer: DeviceBuffer,
    /// Data starts at GUARD + offset floats.
    offset: usize,
    len: usize,
}

impl GuardedBuffer {
    /// `len` floats of `data` (or poison if `data` is shorter), `offset` floats past an aligned start.
    pub fn new(context: CUcontext, data: &[f32], len: usize, offset: usize) -> Result<GuardedBuffer> {
        let total = GUARD + offset + len + GUARD;
        let buffer = DeviceBuffer::new(context, total * 4)?;
        // Poison, the data, poison: the data goes straight from the caller's slice (up to gigabytes in the
        // large tests), without a host copy of the whole buffer.
        let start = GUARD + offset;
        let copied = data.len().min(len);
        buffer.write(0, &vec![f32::from_bits(POISON); start])?;
        if copied > 0 {
            buffer.write(start * 4, &data[..copied])?;
        }
        buffer.write((start + copied) * 4, &vec![f32::from_bits(POISON); total - start - copied])?;
        Ok(GuardedBuffer { buffer, offset, len })
    }

    pub fn from_slice(context: CUcontext, data: &[f32], offset: usize) -> Result<GuardedBuffer> {
        GuardedBuffer::new(context, data, data.len(), offset)
    }

    /// The device address of element 0.
    pub fn address(&self) -> u64 {
        self.buffer.address() + ((GUARD + self.offset) * 4) as u64
    }

    pub fn read(&self) -> Result<Vec<f32>> {
        let mut out = vec![0f32; self.len];
        self.buffer.read((GUARD + self.offset) * 4, &mut out)?;
        Ok(out)
    }

    pub fn write(&self, data: &[f32]) -> Result<()> {
        assert!(data.len() <= self.len);
        self.buffer.write((GUARD + self.offset) * 4, data)
    }

    /// Ok when both guard zones (and the offset gap) still hold the poison pattern.
    pub fn guards_intact(&self) -> Result<bool> {
        let (mut before, mut after) = (vec![0f32; GUARD + self.offset], vec![0f32; GUARD]);
        self.buffer.read(0, &mut before)?;
        self.buffer.read((GUARD + self.offset + self.len) * 4, &mut after)?;
        Ok(before.iter().chain(&after).all(|v| v.to_bits() == POISON))
    }
}
