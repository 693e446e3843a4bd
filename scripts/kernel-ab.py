#!/usr/bin/env python3
"""A/B timing of SGEMM tile kernels straight from a CUBIN, without the
library: for comparing kernel variants (say, two builds of the stream-K
kernel) before wiring one in. Needs a GPU, CuPy and a CUBIN made by
`scripts/nvrtc-ptx.py kernels/gemm.cu sm_90` (a copy of gemm.cu may carry
variants under other names). Square n×n×n, 256×128 tiles, alpha = 1,
beta = 0; CUDA events around each multiply, median of 40, four operand sets
rotated (past the L2 from n = 2048); each result checked against a float64
product.

usage: kernel-ab.py FILE.cubin N PAIR ROUNDS SPEC...
  PAIR: nn, nt, tn or tt. SPEC: KERNEL[~t128][@GRID][+MODE]; ~t128: a
  128×128 tile of 128 threads (the 128x128_t128 kernels and variants of
  them; plain mode only) instead of 256×128 of 256; GRID defaults to the
  tile count. MODE: none (a plain tile kernel), "sk" (as the library runs
  stream-K: the whole rounds on gemm_f32_256x128_PAIR_vec, then KERNEL on
  GRID or 132 blocks over the rest) or "s0" (KERNEL alone on GRID blocks
  from tile 0 with the stream-K arguments: GRID = tiles gives every block
  one whole tile, the k loop's speed without pieces).
  e.g. kernel-ab.py gemm.cubin 2048 nn 2 gemm_f32_256x128_nn_vec \\
           gemm_f32_256x128_nn_vec_sk@128+s0 gemm_f32_256x128_nn_vec_sk+sk
"""
import os
import sys

import cupy as cp
import numpy as np
from graph_timing import async_shared_bytes

# async_shared_bytes of a rows × cols tile; SHARED_BYTES overrides it (for
# variants with more stages).
def shared_bytes(rows, cols):
    return int(os.environ.get("SHARED_BYTES", async_shared_bytes(rows, cols)))
ITERATIONS = 40
SMS = 132


def main():
    path, n, pair, rounds, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5:]
    module = cp.RawModule(path=path)

    def kernel(name, rows=256):
        f = module.get_function(name)
        f.max_dynamic_shared_size_bytes = shared_bytes(rows, 128)
        return f

    operands = [(cp.random.rand(n * n, dtype=cp.float32) - 0.5, cp.random.rand(n * n, dtype=cp.float32) - 0.5,
                 cp.empty(n * n, dtype=cp.float32)) for _ in range(4)]
    A, B, _ = operands[0]
    op_a = A.reshape(n, n).T if pair[0] == "n" else A.reshape(n, n)  # column-major m×k
    op_b = B.reshape(n, n).T if pair[1] == "n" else B.reshape(n, n)
    reference = (op_a.astype(cp.float64) @ op_b.astype(cp.float64)).T.reshape(-1)
    tiles = (n // 256) * (n // 128)
    whole = tiles - tiles % SMS if tiles > SMS else 0
    counters = cp.zeros(tiles, dtype=cp.uint32)
    pieces = cp.zeros((tiles + SMS) * 256 * 128, dtype=cp.float32)

    def args(A, B, C):
        return (np.int64(n), np.int64(n), np.int64(n), np.float32(1.0), np.uint64(0), A, np.int64(n), B, np.int64(n),
                np.float32(0.0), np.uint64(0), C, np.int64(n), np.int64(0), np.int32(1))

    base = None
    for _ in range(rounds):
        for spec in specs:
            name, _, mode = spec.partition("+")
            name, _, grid = name.partition("@")
            name, _, tile = name.partition("~")
            rows = 128 if tile == "t128" else 256  # tiles of rows × 128, one thread per row
            f = kernel(name, rows)
            # (kernel, blocks, extra arguments, tile rows)
            if mode == "sk":
                plain = kernel(f"gemm_f32_256x128_{pair}_vec")
                launches = ([(plain, whole, (), 256)] if whole else []) + [(f, int(grid or SMS), (np.uint32(whole), counters, pieces), 256)]
            elif mode == "s0":
                launches = [(f, int(grid or tiles), (np.uint32(0), counters, pieces), 256)]
            else:
                launches = [(f, int(grid or (n // rows) * (n // 128)), (), rows)]

            def multiply(A, B, C):
                for g, blocks, extra, tile_rows in launches:
                    g((blocks,), (tile_rows,), args(A, B, C) + extra, shared_mem=shared_bytes(tile_rows, 128))

            for i in range(3):
                multiply(*operands[i % 4])
            events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(ITERATIONS)]
            for i, (start, stop) in enumerate(events):
                start.record()
                multiply(*operands[i % 4])
                stop.record()
            events[-1][1].synchronize()
            times = sorted(cp.cuda.get_elapsed_time(a, b) * 1000 for a, b in events)
            C = operands[0][2]
            multiply(*operands[0])
            error = float(cp.max(cp.abs(C - reference)) / cp.max(cp.abs(reference)))
            median = times[len(times) // 2]
            base = base or median
            print(f"{n} {pair} {spec:48s} median {median:9.1f} us  min {times[0]:9.1f}  /first {median / base:.4f}  error {error:.1e}",
                  flush=True)


if __name__ == "__main__":
    main()
