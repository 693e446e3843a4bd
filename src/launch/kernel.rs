//! One loaded kernel: its driver handle, what the tuner needs to know of it,
//! and its launch.

use super::context::ContextIncarnation;
use super::driver::execution_error;
use crate::status::Result;
use crate::tuner::{Geometry, KernelModel, LaunchShape};
use cudarc::driver::{result, sys};
use std::ffi::c_void;

/// A kernel entry point resolved in a loaded module.
pub struct Kernel {
    pub name: &'static str,
    pub(super) function: sys::CUfunction,
    pub model: KernelModel,
    /// The primary context it was loaded in (None: a context of the program's own).
    incarnation: Option<ContextIncarnation>,
}

// SAFETY: a CUfunction is an immutable driver handle, valid from any thread
// while its module is loaded; the device state keeps the module loaded.
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

/// One kernel argument, by value. Each is passed to the driver as a pointer to
/// an 8-byte slot; the driver copies as many bytes as the parameter has, and
/// on this little-endian target a 4-byte value sits in the slot's first bytes.
#[derive(Clone, Copy, Debug)]
pub enum KernelArg {
    I32(i32),
    I64(i64),
    F32(f32),
    /// A device address, or 0 for a null pointer.
    Ptr(u64),
}

impl KernelArg {
    fn bits(self) -> u64 {
        match self {
            KernelArg::I32(v) => v as u32 as u64,
            KernelArg::I64(v) => v as u64,
            KernelArg::F32(v) => v.to_bits() as u64,
            KernelArg::Ptr(v) => v,
        }
    }
}

/// The most arguments any mublas kernel takes.
const MAX_ARGS: usize = 24;

impl Kernel {
    /// Resolves `name` in `module` and opts it in to `shared_bytes_per_block_optin`
    /// (the device's per-block limit) of static plus dynamic shared memory: a
    /// launch may otherwise ask for at most 48 KiB of dynamic shared memory,
    /// and SGEMM's asynchronous-copy stages take more. The limit only permits;
    /// each launch still reserves what its geometry asks for.
    pub(super) fn resolve(
        module: sys::CUmodule,
        name: &'static str,
        shared_bytes_per_block_optin: u32,
        incarnation: Option<ContextIncarnation>,
    ) -> std::result::Result<Kernel, result::DriverError> {
        let cname = std::ffi::CString::new(name).expect("kernel names have no NUL");
        // SAFETY: `module` is loaded and current-context; the name is NUL-terminated.
        let function = unsafe { result::module::get_function(module, cname) }?;
        let attribute = |a| {
            // SAFETY: `function` was just resolved.
            unsafe { result::function::get_function_attribute(function, a) }.map(|v| v.max(0) as u32)
        };
        use sys::CUfunction_attribute_enum as A;
        let model = KernelModel {
            registers_per_thread: attribute(A::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_shared_bytes: attribute(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            max_threads_per_block: attribute(A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        };
        let dynamic_limit = shared_bytes_per_block_optin.saturating_sub(model.static_shared_bytes);
        if dynamic_limit > 48 << 10 {
            // SAFETY: `function` was just resolved; the value is within the device's limit.
            unsafe {
                result::function::set_function_attribute(
                    function,
                    A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    dynamic_limit as i32,
                )
            }?;
        }
        Ok(Kernel { name, function, model, incarnation })
    }

    /// What the driver's own occupancy calculator says, for checking the model.
    /// The kernel's context must be current.
    pub fn driver_max_active_blocks_per_sm(&self, threads_per_block: u32, dynamic_shared_bytes: u32) -> Result<u32> {
        // SAFETY: `function` is valid while the device state lives.
        unsafe {
            result::occupancy::max_active_block_per_multiprocessor(
                self.function,
                threads_per_block as i32,
                dynamic_shared_bytes as usize,
            )
        }
        .map(|n| n.max(0) as u32)
        .map_err(execution_error)
    }

    /// Enqueues the kernel on `stream` with the tuner's geometry and block shape.
    ///
    /// # Safety
    /// `args` must match the kernel's parameter list in number, order and size,
    /// the device addresses among them must be valid for what the kernel
    /// touches, and the kernel's context must be current.
    pub unsafe fn launch(
        &self,
        stream: sys::CUstream,
        geometry: &Geometry,
        shape: &LaunchShape,
        args: &[KernelArg],
    ) -> Result<()> {
        assert!(args.len() <= MAX_ARGS, "kernel {} takes too many arguments", self.name);
        // After a reset of the context the kernel is gone: launching its stale handle crashed the driver.
        if let Some(incarnation) = &self.incarnation {
            incarnation.ensure_current()?;
        }
        let mut slots = [0u64; MAX_ARGS];
        let mut pointers = [std::ptr::null_mut::<c_void>(); MAX_ARGS];
        for (i, arg) in args.iter().enumerate() {
            slots[i] = arg.bits();
        }
        for i in 0..args.len() {
            pointers[i] = &mut slots[i] as *mut u64 as *mut c_void;
        }
        log::debug!(
            "launch {} grid {:?} block ({}, {}) smem {} B",
            self.name,
            geometry.grid,
            shape.tx,
            shape.ty,
            geometry.dynamic_shared_bytes
        );
        // SAFETY: the caller guarantees the arguments and the context; `pointers`
        // point into `slots`, which outlives the call (the driver copies them).
        unsafe {
            result::launch_kernel(
                self.function,
                geometry.grid,
                (shape.tx, shape.ty, 1),
                geometry.dynamic_shared_bytes,
                stream,
                &mut pointers[..args.len()],
            )
        }
        .map_err(execution_error)
    }
}
