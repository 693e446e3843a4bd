//! The launch layer: the only code that talks to the CUDA driver (through
//! cudarc's `sys` and `result` layers, loaded dynamically so that nothing but
//! the NVIDIA driver is needed at run time).
//!
//! - [`driver`]: is a driver there, which device is current, error mapping.
//! - [`context`]: binding the handle's context to the calling thread for one call.
//! - [`images`]: the kernels embedded at build time and the choice of image per GPU.
//! - [`device`]: per-device state shared by handles: context, loaded kernels,
//!   device model, tuner.
//! - [`memory`]: owned device allocations (the work buffer, tests, benchmarks).
//! - [`transfer`]: strided host/device copies and raw allocations for the handle-less helpers.
//! - [`kernel`]: one loaded kernel and its launch.

pub mod context;
pub mod device;
pub mod driver;
pub mod images;
pub mod kernel;
pub mod memory;
pub mod transfer;

pub use cudarc::driver::sys::{CUcontext, CUstream};
pub use device::DeviceState;
pub use kernel::{Kernel, KernelArg};
pub use memory::DeviceBuffer;

/// A device address as kernels receive it.
pub type DevicePtr = u64;
