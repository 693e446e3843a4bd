#!/usr/bin/env python3
"""Kernel time of the SAXPY float4 kernels straight from a CUBIN, against
cuBLAS's, without the library: for trying a variant (a copy of
kernels/axpy.cu, compiled by `scripts/nvrtc-ptx.py FILE.cu sm_90 >
FILE.cubin`) before wiring it into the routine. n = 2^LOG2N, alpha = 0.5 from
the host, x and y 16-byte aligned (no head, no tail). Twenty calls captured
in a CUDA graph, sixteen such graphs over different vectors of a 512 MiB
pool (past the L2 up to 2^22), each replayed twice between two events,
median of the 32: the kernels' own time, without launch cost (which is
5-8 µs from Python, longer than these kernels). cuBLAS runs first and last.

usage: saxpy-ab.py FILE.cubin LOG2N SPEC...   SPEC: KERNEL@TX
  e.g. saxpy-ab.py axpy.cubin 16 axpy_f32_vec4@96 axpy_f32_vec4_single@128
"""
import ctypes
import sys

import cupy as cp
import numpy as np

CALLS, GRAPHS = 20, 16
POOL_FLOATS = 1 << 27


def main():
    path, n, specs = sys.argv[1], 1 << int(sys.argv[2]), sys.argv[3:]
    module = cp.RawModule(path=path)
    pool = cp.random.rand(POOL_FLOATS + 2 * n, dtype=cp.float32) - 0.5
    pairs = max(1, min(CALLS * GRAPHS, POOL_FLOATS // (2 * n)))
    offsets = [(i % pairs) * 2 * n for i in range(CALLS * GRAPHS)]  # x at the offset, y n floats after it
    cublas = ctypes.CDLL("libcublas.so.13")
    handle = ctypes.c_void_p()
    assert cublas.cublasCreate_v2(ctypes.byref(handle)) == 0
    stream = cp.cuda.Stream(non_blocking=True)
    assert cublas.cublasSetStream_v2(handle, ctypes.c_void_p(stream.ptr)) == 0
    cp.cuda.Device().synchronize()  # the pool comes from the default stream, which `stream` does not wait for
    alpha = ctypes.c_float(0.5)

    def address(offset):
        return pool.data.ptr + 4 * offset

    def with_cublas(o):
        assert cublas.cublasSaxpy_v2(handle, n, ctypes.byref(alpha), ctypes.c_void_p(address(o)), 1,
                                     ctypes.c_void_p(address(o + n)), 1) == 0

    def kernel(spec):
        name, tx = spec.split("@")
        tx, f = int(tx), module.get_function(name)
        if name.endswith("_single"):  # a thread per float4 group; (count, head, groups, ...)
            blocks = -(-(n // 4) // tx)
            return lambda o: f((blocks,), (tx,), (np.uint32(n), np.uint32(0), np.uint32(n // 4), np.float32(0.5),
                                                  np.uint64(0), np.uint64(address(o)), np.uint64(address(o + n))))
        blocks = -(-(n // 4) // (2 * tx))  # axpy_f32_vec4: AXPY_UNROLL = 2 groups per thread
        return lambda o: f((blocks,), (tx,), (np.int64(n), np.float32(0.5), np.uint64(0), np.uint64(address(o)),
                                              np.uint64(address(o + n))))

    for label, launch in [("cuBLAS", with_cublas)] + [(spec, kernel(spec)) for spec in specs] + [("cuBLAS", with_cublas)]:
        with stream:
            graphs = []
            for g in range(GRAPHS):
                stream.begin_capture()
                for i in range(CALLS):
                    launch(offsets[g * CALLS + i])
                graphs.append(stream.end_capture())
            for graph in graphs:
                graph.launch(stream)
            events = []
            for _ in range(2):
                for graph in graphs:
                    start, stop = cp.cuda.Event(), cp.cuda.Event()
                    start.record(stream)
                    graph.launch(stream)
                    stop.record(stream)
                    events.append((start, stop))
        stream.synchronize()
        times = sorted(cp.cuda.get_elapsed_time(a, b) * 1000 / CALLS for a, b in events)
        print(f"2^{n.bit_length() - 1} {label:32s} {times[len(times) // 2]:7.2f} us  (fastest {times[0]:.2f})", flush=True)
    # A correctness check of the last kernel variant: one more call on the first x and y, against float64.
    if specs:
        expected = 0.5 * pool[:n].astype(cp.float64) + pool[n:2 * n].astype(cp.float64)
        # `expected` is computed on the default stream, which the non-blocking
        # `stream` does not wait for: the kernel must not update y before it is read.
        cp.cuda.Device().synchronize()
        with stream:
            kernel(specs[-1])(0)
        stream.synchronize()
        error = float(cp.max(cp.abs(pool[n:2 * n] - expected)))
        print(f"2^{n.bit_length() - 1} {specs[-1]}: max error {error:.1e} against float64")


if __name__ == "__main__":
    main()
