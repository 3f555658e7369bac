"""GPU timing used by the demo, the tile study and the benchmarks: device events after warm-up, medians of many runs.

Each timed run starts behind a short GPU spin (torch.cuda._sleep), so that the host has enqueued the whole call
before the start event fires: the time is the device's, not the host's launch latency (which bench/host_overhead.py
measures on its own). Without the spin a 50 us kernel timed after a synchronize would count ~20 us of Python and
driver work as GPU time, and the comparison with cuBLAS would measure launch paths, not kernels.
"""
from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass

SPIN_CYCLES = 400_000  # ~200 us at H100/H200 clocks: longer than the host time of an unfused chain of torch ops
MAX_SETTLE_CALLS = 5000


def median_ms(fn, reps: int = 30, warmup: int = 5, settle_ms: float = 0.0, before=None) -> float:
    """Median device time of fn() in milliseconds, each run bracketed by CUDA events on the current stream.
    settle_ms: keep warming up, back to back, until about this much GPU time has passed, so that the clock the runs
    see is the one fn itself sustains, not the one the previous (lighter or heavier) kernel left behind.
    before: called ahead of every timed run, outside its events (e.g. l2_flush())."""
    import torch

    if settle_ms > 0:
        begin, done = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
    for _ in range(warmup):
        fn()
    if settle_ms > 0:  # the warm-up's GPU time says how many more calls make settle_ms
        done.record()
        done.synchronize()
        spent = begin.elapsed_time(done)
        for _ in range(min(MAX_SETTLE_CALLS, max(0, math.ceil((settle_ms - spent) / max(spent / warmup, 1e-3))))):
            fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(SPIN_CYCLES)
        if before is not None:
            before()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def l2_flush(mib: int = 512):
    """A function that reads a buffer of mib MiB (far larger than L2) on the current stream, so that the next kernel
    finds none of its operands in L2, as a layer does in a model. A read, not a write: written lines would sit dirty
    in L2, and the timed kernel would pay for writing them back (up to the L2's size, ~50 MB on an H100/H200: a third
    more DRAM traffic for a decode GEMM over 128 MiB of weights)."""
    import torch

    buffer = torch.zeros(mib * 2**20 // 4, device="cuda")
    return buffer.sum


def interleaved_rounds(fns: dict, measure, rounds: int = 3, seed: int = 0) -> dict:
    """name -> [measure(fn) of each round], in round order. Every fn is measured once per round, in a new (seeded)
    order each round: clock and temperature (or, for host timings, whatever else the machine is doing) follow the
    previous contender, so a fixed order would favour whoever always runs after a light one. Round i of every name is
    one pass over all of them, which is what paired_ratio compares."""
    order = random.Random(seed)
    times = {name: [] for name in fns}
    for _ in range(rounds):
        names = list(fns)
        order.shuffle(names)
        for name in names:
            times[name].append(measure(fns[name]))
    return times


def interleaved_rounds_ms(fns: dict, rounds: int = 3, reps: int = 20, seed: int = 0, settle_ms: float = 0.0,
                          before=None) -> dict:
    """interleaved_rounds of median_ms(fn, reps, settle_ms=settle_ms, before=before). settle_ms is 0 by default: on
    the H200, 50 ms of settling left the power-capped GPU mid-transient and made M = 256 noisier, not steadier
    (bench/NOTES.md, session 6); bench/power_clock.py measures the sustained clock instead, over seconds."""
    return interleaved_rounds(fns, lambda fn: median_ms(fn, reps=reps, settle_ms=settle_ms, before=before), rounds,
                              seed)


def interleaved_median_ms(fns: dict, rounds: int = 3, reps: int = 20, seed: int = 0, settle_ms: float = 0.0,
                          before=None) -> dict:
    """name -> the median over rounds of interleaved_rounds_ms."""
    return {name: statistics.median(ts)
            for name, ts in interleaved_rounds_ms(fns, rounds, reps, seed, settle_ms, before).items()}


@dataclass(frozen=True)
class PairedRatio:
    """How much faster `ours` ran than `theirs`, round by round (>1: ours faster): the median, the quartiles and
    how many rounds ours won. At parity a single median lands on either side of 1.0 by chance; the spread over
    rounds says whether a ratio under 1.0 is a gap or noise."""
    median: float
    q1: float
    q3: float
    wins: int  # rounds with ours at least as fast
    rounds: int

    def __str__(self) -> str:
        return (f"{self.median:.3f} (quartiles {self.q1:.3f}-{self.q3:.3f}; "
                f"ours >= in {self.wins} of {self.rounds} rounds)")


def paired_ratio(ours: list, theirs: list) -> PairedRatio:
    """Per-round speed ratios theirs_time / ours_time of two lists from interleaved_rounds_ms."""
    if len(ours) != len(theirs) or not ours:
        raise ValueError(f"paired_ratio needs two equal, non-empty lists of rounds ({len(ours)} vs {len(theirs)})")
    ratios = [t / o for o, t in zip(ours, theirs)]
    q1, q2, q3 = statistics.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 else ratios * 3
    return PairedRatio(q2, q1, q3, sum(r >= 1.0 for r in ratios), len(ratios))


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
