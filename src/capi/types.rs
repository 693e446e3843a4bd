//! Types and constants of the public header, with cuBLAS's values.
#![allow(non_camel_case_types)]

use std::ffi::c_int;

/// Opaque library context; `mublasHandle_t` points to one.
pub struct mublasContext {
    _private: [u8; 0],
}

/// A library handle, from `mublasCreate`.
pub type mublasHandle_t = *mut mublasContext;

/// The CUDA stream type: `cudaStream_t` and `CUstream` are both `struct CUstream_st *`.
pub struct CUstream_st {
    _private: [u8; 0],
}

pub type mublasStatus_t = c_int;
pub const MUBLAS_STATUS_SUCCESS: mublasStatus_t = 0;
pub const MUBLAS_STATUS_NOT_INITIALIZED: mublasStatus_t = 1;
pub const MUBLAS_STATUS_ALLOC_FAILED: mublasStatus_t = 3;
pub const MUBLAS_STATUS_INVALID_VALUE: mublasStatus_t = 7;
pub const MUBLAS_STATUS_ARCH_MISMATCH: mublasStatus_t = 8;
pub const MUBLAS_STATUS_MAPPING_ERROR: mublasStatus_t = 11;
pub const MUBLAS_STATUS_EXECUTION_FAILED: mublasStatus_t = 13;
pub const MUBLAS_STATUS_INTERNAL_ERROR: mublasStatus_t = 14;
pub const MUBLAS_STATUS_NOT_SUPPORTED: mublasStatus_t = 15;
pub const MUBLAS_STATUS_LICENSE_ERROR: mublasStatus_t = 16;

pub type mublasOperation_t = c_int;
pub const MUBLAS_OP_N: mublasOperation_t = 0;
pub const MUBLAS_OP_T: mublasOperation_t = 1;
/// Conjugate transpose; for real data the same as MUBLAS_OP_T.
pub const MUBLAS_OP_C: mublasOperation_t = 2;
/// cuBLAS's other name for MUBLAS_OP_C.
pub const MUBLAS_OP_HERMITAN: mublasOperation_t = 2;
/// Conjugate without transpose; rejected by the real-valued routines, as by cuBLAS.
pub const MUBLAS_OP_CONJG: mublasOperation_t = 3;

pub type mublasFillMode_t = c_int;
pub const MUBLAS_FILL_MODE_LOWER: mublasFillMode_t = 0;
pub const MUBLAS_FILL_MODE_UPPER: mublasFillMode_t = 1;
pub const MUBLAS_FILL_MODE_FULL: mublasFillMode_t = 2;

pub type mublasDiagType_t = c_int;
pub const MUBLAS_DIAG_NON_UNIT: mublasDiagType_t = 0;
pub const MUBLAS_DIAG_UNIT: mublasDiagType_t = 1;

pub type mublasPointerMode_t = c_int;
pub const MUBLAS_POINTER_MODE_HOST: mublasPointerMode_t = 0;
pub const MUBLAS_POINTER_MODE_DEVICE: mublasPointerMode_t = 1;

/// The library version as `mublasGetVersion` reports it: major·10000 + minor·100 + patch.
pub const MUBLAS_VERSION: c_int = 100;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::Status;

    #[test]
    fn header_status_constants_match_the_status_enum() {
        let header = [
            MUBLAS_STATUS_SUCCESS,
            MUBLAS_STATUS_NOT_INITIALIZED,
            MUBLAS_STATUS_ALLOC_FAILED,
            MUBLAS_STATUS_INVALID_VALUE,
            MUBLAS_STATUS_ARCH_MISMATCH,
            MUBLAS_STATUS_MAPPING_ERROR,
            MUBLAS_STATUS_EXECUTION_FAILED,
            MUBLAS_STATUS_INTERNAL_ERROR,
            MUBLAS_STATUS_NOT_SUPPORTED,
            MUBLAS_STATUS_LICENSE_ERROR,
        ];
        for (code, status) in header.into_iter().zip(Status::all()) {
            assert_eq!(code, status as i32, "{}", status.name());
        }
    }

    #[test]
    fn version_matches_the_package() {
        let major: i32 = env!("CARGO_PKG_VERSION_MAJOR").parse().unwrap();
        let minor: i32 = env!("CARGO_PKG_VERSION_MINOR").parse().unwrap();
        let patch: i32 = env!("CARGO_PKG_VERSION_PATCH").parse().unwrap();
        assert_eq!(MUBLAS_VERSION, major * 10000 + minor * 100 + patch);
    }
}
