//! The library's status codes and the one internal error type.
//!
//! `Status` carries cuBLAS's numbers (`cublasStatus_t`); `Error` is what every
//! layer below the C ABI returns, and `Error::status` is the one mapping from
//! errors to status codes.

use std::ffi::CStr;
use std::fmt;

/// cuBLAS's status codes, with the same numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Status {
    Success = 0,
    NotInitialized = 1,
    AllocFailed = 3,
    InvalidValue = 7,
    ArchMismatch = 8,
    MappingError = 11,
    ExecutionFailed = 13,
    InternalError = 14,
    NotSupported = 15,
    LicenseError = 16,
}

impl Status {
    pub const fn all() -> [Status; 10] {
        [
            Status::Success,
            Status::NotInitialized,
            Status::AllocFailed,
            Status::InvalidValue,
            Status::ArchMismatch,
            Status::MappingError,
            Status::ExecutionFailed,
            Status::InternalError,
            Status::NotSupported,
            Status::LicenseError,
        ]
    }

    pub fn from_code(code: i32) -> Option<Status> {
        Status::all().into_iter().find(|s| *s as i32 == code)
    }

    /// The enumerator's name, e.g. "MUBLAS_STATUS_SUCCESS" (cuBLAS's spelling with our prefix).
    pub fn name(self) -> &'static str {
        self.c_name().to_str().expect("ASCII")
    }

    /// cuBLAS's description of the status, word for word.
    pub fn description(self) -> &'static str {
        self.c_description().to_str().expect("ASCII")
    }

    /// [`Status::name`], NUL-terminated for the C API.
    pub fn c_name(self) -> &'static CStr {
        match self {
            Status::Success => c"MUBLAS_STATUS_SUCCESS",
            Status::NotInitialized => c"MUBLAS_STATUS_NOT_INITIALIZED",
            Status::AllocFailed => c"MUBLAS_STATUS_ALLOC_FAILED",
            Status::InvalidValue => c"MUBLAS_STATUS_INVALID_VALUE",
            Status::ArchMismatch => c"MUBLAS_STATUS_ARCH_MISMATCH",
            Status::MappingError => c"MUBLAS_STATUS_MAPPING_ERROR",
            Status::ExecutionFailed => c"MUBLAS_STATUS_EXECUTION_FAILED",
            Status::InternalError => c"MUBLAS_STATUS_INTERNAL_ERROR",
            Status::NotSupported => c"MUBLAS_STATUS_NOT_SUPPORTED",
            Status::LicenseError => c"MUBLAS_STATUS_LICENSE_ERROR",
        }
    }

    /// [`Status::description`], NUL-terminated for the C API.
    pub fn c_description(self) -> &'static CStr {
        match self {
            Status::Success => c"success",
            Status::NotInitialized => c"the library was not initialized",
            Status::AllocFailed => c"the resource allocation failed",
            Status::InvalidValue => c"an unsupported value or parameter was passed to the function",
            Status::ArchMismatch => c"the function requires an architectural feature absent from the device",
            Status::MappingError => c"an access to GPU memory space failed",
            Status::ExecutionFailed => c"the function failed to launch on the GPU",
            Status::InternalError => c"an internal operation failed",
            Status::NotSupported => c"the requested functionality is not supported",
            Status::LicenseError => c"the license check failed",
        }
    }
}

/// Everything that can go wrong below the C ABI.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// No driver, no device, or a null/destroyed handle.
    NotInitialized(String),
    /// Device memory could not be reserved.
    AllocFailed(String),
    /// Argument number `position` (reference-BLAS numbering, handle not counted) is bad.
    InvalidArgument {
        routine: &'static str,
        position: u32,
    },
    /// A value outside any argument list (a pointer mode, a null scalar pointer).
    InvalidValue(String),
    /// The GPU is older than the oldest architecture we ship code for.
    ArchMismatch(String),
    /// The driver refused a launch or reported a failure.
    ExecutionFailed(String),
    /// A copy to or from GPU memory failed.
    Mapping(String),
    /// A bug of ours, a panic included.
    Internal(String),
    NotSupported(String),
}

impl Error {
    /// The single mapping from internal errors to cuBLAS status codes.
    pub fn status(&self) -> Status {
        match self {
            Error::NotInitialized(_) => Status::NotInitialized,
            Error::AllocFailed(_) => Status::AllocFailed,
            Error::InvalidArgument { .. } | Error::InvalidValue(_) => Status::InvalidValue,
            Error::ArchMismatch(_) => Status::ArchMismatch,
            Error::ExecutionFailed(_) => Status::ExecutionFailed,
            Error::Mapping(_) => Status::MappingError,
            Error::Internal(_) => Status::InternalError,
            Error::NotSupported(_) => Status::NotSupported,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidArgument { routine, position } => {
                write!(f, "On entry to {routine} parameter number {position} had an illegal value")
            }
            Error::NotInitialized(why)
            | Error::AllocFailed(why)
            | Error::InvalidValue(why)
            | Error::ArchMismatch(why)
            | Error::ExecutionFailed(why)
            | Error::Mapping(why)
            | Error::Internal(why)
            | Error::NotSupported(why) => write!(f, "{}: {why}", self.status().name()),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_match_cublas() {
        let expected = [
            (Status::Success, 0),
            (Status::NotInitialized, 1),
            (Status::AllocFailed, 3),
            (Status::InvalidValue, 7),
            (Status::ArchMismatch, 8),
            (Status::MappingError, 11),
            (Status::ExecutionFailed, 13),
            (Status::InternalError, 14),
            (Status::NotSupported, 15),
            (Status::LicenseError, 16),
        ];
        for (status, code) in expected {
            assert_eq!(status as i32, code);
            assert_eq!(Status::from_code(code), Some(status));
        }
        for code in [-1, 2, 4, 5, 6, 9, 10, 12, 17, i32::MAX] {
            assert_eq!(Status::from_code(code), None);
        }
    }

    #[test]
    fn invalid_argument_message_follows_reference_blas() {
        let e = Error::InvalidArgument { routine: "SGEMM", position: 8 };
        assert_eq!(e.to_string(), "On entry to SGEMM parameter number 8 had an illegal value");
        assert_eq!(e.status(), Status::InvalidValue);
    }
}
