#!/usr/bin/env python3
"""Two builds of the library against each other and cuBLAS, SGEMM kernel
time by graph replay (scripts/graph_timing.py: inputs rotated past the L2,
no launch cost), for checking a change of the tuner's decisions over many
shapes at once (docs/performance.md, "33 to 256 columns"). Each shape: one
call of each checked against cuBLAS (max error over max |C|), then two
alternating rounds of the three, the faster of each kept. Run on the GPU
machine from the repository root:
    python3 scripts/sgemm-builds.py OLD/libmublas.so NEW/libmublas.so SHAPES
SHAPES: a file of lines "ta,tb,m,n,k" (0 = N, 1 = T)."""
import ctypes
import os
import sys

import cupy as cp

sys.path.insert(0, "scripts")
from graph_timing import cublas_on_stream, graph_times, median, operand_sets, sgemm


def main():
    libs = [ctypes.CDLL(os.path.abspath(path)) for path in sys.argv[1:3]]
    cublas, cublas_handle, stream = cublas_on_stream()
    handles = []
    for lib in libs:
        handle = ctypes.c_void_p()
        assert lib.mublasCreate(ctypes.byref(handle)) == 0
        assert lib.mublasSetStream(handle, ctypes.c_void_p(stream.ptr)) == 0
        handles.append(handle)

    for line in open(sys.argv[3]):
        if not line.strip():
            continue
        ta, tb, m, n, k = map(int, line.strip().split(","))
        ar, ac = (m, k) if ta == 0 else (k, m)
        br, bc = (k, n) if tb == 0 else (n, k)
        sets = operand_sets((ar * ac + br * bc + m * n) * 4)
        with stream:
            As = [cp.random.standard_normal(ar * ac, dtype=cp.float32) for _ in range(sets)]
            Bs = [cp.random.standard_normal(br * bc, dtype=cp.float32) for _ in range(sets)]
            Cs = [[cp.empty(m * n, dtype=cp.float32) for _ in range(sets)] for _ in range(3)]
        runs = [lambda i, j=j: sgemm(libs[j], "mublasSgemm", handles[j], ta, tb, m, n, k, As[i], ar, Bs[i], br, Cs[j][i])
                for j in range(2)]
        runs.append(lambda i: sgemm(cublas, "cublasSgemm_v2", cublas_handle, ta, tb, m, n, k, As[i], ar, Bs[i], br, Cs[2][i]))
        for run in runs:
            run(0)
        stream.synchronize()
        scale = float(cp.max(cp.abs(Cs[2][0])))
        error = max(float(cp.max(cp.abs(Cs[j][0] - Cs[2][0]))) for j in range(2)) / scale
        times = [[], [], []]
        for order in ((0, 1, 2), (2, 1, 0)):
            for j in order:
                times[j].append(median(graph_times(stream, runs[j], calls=10, replays=9, operands=sets)))
        old, new, theirs = (min(t) for t in times)
        print(f"{'NT'[ta]}{'NT'[tb]} {m:>6}x{n:<6}x{k:<6} old {old:8.1f} new {new:8.1f} cuBLAS {theirs:8.1f}  "
              f"new/old speed {old / new:5.2f}  vs cuBLAS old {theirs / old:5.2f} new {theirs / new:5.2f}  err {error:.0e}",
              flush=True)
        del As, Bs, Cs
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
