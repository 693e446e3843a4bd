//! The C ABI paths that need no GPU: null handles, status strings, version,
//! and, when there is no GPU, mublasCreate's NOT_INITIALIZED.

use mublas::capi::blas1::{mublasSaxpy, mublasSaxpy_64};
use mublas::capi::blas2::mublasSgemv_64;
use mublas::capi::gemm::mublasSgemm_64;
use mublas::capi::handle::*;
use mublas::capi::trmv::mublasStrmv_64;
use mublas::capi::types::*;

#[test]
fn null_handles_are_not_initialized() {
    unsafe {
        let null: mublasHandle_t = std::ptr::null_mut();
        assert_eq!(mublasDestroy(null), MUBLAS_STATUS_NOT_INITIALIZED);
        assert_eq!(mublasSetStream(null, std::ptr::null_mut()), MUBLAS_STATUS_NOT_INITIALIZED);
        let mut stream = std::ptr::null_mut();
        assert_eq!(mublasGetStream(null, &mut stream), MUBLAS_STATUS_NOT_INITIALIZED);
        assert_eq!(mublasSetPointerMode(null, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_NOT_INITIALIZED);
        let mut mode = 0;
        assert_eq!(mublasGetPointerMode(null, &mut mode), MUBLAS_STATUS_NOT_INITIALIZED);
        let alpha = 1.0f32;
        assert_eq!(
            mublasSaxpy(null, 10, &alpha, std::ptr::null(), 1, std::ptr::null_mut(), 1),
            MUBLAS_STATUS_NOT_INITIALIZED
        );
        assert_eq!(mublasCreate(std::ptr::null_mut()), MUBLAS_STATUS_INVALID_VALUE);
    }
}

/// The 64-bit forms check the handle first too, whatever their sizes.
#[test]
fn null_handles_are_not_initialized_in_the_64_bit_forms() {
    let (null, alpha, x, y): (mublasHandle_t, f32, *const f32, *mut f32) =
        (std::ptr::null_mut(), 1.0, std::ptr::null(), std::ptr::null_mut());
    let past_i32 = i32::MAX as i64 + 7;
    unsafe {
        assert_eq!(mublasSaxpy_64(null, past_i32, &alpha, x, 1, y, -1), MUBLAS_STATUS_NOT_INITIALIZED);
        assert_eq!(
            mublasSgemv_64(null, MUBLAS_OP_T, past_i32, 3, &alpha, x, past_i32, x, 1, &alpha, y, 1),
            MUBLAS_STATUS_NOT_INITIALIZED
        );
        assert_eq!(
            mublasStrmv_64(null, MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_HERMITAN, MUBLAS_DIAG_UNIT, 5, x, past_i32, y, 1),
            MUBLAS_STATUS_NOT_INITIALIZED
        );
        assert_eq!(
            mublasSgemm_64(
                null,
                MUBLAS_OP_N,
                MUBLAS_OP_C,
                past_i32,
                2,
                2,
                &alpha,
                x,
                past_i32,
                x,
                2,
                &alpha,
                y,
                past_i32
            ),
            MUBLAS_STATUS_NOT_INITIALIZED
        );
    }
}

#[test]
fn version_needs_no_handle() {
    let mut version = 0;
    unsafe {
        assert_eq!(mublasGetVersion(std::ptr::null_mut(), &mut version), MUBLAS_STATUS_SUCCESS);
        assert_eq!(mublasGetVersion(std::ptr::null_mut(), std::ptr::null_mut()), MUBLAS_STATUS_INVALID_VALUE);
    }
    assert_eq!(version, MUBLAS_VERSION);
}

#[test]
fn create_without_a_gpu_is_not_initialized() {
    if mublas::launch::driver::init().is_ok() {
        return; // There is a GPU: the GPU tests cover creation.
    }
    let mut handle: mublasHandle_t = std::ptr::null_mut();
    assert_eq!(unsafe { mublasCreate(&mut handle) }, MUBLAS_STATUS_NOT_INITIALIZED);
    assert!(handle.is_null(), "nothing is written on failure");
}

/// The interposed cublasDestroy_v2 on NULL answers as cuBLAS does, whether or
/// not a real cuBLAS is in the process, and no shadow handle exists.
#[test]
fn interposed_destroy_of_null_is_not_initialized() {
    unsafe { assert_eq!(mublas::interpose::cublasDestroy_v2(std::ptr::null_mut()), MUBLAS_STATUS_NOT_INITIALIZED) };
    assert_eq!(mublas::interpose::mublasInterposedShadows(), 0);
}
