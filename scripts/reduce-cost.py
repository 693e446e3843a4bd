#!/usr/bin/env python3
"""The split-K reduction alone, one row a thread (gemm_splitk_reduce_f32)
against four (gemm_splitk_reduce4_f32), over m × n × split: µs by graph
replay (twenty launches, median of nine replays, two sets of partial sums
alternated), the figures behind routines/gemm/kernels.rs's `reduce_spec`. Run on the
GPU machine from the repository root, on a CUBIN of kernels/gemm.cu
(`scripts/nvrtc-ptx.py kernels/gemm.cu sm_90 > gemm.cubin`):
    python3 scripts/reduce-cost.py gemm.cubin"""
import sys

import cupy as cp

sys.path.insert(0, "scripts")
from graph_timing import graph_times, median, partial_ld, splitk_reduce

module = cp.RawModule(path=sys.argv[1])
kernels = {1: module.get_function("gemm_splitk_reduce_f32"), 4: module.get_function("gemm_splitk_reduce4_f32")}
stream = cp.cuda.Stream(non_blocking=True)
for m, n in [(512, 48), (1024, 128), (2048, 256), (3000, 448), (8192, 128), (11008, 192), (4096, 1024), (16384, 512)]:
    for split in (2, 4, 8, 16, 64):
        ldp = partial_ld(m)
        if ldp * n * split * 4 > 256 << 20:
            continue
        sets = 2
        parts = [cp.random.rand(ldp * n * split, dtype=cp.float32) for _ in range(sets)]
        Cs = [cp.empty(m * n, dtype=cp.float32) for _ in range(sets)]
        cp.cuda.Device().synchronize()
        row = []
        for rows, f in kernels.items():
            def launch(i, f=f, rows=rows):
                splitk_reduce(f, rows, m, n, split, parts[i], Cs[i], m)
            row.append(median(graph_times(stream, launch, calls=20, replays=9, operands=sets)))
        mb = (ldp * n * split + m * n) * 4 / 1e6
        print(f"{m:6d} x {n:5d} split {split:3d}  {mb:8.1f} MB  rows1 {row[0]:8.2f} us  rows4 {row[1]:8.2f} us", flush=True)
        del parts, Cs
        cp.get_default_memory_pool().free_all_blocks()
