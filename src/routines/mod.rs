//! BLAS semantics: argument checks in reference-BLAS order, quick returns,
//! increments, pointer modes, transposes. No raw FFI and no CUDA here: a
//! routine asks the tuner for a plan and the launch layer for the launch.

pub mod axpy;
pub mod gemm;
pub mod gemv;
pub mod trmv;
pub mod vector;

use crate::launch::device::EntryPoints;
use crate::launch::images;

/// Every kernel entry point mublas launches, per embedded image: loaded at create.
pub static ENTRY_POINTS: &EntryPoints = &[
    (&images::AXPY, axpy::KERNEL_NAMES),
    (&images::GEMV, gemv::KERNEL_NAMES),
    (&images::TRMV, trmv::KERNEL_NAMES),
    (&images::GEMM, gemm::KERNEL_NAMES),
];

/// A BLAS scalar (alpha, beta) under the handle's pointer mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// Pointer mode host: the value, read at call time.
    Host(f32),
    /// Pointer mode device: the address, read by the kernel.
    Device(u64),
}

impl Scalar {
    /// Known to be `value` on the host (device scalars are never known).
    pub fn is(self, value: f32) -> bool {
        matches!(self, Scalar::Host(v) if v == value)
    }

    /// The (value, address) pair every kernel takes for a scalar.
    pub fn kernel_args(self) -> (crate::launch::KernelArg, crate::launch::KernelArg) {
        use crate::launch::KernelArg::{F32, Ptr};
        match self {
            Scalar::Host(v) => (F32(v), Ptr(0)),
            Scalar::Device(address) => (F32(0.0), Ptr(address)),
        }
    }
}
