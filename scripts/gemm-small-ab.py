#!/usr/bin/env python3
"""Kernel time of (split-K) SGEMM straight from a CUBIN, against cuBLAS's,
without the library: for comparing tile kernels (or variants of them in a
copy of kernels/gemm.cu, compiled by `scripts/nvrtc-ptx.py FILE.cu sm_90 >
FILE.cubin`) at one shape and split. The tile (rows × cols), the block and
the shared memory come from the kernel's name (`tile_of`). Each multiply is the tile
kernel on (tiles, 1, SPLIT) blocks into partial sums, then
gemm_splitk_reduce_f32 in blocks of 256 threads, as the library runs it
(REDUCE_SPACE; SPLIT 1: straight into C);
alpha = 1, beta = 0. Twenty multiplies captured in a CUDA graph and replayed
between two events, median of 15 replays, four operand sets rotated: the
kernels' own time, without launch cost. Each result is checked against a
float64 product.

usage: gemm-small-ab.py FILE.cubin MxNxK:KERNEL@SPLIT[/REDUCE][,KERNEL@SPLIT...] ...
  KERNEL names the NN kernel (gemm_f32_64x64_nn, gemm_f32_128x64_nn, or a
  variant's name: the tile's dimensions followed by a letter, 256x64b);
  PAIR=tn (nt, tt) in the environment runs that pair's kernel instead, and
  _vec is appended where the operands allow float4 (extents along the
  vectors multiples of 4). /REDUCE names another reduction kernel of the
  same arguments (one with "reduce4" in its name takes four rows a thread).
  e.g. gemm-small-ab.py gemm.cubin 127x129x1023:gemm_f32_64x64_nn@16,gemm_f32_64x64_t128_nn@16
"""
import os
import re
import sys

import cupy as cp
import numpy as np
from graph_timing import cublas_on_stream, graph_times, median, partial_ld, sgemm, splitk_reduce, tile_launch


def tile_of(name):
    """(rows, cols, threads, dynamic shared bytes) of a tile kernel, from its
    name (graph_timing.tile_launch)."""
    rows, cols, t128 = re.search(r"_(\d+)x(\d+)[a-z]?(_t128)?_", name).groups()
    rows, cols = int(rows), int(cols)
    return (rows, cols) + tile_launch(rows, cols, bool(t128))


def main():
    module = cp.RawModule(path=sys.argv[1])
    cublas, handle, stream = cublas_on_stream()
    reduce_kernel = module.get_function("gemm_splitk_reduce_f32")
    pair = os.environ.get("PAIR", "nn")
    ta, tb = pair[0] == "t", pair[1] == "t"
    for spec in sys.argv[2:]:
        shape, variants = spec.split(":")
        m, n, k = map(int, shape.split("x"))
        vec = (k if ta else m) % 4 == 0 and (n if tb else k) % 4 == 0
        lda, ldb = (k if ta else m), (n if tb else k)
        operands = [(cp.random.rand(m * k, dtype=cp.float32) - 0.5, cp.random.rand(k * n, dtype=cp.float32) - 0.5,
                     cp.zeros(m * n, dtype=cp.float32)) for _ in range(4)]
        A0, B0, _ = operands[0]
        op_a = A0.reshape(m, k) if ta else A0.reshape(k, m).T
        op_b = B0.reshape(k, n) if tb else B0.reshape(n, k).T
        reference = (op_a.astype(cp.float64) @ op_b.astype(cp.float64)).T.reshape(-1)
        ldp = partial_ld(m)
        partials = cp.zeros(ldp * n * 64, dtype=cp.float32)
        cp.cuda.Device().synchronize()  # the data come from the default stream, which `stream` does not wait for

        def with_cublas(i):
            A, B, C = operands[i]
            sgemm(cublas, "cublasSgemm_v2", handle, int(ta), int(tb), m, n, k, A, lda, B, ldb, C)

        def tile_kernel(variant):
            name, split = variant.split("@")
            split, _, reduce_name = split.partition("/")
            reduce = module.get_function(reduce_name) if reduce_name else reduce_kernel
            rows_per_thread = 4 if "reduce4" in reduce_name else 1
            name, split = name.replace("_nn", "_" + pair) + ("_vec" if vec else ""), int(split)
            f = module.get_function(name)
            rows, cols, threads, shared = tile_of(name)
            if shared:
                f.max_dynamic_shared_size_bytes = shared
            tiles = -(-m // rows) * -(-n // cols)
            stride = ldp * n

            def launch(i):
                A, B, C = operands[i]
                head = (np.int64(m), np.int64(n), np.int64(k), np.float32(1), np.uint64(0), A, np.int64(lda), B, np.int64(ldb),
                        np.float32(0), np.uint64(0))
                if split > 1:
                    f((tiles, 1, split), (threads,), head + (partials, np.int64(ldp), np.int64(stride), np.int32(1)),
                      shared_mem=shared)
                    splitk_reduce(reduce, rows_per_thread, m, n, split, partials, C, m)
                else:
                    f((tiles, 1, 1), (threads,), head + (C, np.int64(m), np.int64(0), np.int32(1)), shared_mem=shared)
            return f"{name} split {split}" + (f" {reduce_name}" if reduce_name else ""), launch

        for label, launch in [("cuBLAS", with_cublas)] + [tile_kernel(v) for v in variants.split(",")]:
            times = graph_times(stream, launch, 20)
            with stream:
                operands[0][2].fill(0)
                launch(0)
            stream.synchronize()
            error = float(cp.max(cp.abs(operands[0][2] - reference)) / cp.max(cp.abs(reference)))
            print(f"{shape} {pair} {label:40s} {median(times):8.2f} us  error {error:.1e}", flush=True)


if __name__ == "__main__":
    main()
