//! mublasAlloc/Free and the Set/Get Vector/Matrix copies on the GPU, without
//! the CUDA runtime. Skipped, saying so, without a GPU.

mod common;

use common::*;
use mublas::capi::memory::*;
use mublas::capi::types::*;
use mublas::harness::Stream;
use std::ffi::c_void;

#[test]
fn gpu_vectors_round_trip_with_strides() {
    let Some(gpu) = gpu_or_skip("gpu_vectors_round_trip_with_strides") else { return };
    let mut random = random("gpu_vectors_round_trip_with_strides");
    let n = 1001usize;
    let host = random.vector(3 * n);
    unsafe {
        let mut device: *mut c_void = std::ptr::null_mut();
        assert_eq!(mublasAlloc((2 * n) as i32, 4, &mut device), MUBLAS_STATUS_SUCCESS);
        // Every third host element → every second device element, and back into a dense vector.
        assert_eq!(mublasSetVector(n as i32, 4, host.as_ptr() as *const c_void, 3, device, 2), MUBLAS_STATUS_SUCCESS);
        let mut back = vec![0f32; n];
        assert_eq!(mublasGetVector(n as i32, 4, device, 2, back.as_mut_ptr() as *mut c_void, 1), MUBLAS_STATUS_SUCCESS);
        assert!((0..n).all(|i| back[i] == host[3 * i]));
        // The async forms on a created stream.
        let stream = Stream::new(gpu.context()).unwrap();
        let s = stream.raw() as *mut CUstream_st;
        assert_eq!(
            mublasSetVectorAsync(n as i32, 4, host.as_ptr() as *const c_void, 1, device, 1, s),
            MUBLAS_STATUS_SUCCESS
        );
        let mut again = vec![0f32; n];
        assert_eq!(
            mublasGetVectorAsync(n as i32, 4, device, 1, again.as_mut_ptr() as *mut c_void, 1, s),
            MUBLAS_STATUS_SUCCESS
        );
        stream.synchronize().unwrap();
        assert_eq!(&again[..], &host[..n]);
        // Bad arguments, nothing copied.
        assert_eq!(
            mublasSetVector(n as i32, 4, host.as_ptr() as *const c_void, 0, device, 1),
            MUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            mublasGetVector(n as i32, 0, device, 1, again.as_mut_ptr() as *mut c_void, 1),
            MUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(mublasFree(device), MUBLAS_STATUS_SUCCESS);
    }
}

#[test]
fn gpu_matrices_round_trip_with_leading_dimensions() {
    let Some(_gpu) = gpu_or_skip("gpu_matrices_round_trip_with_leading_dimensions") else { return };
    let mut random = random("gpu_matrices_round_trip_with_leading_dimensions");
    let (rows, cols, lda, ldb) = (37usize, 29usize, 41usize, 40usize);
    let host = random.vector(lda * cols);
    unsafe {
        let mut device: *mut c_void = std::ptr::null_mut();
        assert_eq!(mublasAlloc((ldb * cols) as i32, 4, &mut device), MUBLAS_STATUS_SUCCESS);
        assert_eq!(
            mublasSetMatrix(
                rows as i32,
                cols as i32,
                4,
                host.as_ptr() as *const c_void,
                lda as i32,
                device,
                ldb as i32
            ),
            MUBLAS_STATUS_SUCCESS
        );
        let mut back = vec![f32::NAN; rows * cols];
        assert_eq!(
            mublasGetMatrix(
                rows as i32,
                cols as i32,
                4,
                device,
                ldb as i32,
                back.as_mut_ptr() as *mut c_void,
                rows as i32
            ),
            MUBLAS_STATUS_SUCCESS
        );
        for j in 0..cols {
            for i in 0..rows {
                assert_eq!(back[i + j * rows], host[i + j * lda], "element ({i}, {j})");
            }
        }
        assert_eq!(
            mublasSetMatrix(
                rows as i32,
                cols as i32,
                4,
                host.as_ptr() as *const c_void,
                (rows - 1) as i32,
                device,
                ldb as i32
            ),
            MUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(mublasFree(device), MUBLAS_STATUS_SUCCESS);
        assert_eq!(mublasFree(std::ptr::null_mut()), MUBLAS_STATUS_SUCCESS);
        let mut none: *mut c_void = std::ptr::null_mut();
        assert_eq!(mublasAlloc(0, 4, &mut none), MUBLAS_STATUS_INVALID_VALUE);
    }
}
