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
        // Bad arguments, nothing copied: not other data onto the device, nor anything over a sentinel.
        let other = vec![-7.0f32; n];
        assert_eq!(
            mublasSetVector(n as i32, 4, other.as_ptr() as *const c_void, 0, device, 1),
            MUBLAS_STATUS_INVALID_VALUE
        );
        again.fill(9.0);
        assert_eq!(
            mublasGetVector(n as i32, 0, device, 1, again.as_mut_ptr() as *mut c_void, 1),
            MUBLAS_STATUS_INVALID_VALUE
        );
        assert!(again.iter().all(|&v| v == 9.0), "GetVector wrote host memory on bad arguments");
        assert_eq!(
            mublasGetVector(n as i32, 4, device, 1, again.as_mut_ptr() as *mut c_void, 1),
            MUBLAS_STATUS_SUCCESS
        );
        assert_eq!(&again[..], &host[..n], "SetVector copied on bad arguments");
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

/// Increments and leading dimensions whose byte pitch passes 2^31, which
/// cuMemcpy2D refuses (CU_DEVICE_ATTRIBUTE_MAX_PITCH) and cuBLAS's int
/// arguments allow: the copies still land element by element, and the
/// floats between the strided ones stay as they were. Needs about 4 GiB of
/// device memory (skipped, saying so, without it); the host buffers of the
/// same span are touched only where the copies land.
#[test]
fn gpu_copies_with_pitches_past_2_gib() {
    let test = "gpu_copies_with_pitches_past_2_gib";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let mut random = random(test);
    let inc = (1usize << 29) + 1; // 2^31 + 4 bytes between elements
    let (n, span) = (3usize, 2 * inc + 2); // the 2 × 3 matrix below reaches one float further
    let x = random.vector(n);
    unsafe {
        let mut device: *mut c_void = std::ptr::null_mut();
        let status = mublasAlloc(span as i32, 4, &mut device);
        if status == MUBLAS_STATUS_ALLOC_FAILED {
            say(&format!("SKIPPED {test}: no 4 GiB of device memory free"));
            return;
        }
        assert_eq!(status, MUBLAS_STATUS_SUCCESS);
        let at = |element: usize| (device as *mut f32).wrapping_add(element) as *mut c_void;
        let read = |element: usize| {
            let mut v = f32::NAN;
            assert_eq!(mublasGetVector(1, 4, at(element), 1, &mut v as *mut f32 as *mut c_void, 1), 0);
            v
        };
        // Sentinels between the strided elements, which no copy below may touch.
        let gaps = [1usize, inc - 1, inc + 1, 2 * inc - 1];
        for (k, &g) in gaps.iter().enumerate() {
            let v = 100.0 + k as f32;
            assert_eq!(mublasSetVector(1, 4, &v as *const f32 as *const c_void, 1, at(g), 1), 0);
        }
        let gaps_intact = |what: &str| {
            for (k, &g) in gaps.iter().enumerate() {
                assert_eq!(read(g), 100.0 + k as f32, "{what}: element {g} between the strided ones was written");
            }
        };

        // Dense host vector → device with the huge increment, and back.
        assert_eq!(mublasSetVector(n as i32, 4, x.as_ptr() as *const c_void, 1, device, inc as i32), 0);
        for (i, &v) in x.iter().enumerate() {
            assert_eq!(read(i * inc), v, "SetVector: element {i}");
        }
        gaps_intact("SetVector");
        let mut dense = vec![f32::NAN; n];
        assert_eq!(mublasGetVector(n as i32, 4, device, inc as i32, dense.as_mut_ptr() as *mut c_void, 1), 0);
        assert_eq!(dense, x, "GetVector into a dense vector");
        // Into a host vector with the same increment: only the strided elements written.
        let mut host_span = vec![0f32; span];
        assert_eq!(
            mublasGetVector(n as i32, 4, device, inc as i32, host_span.as_mut_ptr() as *mut c_void, inc as i32),
            0
        );
        for i in 0..n {
            assert_eq!(host_span[i * inc], x[i], "GetVector into a strided host vector: element {i}");
        }
        assert!(gaps.iter().all(|&g| host_span[g] == 0.0), "GetVector wrote between the strided host elements");
        drop(host_span);

        // The asynchronous form, on a created stream.
        let y = random.vector(n);
        let stream = Stream::new(gpu.context()).unwrap();
        let s = stream.raw() as *mut CUstream_st;
        assert_eq!(mublasSetVectorAsync(n as i32, 4, y.as_ptr() as *const c_void, 1, device, inc as i32, s), 0);
        stream.synchronize().unwrap();
        for (i, &v) in y.iter().enumerate() {
            assert_eq!(read(i * inc), v, "SetVectorAsync: element {i}");
        }
        gaps_intact("SetVectorAsync");

        // A 2 × 3 matrix with a leading dimension of 2^29 + 1 floats on the device.
        let (rows, cols) = (2usize, 3usize);
        let a = random.vector(rows * cols);
        // Sentinels just past the rows of the first two columns (a copy one element too long would hit them).
        let past_rows = [rows, inc + rows];
        for (k, &p) in past_rows.iter().enumerate() {
            let v = 200.0 + k as f32;
            assert_eq!(mublasSetVector(1, 4, &v as *const f32 as *const c_void, 1, at(p), 1), 0);
        }
        assert_eq!(
            mublasSetMatrix(rows as i32, cols as i32, 4, a.as_ptr() as *const c_void, rows as i32, device, inc as i32),
            0
        );
        for (k, &p) in past_rows.iter().enumerate() {
            assert_eq!(read(p), 200.0 + k as f32, "SetMatrix wrote past the rows of a column, at element {p}");
        }
        for j in 0..cols {
            for i in 0..rows {
                assert_eq!(read(i + j * inc), a[i + j * rows], "SetMatrix: element ({i}, {j})");
            }
        }
        assert_eq!(read(inc - 1), 101.0, "SetMatrix wrote past a column");
        let mut back = vec![f32::NAN; rows * cols];
        assert_eq!(
            mublasGetMatrixAsync(
                rows as i32,
                cols as i32,
                4,
                device,
                inc as i32,
                back.as_mut_ptr() as *mut c_void,
                rows as i32,
                s
            ),
            0
        );
        stream.synchronize().unwrap();
        assert_eq!(back, a, "GetMatrixAsync");
        assert_eq!(mublasFree(device), MUBLAS_STATUS_SUCCESS);
    }
    say(&format!("{test}: vectors and a matrix with a pitch of {} bytes", inc * 4));
}
