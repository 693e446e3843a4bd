//! mublas: drop-in replacements for cuBLAS SAXPY, SGEMV, STRMV and SGEMM.
pub mod tuner;
