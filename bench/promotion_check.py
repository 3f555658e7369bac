"""fp8 exact accumulation with CUTLASS's FP8 mainloop and with the one replacing it (lower.OVERLAPPED_PROMOTION; with
--schedule full csrc/cutlassgen/full_promotion.hpp, with halves overlapped_promotion.hpp), on the GPU: both builds of
each tile run on the same inputs, each into a NaN-poisoned out, and must agree bit for bit (the same partial sums
added in the same order); each is compared with the float64 reference beside torch._scaled_mm with exact and with
fast accumulation. Exits 1 on any mismatch.

Run: python bench/promotion_check.py [--shapes MxNxK,...] [--schedule full|halves] [--tiles coop128|all]
(needs an sm90 GPU; --tiles all: every exact-fp8 tile takes the replacement, lower.PROMOTION_TILES)
K values that are not a multiple of 8 k tiles (1024) exercise the remainder groups of the halves' mainloop.
"""
import argparse
import sys

from cutlassgen import Sm90Tile
from cutlassgen.golden import rel_error
from cutlassgen.lower import (PROMOTION_SCHEDULE, PROMOTION_SCHEDULES, PROMOTION_TILE_MODES, PROMOTION_TILES, lower,
                              settings)
from cutlassgen.tiles import shape_tile
from cutlassgen.tuning import label
from setting_check import build_pairs, poisoned_outputs
from tile_probe import fp8_scaled, fp8_scaled_operands, parse_shapes

# K = 128 x (1, 3, 4, 7, 9, 13, 32): every remainder branch, a whole group, and an anchor K
SHAPES = [(256, 8192, 128), (256, 8192, 384), (200, 4096, 512), (1000, 2048, 896), (256, 8192, 1152),
          (232, 8192, 1664), (32, 8192, 4096), (4096, 4096, 4096)]
TILES = [Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="cooperative"),
         Sm90Tile(cta=(128, 128, 128), cluster=(2, 1, 1), mainloop="cooperative")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", type=parse_shapes, default=None, help="MxNxK,... (default: SHAPES)")
    ap.add_argument("--schedule", choices=PROMOTION_SCHEDULES, default=PROMOTION_SCHEDULE,
                    help="lower.PROMOTION_SCHEDULE of the replacing builds (default: the module's)")
    ap.add_argument("--tiles", choices=PROMOTION_TILE_MODES, default=PROMOTION_TILES,
                    help="lower.PROMOTION_TILES of the replacing builds (default: the module's)")
    args = ap.parse_args()
    shapes = args.shapes or SHAPES
    # each shape's plan tile (exact accumulation) and the fixed tiles, each built with the setting off and on
    specs = {}
    for M, N, _ in shapes:
        for tile in [shape_tile(fp8_scaled(Sm90Tile()), M, N) or Sm90Tile(), *TILES]:
            spec = fp8_scaled(tile)
            specs[label(spec)] = spec
    replacing = {"PROMOTION_SCHEDULE": args.schedule, "PROMOTION_TILES": args.tiles}
    with settings(**replacing):
        replaced = {name for name, spec in specs.items() if lower(spec)["overlapped_promotion"]}
    print(f"{args.schedule} promotion in:", ", ".join(sorted(replaced)), "| not:",
          ", ".join(sorted(set(specs) - replaced)) or "-", flush=True)
    kernels = build_pairs(specs, {"OVERLAPPED_PROMOTION": False, **replacing},
                          {"OVERLAPPED_PROMOTION": True, **replacing}, replaced)
    failed = 0
    for M, N, K in shapes:
        a8, w8, bias, sa, sb, ref, libraries = fp8_scaled_operands(M, N, K)

        def call(k, out):
            k(a8, w8.t(), scale_a=sa, scale_b=sb, bias=bias, out=out)

        lib_err = {name: rel_error(fn(), ref) for name, fn in libraries.items()}
        for name, (before, after) in kernels.items():
            same, errs = poisoned_outputs((before, after), call, M, N, ref)
            ok = same and max(errs) < 2e-2
            failed += not ok
            print(f"{M}x{N}x{K} {name}: {'ok' if ok else 'FAILED'}; bitwise equal {same}; rel. error "
                  f"{errs[0]:.3e} (CUTLASS's mainloop) / {errs[1]:.3e} ({args.schedule})"
                  + "".join(f", {lib} {e:.3e}" for lib, e in lib_err.items()), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
