//! Device memory and host↔device copies without the CUDA runtime, with
//! cuBLAS's signatures and checks: mublasAlloc/Free and
//! mublasSet/GetVector/Matrix (+Async), so C and Fortran programs can use the
//! library with nothing but the driver. Vectors and matrices are column-major
//! with positive increments and leading dimensions counted in elements.

use super::ffi_boundary;
use super::status_of;
use super::types::*;
use crate::launch::transfer::{self, Copy2d, Memory};
use std::ffi::{c_int, c_void};

/// Allocates `n` elements of `elem_size` bytes of device memory (cuBLAS's legacy `cublasAlloc`).
///
/// # Safety
/// `device_ptr` must be null (→ INVALID_VALUE) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasAlloc(n: c_int, elem_size: c_int, device_ptr: *mut *mut c_void) -> mublasStatus_t {
    ffi_boundary!({
        if n <= 0 || elem_size <= 0 || device_ptr.is_null() {
            return MUBLAS_STATUS_INVALID_VALUE;
        }
        crate::logging::init();
        match transfer::alloc(n as usize * elem_size as usize) {
            Ok(address) => {
                // SAFETY: checked non-null.
                unsafe { *device_ptr = address as *mut c_void };
                MUBLAS_STATUS_SUCCESS
            }
            Err(e) => status_of(Err(e)),
        }
    })
}

/// Frees memory from `mublasAlloc`. NULL is a no-op.
///
/// # Safety
/// `device_ptr` must be null or from `mublasAlloc`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasFree(device_ptr: *mut c_void) -> mublasStatus_t {
    ffi_boundary!({
        if device_ptr.is_null() {
            return MUBLAS_STATUS_SUCCESS;
        }
        // SAFETY: per this function's contract.
        status_of(unsafe { transfer::free(device_ptr as u64) })
    })
}

/// The copy of `n` elements between two strided vectors, or the status for bad arguments.
fn vector_copy(
    n: c_int,
    elem_size: c_int,
    source: Memory,
    incx: c_int,
    destination: Memory,
    incy: c_int,
    null: bool,
) -> Result<Option<Copy2d>, mublasStatus_t> {
    if n < 0 || elem_size <= 0 || incx <= 0 || incy <= 0 {
        return Err(MUBLAS_STATUS_INVALID_VALUE);
    }
    if n == 0 {
        return Ok(None);
    }
    if null {
        return Err(MUBLAS_STATUS_INVALID_VALUE);
    }
    let (n, size) = (n as usize, elem_size as usize);
    Ok(Some(if incx == 1 && incy == 1 {
        // One contiguous run (copied with one plain copy, whatever its length).
        Copy2d {
            source,
            source_pitch: n * size,
            destination,
            destination_pitch: n * size,
            width_bytes: n * size,
            height: 1,
        }
    } else {
        Copy2d {
            source,
            source_pitch: incx as usize * size,
            destination,
            destination_pitch: incy as usize * size,
            width_bytes: size,
            height: n,
        }
    }))
}

/// The copy of a rows × cols column-major matrix, or the status for bad arguments.
#[allow(clippy::too_many_arguments)] // cuBLAS's own argument list, plus one flag
fn matrix_copy(
    rows: c_int,
    cols: c_int,
    elem_size: c_int,
    source: Memory,
    lda: c_int,
    destination: Memory,
    ldb: c_int,
    null: bool,
) -> Result<Option<Copy2d>, mublasStatus_t> {
    if rows < 0 || cols < 0 || elem_size <= 0 || lda < rows.max(1) || ldb < rows.max(1) {
        return Err(MUBLAS_STATUS_INVALID_VALUE);
    }
    if rows == 0 || cols == 0 {
        return Ok(None);
    }
    if null {
        return Err(MUBLAS_STATUS_INVALID_VALUE);
    }
    let size = elem_size as usize;
    Ok(Some(Copy2d {
        source,
        source_pitch: lda as usize * size,
        destination,
        destination_pitch: ldb as usize * size,
        width_bytes: rows as usize * size,
        height: cols as usize,
    }))
}

/// Runs a checked copy; `stream` None is synchronous.
///
/// # Safety
/// Both ends valid for the copy's extent.
unsafe fn run(copy: Result<Option<Copy2d>, mublasStatus_t>, stream: Option<*mut CUstream_st>) -> mublasStatus_t {
    crate::logging::init();
    match copy {
        Err(status) => status,
        Ok(None) => MUBLAS_STATUS_SUCCESS,
        // SAFETY: the caller's promise.
        Ok(Some(copy)) => status_of(unsafe { transfer::copy_2d(&copy, stream.map(|s| s as crate::launch::CUstream)) }),
    }
}

/// Host vector x (increment incx) → device vector y (increment incy).
///
/// # Safety
/// x readable and y a device range for n strided elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSetVector(
    n: c_int,
    elem_size: c_int,
    x: *const c_void,
    incx: c_int,
    device_ptr: *mut c_void,
    incy: c_int,
) -> mublasStatus_t {
    // SAFETY (all four vector copies): per the functions' contracts.
    ffi_boundary!({
        unsafe {
            run(
                vector_copy(
                    n,
                    elem_size,
                    Memory::Host(x as _),
                    incx,
                    Memory::Device(device_ptr as u64),
                    incy,
                    x.is_null() || device_ptr.is_null(),
                ),
                None,
            )
        }
    })
}

/// Device vector x → host vector y.
///
/// # Safety
/// x a device range and y writable for n strided elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasGetVector(
    n: c_int,
    elem_size: c_int,
    x: *const c_void,
    incx: c_int,
    y: *mut c_void,
    incy: c_int,
) -> mublasStatus_t {
    ffi_boundary!({
        unsafe {
            run(
                vector_copy(
                    n,
                    elem_size,
                    Memory::Device(x as u64),
                    incx,
                    Memory::HostMut(y as _),
                    incy,
                    x.is_null() || y.is_null(),
                ),
                None,
            )
        }
    })
}

/// As mublasSetVector, enqueued on `stream`.
///
/// # Safety
/// As mublasSetVector; the host memory must stay valid until the stream has run the copy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSetVectorAsync(
    n: c_int,
    elem_size: c_int,
    host_ptr: *const c_void,
    incx: c_int,
    device_ptr: *mut c_void,
    incy: c_int,
    stream: *mut CUstream_st,
) -> mublasStatus_t {
    ffi_boundary!({
        unsafe {
            run(
                vector_copy(
                    n,
                    elem_size,
                    Memory::Host(host_ptr as _),
                    incx,
                    Memory::Device(device_ptr as u64),
                    incy,
                    host_ptr.is_null() || device_ptr.is_null(),
                ),
                Some(stream),
            )
        }
    })
}

/// As mublasGetVector, enqueued on `stream`.
///
/// # Safety
/// As mublasGetVector; the host memory must stay valid until the stream has run the copy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasGetVectorAsync(
    n: c_int,
    elem_size: c_int,
    device_ptr: *const c_void,
    incx: c_int,
    host_ptr: *mut c_void,
    incy: c_int,
    stream: *mut CUstream_st,
) -> mublasStatus_t {
    ffi_boundary!({
        unsafe {
            run(
                vector_copy(
                    n,
                    elem_size,
                    Memory::Device(device_ptr as u64),
                    incx,
                    Memory::HostMut(host_ptr as _),
                    incy,
                    device_ptr.is_null() || host_ptr.is_null(),
                ),
                Some(stream),
            )
        }
    })
}

/// Host matrix A (rows × cols, leading dimension lda) → device matrix B (ldb).
///
/// # Safety
/// A readable and B a device range for the matrix with its leading dimension.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSetMatrix(
    rows: c_int,
    cols: c_int,
    elem_size: c_int,
    a: *const c_void,
    lda: c_int,
    b: *mut c_void,
    ldb: c_int,
) -> mublasStatus_t {
    // SAFETY (all four matrix copies): per the functions' contracts.
    ffi_boundary!({
        unsafe {
            run(
                matrix_copy(
                    rows,
                    cols,
                    elem_size,
                    Memory::Host(a as _),
                    lda,
                    Memory::Device(b as u64),
                    ldb,
                    a.is_null() || b.is_null(),
                ),
                None,
            )
        }
    })
}

/// Device matrix A → host matrix B.
///
/// # Safety
/// A a device range and B writable for the matrix with its leading dimension.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasGetMatrix(
    rows: c_int,
    cols: c_int,
    elem_size: c_int,
    a: *const c_void,
    lda: c_int,
    b: *mut c_void,
    ldb: c_int,
) -> mublasStatus_t {
    ffi_boundary!({
        unsafe {
            run(
                matrix_copy(
                    rows,
                    cols,
                    elem_size,
                    Memory::Device(a as u64),
                    lda,
                    Memory::HostMut(b as _),
                    ldb,
                    a.is_null() || b.is_null(),
                ),
                None,
            )
        }
    })
}

/// As mublasSetMatrix, enqueued on `stream`.
///
/// # Safety
/// As mublasSetMatrix; the host memory must stay valid until the stream has run the copy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasSetMatrixAsync(
    rows: c_int,
    cols: c_int,
    elem_size: c_int,
    a: *const c_void,
    lda: c_int,
    b: *mut c_void,
    ldb: c_int,
    stream: *mut CUstream_st,
) -> mublasStatus_t {
    ffi_boundary!({
        unsafe {
            run(
                matrix_copy(
                    rows,
                    cols,
                    elem_size,
                    Memory::Host(a as _),
                    lda,
                    Memory::Device(b as u64),
                    ldb,
                    a.is_null() || b.is_null(),
                ),
                Some(stream),
            )
        }
    })
}

/// As mublasGetMatrix, enqueued on `stream`.
///
/// # Safety
/// As mublasGetMatrix; the host memory must stay valid until the stream has run the copy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mublasGetMatrixAsync(
    rows: c_int,
    cols: c_int,
    elem_size: c_int,
    a: *const c_void,
    lda: c_int,
    b: *mut c_void,
    ldb: c_int,
    stream: *mut CUstream_st,
) -> mublasStatus_t {
    ffi_boundary!({
        unsafe {
            run(
                matrix_copy(
                    rows,
                    cols,
                    elem_size,
                    Memory::Device(a as u64),
                    lda,
                    Memory::HostMut(b as _),
                    ldb,
                    a.is_null() || b.is_null(),
                ),
                Some(stream),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: Memory = Memory::Host(8 as *const u8);
    const D: Memory = Memory::Device(4096);

    #[test]
    fn vector_arguments() {
        assert_eq!(vector_copy(-1, 4, H, 1, D, 1, false).unwrap_err(), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(vector_copy(4, 0, H, 1, D, 1, false).unwrap_err(), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(vector_copy(4, 4, H, 0, D, 1, false).unwrap_err(), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(vector_copy(4, 4, H, 1, D, -1, false).unwrap_err(), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(vector_copy(4, 4, H, 1, D, 1, true).unwrap_err(), MUBLAS_STATUS_INVALID_VALUE);
        assert!(vector_copy(0, 4, H, 1, D, 1, true).unwrap().is_none(), "n = 0 touches nothing, even null pointers");
        let contiguous = vector_copy(10, 4, H, 1, D, 1, false).unwrap().unwrap();
        assert_eq!((contiguous.width_bytes, contiguous.height), (40, 1));
        let strided = vector_copy(10, 4, H, 3, D, 2, false).unwrap().unwrap();
        assert_eq!(
            (strided.width_bytes, strided.height, strided.source_pitch, strided.destination_pitch),
            (4, 10, 12, 8)
        );
    }

    #[test]
    fn matrix_arguments() {
        assert_eq!(matrix_copy(-1, 2, 4, H, 1, D, 1, false).unwrap_err(), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(matrix_copy(3, -2, 4, H, 3, D, 3, false).unwrap_err(), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(matrix_copy(3, 2, 4, H, 2, D, 3, false).unwrap_err(), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(matrix_copy(3, 2, 4, H, 3, D, 2, false).unwrap_err(), MUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(
            matrix_copy(0, 2, 4, H, 0, D, 1, false).unwrap_err(),
            MUBLAS_STATUS_INVALID_VALUE,
            "lda ≥ max(1, rows)"
        );
        assert!(matrix_copy(0, 2, 4, H, 1, D, 1, true).unwrap().is_none());
        let m = matrix_copy(3, 2, 4, H, 5, D, 7, false).unwrap().unwrap();
        assert_eq!((m.width_bytes, m.height, m.source_pitch, m.destination_pitch), (12, 2, 20, 28));
    }
}
