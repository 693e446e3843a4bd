"""PyTorch and CuPy under LD_PRELOAD=libmublas.so: correct results, served by mublas.

Each check runs the framework's fp32 call, compares with float64 NumPy, and reads
mublas's own count of served calls for the cuBLAS entry point it should reach.
"""
import ctypes
import os
import numpy as np

mublas = ctypes.CDLL(None)  # the preloaded library is in the global scope
counts = mublas.mublasInterposedCalls
counts.restype = ctypes.c_longlong
counts.argtypes = [ctypes.c_char_p]

failed = False


def check(what, got, expected, entry, before, tolerance, calls=None):
    """The result against float64, and mublas's count of `entry` moved since `before`: by `calls`, or at all."""
    global failed
    served = counts(entry.encode()) - before
    error = float(np.max(np.abs(np.asarray(got, dtype=np.float64) - expected)))
    scale = float(np.max(np.abs(expected))) or 1.0
    ok = error <= tolerance * scale and (served == calls if calls is not None else served > 0)
    failed |= not ok
    print(f"{'ok' if ok else 'FAIL'}: {what}: max error {error:.3g} (scale {scale:.3g}), {entry} served {served} times")


import cupy
import cupy.cublas

# Fresh data each run; MUBLAS_TEST_SEED replays one.
seed = int(os.environ.get("MUBLAS_TEST_SEED") or np.random.SeedSequence().entropy % 2**63)
print(f"  MUBLAS_TEST_SEED={seed}")
rng = np.random.default_rng(seed)
n = 100_003
x = rng.uniform(-1, 1, n).astype(np.float32)
y = rng.uniform(-1, 1, n).astype(np.float32)
before = counts(b"cublasSaxpy_v2")
dx, dy = cupy.asarray(x), cupy.asarray(y)
cupy.cublas.axpy(np.float32(0.5), dx, dy)
check("cupy.cublas.axpy", cupy.asnumpy(dy), 0.5 * x.astype(np.float64) + y, "cublasSaxpy_v2", before, 1e-6)

m, n = 1000, 777
a = rng.uniform(-1, 1, (m, n)).astype(np.float32)
v = rng.uniform(-1, 1, n).astype(np.float32)
expected = a.astype(np.float64) @ v.astype(np.float64)

import torch
before = counts(b"cublasSgemv_v2")
got = torch.mv(torch.from_numpy(a).cuda(), torch.from_numpy(v).cuda()).cpu().numpy()
check("torch.mv (fp32)", got, expected, "cublasSgemv_v2", before, 1e-5)

before = counts(b"cublasSgemv_v2")
da = cupy.asfortranarray(cupy.asarray(a))
out = cupy.zeros(m, dtype=cupy.float32)
cupy.cublas.gemv("N", np.float32(1.0), da, cupy.asarray(v), np.float32(0.0), out)
check("cupy.cublas.gemv", cupy.asnumpy(out), expected, "cublasSgemv_v2", before, 1e-5)

b = rng.uniform(-1, 1, (n, 300)).astype(np.float32)
expected = a.astype(np.float64) @ b.astype(np.float64)
torch.backends.cuda.matmul.allow_tf32 = False  # fp32 arithmetic, as mublas computes
before = counts(b"cublasSgemm_v2")
got = torch.mm(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()).cpu().numpy()
check("torch.mm (fp32)", got, expected, "cublasSgemm_v2", before, 1e-5)

before = counts(b"cublasGemmEx")
got = cupy.asnumpy(cupy.asarray(a) @ cupy.asarray(b))
check("cupy @ (GemmEx, fp32)", got, expected, "cublasGemmEx", before, 1e-5)

before = counts(b"cublasGemmEx")
got = cupy.asnumpy(cupy.asarray(a).dot(cupy.asarray(b)))
check("cupy ndarray.dot (GemmEx, fp32)", got, expected, "cublasGemmEx", before, 1e-5)

before = counts(b"cublasSgemm_v2")
c = cupy.zeros((m, 300), dtype=cupy.float32, order="F")
cupy.cublas.gemm("N", "N", cupy.asfortranarray(cupy.asarray(a)), cupy.asfortranarray(cupy.asarray(b)), out=c)
check("cupy.cublas.gemm", cupy.asnumpy(c), expected, "cublasSgemm_v2", before, 1e-5)

# A stream made for one task and destroyed after it (CuPy destroys a Stream
# once it is collected); the next call moves mublas's shadow handle on, and
# the destroyed stream must not be asked anything (the driver crashes on it).
import gc
gemv_expected = a.astype(np.float64) @ v.astype(np.float64)
before = counts(b"cublasSgemv_v2")
worst = 0.0
for task in range(3):
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        out = cupy.zeros(m, dtype=cupy.float32)
        cupy.cublas.gemv("N", np.float32(1.0), da, cupy.asarray(v), np.float32(0.0), out)
        s.synchronize()
    worst = max(worst, float(np.max(np.abs(cupy.asnumpy(out) - gemv_expected))))
    del s
    gc.collect()
out = cupy.zeros(m, dtype=cupy.float32)
cupy.cublas.gemv("N", np.float32(1.0), da, cupy.asarray(v), np.float32(0.0), out)
# Served all four times: the three calls on the streams destroyed since, and this one.
check("cupy.cublas.gemv after three streams were destroyed", cupy.asnumpy(out), gemv_expected, "cublasSgemv_v2", before, 1e-5,
      calls=4)
if worst > 1e-5 * float(np.max(np.abs(gemv_expected))):
    failed = True
    print(f"FAIL: cupy.cublas.gemv on the destroyed streams: max error {worst:.3g}")

# CUDA graphs: torch.cuda.graph captures on a stream of its own in the global
# mode, where an allocation or a wait for another stream invalidates the
# capture; each replay redoes the calls.
ta, tb, tv = (torch.from_numpy(t).cuda() for t in (a, b, v))
mm_out, mv_out = torch.empty(m, 300, device="cuda"), torch.empty(m, device="cuda")
before_mm, before_mv = counts(b"cublasSgemm_v2"), counts(b"cublasSgemv_v2")
try:
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        torch.mm(ta, tb, out=mm_out)
        torch.mv(ta, tv, out=mv_out)
    mm_out.fill_(float("nan"))
    mv_out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    check("torch.mm in a CUDA graph", mm_out.cpu().numpy(), expected, "cublasSgemm_v2", before_mm, 1e-5)
    check("torch.mv in a CUDA graph", mv_out.cpu().numpy(), a.astype(np.float64) @ v.astype(np.float64),
          "cublasSgemv_v2", before_mv, 1e-5)
except Exception as e:  # the capture invalidated, say
    failed = True
    print(f"FAIL: torch.cuda.graph: {e}")

# A second GPU: the handle PyTorch uses there gets a shadow on that device.
if torch.cuda.device_count() > 1:
    before = counts(b"cublasSgemm_v2")
    with torch.cuda.device(1):
        got = torch.mm(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()).cpu().numpy()
    check("torch.mm on cuda:1", got, expected, "cublasSgemm_v2", before, 1e-5)
else:
    print("skipped: torch.mm on a second GPU (one GPU here)")

print("frameworks: FAIL" if failed else "frameworks: PASS")
raise SystemExit(1 if failed else 0)
