"""One contender's speed over another's at each shape of tile_probe.py logs, and their geometric mean: what a rule
choosing one of two tiles across a class gains or loses (session 97: the wide-N pingpong tile against the spec's
default on H100s, `tile_probe.py wideh100`). Each log is one run (one card, cold or warm); a ratio above 1 is OVER
faster.

Run: python bench/probe_ratio.py LOG [LOG ...] --over "128x128x64 c1x1 pingpong" --under "128x256x64 c2x1 coop"
(no GPU needed)
"""
import argparse
import math

from k_fit import times_us


def ratios(lines, over: str, under: str) -> dict:
    """(what, M, N, K) -> under's time / over's time, at every shape a log times both."""
    times = times_us(lines)
    out = {}
    for (what, M, N, name), by_k in times.items():
        if name != over or (what, M, N, under) not in times:
            continue
        for K, t_over in by_k.items():
            t_under = times[(what, M, N, under)].get(K)
            if t_under is not None:
                out[(what, M, N, K)] = t_under / t_over
    return out


def geomean(values) -> float:
    values = list(values)
    return math.exp(sum(map(math.log, values)) / len(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--over", required=True, help="the contender whose speed is the numerator")
    ap.add_argument("--under", required=True, help="the contender it is compared with")
    args = ap.parse_args()
    for path in args.logs:
        with open(path) as f:
            r = ratios(f, args.over, args.under)
        if not r:
            print(f"{path}: no shape times both")
            continue
        shapes = " ".join(f"{M}x{N}x{K} {v:.3f}" for (_, M, N, K), v in r.items())
        print(f"{path}: geomean {geomean(r.values()):.3f}, min {min(r.values()):.3f}, max {max(r.values()):.3f} "
              f"over {len(r)} shapes | {shapes}")


if __name__ == "__main__":
    main()
