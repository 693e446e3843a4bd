"""Kernel time without launch cost, for the scripts that time kernels from a
CUBIN (gemv-ab.py, gemv-sawtooth.py, gemm-small-ab.py): a few warm-up calls,
then `calls` calls captured in one CUDA graph and the graph replayed between
two events; cuBLAS on a stream of its own, to time beside them; and the
operand rotation, SGEMM call, tile shared memory and split-K reduction the
SGEMM scripts share.
Runs on the GPU machine (CuPy, libcublas.so.13)."""
import ctypes
import os

import cupy as cp
import numpy as np


def cublas_on_stream():
    """(libcublas.so.13, a handle, a non-blocking CuPy stream the handle runs on)."""
    cublas = ctypes.CDLL("libcublas.so.13")
    handle = ctypes.c_void_p()
    assert cublas.cublasCreate_v2(ctypes.byref(handle)) == 0
    stream = cp.cuda.Stream(non_blocking=True)
    assert cublas.cublasSetStream_v2(handle, ctypes.c_void_p(stream.ptr)) == 0
    return cublas, handle, stream


def graph_times(stream, launch, calls=20, replays=15, operands=4):
    """µs per call of each replay, sorted. `launch(i)` enqueues one call on
    the current stream on operand set i (0 to operands - 1, rotated so that
    each call's data come from DRAM, not the L2)."""
    with stream:
        for i in range(3):
            launch(i % operands)
        stream.begin_capture()
        for i in range(calls):
            launch(i % operands)
        graph = stream.end_capture()
        graph.launch(stream)
        events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(replays)]
        for start, stop in events:
            start.record(stream)
            graph.launch(stream)
            stop.record(stream)
    stream.synchronize()
    return sorted(cp.cuda.get_elapsed_time(a, b) * 1000 / calls for a, b in events)


# Operand sets are rotated over this many bytes at least, past the L2.
L2_BYTES = 200 << 20


def mublas_builds(paths, stream):
    """(libraries, handles): each build of libmublas.so at `paths` loaded, with
    a handle on `stream` (the scripts that time builds against each other)."""
    libs = [ctypes.CDLL(os.path.abspath(path)) for path in paths]
    handles = []
    for lib in libs:
        handle = ctypes.c_void_p()
        assert lib.mublasCreate(ctypes.byref(handle)) == 0
        assert lib.mublasSetStream(handle, ctypes.c_void_p(stream.ptr)) == 0
        handles.append(handle)
    return libs, handles


def shape_lines(path):
    """The shapes of a SHAPES file: a tuple of integers per line ("a,b,c"),
    blank lines and lines starting with "#" skipped."""
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            yield tuple(map(int, line.strip().split(",")))


def compare_builds(stream, runs, outputs, calls, operands):
    """(error, [µs of each build], cuBLAS's µs) for one shape. `runs`: each
    build's call and cuBLAS's last (as graph_times's `launch`); `outputs`:
    what each wrote on operand set 0. One call of each is checked against
    cuBLAS (max error over max |cuBLAS's output|); then two rounds of them
    all, one in each order (so that neither build always follows the
    other), the faster median replay of each kept."""
    for run in runs:
        run(0)
    stream.synchronize()
    scale = float(cp.max(cp.abs(outputs[-1])))
    error = max(float(cp.max(cp.abs(out - outputs[-1]))) for out in outputs[:-1]) / scale
    times = [[] for _ in runs]
    for order in (range(len(runs)), reversed(range(len(runs)))):
        for j in order:
            times[j].append(median(graph_times(stream, runs[j], calls=calls, replays=9, operands=operands)))
    *ours, theirs = (min(t) for t in times)
    return error, ours, theirs


def builds_row(label, error, ours, theirs, digits):
    """One printed line of a builds comparison: µs of each build and of cuBLAS, then cuBLAS time / each build's."""
    return (f"{label} " + " ".join(f"{us:8.{digits}f}" for us in ours) + f" cuBLAS {theirs:8.{digits}f} | "
            + " ".join(f"{theirs / us:5.2f}" for us in ours) + f"  err {error:.0e}")


def operand_sets(bytes_per_set):
    """How many operand sets of `bytes_per_set` to rotate (2 to 16) so that
    each call reads its operands from DRAM."""
    return max(2, min(16, L2_BYTES // bytes_per_set + 1))


def sgemm(lib, fn, handle, ta, tb, m, n, k, A, lda, B, ldb, C, alpha=1.0, beta=0.0, ldc=None):
    """One SGEMM through a library's C ABI (fn: "mublasSgemm" or
    "cublasSgemm_v2") on CuPy arrays, host scalars, ldc = m unless given."""
    a, b = ctypes.c_float(alpha), ctypes.c_float(beta)
    status = getattr(lib, fn)(handle, ta, tb, m, n, k, ctypes.byref(a), ctypes.c_void_p(A.data.ptr), lda,
                              ctypes.c_void_p(B.data.ptr), ldb, ctypes.byref(b), ctypes.c_void_p(C.data.ptr), ldc or m)
    assert status == 0, (fn, status)


def async_shared_bytes(rows, cols):
    """The dynamic shared memory routines/gemm/kernels.rs reserves for a cp.async
    tile kernel of rows × cols (async_shared_bytes there)."""
    return 2 * 16 * ((rows + 4) + (cols + 4) + cols) * 4


def tile_launch(rows, cols, t128=False):
    """(threads, dynamic shared bytes) of a rows × cols tile kernel: the
    register-staged 64×64 (64 threads) and 128×128 (256) tiles and the 4×8
    64×64 tile of 128 threads (`t128`) use static shared memory; every other
    tile is of the cp.async family, a warp per 64×64, with the stages
    routines/gemm/kernels.rs reserves."""
    if (rows, cols) == (64, 64):
        return (128 if t128 else 64), 0
    if (rows, cols) == (128, 128) and not t128:
        return 256, 0
    return (rows // 64) * (cols // 64) * 32, async_shared_bytes(rows, cols)


def partial_ld(m):
    """A partial C's column stride in the work buffer (partial_ld in
    routines/gemm/kernels.rs): m rounded up to 4."""
    return (m + 3) // 4 * 4


def splitk_reduce(kernel, rows_per_thread, m, n, split, partials, C, ldc):
    """Launches a split-K reduction (gemm_splitk_reduce_f32, or with
    rows_per_thread 4 gemm_splitk_reduce4_f32) on the current stream as
    routines/gemm/launch.rs does: blocks of 256 threads, alpha 1, beta 0, `split`
    partial C of partial_ld(m) × n each."""
    ldp = partial_ld(m)
    kernel((-(-m // (256 * rows_per_thread)), min(n, 65535)), (256,),
           (np.int64(m), np.int64(n), np.int32(split), partials, np.int64(ldp), np.int64(ldp * n), np.float32(1),
            np.uint64(0), np.float32(0), np.uint64(0), C, np.int64(ldc)))


def synced_us(run):
    """µs between two events around run()'s work on the current stream, then
    synchronised: one call timed as `mublas bench` times it."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    run()
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) * 1000


def median(times):
    """The middle of graph_times's sorted list."""
    return times[len(times) // 2]
