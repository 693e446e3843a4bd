#!/usr/bin/env python3
"""Builds of the library against each other and cuBLAS, SGEMM kernel time by
graph replay (scripts/graph_timing.py: inputs rotated past the L2, no launch
cost), for checking a change of the tuner's decisions over many shapes at
once (docs/performance.md, "33 to 256 columns" and "Splits past two
rounds"). Each shape: one call of each checked against cuBLAS (max error
over max |C|), then two rounds of them all, in one order and then the
other, the faster of each kept; calls per replay fall with the shape's size
so that large ones stay short. Run on the GPU machine from the repository
root:
    python3 scripts/sgemm-builds.py OLD/libmublas.so NEW/libmublas.so [MORE/libmublas.so ...] SHAPES
or with one build, for where it stands against cuBLAS over a grid of shapes.
SHAPES: a file of lines "ta,tb,m,n,k" (0 = N, 1 = T; "#" starts a comment
line), "ta,tb,m,n,k,ldc" for a C with ldc > m, or "ta,tb,m,n,k,ldc,lda,ldb"
for A and B with leading dimensions past their rows (0 or absent: the
rows), e.g. scripts/sgemm-shapes.txt, scripts/sgemm-ld-padded.txt. Prints per shape each
build's µs, cuBLAS's, and cuBLAS time / each build's time; with two builds
or more, then the shapes whose time moved past 2 % from the first to the
last, and the geometric mean of the speed."""
import math
import sys

import cupy as cp

sys.path.insert(0, "scripts")
from graph_timing import builds_row, compare_builds, cublas_on_stream, mublas_builds, operand_sets, sgemm, shape_lines

# µs of SGEMM work a graph replay aims at: calls per replay = this / the shape's estimated µs (2 to 10).
REPLAY_US = 3000.0
# FP32 rate for that estimate, FLOP per µs.
ESTIMATE_FLOP_PER_US = 40e6
# A shape's time moved between builds past this (the end summary): about twice the replays' noise.
MOVED = 0.02


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cublas, cublas_handle, stream = cublas_on_stream()
    libs, handles = mublas_builds(sys.argv[1:-1], stream)
    rows = []  # (printed row, each build's µs)

    for ta, tb, m, n, k, *rest in shape_lines(sys.argv[-1]):
        ldc, lda, ldb = (list(rest) + [0, 0, 0])[:3]
        ldc = ldc or m
        ar, ac = (m, k) if ta == 0 else (k, m)
        br, bc = (k, n) if tb == 0 else (n, k)
        lda, ldb = lda or ar, ldb or br
        sets = operand_sets((lda * ac + ldb * bc + ldc * n) * 4)
        with stream:
            As = [cp.random.standard_normal(lda * ac, dtype=cp.float32) for _ in range(sets)]
            Bs = [cp.random.standard_normal(ldb * bc, dtype=cp.float32) for _ in range(sets)]
            # Zeros: the rows past m (ldc > m) stay equal for the check.
            Cs = [[cp.zeros(ldc * n, dtype=cp.float32) for _ in range(sets)] for _ in range(len(libs) + 1)]
        runs = [lambda i, j=j: sgemm(libs[j], "mublasSgemm", handles[j], ta, tb, m, n, k, As[i], lda, Bs[i], ldb,
                                     Cs[j][i], ldc=ldc) for j in range(len(libs))]
        runs.append(lambda i: sgemm(cublas, "cublasSgemm_v2", cublas_handle, ta, tb, m, n, k, As[i], lda, Bs[i], ldb,
                                    Cs[-1][i], ldc=ldc))
        calls = max(2, min(10, int(REPLAY_US * ESTIMATE_FLOP_PER_US / (2.0 * m * n * k))))
        error, ours, theirs = compare_builds(stream, runs, [c[0] for c in Cs], calls, sets)
        shape = f"{'NT'[ta]}{'NT'[tb]} {m:>6}x{n:<6}x{k:<6}" + "".join(
            f" {name} {ld}" for name, ld, rows in (("lda", lda, ar), ("ldb", ldb, br), ("ldc", ldc, m)) if ld != rows)
        row = builds_row(shape, error, ours, theirs, 1)
        print(row, flush=True)
        rows.append((row, ours))
        del As, Bs, Cs
        cp.get_default_memory_pool().free_all_blocks()
    if len(libs) > 1:
        print_moves(rows)


def print_moves(rows):
    """The shapes whose last build's time moved past MOVED from the first
    build's, and the geometric mean of the first's time over the last's."""
    speeds = [ours[0] / ours[-1] for _, ours in rows]
    moved = [row for (row, _), speed in zip(rows, speeds) if abs(speed - 1) > MOVED]
    print(f"\nlast build against the first: {len(moved)} of {len(rows)} shapes moved past {MOVED:.0%}, geometric "
          f"mean of speed {math.exp(sum(map(math.log, speeds)) / len(speeds)):.4f}")
    for row in moved:
        print(row)


if __name__ == "__main__":
    main()
