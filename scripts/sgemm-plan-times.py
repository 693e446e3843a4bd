#!/usr/bin/env python3
"""Kernel time of every candidate plan of SGEMM's direct decision (a tile and
a split of k, with the reduction routines/gemm/launch.rs would launch after it),
straight from a CUBIN, for fitting `estimated_time`'s constants
(scripts/sgemm-model-fit.py, which writes the candidate list and reads what
this prints). Each plan's multiply is captured in a CUDA graph and replayed
(scripts/graph_timing.py: inputs rotated past the L2, no launch cost);
cuBLAS's time is taken at each shape beside them. Every plan's C is checked
against cuBLAS's (max error over max |C|). Run on the GPU machine from the
repository root:
    python3 scripts/sgemm-plan-times.py gemm.sm_90.cubin CANDIDATES > TIMES
CANDIDATES: lines "pair m n k tile split" (pair 0 NN, 1 NT, 2 TN, 3 TT; tile
as routines/gemm/kernels.rs names it), grouped by shape. Prints the same lines with
the median µs appended, and a line "pair m n k cublas - µs" per shape."""
import sys
from collections import OrderedDict

import cupy as cp
import numpy as np

sys.path.insert(0, "scripts")
from graph_timing import cublas_on_stream, graph_times, median, operand_sets, partial_ld, sgemm, splitk_reduce, tile_launch

PAIRS = ["nn", "nt", "tn", "tt"]
# µs of work a replay aims at, and the FP32 rate its call count is estimated by (FLOP per µs).
REPLAY_US = 1500.0
ESTIMATE_FLOP_PER_US = 40e6
# reduce_spec in routines/gemm/kernels.rs: four rows a thread up to this many splits,
# where those threads fill half the device's resident threads (SMs × 2048 / 2).
REDUCE4_MAX_SPLITS = 7


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    module = cp.RawModule(path=sys.argv[1])
    cublas, handle, stream = cublas_on_stream()
    half_resident = cp.cuda.Device().attributes["MultiProcessorCount"] * 2048 // 2
    reduce1 = module.get_function("gemm_splitk_reduce_f32")
    reduce4 = module.get_function("gemm_splitk_reduce4_f32")

    shapes = OrderedDict()
    for line in open(sys.argv[2]):
        if line.strip() and not line.startswith("#"):
            pair, m, n, k, tile, split = line.split()
            shapes.setdefault((int(pair), int(m), int(n), int(k)), []).append((tile, int(split)))

    for (pair, m, n, k), plans in shapes.items():
        ta, tb = pair >= 2, pair % 2 == 1
        lda, ldb = (k if ta else m), (n if tb else k)
        vec = lda % 4 == 0 and ldb % 4 == 0
        sets = operand_sets((m * k + k * n + m * n) * 4)
        calls = int(min(20, max(2, REPLAY_US * ESTIMATE_FLOP_PER_US / (2.0 * m * n * k))))
        ldp = partial_ld(m)
        most_split = max(split for _, split in plans)
        with stream:
            operands = [(cp.random.standard_normal(m * k, dtype=cp.float32), cp.random.standard_normal(k * n, dtype=cp.float32),
                         cp.empty(m * n, dtype=cp.float32)) for _ in range(sets)]
            partials = cp.empty(ldp * n * most_split if most_split > 1 else 1, dtype=cp.float32)
            reference = cp.empty(m * n, dtype=cp.float32)

        def with_cublas(i, C=None):
            A, B, own = operands[i]
            sgemm(cublas, "cublasSgemm_v2", handle, int(ta), int(tb), m, n, k, A, lda, B, ldb, own if C is None else C)

        with stream:
            with_cublas(0, reference)
        stream.synchronize()
        scale = float(cp.max(cp.abs(reference)))
        print(f"{pair} {m} {n} {k} cublas - {median(graph_times(stream, with_cublas, calls, 7, sets)):.2f}", flush=True)

        for tile, split in plans:
            f = module.get_function(f"gemm_f32_{tile}_{PAIRS[pair]}" + ("_vec" if vec else ""))
            rows, cols = map(int, tile.split("_")[0].split("x"))
            threads, shared = tile_launch(rows, cols, tile.endswith("_t128"))
            if shared:
                f.max_dynamic_shared_size_bytes = shared
            tiles = -(-m // rows) * -(-n // cols)
            four = split <= REDUCE4_MAX_SPLITS and -(-m // 4) * n >= half_resident

            def launch(i):
                A, B, C = operands[i]
                head = (np.int64(m), np.int64(n), np.int64(k), np.float32(1), np.uint64(0), A, np.int64(lda), B, np.int64(ldb),
                        np.float32(0), np.uint64(0))
                if split > 1:
                    f((tiles, 1, split), (threads,), head + (partials, np.int64(ldp), np.int64(ldp * n), np.int32(1)),
                      shared_mem=shared)
                    splitk_reduce(reduce4 if four else reduce1, 4 if four else 1, m, n, split, partials, C, m)
                else:
                    f((tiles, 1, 1), (threads,), head + (C, np.int64(m), np.int64(0), np.int32(m % 4 == 0)), shared_mem=shared)

            times = graph_times(stream, launch, calls, 7, sets)
            with stream:
                operands[0][2].fill(float("nan"))
                launch(0)
            stream.synchronize()
            error = float(cp.max(cp.abs(operands[0][2] - reference))) / scale
            flag = "" if error < 1e-4 else f" ERROR {error:.1e}"
            print(f"{pair} {m} {n} {k} {tile} {split} {median(times):.2f}{flag}", flush=True)
        del operands, partials, reference
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
