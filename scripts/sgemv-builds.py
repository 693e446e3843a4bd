#!/usr/bin/env python3
"""Builds of the library against each other and cuBLAS, SGEMV kernel time by
graph replay (scripts/graph_timing.py: inputs rotated past the L2, no launch
cost), for checking a change of the routine's decisions over many shapes at
once, as scripts/sgemm-builds.py does for SGEMM. Each shape: one call of
each checked against cuBLAS (max error over max |y|), then two rounds of
them all, in one order and then the other, the faster of each kept. Run on
the GPU machine from the repository root:
    python3 scripts/sgemv-builds.py OLD/libmublas.so NEW/libmublas.so [MORE/libmublas.so ...] SHAPES
SHAPES: a file of lines "op,m,n[,lda]" (0 = N, 1 = T; lda = m when left
out; "#" starts a comment line). alpha = 1, beta = 0, unit increments.
Prints per shape each build's µs, cuBLAS's, and cuBLAS time / each build's
time."""
import ctypes
import os
import sys

import cupy as cp

sys.path.insert(0, "scripts")
from graph_timing import cublas_on_stream, graph_times, median, operand_sets

CALLS = 20


def sgemv(lib, fn, handle, op, m, n, A, lda, x, y):
    """One SGEMV through a library's C ABI (fn: "mublasSgemv" or "cublasSgemv_v2") on CuPy arrays."""
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    status = getattr(lib, fn)(handle, op, m, n, ctypes.byref(one), ctypes.c_void_p(A.data.ptr), lda,
                              ctypes.c_void_p(x.data.ptr), 1, ctypes.byref(zero), ctypes.c_void_p(y.data.ptr), 1)
    assert status == 0, (fn, status)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    libs = [ctypes.CDLL(os.path.abspath(path)) for path in sys.argv[1:-1]]
    cublas, cublas_handle, stream = cublas_on_stream()
    handles = []
    for lib in libs:
        handle = ctypes.c_void_p()
        assert lib.mublasCreate(ctypes.byref(handle)) == 0
        assert lib.mublasSetStream(handle, ctypes.c_void_p(stream.ptr)) == 0
        handles.append(handle)

    for line in open(sys.argv[-1]):
        if not line.strip() or line.startswith("#"):
            continue
        fields = list(map(int, line.strip().split(",")))
        op, m, n = fields[:3]
        lda = fields[3] if len(fields) > 3 else m
        x_len, y_len = (n, m) if op == 0 else (m, n)
        sets = operand_sets((lda * n + x_len + y_len) * 4)
        with stream:
            As = [cp.random.standard_normal(lda * n, dtype=cp.float32) for _ in range(sets)]
            xs = [cp.random.standard_normal(x_len, dtype=cp.float32) for _ in range(sets)]
            ys = [[cp.empty(y_len, dtype=cp.float32) for _ in range(sets)] for _ in range(len(libs) + 1)]
        runs = [lambda i, j=j: sgemv(libs[j], "mublasSgemv", handles[j], op, m, n, As[i], lda, xs[i], ys[j][i])
                for j in range(len(libs))]
        runs.append(lambda i: sgemv(cublas, "cublasSgemv_v2", cublas_handle, op, m, n, As[i], lda, xs[i], ys[-1][i]))
        for run in runs:
            run(0)
        stream.synchronize()
        scale = float(cp.max(cp.abs(ys[-1][0])))
        error = max(float(cp.max(cp.abs(ys[j][0] - ys[-1][0]))) for j in range(len(libs))) / scale
        times = [[] for _ in runs]
        for order in (range(len(runs)), reversed(range(len(runs)))):
            for j in order:
                times[j].append(median(graph_times(stream, runs[j], calls=CALLS, replays=9, operands=sets)))
        *ours, theirs = (min(t) for t in times)
        print(f"{'NT'[op]} {m:>7}x{n:<7} lda {lda:<7} " + " ".join(f"{us:8.2f}" for us in ours)
              + f" cuBLAS {theirs:8.2f} | " + " ".join(f"{theirs / us:5.2f}" for us in ours) + f"  err {error:.0e}",
              flush=True)
        del As, xs, ys
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
