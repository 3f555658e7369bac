"""Where the per-shape plan's sm90 tiles fill the GPU's SMs badly, worked out without a GPU: over a grid of M and N,
the CTAs each plan tile makes (tiles rounded up to whole clusters, split-K slices counted) in waves of the SMs,
grouped by tile. It flags the points under a fraction of one wave and those just past a whole wave (the last wave
mostly idle): runs 84-85 measured the second costly (tile_probe.py narrowcols, wave4608: 0.77-0.90x the tiles that
stay under one wave). With --fill it also flags the points whose last token tile (a swapped tile's last column of
tokens, an unswapped one's last row tile) holds under that fraction of its rows: run 126 (lastcol) measured a
swapped tile's time rising as its last column empties (three 64-wide columns at N = 2048: 17.98 us at 136 rows,
12.70 at 192). With --weight-fill the same for the last weight tile along N (a swapped tile's last row tile of
weights, an unswapped one's last column tile): runs 136-139 had three unswapped 64-row token tiles under 224-wide
weight tiles run 1.13-1.29x slower in some runs at N = 9216, whose last weight tile holds 32 of its 224 columns. The
flagged regions are where a probe case should time the plan next (wave7168, fillcheck, band161).

Run: python bench/plan_waves.py [--dtype bf16|e4m3|e4m3-exact] [--m FIRST:LAST:STEP] [--n FIRST:LAST:STEP] [--sms 132]
     [--tail 0.25] [--low 0.6] [--fill 0.75] [--weight-fill 0.3]
"""
import argparse
import dataclasses
import math

from cutlassgen import GemmSpec, Sm90Tile
from cutlassgen.tiles import shape_tile
from cutlassgen.tuning import label
from tile_probe import bias_gelu, fp8_scaled, fp8_scaled_fast

SPECS = {"bf16": bias_gelu, "e4m3": fp8_scaled_fast, "e4m3-exact": fp8_scaled}


def spec_of(dtype: str) -> GemmSpec:
    """The all-"auto" spec whose plan is walked: tile_probe.py's bf16 bias+gelu, its fp8 scaled with fast
    accumulation, or the same accumulating exactly (whose tiles differ: token tiles that hold the promotion buffer,
    and 128x192 above tiles.EXACT_WIDE_M rows at wide N)."""
    return SPECS[dtype](Sm90Tile())


def ctas_of(tile: Sm90Tile, M: int, N: int) -> int:
    """CTAs an M x N problem makes with tile: swap_ab tiles the kernel's M over the problem's N; a cluster launches
    whole, so each side rounds up to its cluster extent."""
    kernel_m, kernel_n = (N, M) if tile.swap_ab else (M, N)
    along_m = math.ceil(math.ceil(kernel_m / tile.cta[0]) / tile.cluster[0]) * tile.cluster[0]
    along_n = math.ceil(math.ceil(kernel_n / tile.cta[1]) / tile.cluster[1]) * tile.cluster[1]
    return along_m * along_n * max(1, tile.split_k)


def flag(ctas: int, sms: int, tail: float, low: float) -> str | None:
    waves = ctas / sms
    if waves < low:
        return "under one wave"
    if waves > 1 and 0 < waves - math.floor(waves) < tail:
        return "just past a wave"
    return None


def last_tile_fill(extent: int, size: int) -> float:
    """The fraction of a tile of size that the last of ceil(extent / size) tiles holds."""
    return (extent - (math.ceil(extent / size) - 1) * size) / size


def token_fill(tile: Sm90Tile, M: int) -> float:
    """The fraction of its rows that M fills in the tile's last token tile (swap_ab: the last column of tokens)."""
    return last_tile_fill(M, tile.cta[1] if tile.swap_ab else tile.cta[0])


def weight_fill(tile: Sm90Tile, N: int) -> float:
    """The fraction of its columns of N that the tile's last weight tile holds (swap_ab: the kernel's last row tile)."""
    return last_tile_fill(N, tile.cta[0] if tile.swap_ab else tile.cta[1])


FILL_FLAG = "last token tile part-filled"
WEIGHT_FILL_FLAG = "last weight tile part-filled"


def walk(spec: GemmSpec, ms, ns, sms: int, tail: float, low: float, fill: float = 0.0,
         weight_fill_under: float = 0.0) -> dict:
    """(tile label, flag) -> [(M, N, CTAs), ...] for every flagged point of the grid (FILL_FLAG: where the last token
    tile holds under fill of its rows, WEIGHT_FILL_FLAG: the last weight tile under weight_fill_under of its columns;
    0 flags none)."""
    found = {}
    for M in ms:
        for N in ns:
            tile = shape_tile(spec, M, N)
            if tile is None:  # the spec's own default tile (M > 256 but wide N above 512 rows)
                continue
            # K unknown is taken as deep, so the tile loads its weights EVICT_FIRST: no matter to its CTAs
            tile = dataclasses.replace(tile, weights_evict_first=False)
            ctas = ctas_of(tile, M, N)
            why = [flag(ctas, sms, tail, low), FILL_FLAG if token_fill(tile, M) < fill else None,
                   WEIGHT_FILL_FLAG if weight_fill(tile, N) < weight_fill_under else None]
            for reason in filter(None, why):
                found.setdefault((label(dataclasses.replace(spec, tile=tile)), reason), []).append((M, N, ctas))
    return found


def _range(text: str) -> range:
    first, last, step = (int(x) for x in text.split(":"))
    return range(first, last + 1, step)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", choices=tuple(SPECS), default="bf16")
    ap.add_argument("--m", type=_range, default=_range("65:256:1"), help="FIRST:LAST:STEP (default 65:256:1)")
    ap.add_argument("--n", type=_range, default=_range("1024:16384:128"), help="FIRST:LAST:STEP")
    ap.add_argument("--sms", type=int, default=132, help="the H200's 132")
    ap.add_argument("--tail", type=float, default=0.25, help="flag a last wave under this fraction busy")
    ap.add_argument("--low", type=float, default=0.6, help="flag fewer waves than this")
    ap.add_argument("--fill", type=float, default=0.0,
                    help="flag a last token tile under this fraction of its rows filled (default 0: none)")
    ap.add_argument("--weight-fill", type=float, default=0.0,
                    help="flag a last weight tile under this fraction of its columns filled (default 0: none)")
    args = ap.parse_args()
    spec = spec_of(args.dtype)
    found = walk(spec, args.m, args.n, args.sms, args.tail, args.low, args.fill, args.weight_fill)
    print(f"{args.dtype} plan, M {args.m.start}-{args.m.stop - 1}, N {args.n.start}-{args.n.stop - 1}, {args.sms} SMs")
    for (tile, why), points in sorted(found.items(), key=lambda kv: min(p[0] for p in kv[1])):
        ms, ns, ctas = (sorted({p[i] for p in points}) for i in range(3))
        # a group's points share its tile (its label): one shape_tile gives it
        fill_of = {FILL_FLAG: lambda tile: min(token_fill(tile, M) for M in ms),
                   WEIGHT_FILL_FLAG: lambda tile: min(weight_fill(tile, N) for N in ns)}.get(why)
        least = f", filled {fill_of(shape_tile(spec, *points[0][:2])):.2f} at least" if fill_of else ""
        print(f"{tile}: {why} at M {ms[0]}-{ms[-1]}, N {ns[0]}-{ns[-1]} ({len(points)} points, {ctas[0]}-{ctas[-1]} "
              f"CTAs{least})")


if __name__ == "__main__":
    main()
