"""Do L2 eviction hints on the mainloop's TMA loads change how fast our tiles run against cuBLAS?

CUTLASS 4.2's sm90 mainloop (cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp) issues every A and B
tile load with CuTe's default policy, EVICT_NORMAL. The weights of a layer are read once per call (decode: by one CTA
column; prefill: by a few), the activations by every CTA of their row, so "weights evict first, activations evict
last" would keep the reused operand in L2 while the streamed one passes through. Each variant below sets the policy
of the weights' (the problem's B) and the activations' (A) loads through cutlassgen.lower.LOAD_HINTS, which builds the
mainloop through csrc/cutlassgen/load_hints.hpp. "weights last" is a diagnostic: with the inputs warm in L2 it says
how much a kernel gains from weights that survive in L2 from the previous call.

Every tile is built once per variant, all in one ninja run, then timed beside cuBLAS mm and cuBLASLt fused in
shuffled interleaved rounds on the same inputs, each checked against float64 first, with L2 flushed and with the
inputs warm. (Probe run 40, at cbdc6f8, set the same policies in a patched copy of the CUTLASS headers instead.)

Run: cd bench && python tma_cache_hint.py [--rounds N] [--shapes MxNxK,...] [--variants A,B,...]   (needs an sm90 GPU)
"""
import argparse
import statistics

import torch

from cutlassgen.timing import interleaved_rounds_ms, l2_flush, paired_ratio
from tile_probe import bias_gelu, bias_gelu_contenders, build_variants, named, parse_shapes

# variant -> the policy (a cutlassgen.lower.L2_POLICY name) of the weights' loads and of the activations' loads.
# "normal" is CuTe's EVICT_NORMAL, whose priority field reads evict_unchanged; "true normal" is the policy
# createpolicy.fractional.L2::evict_normal makes (bench/cache_policy_bits.py). Session 16 added the two "true normal"
# variants; session 17 the two "no policy" ones, loads without the policy operand at all (cuBLAS's kernels load so),
# which ran like "normal" where "true normal" ran far slower (probe runs 43, 45-46).
VARIANTS = {"normal": ("EVICT_NORMAL", "EVICT_NORMAL"), "weights first": ("EVICT_FIRST", "EVICT_NORMAL"),
            "acts last": ("EVICT_NORMAL", "EVICT_LAST"), "weights first acts last": ("EVICT_FIRST", "EVICT_LAST"),
            "weights last": ("EVICT_LAST", "EVICT_NORMAL"), "true normal": ("L2_EVICT_NORMAL", "L2_EVICT_NORMAL"),
            "weights first acts true normal": ("EVICT_FIRST", "L2_EVICT_NORMAL"),
            "no policy": ("NO_POLICY", "NO_POLICY"), "weights first acts no policy": ("EVICT_FIRST", "NO_POLICY")}
# each shipped tile at the anchors shapes it runs (tiles.shape_tile / bench_anchors' best tile)
TILES = named("swap 64x16x128 pingpong", "swap 64x32x128 c2x1 pingpong", "swap 64x64x128 c4x1 pingpong",
              "128x128x64 c1x1 coop", "256x128x64 c1x2 coop", "128x256x64 c2x1 coop")
SHAPES = {(16, 8192, 8192): "swap 64x16x128 pingpong", (32, 14336, 4096): "swap 64x32x128 c2x1 pingpong",
          (64, 6144, 4096): "swap 64x64x128 c4x1 pingpong", (256, 8192, 8192): "128x128x64 c1x1 coop",
          (2048, 8192, 8192): "256x128x64 c1x2 coop", (4096, 14336, 4096): "256x128x64 c1x2 coop",
          (8192, 8192, 8192): "128x256x64 c2x1 coop"}


def load_hints(variant: str) -> dict:
    """The lower.LOAD_HINTS setting of a variant, the same for swap_ab and unswapped kernels."""
    weights, acts = VARIANTS[variant]
    return {"a": dict.fromkeys(("swap_ab", "plain"), acts), "b": dict.fromkeys(("swap_ab", "plain"), weights)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--shapes", type=parse_shapes, default=None,
                    help="only these of SHAPES, e.g. 64x6144x4096,256x8192x8192")
    ap.add_argument("--variants", default=None, help="only these of VARIANTS, comma-separated (the first is the "
                    "baseline the others are compared with)")
    args = ap.parse_args()
    variants = list(VARIANTS) if args.variants is None else args.variants.split(",")
    shapes = SHAPES if args.shapes is None else {s: SHAPES[s] for s in args.shapes}
    entries = [(t, v) for t in dict.fromkeys(shapes.values()) for v in variants]
    built = build_variants([(bias_gelu(TILES[t]), {"LOAD_HINTS": load_hints(v)}) for t, v in entries])
    kernels = dict(zip(entries, built))  # every variant of every tile, compiled in one ninja run
    for cold in (True, False):
        flush = l2_flush() if cold else None
        print(f"\nTFLOP/s on {torch.cuda.get_device_name()}, torch {torch.__version__} (median of {args.rounds} "
              "shuffled interleaved rounds of 20 runs; "
              f"{'L2 flushed by a 512 MiB read before every call' if cold else 'inputs warm in L2'})", flush=True)
        for (M, N, K), tile in shapes.items():
            ours = {f"{tile} | {v}": kernels[(tile, v)] for v in variants}
            rounds = interleaved_rounds_ms(bias_gelu_contenders(ours, M, N, K), rounds=args.rounds, seed=M + N,
                                           before=flush)
            tf = {n: 2 * M * N * K / statistics.median(t) / 1e9 for n, t in rounds.items()}
            print(f"{M}x{N}x{K}: " + ", ".join(f"{n} {v:.0f}" for n, v in tf.items()), flush=True)
            base = rounds[f"{tile} | {variants[0]}"]
            for v in variants[1:]:
                print(f"    {v} vs {variants[0]}, per round: {paired_ratio(rounds[f'{tile} | {v}'], base)}", flush=True)
            anchor = "cuBLAS mm" if M <= 64 else "cuBLASLt fused"
            for v in variants:
                print(f"    {v} vs {anchor}: {paired_ratio(rounds[f'{tile} | {v}'], rounds[anchor])}", flush=True)


if __name__ == "__main__":
    main()
