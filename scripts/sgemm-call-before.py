#!/usr/bin/env python3
"""How much an SGEMM call's time depends on what ran just before it (GPU
machine; CuPy, ctypes). Times one square multiply's synchronised calls
(CUDA events, operands rotated over 8 sets of random data, past the L2),
each right after one of these, also synchronised:
  - the same multiply by mublas or by cuBLAS, or NN by either;
  - nothing: the host sleeps 0.4 ms (the GPU idles);
  - a kernel that keeps every SM busy for about the multiply's time without
    touching memory;
  - a read of 128 MB (a sum), or a write of 128 MB (a fill).
Rounds of 5 pairs per (call, predecessor), interleaved, so that drift falls
on all alike; prints the median µs of each library's call after each.
Docs/performance.md, "The call before", has what it found.

usage: sgemm-call-before.py path/to/libmublas.so [TA,TB] [N] [ROUNDS]
  TA,TB: 0 = N, 1 = T (default 1,0: TN); N: the square's size (default 2048);
  ROUNDS: default 250 (about 35 s at 2048).
"""
import ctypes
import os
import sys
import time

import cupy as cp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_timing import median, sgemm, synced_us

mu = ctypes.CDLL(sys.argv[1])
cb = ctypes.CDLL("libcublas.so.13")
ta, tb = map(int, (sys.argv[2] if len(sys.argv) > 2 else "1,0").split(","))
n = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 250
hm, hc = ctypes.c_void_p(), ctypes.c_void_p()
assert mu.mublasCreate(ctypes.byref(hm)) == 0 and cb.cublasCreate_v2(ctypes.byref(hc)) == 0
sets = [(cp.random.rand(n * n, dtype=cp.float32) * 2 - 1, cp.random.rand(n * n, dtype=cp.float32) * 2 - 1,
         cp.zeros(n * n, dtype=cp.float32)) for _ in range(8)]
big = cp.random.rand(32 << 20, dtype=cp.float32)  # 128 MB
spin = cp.RawKernel(r'''
extern "C" __global__ void spin(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {}
}''', "spin")
# SM cycles of about one multiply's time (50 TFLOP/s) at the boost clock, 1980 MHz.
spin_cycles = cp.int64(int(1.98e9 * 2.0 * n ** 3 / 50e12))
calls = [0]


def multiply(lib, fn, h, pair):
    """One call on the next operand set."""
    calls[0] += 1
    A, B, C = sets[calls[0] % len(sets)]
    sgemm(lib, fn, h, pair[0], pair[1], n, n, n, A, n, B, n, C)


name = f"{'NT'[ta]}{'NT'[tb]}"
mublas_call = lambda: multiply(mu, "mublasSgemm", hm, (ta, tb))
cublas_call = lambda: multiply(cb, "cublasSgemm_v2", hc, (ta, tb))
before = {
    f"cuBLAS {name}": cublas_call,
    f"mublas {name}": mublas_call,
    "cuBLAS NN": lambda: multiply(cb, "cublasSgemm_v2", hc, (0, 0)),
    "mublas NN": lambda: multiply(mu, "mublasSgemm", hm, (0, 0)),
    "idle": lambda: time.sleep(0.0004),
    "spin": lambda: spin((264,), (256,), (spin_cycles,)),
    "read": lambda: big.sum(),
    "write": lambda: big.fill(0.5),
}
timed = {f"mublas {name}": mublas_call, f"cuBLAS {name}": cublas_call}
times = {(t, b): [] for t in timed for b in before}
for call in before.values():
    call()
cp.cuda.Device().synchronize()
for _ in range(rounds):
    for t, call in timed.items():
        for b, predecessor in before.items():
            for _ in range(5):
                predecessor()
                cp.cuda.Device().synchronize()
                times[(t, b)].append(synced_us(call))
print(f"{name} {n}, µs of each call (median of {5 * rounds}) after:")
for t in timed:
    print(f"  {t}: " + ", ".join(f"{b} {median(sorted(times[(t, b)])):.1f}" for b in before), flush=True)
