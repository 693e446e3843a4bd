//! The real cuBLAS, found at run time: the reference the GPU tests compare
//! against, the baseline `mublas bench` measures, and (for interposition) the
//! library that serves what mublas does not.
//!
//! A copy already in the process is preferred (`RTLD_NOLOAD`: a second copy
//! would not know the first one's handles); otherwise, for tests and
//! benchmarks, it is loaded by soname from the usual search path. Never by a
//! fixed path.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

pub type CublasHandle = *mut c_void;
pub type Stream = *mut c_void;

/// The entry points mublas uses, with cublas_api.h's signatures.
pub struct RealCublas {
    _library: libloading::Library,
    pub soname: &'static str,
    pub create: unsafe extern "C" fn(*mut CublasHandle) -> c_int,
    pub destroy: unsafe extern "C" fn(CublasHandle) -> c_int,
    pub set_stream: unsafe extern "C" fn(CublasHandle, Stream) -> c_int,
    pub get_stream: unsafe extern "C" fn(CublasHandle, *mut Stream) -> c_int,
    pub set_pointer_mode: unsafe extern "C" fn(CublasHandle, c_int) -> c_int,
    pub get_pointer_mode: unsafe extern "C" fn(CublasHandle, *mut c_int) -> c_int,
    pub saxpy: unsafe extern "C" fn(CublasHandle, c_int, *const f32, *const f32, c_int, *mut f32, c_int) -> c_int,
    pub sgemv: unsafe extern "C" fn(
        CublasHandle,
        c_int,
        c_int,
        c_int,
        *const f32,
        *const f32,
        c_int,
        *const f32,
        c_int,
        *const f32,
        *mut f32,
        c_int,
    ) -> c_int,
    pub strmv:
        unsafe extern "C" fn(CublasHandle, c_int, c_int, c_int, c_int, *const f32, c_int, *mut f32, c_int) -> c_int,
    pub sgemm: unsafe extern "C" fn(
        CublasHandle,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *const f32,
        *const f32,
        c_int,
        *const f32,
        c_int,
        *const f32,
        *mut f32,
        c_int,
    ) -> c_int,
    /// The 64-bit forms (cuBLAS 12 on): absent from older libraries.
    #[allow(clippy::type_complexity)]
    pub saxpy_64: Option<unsafe extern "C" fn(CublasHandle, i64, *const f32, *const f32, i64, *mut f32, i64) -> c_int>,
    #[allow(clippy::type_complexity)]
    pub sgemv_64: Option<
        unsafe extern "C" fn(
            CublasHandle,
            c_int,
            i64,
            i64,
            *const f32,
            *const f32,
            i64,
            *const f32,
            i64,
            *const f32,
            *mut f32,
            i64,
        ) -> c_int,
    >,
    pub strmv_64:
        Option<unsafe extern "C" fn(CublasHandle, c_int, c_int, c_int, i64, *const f32, i64, *mut f32, i64) -> c_int>,
    #[allow(clippy::type_complexity)]
    pub sgemm_64: Option<
        unsafe extern "C" fn(
            CublasHandle,
            c_int,
            c_int,
            i64,
            i64,
            i64,
            *const f32,
            *const f32,
            i64,
            *const f32,
            i64,
            *const f32,
            *mut f32,
            i64,
        ) -> c_int,
    >,
    #[allow(clippy::type_complexity)]
    pub gemm_ex: Option<
        unsafe extern "C" fn(
            CublasHandle,
            c_int,
            c_int,
            c_int,
            c_int,
            c_int,
            *const c_void,
            *const c_void,
            c_int,
            c_int,
            *const c_void,
            c_int,
            c_int,
            *const c_void,
            *mut c_void,
            c_int,
            c_int,
            c_int,
            c_int,
        ) -> c_int,
    >,
    pub get_math_mode: Option<unsafe extern "C" fn(CublasHandle, *mut c_int) -> c_int>,
}

// SAFETY: function pointers into a library that stays loaded for the process.
unsafe impl Send for RealCublas {}
unsafe impl Sync for RealCublas {}

const SONAMES: [&str; 2] = ["libcublas.so.13", "libcublas.so.12"];

impl RealCublas {
    /// The real cuBLAS, loaded once; None (with the reason) when there is none.
    pub fn get() -> Result<&'static RealCublas, String> {
        static REAL: OnceLock<Result<RealCublas, String>> = OnceLock::new();
        REAL.get_or_init(RealCublas::load).as_ref().map_err(Clone::clone)
    }

    fn load() -> Result<RealCublas, String> {
        let mut reasons = Vec::new();
        for (flags, how) in
            [(libc::RTLD_NOLOAD | libc::RTLD_LAZY, "already loaded"), (libc::RTLD_LAZY | libc::RTLD_LOCAL, "loaded")]
        {
            for soname in SONAMES {
                // SAFETY: dlopen by soname; cuBLAS's initialisers have no preconditions.
                match unsafe { libloading::os::unix::Library::open(Some(soname), flags) } {
                    Ok(lib) => {
                        return RealCublas::resolve(lib.into(), soname)
                            .inspect(|_| log::debug!("real cuBLAS: {soname} ({how})"));
                    }
                    Err(e) => reasons.push(format!("{soname}: {e}")),
                }
            }
        }
        Err(format!("no cuBLAS library found ({})", reasons.join("; ")))
    }

    fn resolve(library: libloading::Library, soname: &'static str) -> Result<RealCublas, String> {
        // SAFETY: each symbol is declared with its cublas_api.h signature (v2 API).
        unsafe {
            macro_rules! sym {
                ($name:literal) => {
                    *library.get($name).map_err(|e| format!("{soname}: {e}"))?
                };
            }
            Ok(RealCublas {
                soname,
                create: sym!(b"cublasCreate_v2\0"),
                destroy: sym!(b"cublasDestroy_v2\0"),
                set_stream: sym!(b"cublasSetStream_v2\0"),
                get_stream: sym!(b"cublasGetStream_v2\0"),
                set_pointer_mode: sym!(b"cublasSetPointerMode_v2\0"),
                get_pointer_mode: sym!(b"cublasGetPointerMode_v2\0"),
                saxpy: sym!(b"cublasSaxpy_v2\0"),
                sgemv: sym!(b"cublasSgemv_v2\0"),
                strmv: sym!(b"cublasStrmv_v2\0"),
                sgemm: sym!(b"cublasSgemm_v2\0"),
                saxpy_64: library.get(b"cublasSaxpy_v2_64\0").ok().map(|s| *s),
                sgemv_64: library.get(b"cublasSgemv_v2_64\0").ok().map(|s| *s),
                strmv_64: library.get(b"cublasStrmv_v2_64\0").ok().map(|s| *s),
                sgemm_64: library.get(b"cublasSgemm_v2_64\0").ok().map(|s| *s),
                gemm_ex: library.get(b"cublasGemmEx\0").ok().map(|s| *s),
                get_math_mode: library.get(b"cublasGetMathMode\0").ok().map(|s| *s),
                _library: library,
            })
        }
    }
}
