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
import ctypes, sys, time, cupy as cp
mu = ctypes.CDLL(sys.argv[1]); cb = ctypes.CDLL("libcublas.so.13")
hm = ctypes.c_void_p(); hc = ctypes.c_void_p()
assert mu.mublasCreate(ctypes.byref(hm)) == 0 and cb.cublasCreate_v2(ctypes.byref(hc)) == 0
one = ctypes.c_float(1.0); zero = ctypes.c_float(0.0)
ta, tb = map(int, (sys.argv[2] if len(sys.argv) > 2 else "0,0").split(","))
shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[3:]] or [(64,), (2048,), (4096,)]
for shape in shapes:
    m, n, k = shape if len(shape) == 3 else shape * 3
    lda, ldb = (k if ta else m), (n if tb else k)
    A = cp.random.rand(m * k, dtype=cp.float32); B = cp.random.rand(k * n, dtype=cp.float32); C = cp.zeros(m * n, dtype=cp.float32)
    for name, f, h in (("mublas", mu.mublasSgemm, hm), ("cublas", cb.cublasSgemm_v2, hc), ("mublas", mu.mublasSgemm, hm), ("cublas", cb.cublasSgemm_v2, hc)):
        args = (h, ta, tb, m, n, k, ctypes.byref(one), ctypes.c_void_p(A.data.ptr), lda, ctypes.c_void_p(B.data.ptr), ldb, ctypes.byref(zero), ctypes.c_void_p(C.data.ptr), m)
        for _ in range(5): f(*args)
        cp.cuda.Device().synchronize()
        calls = 200 if m * n * k <= 2048 ** 3 else 50
        t = time.perf_counter()
        for _ in range(calls): f(*args)
        host = (time.perf_counter() - t) / calls * 1e6
        cp.cuda.Device().synchronize()
        # synchronized per call, events (the bench's method): includes host cost before the kernel starts
        s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
        for _ in range(30):
            s.record(); f(*args); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e) * 1000)
        ts.sort()
        # back to back, events: kernel time without host cost
        ev = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(30)]
        for a, b in ev: a.record(); f(*args); b.record()
        ev[-1][1].synchronize()
        bb = sorted(cp.cuda.get_elapsed_time(a, b) * 1000 for a, b in ev)
        print(f"{'NT'[ta]}{'NT'[tb]} {m}x{n}x{k} {name}: host {host:6.2f} us/call   synced median {ts[15]:9.2f} us   back-to-back median {bb[15]:9.2f} us")
