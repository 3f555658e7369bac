"""Why the ranking at 8192^3 moves between runs: each contender runs back to back for a few seconds (the GPU at
its power limit, as in a long prefill) while nvidia-smi samples the SM clock and the board power every 20 ms.
Per contender: sustained TFLOP/s, median SM clock and power over its window, FLOP per cycle (TFLOP/s per GHz: the
kernel's efficiency with the clock taken out) and energy per FLOP (W per TFLOP/s). A kernel that does the same work
in as many cycles but spends more energy per FLOP runs at a lower clock once the board sits at its power cap.
With --ncu, each contender instead runs once inside an NVTX range "probe" for ncu (clocks left alone:
`--clock-control none`, bench/device_session.sh power).

Run: python bench/power_clock.py [--case 8192|m256|cluster4|streamk|anchors|plan|wide] [--shape MxNxK] [--seconds S]
     [--rounds R] [--ncu]
     (needs an sm90 GPU and nvidia-smi)
"""
import argparse
import datetime
import random
import statistics
import subprocess
import tempfile
import time

import torch

import cutlassgen as cg
from tile_probe import (CLUSTER4_BF16_TILES, CLUSTER4_FP8_TILES, FAST, PLAN, PREFILL_PP_TILES, STREAMK_BF16_TILES,
                        STREAMK_FP8_TILES, bias_gelu, bias_gelu_contenders, built_beside_plans, fp8_scaled,
                        fp8_scaled_contenders, fp8_scaled_fast, named, parse_shapes, run_in_probe_range)

SHAPE = (8192, 8192, 8192)
# Runs 1-2 of this script (bench/results/h200_power_clock.log) compared tiles at swizzle 1, then the swizzle and
# raster order (git log -p bench/power_clock.py has those contender lists). Run 3 (session 6): at swizzle "auto"
# (8 here), the epilogue subtile (Sm90Tile.epilogue_tile) and cuBLASLt's 256x128 c1x2 tile.
GROUPS = [
    ("bf16 bias+gelu", bias_gelu, bias_gelu_contenders,
     named("128x256x64 c2x1 coop", "128x256x64 c2x1 coop epi128x64", "256x128x64 c1x2 coop",
           "256x128x64 c1x2 coop epi128x64")),
    ("fp8 scaled", fp8_scaled, fp8_scaled_contenders,
     named("128x256x128 c2x1 coop", "128x128x128 c1x1 pingpong", "128x128x128 c1x1 pingpong epi64x64", **FAST)),
]
# --case m256: the same question at M = 256, where the probe after settling (session 6) put ours 3-5% under the
# libraries though ncu counts the same cycles (bench/results/h200_ncu.log).
M256_GROUPS = [
    ("bf16 bias+gelu", bias_gelu, bias_gelu_contenders, named("128x128x64 c1x1 coop", "128x128x64 c2x1 coop")),
    ("fp8 scaled", fp8_scaled, fp8_scaled_contenders,
     named("128x128x128 c1x1 pingpong", "128x128x128 c2x1 pingpong", **FAST)),
]
# --case cluster4: 2x2 / 4x1 clusters (fewer L2 bytes per FLOP; tile_probe.py cluster4) at 8192^3.
CLUSTER4_GROUPS = [("bf16 bias+gelu", bias_gelu, bias_gelu_contenders, CLUSTER4_BF16_TILES),
                   ("fp8 scaled", fp8_scaled, fp8_scaled_contenders, CLUSTER4_FP8_TILES)]
# --case streamk: the tail wave split over every SM (scheduler="stream_k_always"; tile_probe.py streamk) at 8192^3.
STREAMK_GROUPS = [
    ("bf16 bias+gelu", bias_gelu, bias_gelu_contenders,
     {n: t for n, t in STREAMK_BF16_TILES.items() if n.startswith(("128x256", "256x128"))}),
    ("fp8 scaled", fp8_scaled, fp8_scaled_contenders,
     {n: t for n, t in STREAMK_FP8_TILES.items() if n.startswith("128x256")}),
]
# --case anchors (session 64): the targets' default tiles as shipped (bf16 128x256 c2x1; exact fp8 128x128 c1x1 and
# c2x1, the plan's at 8192^3; fast fp8 128x128 pingpong), sustained at the power cap where bench_anchors.py times
# bursts of 20 calls; --shape for another shape.
ANCHOR_GROUPS = [
    ("bf16 bias+gelu", bias_gelu, bias_gelu_contenders, named("128x256x64 c2x1 coop")),
    ("fp8 scaled", fp8_scaled, fp8_scaled_contenders, named("128x128x128 c1x1 coop", "128x128x128 c2x1 coop")),
    ("fp8 scaled fast", fp8_scaled, fp8_scaled_contenders, named("128x128x128 c1x1 pingpong", **FAST)),
]
# --case plan (session 71): what an all-"auto" spec ships for the shape (build(spec, shapes=[shape]), the per-shape
# plan), for the bf16 chain and fp8 scaled with each accumulation; --shape for another shape.
PLAN_GROUPS = [("bf16 bias+gelu", bias_gelu, bias_gelu_contenders, {"auto+shapes": PLAN}),
               ("fp8 scaled", fp8_scaled, fp8_scaled_contenders, {"auto+shapes": PLAN}),
               ("fp8 scaled fast", fp8_scaled_fast, fp8_scaled_contenders, {"auto+shapes": PLAN})]
# --case wide (session 96): the M > 512, N >= 12288 class, whose plan tile (128x128 pingpong, no cluster) won
# tile_probe.py prefillwide's bursts on the H200 (runs 30-31) but on an H100 at its 700 W cap ran 0-17% behind the
# cooperative tiles at four of six shapes; sustained, with the plan itself beside them; --shape for another shape.
WIDE_GROUPS = [("bf16 bias+gelu", bias_gelu, bias_gelu_contenders, {**PREFILL_PP_TILES, "auto+shapes": PLAN})]
CASES = {"8192": (SHAPE, GROUPS), "m256": ((256, 8192, 8192), M256_GROUPS), "cluster4": (SHAPE, CLUSTER4_GROUPS),
         "streamk": (SHAPE, STREAMK_GROUPS), "anchors": (SHAPE, ANCHOR_GROUPS), "plan": (SHAPE, PLAN_GROUPS),
         "wide": ((4096, 14336, 4096), WIDE_GROUPS)}
QUERY = "timestamp,clocks.sm,power.draw,temperature.gpu"


def sampler(log):
    """nvidia-smi sampling into log, a file: into a pipe read only at the end it blocked once the pipe's 64 KiB
    filled (about 30 s of samples), and the later windows had none (session 96's first --case wide run)."""
    return subprocess.Popen(["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits", "-lms", "20"],
                            stdout=log, text=True)


def samples_of(text: str) -> list:
    """(time, MHz, W, C) per nvidia-smi line."""
    out = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        try:
            out.append((datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f"), float(parts[1]),
                        float(parts[2]), float(parts[3])))
        except (ValueError, IndexError):
            continue
    return out


def sustained(fn, seconds: float):
    """(ms per call, window start, window end): fn back to back for about `seconds`."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    n = max(10, int(seconds / ((time.perf_counter() - t) / 3)))
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = datetime.datetime.now()
    start.record()
    for _ in range(n):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / n, t0, datetime.datetime.now()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ncu", action="store_true")
    ap.add_argument("--case", choices=list(CASES), default="8192")
    ap.add_argument("--shape", type=parse_shapes, default=None, help="MxNxK instead of the case's shape")
    args = ap.parse_args()
    (M, N, K), groups = CASES[args.case]
    if args.shape:
        if len(args.shape) != 1:
            ap.error("--shape: one MxNxK")
        (M, N, K), = args.shape
    specs = [(g, name, make(t)) for g, (_, make, _, tiles) in enumerate(groups) for name, t in tiles.items()
             if t is not PLAN]
    plans = [(g, name, make(cg.Sm90Tile())) for g, (_, make, _, tiles) in enumerate(groups)
             for name, t in tiles.items() if t is PLAN]
    tiles, plan_kernels = built_beside_plans([s for _, _, s in specs], [s for _, _, s in plans], [(M, N, K)])
    built = tiles + plan_kernels
    specs += plans
    flop = 2 * M * N * K
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; {M}x{N}x{K}; each contender {args.seconds} s "
          f"back to back, {args.rounds} shuffled rounds; clock and power from nvidia-smi every 20 ms, the first "
          "0.3 s of each window left out")
    for g, (what, _, contenders, _) in enumerate(groups):
        fns = contenders({name: k for (gi, name, _), k in zip(specs, built) if gi == g}, M, N, K)
        if args.ncu:
            for name, fn in fns.items():
                fn()  # warm
                run_in_probe_range(fn)
                print(f"ncu: {what} {M}x{N}x{K} {name}", flush=True)
            continue
        windows = {name: [] for name in fns}
        with tempfile.TemporaryFile("w+") as log:
            smi = sampler(log)
            try:
                order = random.Random(g)
                for _ in range(args.rounds):
                    names = list(fns)
                    order.shuffle(names)
                    for name in names:
                        windows[name].append(sustained(fns[name], args.seconds))
            finally:
                smi.terminate()
                smi.wait()
            log.seek(0)
            samples = samples_of(log.read())
        print(f"\n{what} (sustained TFLOP/s, median SM MHz, median W, TFLOP/s per GHz, W per TFLOP/s; per round):")
        for name, ws in windows.items():
            rows = []
            for ms, t0, t1 in ws:
                inside = [s for s in samples if t0 + datetime.timedelta(seconds=0.3) <= s[0] <= t1]
                mhz = statistics.median(s[1] for s in inside) if inside else float("nan")
                watts = statistics.median(s[2] for s in inside) if inside else float("nan")
                tflops = flop / ms / 1e9
                rows.append(f"{tflops:.0f} TF {mhz:.0f} MHz {watts:.0f} W {tflops / mhz * 1000:.0f} TF/GHz "
                            f"{watts / tflops:.2f} W/TF ({len(inside)} samples)")
            print(f"  {name}: " + " | ".join(rows), flush=True)


if __name__ == "__main__":
    main()
