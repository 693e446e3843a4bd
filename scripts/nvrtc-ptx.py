#!/usr/bin/env python3
"""Compiles one kernels/*.cu to PTX for one virtual architecture with NVRTC,
the options build.rs uses, and writes it to stdout. ptxas-report.sh runs
ptxas on this PTX for each real architecture: code under
`#if __CUDA_ARCH__ >= 800` (cp.async) is then compiled as it is in the
embedded CUBIN, not as in the portable compute_70 PTX. Given a real
architecture (sm_90) it writes the CUBIN instead, as build.rs embeds it
(scripts/kernel-ab.py times kernels from one).

usage: nvrtc-ptx.py FILE.cu compute_90 > FILE.ptx
       nvrtc-ptx.py FILE.cu sm_90 > FILE.cubin
"""
import ctypes
import glob
import os
import sys


def nvrtc():
    import nvidia.cuda_nvrtc as m
    libs = sorted(glob.glob(os.path.join(list(m.__path__)[0], "lib", "libnvrtc.so*")))
    return ctypes.CDLL(libs[0])


def main():
    path, arch = sys.argv[1], sys.argv[2]
    lib = nvrtc()
    source = open(path, "rb").read()
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), source, os.path.basename(path).encode(), 0, None, None):
        sys.exit("nvrtcCreateProgram failed")
    options = [f"--gpu-architecture={arch}", f"--include-path={os.path.dirname(os.path.abspath(path))}", "--std=c++17",
               "--device-as-default-execution-space", "--generate-line-info"]
    argv = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
    status = lib.nvrtcCompileProgram(prog, len(options), argv)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if status:
        sys.exit(f"NVRTC failed on {path} for {arch}:\n{log.value.decode()}")
    if arch.startswith("sm_"):  # machine code, as build.rs embeds it
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        cubin = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetCUBIN(prog, cubin)
        sys.stdout.buffer.write(cubin.raw)
        return
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, ptx)
    sys.stdout.write(ptx.value.decode())


if __name__ == "__main__":
    main()
