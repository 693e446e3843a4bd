"""Kernel time without launch cost, for the scripts that time kernels from a
CUBIN (gemv-ab.py, gemv-sawtooth.py): a few warm-up calls, then `calls` calls
captured in one CUDA graph and the graph replayed between two events. Runs
on the GPU machine (CuPy)."""
import cupy as cp


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


def median(times):
    """The middle of graph_times's sorted list."""
    return times[len(times) // 2]
