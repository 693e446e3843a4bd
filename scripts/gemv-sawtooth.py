#!/usr/bin/env python3
"""The SGEMV saw-tooth as kernel time: mublas's kernels and cuBLAS over
n = 4096…4224 in steps of 1, square, lda = n, y = op(A)·x + 0.5·y (OP=T in
the environment: y = Aᵀ·x + 0.5·y). Each size runs the kernel the routine
takes there (src/routines/gemv/, `plan`): by default, for T
gemv_t_f32_paired_any on blocks of 64 threads where n % 4 != 0 and
gemv_t_f32_paired on 256 where n % 4 == 0; for N
gemv_n_f32_wide_any on 8 × 48 (wide_any_plan's shape over this range)
where n % 4 != 0 and gemv_n_f32_wide on 8 × 64 (wide_plan's shape) where
n % 4 == 0; unsplit (on the H200 the routine takes gemv_n_f32_sweep@32x32
where n % 4 != 0: pass it as ANY_LDA_SPEC). Each
size is timed as scripts/gemv-ab.py does (graph_timing.py: twenty calls
replayed from a CUDA graph, no launch cost, four matrices rotated past the
L2), the median of 11 replays. Prints µs and GB/s (of A) per size, then for
each library the slowest size against the median (the issue's criterion) in
µs and in GB/s. Runs on the GPU machine (CuPy, libcublas.so.13); the CUBIN
from `scripts/nvrtc-ptx.py kernels/gemv.cu sm_90`.

usage: [OP=T] gemv-sawtooth.py gemv.cubin [ANY_LDA_SPEC [FLOAT4_SPEC]]
   SPEC: KERNEL@TXxTY (T: KERNEL@TX)
"""
import ctypes
import os
import statistics
import sys

import cupy as cp
import numpy as np
from graph_timing import cublas_on_stream, graph_times, median

SIZES = range(4096, 4225)
OP_T = os.environ.get("OP") == "T"
DEFAULTS = (["gemv_t_f32_paired_any@64x1", "gemv_t_f32_paired@256x1"] if OP_T
            else ["gemv_n_f32_wide_any@8x48", "gemv_n_f32_wide@8x64"])


def grid(name, tx, n):
    """Blocks of the unsplit launch: column groups of TX / 32 (T), row tiles of TX rows (lanes) or 4·TX (N)."""
    if OP_T:
        return -(-n // (tx // 32))
    return -(-n // (tx if ("_lanes" in name or "_sweep" in name) else 4 * tx))


def main():
    module = cp.RawModule(path=sys.argv[1])
    specs = (sys.argv[2:] + DEFAULTS[len(sys.argv) - 2:])[:2]
    kernels = []
    for spec in specs:
        name, shape = spec.split("@")
        tx, ty = (list(map(int, shape.split("x"))) + [1])[:2]
        kernels.append((name, tx, ty, module.get_function(name)))
    cublas, handle, stream = cublas_on_stream()
    one, half = ctypes.c_float(1.0), ctypes.c_float(0.5)
    largest = SIZES[-1]
    matrices = [cp.random.rand(largest * largest, dtype=cp.float32) - 0.5 for _ in range(4)]
    x = cp.random.rand(largest, dtype=cp.float32) - 0.5
    ys = [cp.zeros(largest, dtype=cp.float32) for _ in range(4)]
    cp.cuda.Device().synchronize()

    rows = []
    for n in SIZES:
        name, tx, ty, kernel = kernels[1 if n % 4 == 0 else 0]

        def ours(i):
            kernel((grid(name, tx, n), 1), (tx, ty),
                   (np.int64(n), np.int64(n), np.float32(1), np.uint64(0), matrices[i], np.int64(n), x, np.int64(1),
                    np.float32(0.5), np.uint64(0), ys[i], np.int64(1), np.int64(n), np.uint64(0), np.uint64(0)))

        def theirs(i):
            assert cublas.cublasSgemv_v2(handle, 1 if OP_T else 0, n, n, ctypes.byref(one),
                                         ctypes.c_void_p(matrices[i].data.ptr), n, ctypes.c_void_p(x.data.ptr), 1,
                                         ctypes.byref(half), ctypes.c_void_p(ys[i].data.ptr), 1) == 0

        mine, cublas_time = (median(graph_times(stream, launch, replays=11)) for launch in (ours, theirs))
        rows.append((n, mine, cublas_time))
        print(f"{n} {name} {mine:.2f} {cublas_time:.2f} µs, {n * n * 4 / mine / 1e3:.0f} GB/s", flush=True)
    for label, k in [("mublas", 1), ("cuBLAS", 2)]:
        times = [r[k] for r in rows]
        rates = [r[0] * r[0] * 4 / r[k] / 1e3 for r in rows]
        median_time, median_rate = statistics.median(times), statistics.median(rates)
        print(f"{'T' if OP_T else 'N'} {label}: µs median {median_time:.2f} max {max(times):.2f} "
              f"({100 * (max(times) / median_time - 1):.1f} % above); GB/s median {median_rate:.0f} "
              f"min {min(rates):.0f} ({100 * (1 - min(rates) / median_rate):.1f} % below)")


if __name__ == "__main__":
    main()
