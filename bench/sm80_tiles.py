"""Which sm80-path tiles to pick per problem shape (the mma.sync + cp.async path that sm80/86/89 GPUs run).

The sm80 path's "auto" tile is one 128x128 threadblock for every M. At a decode batch (M <= 64) that pads each CTA's
MMAs to 128 rows and, at N = 8192, launches 64 CTAs; at M = 256 it makes 128 CTAs of work for a GPU that would take
more. This script times candidate threadblock / warp / stage combinations of one spec against each other and against
cuBLAS at decode, mid and large M: the bf16 Linear + bias + gelu_tanh spec (the demo's, arch=80; `--spec bf16`) or
the int8 x int8 -> int32 spec dequantized by per-row and per-column scales to bf16
(examples/specs/int8_dequant_sm80.toml; `--spec int8`).

There is no sm80 GPU here: the kernels are the sm80 path compiled for the GPU this runs on (on an H200, sm_90a: the
same mma.sync / cp.async / ldmatrix code). Absolute numbers are the H200's; what carries to an A100 (108 SMs,
2 TB/s) is the ranking where one tile makes several times the CTAs or pads a fraction of the rows of another.

Run: python bench/sm80_tiles.py [--spec bf16|int8] [--shapes MxNxK,...] [--rounds N] [--warm]
                                [--names "128x128x32 w64x64 s4",...]
Every tile is compiled in one ninja run and checked against the float64 reference at every shape; then, per shape,
all tiles and cuBLAS (bf16: mm and cuBLASLt fused; int8: torch._int_mm, without the dequantize) are timed in
shuffled interleaved rounds (cutlassgen.timing), L2 flushed before every timed run unless --warm.
"""
import argparse
import re
import statistics
import sys
from pathlib import Path

import torch

import cutlassgen as cg
from cutlassgen import Sm80Tile, dispatch
from cutlassgen.demo import default_spec
from cutlassgen.errors import SpecError
from cutlassgen.golden import reference, rel_error
from cutlassgen.timing import interleaved_rounds_ms, l2_flush
from cutlassgen.tuning import random_inputs
from tile_probe import parse_shapes

# Names are parsed into tiles, so a name cannot drift from its tile: "TBMxTBNxK wWMxWN sS" (S: stages; "auto" when
# left out). K is in elements (bf16: 32 = 64 bytes, the default's; 64 = 128 bytes; int8: 64 = 64 bytes). The first
# name of each list is the spec's default tile.
TILES = {
    "bf16": (
        "128x128x32 w64x64",  # the default: auto stages (4 here)
        # the per-shape tiles (cutlassgen.tiles.SM80_TILES) as an arch=80 spec gets them: the small ones' stages
        # leave room for two CTAs in an A100's 164 KiB per SM
        "32x64x64 w32x32 s6",  # M <= 32
        "64x64x64 w32x32 s5",  # 33-64
        "64x128x64 w32x64 s3",  # 65-128
        "128x128x32 w64x64 s5",  # 129-256 (since run 7): the default's shape, stages for two CTAs per A100 SM
        "128x256x32 w64x64 s4",  # > 512 at N >= 4096 (since run 4)
        # their neighbours in runs 1-2: a 16-row tile, deeper pipelines (one CTA per SM), the other wide tile
        "16x64x64 w16x32 s8",
        "32x64x64 w32x32 s10",
        "64x64x64 w32x32 s8",
        "64x128x64 w32x64 s6",
        "256x128x32 w64x64 s4",
        "128x128x64 w64x64 s4",  # the 129-256 tile until run 6 (one CTA per SM)
        "128x128x64 w64x64 s3",  # faster on the H200 in runs 6-7 (two CTAs per SM there), one per A100 SM
    ),
    # The same shapes in bytes of K (int8: one byte an element), and their neighbours.
    "int8": (
        "128x128x64 w64x64",  # the default: auto stages (4 here)
        "32x64x128 w32x32 s6",
        "64x64x128 w32x32 s5",
        "64x128x128 w32x64 s3",
        "128x128x64 w64x64 s5",
        "128x256x64 w64x64 s4",
        "16x64x128 w16x32 s8",
        "32x64x128 w32x32 s10",
        "64x64x128 w32x32 s8",
        "64x128x128 w32x64 s6",
        "256x128x64 w64x64 s4",
        "128x128x64 w64x64 s6",
        "128x128x128 w64x64 s4",
    ),
}
# Runs 1 and 2 (bench/results/h200_sm80_tiles.log) compared wider bf16 lists: 128x128x64 s3, 128x256x32 s3,
# 128x256x64, 128x64, 64x128x32, 64x64x32 s8, 32x128x64, 64x32x64, 16x32x64, 32x32x64 and stages 4-10 of the tiles
# above.
SHAPES = [(16, 8192, 8192), (32, 8192, 8192), (64, 8192, 8192), (64, 6144, 4096), (32, 14336, 4096),
          (128, 8192, 8192), (256, 8192, 8192), (512, 8192, 8192), (640, 4096, 4096), (2048, 8192, 8192),
          (4096, 4096, 4096)]


def tile_named(name: str) -> Sm80Tile:
    m = re.fullmatch(r"(\d+)x(\d+)x(\d+) w(\d+)x(\d+)(?: s(\d+))?", name)
    if m is None:
        raise ValueError(f"tile name {name!r}: want 'TBMxTBNxK wWMxWN [sS]'")
    tm, tn, k, wm, wn, stages = m.groups()
    return Sm80Tile(threadblock=(int(tm), int(tn), int(k)), warp=(int(wm), int(wn), int(k)),
                    stages=int(stages) if stages else "auto")


def base_spec(name: str):
    if name == "bf16":
        return default_spec(80)
    return cg.load_spec(Path(__file__).resolve().parents[1] / "examples" / "specs" / "int8_dequant_sm80.toml")


def library_contenders(spec_name: str, args: list) -> dict:
    """cuBLAS on the same operands: what the tiles' absolute numbers compare with."""
    a, b = args[:2]
    if spec_name == "bf16":
        return {"cuBLAS mm": lambda: torch.mm(a, b)}
    try:
        torch._int_mm(a, b)  # cuBLASLt's int8 GEMM (int32 out, no dequantize); it refuses some shapes
    except RuntimeError as e:
        print(f"  (torch._int_mm: {str(e).splitlines()[0]})")
        return {}
    return {"cuBLAS int8 mm": lambda: torch._int_mm(a, b)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", choices=sorted(TILES), default="bf16")
    ap.add_argument("--shapes", type=parse_shapes, default=None, help="comma-separated MxNxK (default: SHAPES)")
    ap.add_argument("--names", default=None, help="comma-separated tile names (default: TILES of --spec)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warm", action="store_true", help="leave L2 warm between timed runs")
    args = ap.parse_args()
    print("command: python bench/sm80_tiles.py " + " ".join(f"'{a}'" if " " in a else a for a in sys.argv[1:]),
          flush=True)
    shapes = SHAPES if args.shapes is None else args.shapes
    names = TILES[args.spec] if args.names is None else tuple(n.strip() for n in args.names.split(","))
    default_name = TILES[args.spec][0]
    base = base_spec(args.spec)
    specs = {}
    for name in names:
        try:
            specs[name] = base.replace(tile=tile_named(name))
        except SpecError as e:  # say why, and go on with the rest
            print(f"skipped {name}: {e}", flush=True)
    # build(spec, shapes=...) of the all-"auto" spec: the per-shape tiles above, dispatched by M (cutlassgen.tiles)
    plan = dispatch.heuristic_record(base, shapes)
    variants = dispatch.heuristic_variants(base, plan) if plan else []
    built = cg.build_many(list(specs.values()) + [base] + variants)  # one ninja run
    kernels = dict(zip(specs, built))
    if plan:
        kernels["auto+shapes"] = dispatch.with_heuristic(built[len(specs)], plan, built[len(specs) + 1:])
        print("per-shape plan:", kernels["auto+shapes"], flush=True)
    for name, k in kernels.items():
        if name == "auto+shapes":
            continue
        used = k.build_info.get("resources") or {}
        print(f"{name}: {used.get('registers')} registers, {used.get('spill_store_bytes')} spill bytes, "
              f"compile {k.build_info.get('compile_seconds', 0):.0f} s", flush=True)
    flush = None if args.warm else l2_flush()
    chain = {"bf16": "bf16 bias+gelu_tanh", "int8": "int8 x int8, per-row x per-column dequantize to bf16"}
    print(f"\n{torch.cuda.get_device_name()}, torch {torch.__version__}; sm80 path compiled for sm_"
          f"{cg.jit.default_target_arch(base)}; {chain[args.spec]}; {'warm' if args.warm else 'cold'} L2; "
          f"{args.rounds} interleaved rounds of 20 runs; TFLOP/s (median of rounds)", flush=True)
    for M, N, K in shapes:
        torch.manual_seed(M + N + K)
        operands, inputs = random_inputs(base, M, N, K)
        ref = reference(base, *operands, return_float64=True, **inputs)
        print(f"\n{M}x{N}x{K}:")
        timed = library_contenders(args.spec, operands)
        if args.spec == "bf16":
            a, b = operands
            timed["cuBLASLt fused"] = lambda: torch._addmm_activation(inputs["bias"], a, b, use_gelu=True)
        for name, k in kernels.items():
            out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)  # poisoned
            k(*operands, **inputs, out=out)
            err = rel_error(out, ref)
            if not err < 1.5e-2:
                raise SystemExit(f"{name} at {M}x{N}x{K}: relative error {err:.2e}")
            timed[name] = lambda k=k: k(*operands, **inputs)
        rounds = interleaved_rounds_ms(timed, rounds=args.rounds, seed=M * 7 + N, before=flush)
        tf = {name: 2 * M * N * K / statistics.median(ts) / 1e9 for name, ts in rounds.items()}
        default = tf.get(default_name)
        for name, v in sorted(tf.items(), key=lambda kv: -kv[1]):
            rel = f"  {v / default:.2f}x the default" if default and name in kernels else ""
            print(f"  {name:<24} {v:7.1f}{rel}", flush=True)


if __name__ == "__main__":
    main()
