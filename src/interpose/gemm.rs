//! Interposed cublasSgemm_v2, cublasSgemm_v2_64, and cublasGemmEx when it is
//! plain FP32 (A, B, C all CUDA_R_32F, FP32 compute): what CuPy's `dot` and `@`
//! call. A handle whose math mode allows TF32 or other reduced precision is
//! forwarded: mublas computes in FP32 FFMA only.

use super::{dispatch, forward_64};
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

/// Why a foreign handle's SGEMM goes to the real library: its math mode allows
/// reduced precision (or cannot be read). None: plain FP32, mublas serves it.
fn reduced_precision(real: &RealCublas, handle: CublasHandle) -> Option<&'static str> {
    const WHY: &str = "the handle's math mode allows reduced precision";
    let Some(get) = real.get_math_mode else { return Some("the real cuBLAS cannot tell the handle's math mode") };
    let mut mode = 0;
    // SAFETY: the real library's accessor on its own handle.
    if unsafe { get(handle, &mut mode) } != 0 || !FP32_MATH_MODES.contains(&(mode & 0xf)) {
        return Some(WHY);
    }
    None
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
    // SAFETY (both closures): the caller's arguments, as cuBLAS takes them.
    ffi_boundary!({
        dispatch(
            handle,
            "cublasSgemm_v2",
            |real| reduced_precision(real, handle),
            |real| unsafe { (real.sgemm)(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) },
            |h| unsafe {
                sgemm(
                    h, transa, transb, m as i64, n as i64, k as i64, alpha, A, lda as i64, B, ldb as i64, beta, C,
                    ldc as i64,
                )
            },
        )
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
    // SAFETY (both closures): the caller's arguments, as cuBLAS takes them.
    ffi_boundary!({
        dispatch(
            handle,
            "cublasSgemm_v2_64",
            |real| reduced_precision(real, handle),
            |real| {
                forward_64(real.sgemm_64, |f| unsafe {
                    f(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
                })
            },
            |h| unsafe { sgemm(h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) },
        )
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
        let plain_fp32 = Atype == CUDA_R_32F
            && Btype == CUDA_R_32F
            && Ctype == CUDA_R_32F
            && FP32_COMPUTE_TYPES.contains(&computeType);
        let (alpha_f32, beta_f32, a, b, c) =
            (alpha as *const f32, beta as *const f32, A as *const f32, B as *const f32, C as *mut f32);
        dispatch(
            handle,
            "cublasGemmEx",
            |real| {
                if plain_fp32 { reduced_precision(real, handle) } else { Some("not plain FP32 (data or compute type)") }
            },
            // SAFETY: the caller's arguments, as cuBLAS takes them.
            |real| {
                forward_64(real.gemm_ex, |f| unsafe {
                    f(
                        handle,
                        transa,
                        transb,
                        m,
                        n,
                        k,
                        alpha,
                        A,
                        Atype,
                        lda,
                        B,
                        Btype,
                        ldb,
                        beta,
                        C,
                        Ctype,
                        ldc,
                        computeType,
                        algo,
                    )
                })
            },
            |h| match plain_fp32 {
                // SAFETY: all three matrices and the scalars are FP32, as checked.
                true => unsafe {
                    sgemm(
                        h, transa, transb, m as i64, n as i64, k as i64, alpha_f32, a, lda as i64, b, ldb as i64,
                        beta_f32, c, ldc as i64,
                    )
                },
                // A handle of ours has no real library to forward other types to.
                false => crate::status::Status::NotSupported as mublasStatus_t,
            },
        )
    })
}
