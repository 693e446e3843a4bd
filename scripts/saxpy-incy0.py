#!/usr/bin/env python3
"""SAXPY with incy = 0 (every term into y[0]): mublas (dist/lib/libmublas.so,
from scripts/make-dist.sh) against cuBLAS on the GPU machine (CuPy,
libcublas.so.13). CUDA events around each call, the median of 50 after 3
warm-ups, x rotated over 4 copies; y[0] after one call printed beside the
float64 sum. Run from the checkout's root."""
import ctypes
import statistics

import cupy as cp

WARMUPS, TIMED = 3, 50


def main():
    mublas = ctypes.CDLL("dist/lib/libmublas.so")
    cublas = ctypes.CDLL("libcublas.so.13")
    ours, theirs = ctypes.c_void_p(), ctypes.c_void_p()
    assert mublas.mublasCreate(ctypes.byref(ours)) == 0
    assert cublas.cublasCreate_v2(ctypes.byref(theirs)) == 0
    alpha = ctypes.c_float(0.5)
    # cuBLAS takes about 0.45 s a call at 2^24 on an H100, so the sizes stop there.
    for n in [1 << 10, 1 << 16, 1 << 20, 1 << 24]:
        xs = [cp.random.rand(n, dtype=cp.float32) - 0.5 for _ in range(4)]
        y = cp.zeros(1, dtype=cp.float32)
        want = 0.5 * float(xs[0].astype(cp.float64).sum())
        results = {}
        for name, saxpy, handle in [("mublas", mublas.mublasSaxpy, ours), ("cuBLAS", cublas.cublasSaxpy_v2, theirs)]:
            def call(x):
                assert saxpy(handle, n, ctypes.byref(alpha), ctypes.c_void_p(x.data.ptr), 1,
                             ctypes.c_void_p(y.data.ptr), 0) == 0

            y[0] = 0
            call(xs[0])
            got = float(y[0])
            times = []
            for i in range(WARMUPS + TIMED):
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                start.record()
                call(xs[i % 4])
                stop.record()
                stop.synchronize()
                if i >= WARMUPS:
                    times.append(cp.cuda.get_elapsed_time(start, stop) * 1000)
            results[name] = (statistics.median(times), got)
        (mu_us, mu_y), (cu_us, cu_y) = results["mublas"], results["cuBLAS"]
        print(f"n=2^{n.bit_length() - 1}: mublas {mu_us:.1f} µs (y[0] {mu_y:.7g}), "
              f"cuBLAS {cu_us:.1f} µs (y[0] {cu_y:.7g}), float64 {want:.7g}", flush=True)


if __name__ == "__main__":
    main()
