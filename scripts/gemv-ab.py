#!/usr/bin/env python3
"""Kernel time of SGEMV launch variants straight from a CUBIN, against
cuBLAS's, without the library: for trying a kernel variant (a copy of
kernels/gemv.cu with extra lines such as
  extern "C" __global__ void __launch_bounds__(512) gemv_n_f32_c8(GEMV_PARAMS) { gemv_n<true, 8>(GEMV_ARGS); }
compiled by `scripts/nvrtc-ptx.py FILE.cu sm_90 > FILE.cubin`) before wiring
it into the tuner. Square n×n or m×n, y = A·x (OP=T in the environment: y = Aᵀ·x,
for the T kernels, TX threads a block, a warp per column; LDA=l: A's
leading dimension, m by default; XOFF=k: x starts k floats past a 16-byte
boundary, for the kernels that read x at any alignment), alpha = 1,
beta = 0 (BETA=b in the environment: beta = b, y read). Twenty calls (or
one per matrix) captured in a CUDA graph and replayed between two events,
median of 15 replays, the matrices and y vectors rotated: enough matrices
that together they pass 256 MiB, four at least (ROT=r: r of them; four
stay in the H100's and H200's L2 up to 1024²): the kernels' own time,
without launch cost (from Python, longer than these kernels). A split's
rows (T) or columns (N) per block are rounded up to a multiple of 2048 (T)
or 128 (N), as the routine's are (GRANULE=g: g). Each result is checked
against a float64 product.

usage: gemv-ab.py FILE.cubin N|MxN SPEC...   SPEC: KERNEL@TXxTY[xSPLIT], or floor@THREADSxBLOCKS
(gemv_read_floor_f32, `mublas bench floor`'s kernel: reads the matrices only, not checked)
  e.g. gemv-ab.py gemv.cubin 2000 gemv_n_f32@32x16x16 gemv_n_f32_c8@8x64
       OP=T gemv-ab.py gemv.cubin 4096 gemv_t_f32@512x1
"""
import ctypes
import os
import re
import sys

import cupy as cp
import numpy as np
from graph_timing import graph_times, median

CALLS = 20
OP_T = os.environ.get("OP") == "T"
# T_ROW_GRANULE, N_COLUMN_GRANULE in src/routines/gemv/ (GRANULE=g: g, as for the split paired kernel's 128)
SPLIT_GRANULE = int(os.environ.get("GRANULE", 2048 if OP_T else 128))
BETA = float(os.environ.get("BETA", "0"))


def t_columns_per_block(name, m, tx):
    """Columns a block of T kernel `name` covers: a warp's (gemv_t); for the
    short kernels and the groups kernels (gemv_t_short), tx / L column slots of
    4 columns (short) or 2 (groups), L lanes for a column's rows at 4 a lane
    (groups: for ceil(m / R) rows, R from the name, gemv_t_f32_groups4)."""
    groups = re.search(r"_groups(\d+)$", name)
    if "_short" not in name and not groups:
        return tx // 32
    rows = -(-m // int(groups.group(1))) if groups else m
    lanes = 1
    while lanes < 32 and 4 * lanes < rows:
        lanes *= 2
    return tx // lanes * (2 if groups else 4)


def main():
    path, size, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    m, n = (int(v) for v in size.split("x")) if "x" in size else (int(size), int(size))
    module = cp.RawModule(path=path)
    cublas = ctypes.CDLL("libcublas.so.13")
    handle = ctypes.c_void_p()
    assert cublas.cublasCreate_v2(ctypes.byref(handle)) == 0
    lda = int(os.environ.get("LDA", m))
    assert lda >= m
    rotated = int(os.environ.get("ROT", max(4, -(-(256 << 20) // (4 * lda * n)))))
    matrices = [cp.random.rand(lda * n, dtype=cp.float32) - 0.5 for _ in range(rotated)]
    x_offset = int(os.environ.get("XOFF", 0))
    x = (cp.random.rand(x_offset + (m if OP_T else n), dtype=cp.float32) - 0.5)[x_offset:]
    ys = [cp.zeros(n if OP_T else m, dtype=cp.float32) for _ in range(rotated)]
    y = ys[0]
    a = matrices[0].reshape(n, lda)[:, :m]  # row j of `a` is column j of A
    reference = (a if OP_T else a.T).astype(cp.float64) @ x.astype(cp.float64)
    counters = cp.zeros(65536, dtype=cp.uint32)  # the split's arrival counters, 0 between calls
    partials = cp.zeros(64 * max(m, n), dtype=cp.float32)
    stream = cp.cuda.Stream(non_blocking=True)
    one, beta = ctypes.c_float(1.0), ctypes.c_float(BETA)
    assert cublas.cublasSetStream_v2(handle, ctypes.c_void_p(stream.ptr)) == 0
    cp.cuda.Device().synchronize()  # the data above come from the default stream, which `stream` does not wait for

    def with_cublas(A, y):
        assert cublas.cublasSgemv_v2(handle, 1 if OP_T else 0, m, n, ctypes.byref(one), ctypes.c_void_p(A.data.ptr), lda,
                                     ctypes.c_void_p(x.data.ptr), 1, ctypes.byref(beta), ctypes.c_void_p(y.data.ptr), 1) == 0

    sink = cp.zeros(1, dtype=cp.float32)

    def kernel(spec):
        name, shape = spec.split("@")
        if name == "floor":
            t, b = map(int, shape.split("x"))
            f = module.get_function("gemv_read_floor_f32")
            return (lambda A, y: f((b,), (t,), (np.int64(lda * n // 4), A, sink))), f"{b} blocks"
        tx, ty, split = (list(map(int, shape.split("x"))) + [1])[:3]
        clusters = -(-split // 8)  # the cluster kernels: SPLIT column ranges in clusters of 8
        # The float4 kernels fault on lda % 4 != 0 (the arrays here are 16-byte aligned), and a faulted
        # process can hang until the machine's time limit: refuse them.
        any_a = any(tag in name for tag in ("scalar", "_any", "_lanes", "_sweep"))
        if (lda % 4 or x_offset % 4) and not any_a:
            sys.exit(f"{spec}: a float4 kernel, but lda = {lda} or x offset {x_offset} is not a multiple of 4")
        f = module.get_function(name)
        # Blocks along x: row tiles of 4·TX rows (N; TX rows for the _lanes and _sweep kernels, a row per thread) or column
        # groups of TX / 32 (T); the split cuts the other dimension.
        rows_per_thread = 1 if "_lanes" in name or "_sweep" in name else 4
        tiles = -(-n // t_columns_per_block(name, m, tx)) if OP_T else -(-m // (rows_per_thread * tx))
        per_split = -(-(m if OP_T else n) // split)
        per_split = -(-per_split // SPLIT_GRANULE) * SPLIT_GRANULE if split > 1 else per_split
        split = -(-(m if OP_T else n) // per_split)
        cluster = re.search(r"_cluster(\d+)$", name)
        if cluster:  # the cluster N kernels: tiles of 16 or 32 rows, one or more clusters of 8 column ranges
            tiles, split = -(-m // int(cluster.group(1))), 8 * clusters
            per_split = -(-n // split)

        def launch(A, y):
            f((tiles, split), (tx, ty), (np.int64(m), np.int64(n), np.float32(1), np.uint64(0), A, np.int64(lda), x,
                                         np.int64(1), np.float32(BETA), np.uint64(0), y, np.int64(1), np.int64(per_split),
                                         counters, partials))
        return launch, f"{tiles * split} blocks"

    for label, (launch, blocks) in [("cuBLAS", (with_cublas, ""))] + [(spec, kernel(spec)) for spec in specs]:
        times = graph_times(stream, lambda i: launch(matrices[i], ys[i]), max(CALLS, rotated), operands=rotated)
        with stream:
            y.fill(0)  # beta * y of the timed calls is not the check's
            launch(matrices[0], y)
        stream.synchronize()
        error = float(cp.max(cp.abs(y - reference)) / cp.max(cp.abs(reference)))
        checked = f"error {error:.1e}" if not label.startswith("floor@") else "reads A only"
        print(f"{size} {label:32s} {blocks:>12s} {median(times):8.2f} us  {checked}", flush=True)


if __name__ == "__main__":
    main()
