//! mublas: drop-in replacements for cuBLAS SAXPY, SGEMV, STRMV and SGEMM,
//! through the C ABI, with every launch sized by an occupancy-model tuner.
//!
//! Calls flow one way, and the modules are laid out the same way:
//!
//! ```text
//! capi      extern "C" exports: null checks, panic boundary, status codes
//!  → routines  BLAS semantics: argument checks, quick returns, increments, pointer modes
//!   → tuner     device and kernel models, occupancy, recipes, the online optimizer
//!    → launch    the CUDA driver: contexts, embedded kernels, memory, launches
//!     → kernels/  CUDA C, compiled to PTX and CUBIN by build.rs
//! ```
//!
//! `handle` is the object behind `mublasHandle_t`; `status` the status codes
//! and the one internal error type; `interpose` the `cublas*_v2` entry points
//! for LD_PRELOAD, beside `capi`; `real_cublas` finds the real library.

pub mod capi;
pub mod handle;
pub mod harness;
pub mod interpose;
pub mod launch;
pub mod logging;
pub mod real_cublas;
pub mod routines;
pub mod status;
pub mod tuner;

pub use handle::{Handle, PointerMode};
pub use status::{Error, Result, Status};
