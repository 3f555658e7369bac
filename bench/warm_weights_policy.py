"""Warm, at decode shapes whose weights come near the H200's L2 (50 MiB): does loading them EVICT_FIRST give up the
L2 reuse that cuBLAS mm gets from one call to the next?

compile_side_effect.py (session 79) had cuBLAS mm at 64x6144x4096 (48 MiB of weights) run 193 and 206 TFLOP/s on two
tensor sets, ours 180-181 on both; the swapped tiles loaded the weights EVICT_FIRST at every size then. This script
builds the plan's tile at each shape with its weights EVICT_FIRST and with CUTLASS's own loads (tile_probe.py's
WEIGHTS_FIRST_VARIANTS), and times both beside cuBLAS mm on several tensor sets made one after another, warm (as
bench_anchors.py) and cold (after a 512 MiB read: a layer in a model), in interleaved rounds, each kernel checked
against float64 first. Its answer on the H200 (session 82: CUTLASS's loads 6-15% faster warm at 40 MiB, EVICT_FIRST
2-5% at 48) made the plan set Sm90Tile.weights_evict_first on swapped tiles over 40 MiB only.

Run: python bench/warm_weights_policy.py [--sets 3] [--rounds 7] [--shapes 64x6144x4096,...]   (needs an sm90 GPU)
"""
import argparse
import dataclasses
import statistics

import torch
import torch.nn.functional as F

from cutlassgen import Sm90Tile
from cutlassgen.golden import rel_error
from cutlassgen.tiles import shape_tile
from cutlassgen.timing import interleaved_rounds_ms, l2_flush, paired_ratio
from cutlassgen.tuning import label
from bench_anchors import bf16_operands
from tile_probe import WEIGHTS_FIRST_VARIANTS, bias_gelu, build_variants, parse_shapes

SHAPES = [(64, 6144, 4096), (64, 5120, 4096), (64, 4096, 4096)]  # 48, 40 and 32 MiB of bf16 weights


def plan_tiles(shapes) -> dict:
    """shape -> the per-shape plan's tile for an all-"auto" bf16 bias+GELU spec, without the weights_evict_first the
    plan sets over 40 MiB (the LOAD_HINTS variants stand for both policies)."""
    return {shape: dataclasses.replace(shape_tile(bias_gelu(Sm90Tile()), *shape), weights_evict_first=False)
            for shape in shapes}


def variant_entries(shapes=SHAPES) -> list:
    """(spec, {LOAD_HINTS: policy}) for each plan tile at shapes and each policy: what main() builds (and
    bench/seed_device_parts.py --what warm_weights compiles ahead)."""
    setting, policies = WEIGHTS_FIRST_VARIANTS
    specs = sorted({bias_gelu(t) for t in plan_tiles(shapes).values()}, key=lambda s: s.key)
    return [(spec, {setting: p}) for spec in specs for p in policies]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=3, help="tensor sets per shape, made one after another")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--shapes", type=parse_shapes, default=SHAPES)
    args = ap.parse_args()
    setting, policies = WEIGHTS_FIRST_VARIANTS
    tiles = plan_tiles(args.shapes)
    entries = variant_entries(args.shapes)
    built = build_variants(entries)  # one ninja run
    kernels = {(spec, str(settings[setting])): k for (spec, settings), k in zip(entries, built)}
    flush = l2_flush()
    print(f"TFLOP/s on {torch.cuda.get_device_name()}, torch {torch.__version__}; median of {args.rounds} interleaved "
          f"rounds of 20 runs; ours = the plan's tile, its weights {' / '.join(map(str, policies))}", flush=True)
    for M, N, K in args.shapes:
        spec = bias_gelu(tiles[(M, N, K)])
        print(f"\n{M}x{N}x{K} ({N * K * 2 / 2**20:.0f} MiB of weights), tile {label(spec)}", flush=True)
        keep = []  # every set stays allocated, so that the next one lands elsewhere
        for i in range(args.sets):
            a, w, bias = bf16_operands(M, N, K, seed=100 + i)
            keep.append((a, w, bias))
            ref = F.gelu(a.double() @ w.double().t() + bias.double(), approximate="tanh")
            timed = {"cuBLAS mm": lambda a=a, w=w: torch.mm(a, w.t())}
            for p in policies:
                k = kernels[(spec, str(p))]
                assert rel_error(k(a, w.t(), bias=bias), ref) < 1.5e-2, p
                timed[f"ours {p}"] = lambda k=k, a=a, w=w, bias=bias: k(a, w.t(), bias=bias)
            flop = 2 * M * N * K
            for mode, before in (("warm", None), ("cold", flush)):
                r = interleaved_rounds_ms(timed, rounds=args.rounds, reps=20, seed=i * 7 + N, before=before)
                tf = {name: flop / statistics.median(ms) / 1e9 for name, ms in r.items()}
                vs = "; ".join(f"{name} / cuBLAS mm {paired_ratio(r[name], r['cuBLAS mm']).median:.3f}"
                               for name in timed if name != "cuBLAS mm")
                print(f"  set {i} {mode}: " + ", ".join(f"{name} {v:.0f}" for name, v in tf.items()) + f"; {vs}",
                      flush=True)


if __name__ == "__main__":
    main()
