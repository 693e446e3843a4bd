//! Compiles every `kernels/*.cu` with NVRTC and embeds the result.
//!
//! For each kernel file we produce PTX for the virtual architectures in
//! `PTX_ARCHS` and CUBIN for those in `CUBIN_ARCHS`, so that `mublasCreate` on
//! a known GPU loads machine code and does no JIT compilation. Machine code for
//! sm_XY also runs on sm_XZ, Z > Y (same major version): 70, 75, 80 and 90
//! cover Volta, Turing, Ampere, Ada and Hopper. Newer GPUs get the compute_80
//! PTX (which keeps the kernels' sm_80 code, cp.async), compiled by the
//! driver's JIT: NVRTC 12.6 cannot make machine code for Blackwell. The
//! compute_70 PTX serves `MUBLAS_FORCE_PTX=70` (the portable code paths, run
//! on any GPU). The generated `$OUT_DIR/kernel_images.rs` holds one
//! `KernelImage` constant per file.
//!
//! NVRTC is loaded at build time only, by full path, from the first place that
//! has a 12.x `libnvrtc.so`: `MUBLAS_NVRTC_LIB` (a file or a folder),
//! `CUDA_PATH`, `CUDA_HOME`, the usual toolkit folders, and the pip wheel
//! `nvidia-cuda-nvrtc-cu12`. NVRTC 13 is refused: its PTX needs a 580+ driver.

use std::env;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Real architectures that get embedded machine code (sm_XY).
const CUBIN_ARCHS: &[u32] = &[70, 75, 80, 90];
/// Virtual architectures that get embedded PTX (compute_XY), oldest first.
const PTX_ARCHS: &[u32] = &[70, 80];

const HOW_TO_GET_NVRTC: &str = "\
mublas needs NVRTC 12.x at build time to compile its CUDA kernels (no GPU needed).
Get it with:   python3 -m pip install nvidia-cuda-nvrtc-cu12==12.6.85
or install a CUDA 12 toolkit and set CUDA_PATH, or point MUBLAS_NVRTC_LIB at libnvrtc.so.12.";

type NvrtcProgram = *mut c_void;

/// The handful of NVRTC entry points we need, resolved from a library loaded by path.
struct Nvrtc {
    _lib: libloading::Library,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int,
    create: unsafe extern "C" fn(
        *mut NvrtcProgram,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int,
    compile: unsafe extern "C" fn(NvrtcProgram, c_int, *const *const c_char) -> c_int,
    log_size: unsafe extern "C" fn(NvrtcProgram, *mut usize) -> c_int,
    log: unsafe extern "C" fn(NvrtcProgram, *mut c_char) -> c_int,
    ptx_size: unsafe extern "C" fn(NvrtcProgram, *mut usize) -> c_int,
    ptx: unsafe extern "C" fn(NvrtcProgram, *mut c_char) -> c_int,
    cubin_size: unsafe extern "C" fn(NvrtcProgram, *mut usize) -> c_int,
    cubin: unsafe extern "C" fn(NvrtcProgram, *mut c_char) -> c_int,
    destroy: unsafe extern "C" fn(*mut NvrtcProgram) -> c_int,
}

impl Nvrtc {
    fn open(path: &Path) -> Result<Self, String> {
        // SAFETY: loading NVRTC runs no initialisers with preconditions; every symbol
        // below is declared with the signature of nvrtc.h (CUDA 12).
        unsafe {
            let lib = libloading::Library::new(path).map_err(|e| e.to_string())?;
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get($name).map_err(|e| format!("{}: {e}", path.display()))?
                };
            }
            Ok(Nvrtc {
                version: sym!(b"nvrtcVersion\0"),
                create: sym!(b"nvrtcCreateProgram\0"),
                compile: sym!(b"nvrtcCompileProgram\0"),
                log_size: sym!(b"nvrtcGetProgramLogSize\0"),
                log: sym!(b"nvrtcGetProgramLog\0"),
                ptx_size: sym!(b"nvrtcGetPTXSize\0"),
                ptx: sym!(b"nvrtcGetPTX\0"),
                cubin_size: sym!(b"nvrtcGetCUBINSize\0"),
                cubin: sym!(b"nvrtcGetCUBIN\0"),
                destroy: sym!(b"nvrtcDestroyProgram\0"),
                _lib: lib,
            })
        }
    }

    fn version(&self) -> (i32, i32) {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        unsafe { (self.version)(&mut major, &mut minor) };
        (major, minor)
    }

    /// Compiles `source` for `arch` ("compute_70" gives PTX, "sm_90" gives CUBIN).
    fn compile(&self, name: &str, source: &str, arch: &str, include_dir: &Path) -> Result<Vec<u8>, String> {
        let src = CString::new(source).unwrap();
        let cname = CString::new(name).unwrap();
        let mut options = vec![
            format!("--gpu-architecture={arch}"),
            format!("--include-path={}", include_dir.display()),
            "--std=c++17".to_string(),
            "--device-as-default-execution-space".to_string(),
        ];
        // Line info lets ncu and compute-sanitizer point at source lines. It
        // costs nothing at run time but triples the SGEMM machine code (9.3
        // MB instead of 2.8 per architecture), so it is asked for.
        if env::var_os("MUBLAS_KERNEL_LINE_INFO").is_some_and(|v| v == "1") {
            options.push("--generate-line-info".to_string());
        }
        let options: Vec<CString> = options.into_iter().map(|o| CString::new(o).unwrap()).collect();
        let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let mut prog: NvrtcProgram = std::ptr::null_mut();
        // SAFETY: all pointers are valid NUL-terminated strings that outlive the calls;
        // the output buffers are sized by the matching *Size call.
        unsafe {
            check(
                (self.create)(&mut prog, src.as_ptr(), cname.as_ptr(), 0, std::ptr::null(), std::ptr::null()),
                "nvrtcCreateProgram",
            )?;
            let status = (self.compile)(prog, option_ptrs.len() as c_int, option_ptrs.as_ptr());
            let mut log_len = 0usize;
            (self.log_size)(prog, &mut log_len);
            let mut log = vec![0u8; log_len.max(1)];
            (self.log)(prog, log.as_mut_ptr() as *mut c_char);
            let log = CStr::from_bytes_until_nul(&log).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
            if status != 0 {
                (self.destroy)(&mut prog);
                return Err(format!("NVRTC failed to compile {name} for {arch}:\n{log}"));
            }
            if !log.trim().is_empty() {
                println!("cargo:warning={name} ({arch}): {}", log.trim().replace('\n', " | "));
            }
            let (size_fn, get_fn) =
                if arch.starts_with("compute_") { (self.ptx_size, self.ptx) } else { (self.cubin_size, self.cubin) };
            let mut len = 0usize;
            check(size_fn(prog, &mut len), "nvrtcGet{PTX,CUBIN}Size")?;
            let mut out = vec![0u8; len];
            check(get_fn(prog, out.as_mut_ptr() as *mut c_char), "nvrtcGet{PTX,CUBIN}")?;
            (self.destroy)(&mut prog);
            Ok(out)
        }
    }
}

fn check(code: c_int, what: &str) -> Result<(), String> {
    if code == 0 { Ok(()) } else { Err(format!("{what} returned NVRTC error {code}")) }
}

/// Folders that may hold `libnvrtc.so*`, in the order we try them.
fn candidate_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for var in ["CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"] {
        if let Some(root) = env::var_os(var) {
            let root = PathBuf::from(root);
            dirs.push(root.join("lib64"));
            dirs.push(root.join("lib"));
            dirs.push(root.join("targets/x86_64-linux/lib"));
        }
    }
    dirs.push("/usr/local/cuda/lib64".into());
    for version in ["12.9", "12.8", "12.6", "12.5", "12.4", "12.3", "12.2", "12.1", "12.0"] {
        dirs.push(format!("/usr/local/cuda-{version}/lib64").into());
    }
    dirs.push("/usr/lib/x86_64-linux-gnu".into());
    dirs.push("/usr/lib64".into());
    // The pip wheel nvidia-cuda-nvrtc-cu12, wherever the Python on PATH installed it.
    for python in ["python3", "python"] {
        let script = "import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0])";
        if let Ok(out) = Command::new(python).args(["-c", script]).output()
            && out.status.success()
        {
            let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
            dirs.push(PathBuf::from(dir).join("lib"));
            break;
        }
    }
    dirs
}

fn find_nvrtc() -> Result<Nvrtc, String> {
    let mut tried = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(explicit) = env::var_os("MUBLAS_NVRTC_LIB") {
        let p = PathBuf::from(explicit);
        if p.is_dir() {
            files.push(p.join("libnvrtc.so.12"));
            files.push(p.join("libnvrtc.so"));
        } else {
            files.push(p);
        }
    }
    for dir in candidate_dirs() {
        files.push(dir.join("libnvrtc.so.12"));
        files.push(dir.join("libnvrtc.so"));
    }
    for file in files {
        if !file.exists() {
            continue;
        }
        match Nvrtc::open(&file) {
            Ok(nvrtc) => {
                let (major, minor) = nvrtc.version();
                if major == 12 {
                    println!(
                        "cargo:warning=mublas: compiling kernels with NVRTC {major}.{minor} from {}",
                        file.display()
                    );
                    return Ok(nvrtc);
                }
                tried.push(format!("{} (version {major}.{minor}: need 12.x)", file.display()));
            }
            Err(e) => tried.push(format!("{} ({e})", file.display())),
        }
    }
    let tried = if tried.is_empty() { "none found".to_string() } else { tried.join("\n  ") };
    Err(format!("{HOW_TO_GET_NVRTC}\nTried:\n  {tried}"))
}

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let kernel_dir = manifest_dir.join("kernels");
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=kernels");
    for var in ["MUBLAS_NVRTC_LIB", "MUBLAS_KERNEL_LINE_INFO", "CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&kernel_dir)
        .expect("kernels/ folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    sources.sort();
    for p in std::fs::read_dir(&kernel_dir).unwrap().flatten() {
        println!("cargo:rerun-if-changed={}", p.path().display());
    }

    let nvrtc = match find_nvrtc() {
        Ok(n) => n,
        Err(message) => {
            eprintln!("\nerror: {message}\n");
            std::process::exit(1);
        }
    };

    // Every (file, architecture) is its own NVRTC program: compiled on all
    // cores at once (the SGEMM file takes ~30 s per architecture), then
    // written out in a fixed order.
    let jobs: Vec<(usize, String)> = (0..sources.len())
        .flat_map(|i| {
            let ptx = PTX_ARCHS.iter().map(move |a| (i, format!("compute_{a}")));
            ptx.chain(CUBIN_ARCHS.iter().map(move |a| (i, format!("sm_{a}"))))
        })
        .collect();
    let stems: Vec<String> =
        sources.iter().map(|path| path.file_stem().unwrap().to_str().unwrap().to_string()).collect();
    let texts: Vec<(String, String)> = sources
        .iter()
        .zip(&stems)
        .map(|(path, stem)| (format!("{stem}.cu"), std::fs::read_to_string(path).unwrap()))
        .collect();
    let next_job = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len());
    let mut outputs: Vec<Option<Vec<u8>>> = vec![None; jobs.len()];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let j = next_job.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((file, arch)) = jobs.get(j) else { break };
                        let (name, source) = &texts[*file];
                        match nvrtc.compile(name, source, arch, &kernel_dir) {
                            Ok(bytes) => done.push((j, bytes)),
                            Err(e) => {
                                eprintln!("\nerror: {e}\n");
                                std::process::exit(1);
                            }
                        }
                    }
                    done
                })
            })
            .collect();
        for handle in handles {
            for (j, bytes) in handle.join().expect("an NVRTC worker panicked") {
                outputs[j] = Some(bytes);
            }
        }
    });
    let mut outputs = outputs.into_iter().map(|o| o.expect("every job ran"));

    let mut generated = String::from("// Generated by build.rs from kernels/*.cu. Do not edit.\n\n");
    let mut all = Vec::new();
    // Outputs come in job order: per file, its PTX then its CUBIN architectures.
    for stem in &stems {
        let mut ptxs = String::new();
        for arch in PTX_ARCHS {
            let ptx_path = out_dir.join(format!("{stem}.compute_{arch}.ptx"));
            let mut ptx = outputs.next().unwrap();
            // cuModuleLoadData wants PTX NUL-terminated.
            if ptx.last() != Some(&0) {
                ptx.push(0);
            }
            std::fs::write(&ptx_path, &ptx).unwrap();
            let _ = write!(ptxs, "({arch}, include_bytes!({:?})), ", ptx_path.display().to_string());
        }
        let mut cubins = String::new();
        for arch in CUBIN_ARCHS {
            let cubin_path = out_dir.join(format!("{stem}.sm_{arch}.cubin"));
            std::fs::write(&cubin_path, outputs.next().unwrap()).unwrap();
            let _ = write!(cubins, "({arch}, include_bytes!({:?})), ", cubin_path.display().to_string());
        }
        let constant = stem.to_uppercase();
        let _ = writeln!(
            generated,
            "pub const {constant}: KernelImage = KernelImage {{ name: {stem:?}, ptxs: &[{ptxs}], cubins: &[{cubins}] }};"
        );
        all.push(constant);
    }
    let _ = writeln!(
        generated,
        "\n/// Every embedded kernel file.\npub const ALL: &[KernelImage] = &[{}];",
        all.join(", ")
    );
    std::fs::write(out_dir.join("kernel_images.rs"), generated).unwrap();
}
