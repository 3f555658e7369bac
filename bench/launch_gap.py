"""How much of a decode call's measured time is the kernel itself, for ours and the libraries: a 30-40 us GEMM that
sits 1-2% from cuBLAS may differ in its start and drain, not in how fast it streams the weights.

Per contender, in one process on the same inputs:
  event     - what bench_anchors.py reports: one call between two CUDA events, behind a GPU spin (timing.median_ms)
  chained   - 20 calls back to back between two events, per call (what a model's layer sequence sees)
  kernel    - the kernels' own durations from torch.profiler (median per call, all kernels of the call summed)
and event - kernel, the time around the kernel that the bench charges to it.

Run: cd bench && python launch_gap.py [--shapes MxNxK,...] [--tiles "NAME;NAME..."]   (needs an sm90 GPU)
     --tiles: tile_probe.py tile names (e.g. "swap 64x32x128 c1x1 pingpong") timed beside the plan, each one kernel
"""
import argparse
import pathlib
import statistics

import torch

import cutlassgen as cg
from cutlassgen import dispatch
from cutlassgen.timing import median_ms
import bench_anchors
from library_kernels import kernel_events
from tile_probe import bias_gelu, bias_gelu_contenders, parse_shapes, tile_named

# the decode anchors: bench_anchors.py's shapes of at most 64 rows
SHAPES = [s for s in bench_anchors.SHAPES + bench_anchors.DECODE_SHAPES if s[0] <= 64]


def chained_ms(fn, calls: int = 20, reps: int = 15) -> float:
    """Per call of `calls` back-to-back calls, all enqueued behind a ~2 ms spin before the first starts (else the
    host's ~20 us per call, not the GPU, would set the pace at these sizes)."""
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(4_000_000)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def kernel_ms(fn, calls: int = 20) -> float:
    """Median over calls of the summed duration of the GPU kernels one call launches."""
    def run():
        for _ in range(calls):
            torch.cuda._sleep(400_000)
            fn()

    durs = [e["dur"] for e in kernel_events(run) if "spin" not in e["name"] and "sleep" not in e["name"]]
    per_call = len(durs) // calls
    sums = [sum(durs[i * per_call:(i + 1) * per_call]) for i in range(calls)]
    return statistics.median(sums) / 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", type=parse_shapes, default=None,
                    help="e.g. 32x8192x8192,64x6144x4096 (default: the decode anchors)")
    ap.add_argument("--tiles", default="", help="tile_probe.py tile names, ';'-separated, timed beside the plan")
    args = ap.parse_args()
    shapes = SHAPES if args.shapes is None else args.shapes
    spec = cg.load_spec(pathlib.Path(__file__).resolve().parent.parent / "examples/specs/bias_gelu_bf16_sm90.toml")
    tile_names = [t for t in args.tiles.split(";") if t]
    # the per-shape tiles (as `auto+shapes` in the bench) and the named tiles, in one parallel build
    plan_specs = [spec] + dispatch.heuristic_variants(spec, dispatch.heuristic_record(spec, shapes))
    tiles = cg.build_many(plan_specs + [bias_gelu(tile_named(t)) for t in tile_names])[len(plan_specs):]
    kernels = {"ours": cg.build(spec, shapes=shapes), **dict(zip(tile_names, tiles))}
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; us per call (median); ours: {kernels['ours']}")
    width = max(16, *map(len, kernels))
    print(f"{'shape':>14} {'contender':>{width}} {'event':>8} {'chained':>8} {'kernel':>8} {'event-kernel':>12}")
    rows = []
    for M, N, K in shapes:
        for name, fn in bias_gelu_contenders(kernels, M, N, K).items():
            for _ in range(10):
                fn()
            rows.append((f"{M}x{N}x{K}", name, fn, median_ms(fn, reps=30) * 1e3, chained_ms(fn) * 1e3))
    # Profiling last: once torch.profiler has run, CUPTI stays attached and slows later launches (a first version
    # of this script, profiling each contender in turn, measured its later chained calls 10-20 us slower).
    for shape, name, fn, e, c in rows:
        k = kernel_ms(fn) * 1e3
        print(f"{shape:>14} {name:>{width}} {e:8.1f} {c:8.1f} {k:8.1f} {e - k:12.1f}", flush=True)


if __name__ == "__main__":
    main()
