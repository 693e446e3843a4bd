//! Interposed cublasSgemm_v2, cublasSgemm_v2_64, and cublasGemmEx when it is
//! plain FP32 (A, B, C all CUDA_R_32F, FP32 compute): what CuPy's `dot` and `@`
//! call. A handle whose math mode allows TF32 or other reduced precision is
//! forwarded: mublas computes in FP32 FFMA only.

use super::{entry_index, note_forwarded, note_served, route, Route};
use crate::capi::ffi_boundary;
use crate::capi::gemm::sgemm;
use crate::capi::types::mublasStatus_t;
use crate::real_cublas::{CublasHandle, RealCublas};
use std::ffi::{c_int, c_void};

/// cudaDataType CUDA_R_32F.
const CUDA_R_32F: c_int = 0;
/// cublasComputeType_t CUBLAS_COMPUTE_32F and CUBLAS_COMPUTE_32F_PEDANTIC; the
/// pre-11 API passed a cudaDataType (CUDA_R_32F) as the compute type.
const FP32_COMPUTE_TYPES: [c_int; 3] = [68, 69, CUDA_R_32F];
/// cublasMath_t values (low bits) that keep FP32 arithmetic: DEFAULT and PEDANTIC.
const FP32_MATH_MODES: [c_int; 2] = [0, 2];

/// Whether the foreign handle's math mode keeps plain FP32 (else forward).
fn fp32_math(real: Option<&RealCublas>, handle: CublasHandle) -> bool {
    let Some(get) = real.and_then(|r| r.get_math_mode) else { return true };
    let mut mode = 0;
    // SAFETY: the real library's accessor on its own handle.
    if unsafe { get(handle, &mut mode) } != 0 {
        return false;
    }
    FP32_MATH_MODES.contains(&(mode & 0xf))
}

/// # Safety
/// As cuBLAS's `cublasSgemm_v2`.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn cublasSgemm_v2(
    handle: CublasHandle,
    transa: c_int,
    transb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const f32,
    A: *const f32,
    lda: c_int,
    B: *const f32,
    ldb: c_int,
    beta: *const f32,
    C: *mut f32,
    ldc: c_int,
) -> mublasStatus_t {
    ffi_boundary!({
        let entry = entry_index("cublasSgemm_v2");
        let forward = |real: &RealCublas| unsafe { (real.sgemm)(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) };
        let (m, n, k, lda, ldb, ldc) = (m as i64, n as i64, k as i64, lda as i64, ldb as i64, ldc as i64);
        match route(handle, entry) {
            Err(status) => status,
            // SAFETY (all arms): the caller's arguments, as cuBLAS takes them.
            Ok(Route::Forward(real)) => forward(real),
            Ok(Route::Ours(h)) => unsafe { sgemm(h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) },
            Ok(Route::Shadow(h)) => match RealCublas::get().ok() {
                Some(real) if !fp32_math(Some(real), handle) => {
                    note_forwarded(entry, "the handle's math mode allows reduced precision");
                    forward(real)
                }
                _ => {
                    note_served(entry);
                    unsafe { sgemm(&h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) }
                }
            },
        }
    })
}

/// # Safety
/// As cuBLAS's `cublasSgemm_v2_64`.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn cublasSgemm_v2_64(
    handle: CublasHandle,
    transa: c_int,
    transb: c_int,
    m: i64,
    n: i64,
    k: i64,
    alpha: *const f32,
    A: *const f32,
    lda: i64,
    B: *const f32,
    ldb: i64,
    beta: *const f32,
    C: *mut f32,
    ldc: i64,
) -> mublasStatus_t {
    ffi_boundary!({
        let entry = entry_index("cublasSgemm_v2_64");
        let forward = |real: &RealCublas| match real.sgemm_64 {
            // SAFETY: the caller's arguments, as cuBLAS takes them.
            Some(f) => unsafe { f(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) },
            None => crate::status::Status::NotSupported as mublasStatus_t,
        };
        match route(handle, entry) {
            Err(status) => status,
            Ok(Route::Forward(real)) => forward(real),
            // SAFETY (both arms): the caller's arguments.
            Ok(Route::Ours(h)) => unsafe { sgemm(h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) },
            Ok(Route::Shadow(h)) => match RealCublas::get().ok() {
                Some(real) if !fp32_math(Some(real), handle) => {
                    note_forwarded(entry, "the handle's math mode allows reduced precision");
                    forward(real)
                }
                _ => {
                    note_served(entry);
                    unsafe { sgemm(&h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) }
                }
            },
        }
    })
}

/// # Safety
/// As cuBLAS's `cublasGemmEx`.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn cublasGemmEx(
    handle: CublasHandle,
    transa: c_int,
    transb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const c_void,
    A: *const c_void,
    Atype: c_int,
    lda: c_int,
    B: *const c_void,
    Btype: c_int,
    ldb: c_int,
    beta: *const c_void,
    C: *mut c_void,
    Ctype: c_int,
    ldc: c_int,
    computeType: c_int,
    algo: c_int,
) -> mublasStatus_t {
    ffi_boundary!({
        let entry = entry_index("cublasGemmEx");
        let forward = |real: &RealCublas| match real.gemm_ex {
            // SAFETY: the caller's arguments, as cuBLAS takes them.
            Some(f) => unsafe { f(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo) },
            None => crate::status::Status::NotSupported as mublasStatus_t,
        };
        let plain_fp32 = Atype == CUDA_R_32F && Btype == CUDA_R_32F && Ctype == CUDA_R_32F && FP32_COMPUTE_TYPES.contains(&computeType);
        let (m, n, k, lda, ldb, ldc) = (m as i64, n as i64, k as i64, lda as i64, ldb as i64, ldc as i64);
        let (alpha, beta, a, b, c) = (alpha as *const f32, beta as *const f32, A as *const f32, B as *const f32, C as *mut f32);
        match route(handle, entry) {
            Err(status) => status,
            Ok(Route::Forward(real)) => forward(real),
            Ok(Route::Ours(h)) if plain_fp32 => unsafe { sgemm(h, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) },
            Ok(Route::Ours(_)) => crate::status::Status::NotSupported as mublasStatus_t,
            Ok(Route::Shadow(h)) => match RealCublas::get().ok() {
                Some(real) if !plain_fp32 || !fp32_math(Some(real), handle) => {
                    note_forwarded(entry, "not plain FP32 (types, compute type or math mode)");
                    forward(real)
                }
                _ => {
                    note_served(entry);
                    // SAFETY: all three matrices and the scalars are FP32, as checked.
                    unsafe { sgemm(&h, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) }
                }
            },
        }
    })
}
