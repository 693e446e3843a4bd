"""Shared by scripts/sgemm-host-cost.py and sgemv-host-cost.py: both
libraries loaded with a handle each, and one call's cost three ways."""
import ctypes, time, cupy as cp


def libraries(path):
    """(mublas, cuBLAS, mublas handle, cuBLAS handle); mublas from `path`."""
    mu = ctypes.CDLL(path); cb = ctypes.CDLL("libcublas.so.13")
    hm = ctypes.c_void_p(); hc = ctypes.c_void_p()
    assert mu.mublasCreate(ctypes.byref(hm)) == 0 and cb.cublasCreate_v2(ctypes.byref(hc)) == 0
    return mu, cb, hm, hc


def measure(f, args, calls, timed):
    """µs of f(*args): host time per call over `calls` queued back to back
    (no synchronisation: ctypes overhead included), then the medians of
    `timed` event-timed calls synchronised after each (the benchmark's
    method: the host's cost before the kernel starts counts) and of `timed`
    back to back (the kernels alone). Five warm-up calls first."""
    for _ in range(5): assert f(*args) == 0
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(calls): f(*args)
    host = (time.perf_counter() - t) / calls * 1e6
    cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(timed):
        s.record(); f(*args); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e) * 1000)
    ev = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(timed)]
    for a, b in ev: a.record(); f(*args); b.record()
    ev[-1][1].synchronize()
    bb = sorted(cp.cuda.get_elapsed_time(a, b) * 1000 for a, b in ev)
    return host, sorted(ts)[timed // 2], bb[timed // 2]
