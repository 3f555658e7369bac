"""The SM clock while a kernel runs, as bench_anchors.py times it: is a kernel that takes longer than the library's
at as many cycles under ncu (bench/NOTES.md, session 72: the fast fp8 plan at 256x8192^2) running at a lower clock?

ncu reports a kernel's cycles, but under its own conditions (serialized launches, milliseconds apart); the bench's
events report time only. Here a one-thread probe kernel runs on a side stream, beside the work, and records
(%globaltimer, %clock64) every PROBE_INTERVAL_NS. On the other stream, a
marker kernel writes %globaltimer just before and just after the timed work. The probe's cycles over that window,
divided by its nanoseconds, are the clock of its SM, which shares the graphics clock with every other SM; the window
times that clock are the work's cycles (the markers' launch gaps included, for every contender alike). The probe is
one thread that sleeps (__nanosleep) between samples, so that on an SM it shares with a GEMM CTA it takes few issue
slots. A probe that held a whole SM (a 1024-thread block, or 200 KB of shared memory) kept the marker kernels from
starting until it had ended, on the H200 machine (session 72).

Per contender, interleaved rounds of:
  lone     - one call behind a spin, as bench_anchors.py / timing.median_ms time it
  chained  - CHAIN calls back to back behind one spin (per call)
printed as the median window (us), clock (GHz) and cycles per call, with the idle clock (the probe alone) first; and
the lone window without the probe, which should match the lone one with it. --before adds, between the spin and the
window, what ran just before the call (BEFORE): the bench's plain spin, an L2 flush (the bench's --cold), the flush
and then a write of as many bytes as the output (dirty lines in L2, as a previous call leaves them), or one call of
the first contender (a library's kernel on the same inputs), each a table of its own: under ncu's serialized
launches the fast fp8 plan took as many cycles as _scaled_mm's kernel, in the bench 2.4-2.9% more (session 72). After
"lead" only the probe-free column holds: beside the probe our kernels took twice their time there (session 73, run 6).

Not where the work needs the probe's SM too: a persistent kernel with one CTA per SM, each filling its SM's shared
memory (ours at 8192^3), has one CTA wait for the probe to end. Beside the probe our bf16 plan took 2479 us at 8192^3
against cuBLASLt fused's 1493, where the bench has them level (session 72, call 5, before the probe-free window was
added: that window shows it). The probe suits work of fewer CTAs than SMs: one wave at 256 rows, decode.

Run: cd bench && python clock_probe.py [--what fp8|fp8_fast_forms|bias_gelu] [--shapes MxNxK,...] [--rounds R]
                                        [--reps N] [--before spin,flush,dirty,lead]
     (needs an sm90 GPU; compiles the probe with torch.utils.cpp_extension, about half a minute)
     --what: fp8 with per-row/per-column scales and bias (the fast and the exact plan against _scaled_mm; default),
             fp8_fast_forms (the fast plan beside its 256-row tile as pingpong, with its weights EVICT_FIRST and
             without, and as cooperative without, against _scaled_mm), or bf16 bias+gelu (the plan against cuBLAS mm and
             cuBLASLt fused)
"""
import argparse
import dataclasses
import functools
import random
import statistics

import torch

import cutlassgen as cg
from cutlassgen.timing import l2_flush
from tile_probe import (bias_gelu, bias_gelu_contenders, built_beside_plans, fp8_scaled, fp8_scaled_contenders,
                        fp8_scaled_fast, parse_shapes)

SHAPES = [(256, 8192, 8192)]
# fp8_fast_forms (session 74, clock_probe run 11): with the L2 flushed the fast plan's 256-row tile (128x128x128 c1x1
# cooperative, weights EVICT_FIRST) takes fewer cycles than _scaled_mm's fast kernel but at a 2.0% lower clock. The
# pingpong form issues as many instructions as nvjet's kernel (session 72's ncu, 2.79 against 2.81 M; the cooperative
# one 3.86 M): does it hold the clock? Beside the plan: pingpong with the weights EVICT_FIRST and without, and the
# plan's cooperative tile without.
_FAST_256_TILE = cg.Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), fp8_fast_accum=True)
FAST_FORMS = {name: fp8_scaled_fast(dataclasses.replace(_FAST_256_TILE, mainloop=mainloop, weights_evict_first=first))
              for name, mainloop, first in (("pingpong weights-first", "pingpong", True),
                                            ("pingpong", "pingpong", False), ("cooperative", "cooperative", False))}
# --what: the label, our plans (name -> spec of a tile: each built as build(spec, shapes) builds the all-"auto" one),
# the contenders (the libraries and ours, each checked against a float64 reference first) and tiles of ours to time
# beside the plans (name -> spec)
WHAT = {"fp8": ("fp8 scaled", {"fast plan": fp8_scaled_fast, "exact plan": fp8_scaled}, fp8_scaled_contenders, {}),
        "fp8_fast_forms": ("fp8 scaled", {"fast plan": fp8_scaled_fast}, fp8_scaled_contenders, FAST_FORMS),
        "bias_gelu": ("bf16 bias+gelu", {"plan": bias_gelu}, bias_gelu_contenders, {})}
PROBE_INTERVAL_NS = 200
CHAIN = 20
# the spin before the work: ~100 us, and ~75 us more per call, so that the host has enqueued the markers and the
# whole chain before it ends (else the chain's calls would wait on the host, not on each other: the fp8 contenders'
# Python calls took 40-46 us each on the H200 machine)
SPIN_CYCLES, SPIN_CYCLES_PER_CALL = 200_000, 150_000
# --before: what runs between the spin and the window, as each table's heading names it
BEFORE = {"spin": "", "flush": ", after an L2 flush", "dirty": ", after an L2 flush and a write of the output's size",
          "lead": ", after one call of {lead}"}
FLUSH_NS = 1_000_000  # the most a read of 512 MiB (timing.l2_flush) may take, which the probe must outlast

PROBE_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// samples (ns, SM cycles) pairs, one per interval_ns, n of them, asleep in between
__global__ void probe_kernel(unsigned long long* out, int n, unsigned long long interval_ns) {
  unsigned long long next = global_ns();
  for (int i = 0; i < n; ++i) {
    unsigned long long t;
    while ((t = global_ns()) < next) __nanosleep(32);
    out[2 * i] = t;
    out[2 * i + 1] = static_cast<unsigned long long>(clock64());
    next = t + interval_ns;
  }
}

__global__ void marker_kernel(unsigned long long* out) { *out = global_ns(); }

void probe(torch::Tensor out, int64_t n, int64_t interval_ns) {
  TORCH_CHECK(out.dtype() == torch::kInt64 && out.is_cuda() && out.numel() >= 2 * n, "out: int64 CUDA, 2n elements");
  probe_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<unsigned long long*>(out.data_ptr<int64_t>()), static_cast<int>(n), interval_ns);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void marker(torch::Tensor out, int64_t index) {
  TORCH_CHECK(out.dtype() == torch::kInt64 && out.is_cuda() && index < out.numel(), "out: int64 CUDA");
  marker_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<unsigned long long*>(out.data_ptr<int64_t>()) + index);
}
"""


def load_probe():
    """The compiled probe and marker, each launched once (a kernel's first launch loads its module: milliseconds)."""
    from torch.utils.cpp_extension import load_inline

    ext = load_inline("cutlassgen_clock_probe", cpp_sources="void probe(torch::Tensor out, int64_t n, int64_t "
                       "interval_ns);\nvoid marker(torch::Tensor out, int64_t index);",
                       cuda_sources=PROBE_SOURCE,
                       functions=["probe", "marker"], extra_cuda_cflags=["-O2", "-gencode=arch=compute_90,code=sm_90"])
    scratch = torch.zeros(4, dtype=torch.int64, device="cuda")
    ext.probe(scratch, 2, PROBE_INTERVAL_NS)
    ext.marker(scratch, 0)
    torch.cuda.synchronize()
    return ext


def window_clock(samples: list, start: int, end: int) -> tuple:
    """(ns, GHz) of the window [start, end] (globaltimer ns) from the probe's (ns, cycles) samples: the clock between
    the first and the last sample inside it. None where fewer than two samples fall inside (the probe began late or
    ended early: the caller's spin or probe length is too short)."""
    inside = [(t, c) for t, c in samples if start <= t <= end]
    if len(inside) < 2 or end <= start:
        return None
    (t0, c0), (t1, c1) = inside[0], inside[-1]
    return end - start, (c1 - c0) / (t1 - t0)


def measure(ext, streams, fn, calls: int, work_ns: float, probe: bool = True, before=None,
            before_ns: float = 0) -> tuple:
    """One window: the probe on one stream of the pair, and on the other a spin, before() if given (taking at most
    before_ns), a marker, `calls` calls of fn (each expected to take at most work_ns), a marker. Neither is the
    default stream, which under CUDA's legacy semantics waits for the work of blocking streams. probe=False: the
    window without the probe, (ns, None), to show what the probe's presence costs the work."""
    side, work = streams
    spin = SPIN_CYCLES + calls * SPIN_CYCLES_PER_CALL
    # the spin (its cycles, as ns at 1 GHz or more), what runs before, the work, a margin
    probe_ns = spin + before_ns + calls * work_ns + 200_000
    n = int(probe_ns) // PROBE_INTERVAL_NS if probe else 1
    samples = torch.zeros(2 * n, dtype=torch.int64, device="cuda")
    marks = torch.zeros(2, dtype=torch.int64, device="cuda")
    torch.cuda.synchronize()
    if probe:
        with torch.cuda.stream(side):
            ext.probe(samples, n, PROBE_INTERVAL_NS)
    with torch.cuda.stream(work):
        torch.cuda._sleep(spin)
        if before is not None:
            before()
        ext.marker(marks, 0)
        for _ in range(calls):
            fn()
        ext.marker(marks, 1)
    torch.cuda.synchronize()
    pairs = samples.view(-1, 2)
    start, end = marks.tolist()
    if not probe:
        return end - start, None
    # only the samples inside the window come to the host (a chain at 8192^3 spans ~10^5 of them)
    got = window_clock(pairs[(pairs[:, 0] >= start) & (pairs[:, 0] <= end)].tolist(), start, end)
    if got is None:
        first, last = pairs[0, 0].item(), pairs[-1, 0].item()
        raise RuntimeError(f"the probe ({first}..{last} ns) does not cover the work ({start}..{end})")
    return got


def warmed_streams() -> tuple:
    """Two streams, neither the default one, each used once: the first kernel on a new stream held the host until the
    other stream's probe had ended (on the H200 machine, session 72: the work then began after the probe)."""
    streams = torch.cuda.Stream(), torch.cuda.Stream()
    for stream in streams:
        with torch.cuda.stream(stream):
            torch.cuda._sleep(1)
    torch.cuda.synchronize()
    return streams


def idle_clock(ext, probe_ns: int = 400_000) -> float:
    """The probe's clock with nothing else on the GPU."""
    n = probe_ns // PROBE_INTERVAL_NS
    samples = torch.zeros(2 * n, dtype=torch.int64, device="cuda")
    ext.probe(samples, n, PROBE_INTERVAL_NS)
    torch.cuda.synchronize()
    (t0, c0), *_, (t1, c1) = samples.view(-1, 2).tolist()
    return (c1 - c0) / (t1 - t0)


def tables(ext, streams, fns: dict, work_ns: float, rounds: int, reps: int, before, before_ns: float) -> dict:
    """Per contender: its lone windows, its chained ones and its lone ones without the probe, over shuffled rounds."""
    windows = {name: ([], [], []) for name in fns}
    order = random.Random(0)
    for _ in range(rounds):
        names = list(fns)
        order.shuffle(names)
        for name in names:
            lone, chained, bare = windows[name]
            window = functools.partial(measure, ext, streams, fns[name], work_ns=work_ns, before=before,
                                       before_ns=before_ns)
            lone += [window(1) for _ in range(reps)]
            bare += [window(1, probe=False)[0] for _ in range(reps)]
            chained.append(window(CHAIN))
    return windows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--what", choices=list(WHAT), default="fp8")
    ap.add_argument("--shapes", type=parse_shapes, default=SHAPES)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", type=int, default=10, help="lone windows per contender per round")
    ap.add_argument("--before", default="spin", type=lambda v: v.split(","),
                    help=f"comma-separated, each a table of its own: {', '.join(BEFORE)}")
    args = ap.parse_args()
    unknown = [b for b in args.before if b not in BEFORE]
    if unknown:
        ap.error(f"--before {','.join(unknown)}: choose from {', '.join(BEFORE)}")
    what, makers, contenders, tiles = WHAT[args.what]
    specs = {name: make(cg.Sm90Tile()) for name, make in makers.items()}
    tile_kernels, plans = built_beside_plans(list(tiles.values()), list(specs.values()), args.shapes)
    kernels = {**dict(zip(specs, plans)), **dict(zip(tiles, tile_kernels))}
    ext, streams = load_probe(), warmed_streams()
    flush = l2_flush() if {"flush", "dirty"} & set(args.before) else None
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; probe every {PROBE_INTERVAL_NS} ns on a side "
          f"stream; {args.rounds} shuffled rounds of {args.reps} lone windows and one chain of {CHAIN} per contender; "
          f"idle clock {idle_clock(ext):.3f} GHz")
    for name, k in kernels.items():
        print(f"{name}: {k}")
    for M, N, K in args.shapes:
        fns = contenders(kernels, M, N, K)
        work_ns = 2 * M * N * K / 2e5  # a call at 200 TFLOP/s or more (1 TFLOP/s is 1e3 FLOP per ns)
        for fn in fns.values():
            for _ in range(5):
                fn()
            measure(ext, streams, fn, CHAIN, work_ns)  # the path through the probe and markers once, not kept
        lead_name = next(iter(fns))
        # as many bytes as a bf16 output
        dirty = torch.empty(M * N if "dirty" in args.before else 0, dtype=torch.bfloat16, device="cuda")

        def flush_and_dirty():
            flush()
            dirty.fill_(1.0)
        # once ahead on the work stream: the flush's first call held the host ~20 ms, past the spin and the probe's end
        # (H200, session 73; likely its kernels' first launch loading their module, as CUDA loads them lazily)
        with torch.cuda.stream(streams[1]):
            if flush is not None:
                flush_and_dirty()
        torch.cuda.synchronize()
        for kind in args.before:
            before, before_ns = {"spin": (None, 0), "flush": (flush, FLUSH_NS), "dirty": (flush_and_dirty, FLUSH_NS),
                                 "lead": (fns[lead_name], work_ns)}[kind]
            windows = tables(ext, streams, fns, work_ns, args.rounds, args.reps, before, before_ns)
            print(f"{what} {M}x{N}x{K}{BEFORE[kind].format(lead=lead_name)}: contender | lone: us, GHz, k cycles | "
                  "chained per call: us, GHz, k cycles | lone without the probe: us")
            for name, (lone, chained, bare) in windows.items():
                cells = []
                for runs, calls in ((lone, 1), (chained, CHAIN)):
                    ns = statistics.median(w for w, _ in runs) / calls
                    ghz = statistics.median(c for _, c in runs)
                    cycles = statistics.median(w * c for w, c in runs) / calls
                    cells.append(f"{ns / 1e3:7.2f} {ghz:6.3f} {cycles / 1e3:7.2f}")
                print(f"  {name:>22} | {cells[0]} | {cells[1]} | {statistics.median(bare) / 1e3:7.2f}", flush=True)


if __name__ == "__main__":
    main()
