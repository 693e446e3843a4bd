#!/usr/bin/env python3
"""Builds of the library against each other and cuBLAS, SGEMV kernel time by
graph replay (scripts/graph_timing.py: inputs rotated past the L2, no launch
cost), for checking a change of the routine's decisions over many shapes at
once, as scripts/sgemm-builds.py does for SGEMM. Each shape: one call of
each checked against cuBLAS (max error over max |y|), then two rounds of
them all, in one order and then the other, the faster of each kept. Run on
the GPU machine from the repository root:
    python3 scripts/sgemv-builds.py OLD/libmublas.so NEW/libmublas.so [MORE/libmublas.so ...] SHAPES
SHAPES: a file of lines "op,m,n[,lda[,xoff]]" (0 = N, 1 = T; lda = m when
left out; xoff: x starts that many floats past a 16-byte boundary, 0 when
left out; "#" starts a comment line). alpha = 1, beta = 0, unit increments.
Prints per shape each build's µs, cuBLAS's, and cuBLAS time / each build's
time."""
import ctypes
import sys

import cupy as cp

sys.path.insert(0, "scripts")
from graph_timing import builds_row, compare_builds, cublas_on_stream, mublas_builds, operand_sets, shape_lines

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
    cublas, cublas_handle, stream = cublas_on_stream()
    libs, handles = mublas_builds(sys.argv[1:-1], stream)

    for shape in shape_lines(sys.argv[-1]):
        op, m, n = shape[:3]
        lda = shape[3] if len(shape) > 3 else m
        x_offset = shape[4] if len(shape) > 4 else 0
        x_len, y_len = (n, m) if op == 0 else (m, n)
        sets = operand_sets((lda * n + x_len + y_len) * 4)
        with stream:
            As = [cp.random.standard_normal(lda * n, dtype=cp.float32) for _ in range(sets)]
            xs = [cp.random.standard_normal(x_offset + x_len, dtype=cp.float32)[x_offset:] for _ in range(sets)]
            ys = [[cp.empty(y_len, dtype=cp.float32) for _ in range(sets)] for _ in range(len(libs) + 1)]
        runs = [lambda i, j=j: sgemv(libs[j], "mublasSgemv", handles[j], op, m, n, As[i], lda, xs[i], ys[j][i])
                for j in range(len(libs))]
        runs.append(lambda i: sgemv(cublas, "cublasSgemv_v2", cublas_handle, op, m, n, As[i], lda, xs[i], ys[-1][i]))
        error, ours, theirs = compare_builds(stream, runs, [y[0] for y in ys], CALLS, sets)
        label = f"{'NT'[op]} {m:>7}x{n:<7} lda {lda:<7}" + (f" xoff {x_offset}" if x_offset else "")
        print(builds_row(label, error, ours, theirs, 2), flush=True)
        del As, xs, ys
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
