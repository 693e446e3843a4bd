#!/usr/bin/env python3
"""Where an SGEMM call's time goes, mublas against cuBLAS (GPU, CuPy, ctypes):
host time per call (calls queued back to back, no synchronisation: ctypes
overhead included, the same for both), event-timed per call with a
synchronisation after each (the benchmark's method: the host's cost before
the kernel starts counts) and event-timed back to back (the kernels alone).
Same operands every call; NN unless TA,TB say otherwise (0 = N, 1 = T);
squares of 64, 2048 and 4096 unless shapes are named (M or MxNxK).

usage: sgemm-host-cost.py path/to/libmublas.so [TA,TB] [SHAPE ...]
"""
import ctypes, sys, cupy as cp
from host_cost import libraries, measure
mu, cb, hm, hc = libraries(sys.argv[1])
one = ctypes.c_float(1.0); zero = ctypes.c_float(0.0)
ta, tb = map(int, (sys.argv[2] if len(sys.argv) > 2 else "0,0").split(","))
shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[3:]] or [(64,), (2048,), (4096,)]
for shape in shapes:
    m, n, k = shape if len(shape) == 3 else shape * 3
    lda, ldb = (k if ta else m), (n if tb else k)
    A = cp.random.rand(m * k, dtype=cp.float32); B = cp.random.rand(k * n, dtype=cp.float32); C = cp.zeros(m * n, dtype=cp.float32)
    for name, f, h in (("mublas", mu.mublasSgemm, hm), ("cublas", cb.cublasSgemm_v2, hc), ("mublas", mu.mublasSgemm, hm), ("cublas", cb.cublasSgemm_v2, hc)):
        args = (h, ta, tb, m, n, k, ctypes.byref(one), ctypes.c_void_p(A.data.ptr), lda, ctypes.c_void_p(B.data.ptr), ldb, ctypes.byref(zero), ctypes.c_void_p(C.data.ptr), m)
        host, synced, back_to_back = measure(f, args, 200 if m * n * k <= 2048 ** 3 else 50, 30)
        print(f"{'NT'[ta]}{'NT'[tb]} {m}x{n}x{k} {name}: host {host:6.2f} us/call   synced median {synced:9.2f} us   back-to-back median {back_to_back:9.2f} us")
