"""GPU timing used by the demo and the benchmarks: device events after warm-up, medians over many runs."""
from __future__ import annotations

import statistics
import time


def median_ms(fn, reps: int = 30, warmup: int = 5) -> float:
    """Median device time of fn() in milliseconds, each run bracketed by CUDA events on the current stream."""
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def host_us_per_call(fn, n: int = 20000, warmup: int = 200) -> float:
    """Wall time per call of fn() in microseconds over n back-to-back calls (for host overhead, tiny problems)."""
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6
