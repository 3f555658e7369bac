"""What tiles.wave_fill_choice would run at each shape of tile_probe.py logs timed before it (mid768, wavefill,
wavefillcheck), and that tile's speed over the plan those logs ran ("auto+shapes") and over cuBLASLt fused: the check
behind the wave-fill rule (session 103). Each log is one run (one card, cold or warm); a ratio above 1 is the rule's
tile faster.

Run: python bench/wave_fill_check.py LOG [LOG ...] [--sms 132] [--plan "auto+shapes"]   (no GPU needed)
"""
import argparse

from cutlassgen.tiles import WAVE_FILL_TILES, wave_fill_choice
from k_fit import times_us
from probe_ratio import geomean

PLAN_TILE = "128x128x64 c1x1 pingpong"
# tile_probe.py's names of WAVE_FILL_TILES, in their order
NAMES = [f"{'x'.join(map(str, t['cta']))} c1x1 {'coop' if t['mainloop'] == 'cooperative' else t['mainloop']}"
         for t in WAVE_FILL_TILES]


def rule_rows(lines, sms: int, plan: str = "auto+shapes") -> list:
    """(M, N, K, the tile the rule runs (plan where it keeps the plan's), its speed over plan's, over cuBLASLt fused's)
    at each bf16 shape of a log that times plan; None for the speeds where the log did not time the rule's tile."""
    times = times_us(lines)
    ctas = [(128, 128), *(t["cta"][:2] for t in WAVE_FILL_TILES)]
    rows = []
    for (what, M, N, name), by_k in sorted(times.items()):
        if name != plan:
            continue
        j = wave_fill_choice(M, N, ctas, sms)
        chosen = plan if j == 0 else NAMES[j - 1]
        for K, t_plan in sorted(by_k.items()):
            t = times.get((what, M, N, chosen), {}).get(K)
            t_lt = times.get((what, M, N, "cuBLASLt fused"), {}).get(K)
            rows.append((M, N, K, chosen, None if t is None else t_plan / t,
                         None if t is None or t_lt is None else t_lt / t))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--sms", type=int, default=132, help="the GPU's SM count (H100 SXM and H200: 132)")
    ap.add_argument("--plan", default="auto+shapes", help="the contender that ran the plan before the rule")
    args = ap.parse_args()
    for path in args.logs:
        with open(path) as f:
            rows = rule_rows(f, args.sms, args.plan)
        timed = [r for r in rows if r[5] is not None]
        for M, N, K, chosen, over_plan, over_lt in rows:
            print(f"{path}: {M}x{N}x{K}: " + (f"{chosen} not timed" if over_lt is None else
                                              f"{chosen}: {over_plan:.3f}x the plan, {over_lt:.3f}x cuBLASLt fused"))
        if timed:
            print(f"{path}: over the plan geomean {geomean(r[4] for r in timed):.3f} (min "
                  f"{min(r[4] for r in timed):.3f}); over cuBLASLt fused geomean {geomean(r[5] for r in timed):.3f} "
                  f"(min {min(r[5] for r in timed):.3f}), {len(timed)} shapes")


if __name__ == "__main__":
    main()
