#!/usr/bin/env python3
"""The SGEMV-T saw-tooth as kernel time: a T kernel that takes any lda (by
default gemv_t_f32_l1_any on blocks of 256 threads; unsplit) and cuBLAS's T
over n = 4096…4224 in steps of 1, y = Aᵀ·x + 0.5·y, lda = n. Each size is
timed as scripts/gemv-ab.py does: twenty calls replayed from a CUDA graph (no
launch cost), four matrices rotated past the L2, the median of 11 replays.
Prints µs and GB/s (of A) per size, then for each library the slowest size
against the median (the issue's criterion) in µs and in GB/s. Runs on the GPU
machine (CuPy, libcublas.so.13); the CUBIN from
`scripts/nvrtc-ptx.py kernels/gemv.cu sm_90`.

usage: gemv-t-sawtooth.py gemv.cubin [KERNEL@TX]
"""
import ctypes
import statistics
import sys

import cupy as cp
import numpy as np

SIZES = range(4096, 4225)
CALLS = 20


def main():
    name, tx = (sys.argv[2] if len(sys.argv) > 2 else "gemv_t_f32_l1_any@256").split("@")
    tx = int(tx)
    kernel = cp.RawModule(path=sys.argv[1]).get_function(name)
    cublas = ctypes.CDLL("libcublas.so.13")
    handle = ctypes.c_void_p()
    assert cublas.cublasCreate_v2(ctypes.byref(handle)) == 0
    stream = cp.cuda.Stream(non_blocking=True)
    assert cublas.cublasSetStream_v2(handle, ctypes.c_void_p(stream.ptr)) == 0
    one, half = ctypes.c_float(1.0), ctypes.c_float(0.5)
    largest = SIZES[-1]
    matrices = [cp.random.rand(largest * largest, dtype=cp.float32) - 0.5 for _ in range(4)]
    x = cp.random.rand(largest, dtype=cp.float32) - 0.5
    ys = [cp.zeros(largest, dtype=cp.float32) for _ in range(4)]
    cp.cuda.Device().synchronize()

    def timed(launch):
        with stream:
            for i in range(3):
                launch(i % 4)
            stream.begin_capture()
            for i in range(CALLS):
                launch(i % 4)
            graph = stream.end_capture()
            graph.launch(stream)
            events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(11)]
            for start, stop in events:
                start.record(stream)
                graph.launch(stream)
                stop.record(stream)
        stream.synchronize()
        return statistics.median(cp.cuda.get_elapsed_time(a, b) * 1000 / CALLS for a, b in events)

    rows = []
    for n in SIZES:
        columns_per_block = tx // 32

        def ours(i):
            kernel(((n + columns_per_block - 1) // columns_per_block, 1), (tx, 1),
                   (np.int64(n), np.int64(n), np.float32(1), np.uint64(0), matrices[i], np.int64(n), x, np.int64(1),
                    np.float32(0.5), np.uint64(0), ys[i], np.int64(1), np.int64(n), np.uint64(0), np.uint64(0)))

        def theirs(i):
            assert cublas.cublasSgemv_v2(handle, 1, n, n, ctypes.byref(one), ctypes.c_void_p(matrices[i].data.ptr), n,
                                         ctypes.c_void_p(x.data.ptr), 1, ctypes.byref(half),
                                         ctypes.c_void_p(ys[i].data.ptr), 1) == 0

        mine, cublas_time = timed(ours), timed(theirs)
        rows.append((n, mine, cublas_time))
        print(f"{n} {mine:.2f} {cublas_time:.2f} µs, {n * n * 4 / mine / 1e3:.0f} GB/s", flush=True)
    for label, k in [(name, 1), ("cuBLAS", 2)]:
        times = [r[k] for r in rows]
        rates = [r[0] * r[0] * 4 / r[k] / 1e3 for r in rows]
        median_time, median_rate = statistics.median(times), statistics.median(rates)
        print(f"{label}: µs median {median_time:.2f} max {max(times):.2f} "
              f"({100 * (max(times) / median_time - 1):.1f} % above); GB/s median {median_rate:.0f} "
              f"min {min(rates):.0f} ({100 * (1 - min(rates) / median_rate):.1f} % below)")


if __name__ == "__main__":
    main()
