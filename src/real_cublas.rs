//! The real cuBLAS, found at run time: the reference the GPU tests compare
//! against, the baseline `mublas bench` measures, and (for interposition) the
//! library that serves what mublas does not.
//!
//! A copy already in the process is preferred (`RTLD_NOLOAD`: a second copy
//! would not know the first one's handles), and interposition takes nothing
//! else ([`RealCublas::in_process`]); for tests and benchmarks it is loaded
//! by soname from the usual search path when absent. Never by a fixed path.

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

/// The libraries the tests and the benchmark load when none is in the process.
const SONAMES: [&str; 2] = ["libcublas.so.13", "libcublas.so.12"];
/// The libraries a program's cuBLAS may be: its handles belong to whichever is
/// in the process (the v2 entry points mublas uses have kept their signatures).
const RESIDENT_SONAMES: [&str; 3] = ["libcublas.so.13", "libcublas.so.12", "libcublas.so.11"];

/// The real cuBLAS once found (only success is kept: a program may load it later).
static REAL: OnceLock<RealCublas> = OnceLock::new();

impl RealCublas {
    /// The cuBLAS already in the process (`RTLD_NOLOAD`), never a new copy:
    /// what interposition serves a program's handles with. A copy loaded now
    /// would not know the handles of the one the program uses (a cuBLAS 11
    /// program, say), so with none in the process this fails.
    pub fn in_process() -> Result<&'static RealCublas, String> {
        if let Some(real) = REAL.get() {
            return Ok(real);
        }
        RealCublas::open_first(&RESIDENT_SONAMES, libc::RTLD_NOLOAD | libc::RTLD_LAZY, "already loaded")
            .map_err(|reasons| format!("no cuBLAS loaded in the process ({reasons})"))
    }

    /// The majors of cuBLAS loaded in the process now (`RTLD_NOLOAD`: loads nothing).
    pub fn resident_sonames() -> Vec<&'static str> {
        RESIDENT_SONAMES
            .into_iter()
            .filter(|soname| {
                let name = std::ffi::CString::new(*soname).expect("no NUL in a soname");
                // SAFETY: RTLD_NOLOAD only finds a library already loaded; the handle is closed at once.
                let library = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
                if !library.is_null() {
                    // SAFETY: the handle dlopen just gave.
                    unsafe { libc::dlclose(library) };
                }
                !library.is_null()
            })
            .collect()
    }

    /// The real cuBLAS for the tests and the benchmark: the copy in the
    /// process, else one loaded by soname from the usual search path.
    pub fn get() -> Result<&'static RealCublas, String> {
        static LOAD_FAILURE: OnceLock<String> = OnceLock::new();
        if let Ok(real) = RealCublas::in_process() {
            return Ok(real);
        }
        if let Some(why) = LOAD_FAILURE.get() {
            return Err(why.clone());
        }
        RealCublas::open_first(&SONAMES, libc::RTLD_LAZY | libc::RTLD_LOCAL, "loaded")
            .map_err(|reasons| LOAD_FAILURE.get_or_init(|| format!("no cuBLAS library found ({reasons})")).clone())
    }

    /// The first of `sonames` that dlopen with `flags` gives, resolved and
    /// kept for the process; else why each failed. `how` goes to the log.
    fn open_first(sonames: &[&'static str], flags: c_int, how: &str) -> Result<&'static RealCublas, String> {
        let mut reasons = Vec::new();
        for &soname in sonames {
            // SAFETY: dlopen by soname (RTLD_NOLOAD only finds a library already loaded); cuBLAS's initialisers
            // have no preconditions.
            match unsafe { libloading::os::unix::Library::open(Some(soname), flags) } {
                Ok(lib) => {
                    let real = RealCublas::resolve(lib.into(), soname)?;
                    log::debug!("real cuBLAS: {soname} ({how})");
                    return Ok(REAL.get_or_init(|| real));
                }
                Err(e) => reasons.push(format!("{soname}: {e}")),
            }
        }
        Err(reasons.join("; "))
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
