#!/usr/bin/env python3
"""Where an SGEMV call's time goes, mublas against cuBLAS (GPU, CuPy, ctypes),
as scripts/sgemm-host-cost.py does for SGEMM: host time per call (calls
queued back to back, no synchronisation: ctypes overhead included, the same
for both), event-timed per call with a synchronisation after each (the
benchmark's method: the host's cost before the kernel starts counts) and
event-timed back to back (the kernels alone). Same operands every call,
alpha 1, beta 0, unit increments; N 1024², N 3000² and T 1024² unless
shapes are named (OP:MxN, OP N or T).

usage: sgemv-host-cost.py path/to/libmublas.so [OP:MxN ...]
"""
import ctypes, sys, cupy as cp
from host_cost import libraries, measure
mu, cb, hm, hc = libraries(sys.argv[1])
one = ctypes.c_float(1.0); zero = ctypes.c_float(0.0)
shapes = sys.argv[2:] or ["N:1024x1024", "N:3000x3000", "T:1024x1024"]
for shape in shapes:
    op, sizes = shape.split(":")
    m, n = map(int, sizes.split("x"))
    trans = 0 if op == "N" else 1
    A = cp.random.rand(m * n, dtype=cp.float32)
    x = cp.random.rand(n if trans == 0 else m, dtype=cp.float32); y = cp.zeros(m if trans == 0 else n, dtype=cp.float32)
    for name, f, h in (("mublas", mu.mublasSgemv, hm), ("cublas", cb.cublasSgemv_v2, hc), ("mublas", mu.mublasSgemv, hm), ("cublas", cb.cublasSgemv_v2, hc)):
        args = (h, trans, m, n, ctypes.byref(one), ctypes.c_void_p(A.data.ptr), m, ctypes.c_void_p(x.data.ptr), 1, ctypes.byref(zero), ctypes.c_void_p(y.data.ptr), 1)
        host, synced, back_to_back = measure(f, args, 400, 61)
        print(f"{op} {m}x{n} {name}: host {host:6.2f} us/call   synced median {synced:9.2f} us   back-to-back median {back_to_back:9.2f} us")
