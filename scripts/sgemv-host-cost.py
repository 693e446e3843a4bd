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
import ctypes, sys, time, cupy as cp
mu = ctypes.CDLL(sys.argv[1]); cb = ctypes.CDLL("libcublas.so.13")
hm = ctypes.c_void_p(); hc = ctypes.c_void_p()
assert mu.mublasCreate(ctypes.byref(hm)) == 0 and cb.cublasCreate_v2(ctypes.byref(hc)) == 0
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
        for _ in range(5): assert f(*args) == 0
        cp.cuda.Device().synchronize()
        calls = 400
        t = time.perf_counter()
        for _ in range(calls): f(*args)
        host = (time.perf_counter() - t) / calls * 1e6
        cp.cuda.Device().synchronize()
        s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
        for _ in range(61):
            s.record(); f(*args); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e) * 1000)
        ts.sort()
        ev = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(61)]
        for a, b in ev: a.record(); f(*args); b.record()
        ev[-1][1].synchronize()
        bb = sorted(cp.cuda.get_elapsed_time(a, b) * 1000 for a, b in ev)
        print(f"{op} {m}x{n} {name}: host {host:6.2f} us/call   synced median {ts[30]:9.2f} us   back-to-back median {bb[30]:9.2f} us")
