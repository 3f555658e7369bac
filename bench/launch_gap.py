"""How much of a call's measured time is the kernel itself, for ours and the libraries, alone and back to back: a
30-40 us GEMM that sits 1-2% from cuBLAS may differ in its start and drain, not in how fast it streams the weights;
and a kernel timed alone behind a spin (as bench_anchors.py times it) may run differently in a chain of calls.

Per contender, in one process on the same inputs:
  event     - what bench_anchors.py reports: one call between two CUDA events, behind a GPU spin (timing.median_ms)
  chained   - 20 calls back to back between two events, per call (what a model's layer sequence sees)
  kernel    - the kernels' own durations from torch.profiler (median per call, all kernels of the call summed), each
              call alone behind a spin
  in-chain  - the same durations in 20 back-to-back calls (median; and the first call's, which follows the spin)
  gap       - in the chain, from the end of one call's last kernel to the start of the next call's first (median;
              negative where the next one starts early)
and event - kernel, the time around the kernel that the bench charges to it. The contenders are timed one after
another, not in interleaved rounds: at calls of milliseconds one contender's columns drift apart (run 8 at 8192^3: 17%,
likely the clock), so this suits decode and 256-row shapes; bench_anchors.py's rounds compare the larger ones.

Run: cd bench && python launch_gap.py [--what bias_gelu|fp8|fp8_fast] [--shapes MxNxK,...] [--tiles "NAME;..."]
     (needs an sm90 GPU)
     --what: bf16 bias+gelu (the decode spec; default), fp8 with per-row/per-column scales and bias against
             _scaled_mm, or the same with fp8_fast_accum against its fast accumulation
     --tiles: tile_probe.py tile names (e.g. "swap 64x32x128 c1x1 pingpong") timed beside the plan, each one kernel
"""
import argparse
import pathlib
import statistics

import torch

import cutlassgen as cg
from cutlassgen.timing import median_ms
import bench_anchors
from library_kernels import kernel_events
from tile_probe import (bias_gelu, bias_gelu_contenders, built_beside_plans, fp8_scaled, fp8_scaled_contenders,
                        fp8_scaled_fast, parse_shapes, tile_named)

# the decode anchors: bench_anchors.py's shapes of at most 64 rows
SHAPES = [s for s in bench_anchors.SHAPES + bench_anchors.DECODE_SHAPES if s[0] <= 64]
# fp8's default: one wave of 256-row tiles at three depths, where the fast plan trails _scaled_mm's fast accumulation
# by a fixed part and a per-k-tile part in bench_anchors-style timing (bench/NOTES.md, session 71)
FP8_SHAPES = [(256, 8192, 2048), (256, 8192, 8192), (256, 8192, 32768)]
# --what: the spec (of a tile), its contenders and the default shapes
WHAT = {"bias_gelu": (bias_gelu, bias_gelu_contenders, SHAPES),
        "fp8": (fp8_scaled, fp8_scaled_contenders, FP8_SHAPES),
        "fp8_fast": (fp8_scaled_fast, fp8_scaled_contenders, FP8_SHAPES)}
CHAIN_SPIN_CYCLES = 4_000_000  # ~2 ms: the host enqueues a whole chain (slower under the profiler) before it starts


def chained_ms(fn, calls: int = 20, reps: int = 15) -> float:
    """Per call of `calls` back-to-back calls, all enqueued behind a ~2 ms spin before the first starts (else the
    host's ~20 us per call, not the GPU, would set the pace at these sizes)."""
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(CHAIN_SPIN_CYCLES)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def calls_kernels(run, calls: int) -> list:
    """The profiler's kernel events of run() (which makes `calls` calls), spins left out, one list per call."""
    events = [e for e in kernel_events(run) if "spin" not in e["name"] and "sleep" not in e["name"]]
    if not events or len(events) % calls:
        raise RuntimeError(f"{len(events)} kernels in {calls} calls: a call launched a varying number of them")
    per_call = len(events) // calls
    return [events[i * per_call:(i + 1) * per_call] for i in range(calls)]


def kernel_ms(fn, calls: int = 20) -> float:
    """Median over calls of the summed duration of the GPU kernels one call launches, each call alone behind a spin."""
    def run():
        for _ in range(calls):
            torch.cuda._sleep(400_000)
            fn()

    return statistics.median(sum(e["dur"] for e in call) for call in calls_kernels(run, calls)) / 1000


def in_chain_ms(fn, calls: int = 20) -> tuple:
    """Of `calls` back-to-back calls behind one spin: the median and the first call's summed kernel durations, and the
    median time from one call's last kernel ending to the next call's first starting (all in ms)."""
    def run():
        torch.cuda._sleep(CHAIN_SPIN_CYCLES)
        for _ in range(calls):
            fn()

    chain = calls_kernels(run, calls)
    sums = [sum(e["dur"] for e in call) for call in chain]
    gaps = [after[0]["ts"] - (before[-1]["ts"] + before[-1]["dur"]) for before, after in zip(chain, chain[1:])]
    return statistics.median(sums) / 1000, sums[0] / 1000, statistics.median(gaps) / 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--what", choices=list(WHAT), default="bias_gelu")
    ap.add_argument("--shapes", type=parse_shapes, default=None,
                    help="e.g. 32x8192x8192,64x6144x4096 (default: the decode anchors; fp8: FP8_SHAPES)")
    ap.add_argument("--tiles", default="", help="tile_probe.py tile names, ';'-separated, timed beside the plan")
    args = ap.parse_args()
    make, contenders, default_shapes = WHAT[args.what]
    shapes = default_shapes if args.shapes is None else args.shapes
    # bias_gelu: the example spec, as runs 1-5 timed it (tile_probe's bias_gelu of an all-"auto" tile, plus a name)
    spec = (cg.load_spec(pathlib.Path(__file__).resolve().parent.parent / "examples/specs/bias_gelu_bf16_sm90.toml")
            if args.what == "bias_gelu" else make(cg.Sm90Tile()))
    tile_names = [t for t in args.tiles.split(";") if t]
    # the per-shape plan (as `auto+shapes` in the bench) and the named tiles, in one parallel build
    tiles, (ours,) = built_beside_plans([make(tile_named(t)) for t in tile_names], [spec], shapes)
    kernels = {"ours": ours, **dict(zip(tile_names, tiles))}
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; {args.what}; us per call (median); "
          f"ours: {kernels['ours']}")
    width = max(16, *map(len, kernels))
    print(f"{'shape':>14} {'contender':>{width}} {'event':>8} {'chained':>8} {'kernel':>8} {'in-chain':>8} "
          f"{'1st':>8} {'gap':>6} {'event-kernel':>12}")
    rows = []
    for M, N, K in shapes:
        for name, fn in contenders(kernels, M, N, K).items():
            for _ in range(10):
                fn()
            rows.append((f"{M}x{N}x{K}", name, fn, median_ms(fn, reps=30) * 1e3, chained_ms(fn) * 1e3))
    # Profiling last: once torch.profiler has run, CUPTI stays attached and slows later launches (a first version
    # of this script, profiling each contender in turn, measured its later chained calls 10-20 us slower).
    for shape, name, fn, e, c in rows:
        k = kernel_ms(fn) * 1e3
        chain, first, gap = (v * 1e3 for v in in_chain_ms(fn))
        print(f"{shape:>14} {name:>{width}} {e:8.2f} {c:8.2f} {k:8.2f} {chain:8.2f} {first:8.2f} {gap:6.2f} "
              f"{e - k:12.2f}", flush=True)


if __name__ == "__main__":
    main()
