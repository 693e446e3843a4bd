"""Two calls each of mublasSgemm and cublasSgemm_v2 per shape, for Nsight
Compute to profile side by side (scripts/ncu/sgemm.sh).

usage: sgemm_calls.py LIBMUBLAS N:PAIR...   e.g. 2048:NN 4096:TN
Needs CuPy (for device memory) and libcublas.so.13.
"""
import ctypes
import sys

import cupy as cp

mublas = ctypes.CDLL(sys.argv[1])
cublas = ctypes.CDLL("libcublas.so.13")
mu_handle, cu_handle = ctypes.c_void_p(), ctypes.c_void_p()
assert mublas.mublasCreate(ctypes.byref(mu_handle)) == 0
assert cublas.cublasCreate_v2(ctypes.byref(cu_handle)) == 0
one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
for spec in sys.argv[2:]:
    n, pair = int(spec.split(":")[0]), spec.split(":")[1]
    a = cp.random.rand(n * n, dtype=cp.float32)
    b = cp.random.rand(n * n, dtype=cp.float32)
    c = cp.zeros(n * n, dtype=cp.float32)
    transa, transb = int(pair[0] == "T"), int(pair[1] == "T")
    for handle, sgemm in ((mu_handle, mublas.mublasSgemm), (cu_handle, cublas.cublasSgemm_v2)):
        for _ in range(2):  # the second call is the warm one
            status = sgemm(handle, transa, transb, n, n, n, ctypes.byref(one), ctypes.c_void_p(a.data.ptr), n,
                           ctypes.c_void_p(b.data.ptr), n, ctypes.byref(zero), ctypes.c_void_p(c.data.ptr), n)
            assert status == 0, (spec, status)
    cp.cuda.Device().synchronize()
