"""SGEMM with few columns or rows of C (docs/performance.md, "Few columns or
rows"), mublas against cuBLAS, shaped as fp32 nn.Linear calls it at a small
batch (forward TN: m = out, n = batch, k = in). Event-timed calls alternating
(median of REPS) and kernel time by graph replay, inputs rotated past the L2.
Run from the repository root on the GPU machine once dist/ is unpacked:
    python3 scripts/sgemm-small-side.py [ta,tb,m,n,k ...]
MUBLAS_LIB names another build of the library (default dist/lib/libmublas.so)."""
import ctypes, os, sys
import numpy as np
import cupy as cp
sys.path.insert(0, "scripts")
from graph_timing import cublas_on_stream, graph_times, median, operand_sets, sgemm

mu = ctypes.CDLL(os.path.abspath(os.environ.get("MUBLAS_LIB", "dist/lib/libmublas.so")))
cublas, ch, stream = cublas_on_stream()
mh = ctypes.c_void_p()
assert mu.mublasCreate(ctypes.byref(mh)) == 0
assert mu.mublasSetStream(mh, ctypes.c_void_p(stream.ptr)) == 0
REPS = int(os.environ.get("REPS", "40"))

def run(ta, tb, m, n, k):
    ar, ac = (m, k) if ta == 0 else (k, m)
    br, bc = (k, n) if tb == 0 else (n, k)
    per = (ar * ac + br * bc + m * n) * 4
    sets = operand_sets(per)
    with stream:
        As = [cp.random.standard_normal((ac, ar), dtype=cp.float32) for _ in range(sets)]  # column-major as (cols, rows) row-major
        Bs = [cp.random.standard_normal((bc, br), dtype=cp.float32) for _ in range(sets)]
        Cm = [cp.empty((n, m), dtype=cp.float32) for _ in range(sets)]
        Cc = [cp.empty((n, m), dtype=cp.float32) for _ in range(sets)]
    def mub(i): sgemm(mu, "mublasSgemm", mh, ta, tb, m, n, k, As[i], ar, Bs[i], br, Cm[i])
    def cub(i): sgemm(cublas, "cublasSgemm_v2", ch, ta, tb, m, n, k, As[i], ar, Bs[i], br, Cc[i])
    # correctness against cuBLAS
    mub(0); cub(0); stream.synchronize()
    err = float(cp.max(cp.abs(Cm[0] - Cc[0]))) / max(1e-30, float(cp.max(cp.abs(Cc[0]))))
    ev = []
    tm, tc = [], []
    with stream:
        for i in range(5 + REPS):
            for which, f, out in ((0, mub, tm), (1, cub, tc)) if i % 2 == 0 else ((1, cub, tc), (0, mub, tm)):
                s, e = cp.cuda.Event(), cp.cuda.Event()
                s.record(stream); f(i % sets); e.record(stream); e.synchronize()
                if i >= 5: out.append(cp.cuda.get_elapsed_time(s, e) * 1000)
    em, ec = float(np.median(tm)), float(np.median(tc))
    gm = median(graph_times(stream, mub, operands=sets))
    gc = median(graph_times(stream, cub, operands=sets))
    t = "NT"[ta] + "NT"[tb]
    flops = 2.0 * m * n * k
    print(f"{t} {m:>6}x{n:<5}x{k:<6} call mu {em:8.1f} cu {ec:8.1f} ratio {ec/em:5.2f} | kernel mu {gm:8.1f} cu {gc:8.1f} ratio {gc/gm:5.2f} | "
          f"mu {per/gm/1e3:6.0f} GB/s {flops/gm/1e6:5.1f} TF | relerr {err:.1e}", flush=True)
    del As, Bs, Cm, Cc
    cp.get_default_memory_pool().free_all_blocks()

shapes = []
for n in (1, 2, 4, 8, 16, 32, 64, 128):
    shapes.append((1, 0, 4096, n, 4096))
for n in (1, 8, 32):
    shapes.append((0, 0, 4096, n, 4096))
for n in (1, 8, 32):
    shapes.append((1, 0, 11008, n, 4096))
    shapes.append((1, 0, 4096, n, 11008))
for m in (1, 8, 32):
    shapes.append((0, 0, m, 4096, 4096))
    shapes.append((0, 1, m, 4096, 4096))
for n in (8, 32):
    shapes.append((1, 0, 1024, n, 1024))
if len(sys.argv) > 1:
    shapes = [tuple(int(v) for v in a.split(",")) for a in sys.argv[1:]]
for s in shapes:
    run(*s)
