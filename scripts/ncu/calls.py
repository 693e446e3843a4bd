"""Three calls each of mublas's and cuBLAS's routine per shape, for Nsight
Compute to profile side by side (scripts/ncu/sgemm.sh, scripts/ncu/sgemv.sh).

usage: calls.py LIBMUBLAS SHAPE...
  N:PAIR  SGEMM n×n×n, PAIR = NN, NT, TN or TT   e.g. 2048:NN 4096:TN
  N:OP    SGEMV n×n, OP = N or T                  e.g. 2000:N 3000:T
  MxN:OP  SGEMV m×n                               e.g. 1x65536:N 17x4096:T
Needs CuPy (for device memory) and libcublas.so.13. The last calls are the
warm ones: profile those.
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
pointer = lambda array: ctypes.c_void_p(array.data.ptr)
for spec in sys.argv[2:]:
    size, ops = spec.split(":")
    m, n = (int(v) for v in size.split("x")) if "x" in size else (int(size), int(size))
    a = cp.random.rand(m * n, dtype=cp.float32)
    if len(ops) == 2:
        assert m == n, f"{spec}: SGEMM shapes are N:PAIR"
        b, c = cp.random.rand(n * n, dtype=cp.float32), cp.zeros(n * n, dtype=cp.float32)
        transa, transb = int(ops[0] == "T"), int(ops[1] == "T")
        args = (transa, transb, n, n, n, ctypes.byref(one), pointer(a), n, pointer(b), n, ctypes.byref(zero), pointer(c), n)
        routines = ((mu_handle, mublas.mublasSgemm), (cu_handle, cublas.cublasSgemm_v2))
    else:
        x_len, y_len = (m, n) if ops == "T" else (n, m)
        x, y = cp.random.rand(x_len, dtype=cp.float32), cp.zeros(y_len, dtype=cp.float32)
        args = (int(ops == "T"), m, n, ctypes.byref(one), pointer(a), m, pointer(x), 1, ctypes.byref(zero), pointer(y), 1)
        routines = ((mu_handle, mublas.mublasSgemv), (cu_handle, cublas.cublasSgemv_v2))
    for handle, routine in routines:
        for _ in range(3):
            status = routine(handle, *args)
            assert status == 0, (spec, status)
    cp.cuda.Device().synchronize()
