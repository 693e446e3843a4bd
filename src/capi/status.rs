//! mublasGetStatusName, mublasGetStatusString.

use super::types::mublasStatus_t;
use crate::status::Status;
use std::ffi::c_char;

const UNRECOGNIZED_NAME: &std::ffi::CStr = c"MUBLAS_STATUS_UNKNOWN";
const UNRECOGNIZED_STRING: &std::ffi::CStr = c"unrecognized status";

/// The status enumerator's name, e.g. "MUBLAS_STATUS_SUCCESS"; never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn mublasGetStatusName(status: mublasStatus_t) -> *const c_char {
    std::panic::catch_unwind(|| match Status::from_code(status) {
        Some(s) => s.c_name().as_ptr(),
        None => UNRECOGNIZED_NAME.as_ptr(),
    })
    .unwrap_or(UNRECOGNIZED_NAME.as_ptr())
}

/// cuBLAS's description of the status, e.g. "success"; never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn mublasGetStatusString(status: mublasStatus_t) -> *const c_char {
    std::panic::catch_unwind(|| match Status::from_code(status) {
        Some(s) => s.c_description().as_ptr(),
        None => UNRECOGNIZED_STRING.as_ptr(),
    })
    .unwrap_or(UNRECOGNIZED_STRING.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn text(p: *const c_char) -> &'static str {
        unsafe { CStr::from_ptr(p) }.to_str().unwrap()
    }

    #[test]
    fn names_and_strings() {
        assert_eq!(text(mublasGetStatusName(0)), "MUBLAS_STATUS_SUCCESS");
        assert_eq!(text(mublasGetStatusName(7)), "MUBLAS_STATUS_INVALID_VALUE");
        assert_eq!(text(mublasGetStatusString(0)), "success");
        assert_eq!(text(mublasGetStatusString(13)), "the function failed to launch on the GPU");
        assert_eq!(text(mublasGetStatusString(16)), "the license check failed");
        assert_eq!(text(mublasGetStatusString(2)), "unrecognized status");
        assert_eq!(text(mublasGetStatusString(-1)), "unrecognized status");
        assert_eq!(text(mublasGetStatusName(99)), "MUBLAS_STATUS_UNKNOWN");
        // The same pointer every time: callers may keep it.
        assert_eq!(mublasGetStatusString(3), mublasGetStatusString(3));
    }
}
