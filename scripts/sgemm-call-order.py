#!/usr/bin/env python3
"""Whether the order of calls moves an SGEMM's time, mublas against cuBLAS
(GPU machine; CuPy, ctypes). The benchmark times each call with a CUDA event
pair and a synchronisation, mublas's and cuBLAS's calls alternating, inputs
rotated past the L2. This script times the same calls (8 operand sets of
random data in [-1, 1), rotated) in two ways:
  - a run of one library's calls for 3 s, then the other's (twice each),
    with the SM clock, the board power and whether the driver held the
    clocks down for power (software power cap, or hardware slowdown)
    sampled by nvidia-smi every 50 ms;
  - alternating call by call, each library first in every other pair:
    4000 pairs, then five runs of 3 + 30 pairs (the benchmark's count).

usage: sgemm-call-order.py path/to/libmublas.so [TA,TB] [N]
  TA,TB: 0 = N, 1 = T (default 1,0: TN); N: the square's size (default 2048).
"""
import ctypes
import os
import subprocess
import sys
import threading
import time

import cupy as cp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_timing import median, sgemm, synced_us

mu = ctypes.CDLL(sys.argv[1])
cb = ctypes.CDLL("libcublas.so.13")
ta, tb = map(int, (sys.argv[2] if len(sys.argv) > 2 else "1,0").split(","))
n = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
hm, hc = ctypes.c_void_p(), ctypes.c_void_p()
assert mu.mublasCreate(ctypes.byref(hm)) == 0 and cb.cublasCreate_v2(ctypes.byref(hc)) == 0
sets = [(cp.random.rand(n * n, dtype=cp.float32) * 2 - 1, cp.random.rand(n * n, dtype=cp.float32) * 2 - 1,
         cp.zeros(n * n, dtype=cp.float32)) for _ in range(8)]
libraries = (("mublas", mu, "mublasSgemm", hm), ("cublas", cb, "cublasSgemm_v2", hc))


def timed_call(lib, fn, h, operands):
    """µs of one call between two events, synchronised."""
    A, B, C = operands
    return synced_us(lambda: sgemm(lib, fn, h, ta, tb, n, n, n, A, n, B, n, C))


QUERY = "clocks.sm,power.draw,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown"


def sampled(run):
    """run() under nvidia-smi sampling: the SM MHz and W medians of the
    samples after the first two, and the share of them with the clocks held
    down for power."""
    samples, done = [], threading.Event()

    def sample():
        while not done.is_set():
            out = subprocess.run(["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits"],
                                 capture_output=True, text=True).stdout.strip()
            fields = [x.strip() for x in out.split(",")]
            if len(fields) == 4:
                held = fields[2] == "Active" or fields[3] == "Active"
                samples.append((float(fields[0]), float(fields[1]), held))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    run()
    done.set()
    sampler.join()
    kept = samples[2:] or samples
    return (median(sorted(s[0] for s in kept)), median(sorted(s[1] for s in kept)),
            sum(s[2] for s in kept) / max(1, len(kept)))


pair = f"{'NT'[ta]}{'NT'[tb]} {n}"
for _ in range(2):
    for name, lib, fn, h in libraries:
        times = []

        def run():
            end, i = time.time() + 3, 0
            while time.time() < end:
                times.append(timed_call(lib, fn, h, sets[i % 8]))
                i += 1

        clock, power, held = sampled(run)
        print(f"{pair} {name} alone: {len(times)} calls, median {median(sorted(times)):.1f} us; "
              f"SM clock {clock:.0f} MHz, power {power:.0f} W, clocks held for power in {100 * held:.0f} % of samples",
              flush=True)

for pairs, warmups, rounds in ((4000, 0, 1), (33, 3, 5)):
    for _ in range(rounds):
        times = {"mublas": [], "cublas": []}
        for i in range(pairs):
            order = libraries if i % 2 == 0 else libraries[::-1]
            for j, (name, lib, fn, h) in enumerate(order):
                t = timed_call(lib, fn, h, sets[(2 * i + j) % 8])
                if i >= warmups:
                    times[name].append(t)
        mublas_us, cublas_us = median(sorted(times["mublas"])), median(sorted(times["cublas"]))
        print(f"{pair} alternating, {pairs - warmups} pairs: mublas {mublas_us:.1f} us, cuBLAS {cublas_us:.1f} us, "
              f"cuBLAS/mublas {cublas_us / mublas_us:.3f}", flush=True)
