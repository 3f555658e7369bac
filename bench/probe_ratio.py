"""One contender's speed over another's at each shape of tile_probe.py logs, and their geometric mean: what a rule
choosing one of two tiles across a class gains or loses (session 97: the wide-N pingpong tile against the spec's
default on H100s, `tile_probe.py wideh100`). Each log is one run (one card, cold or warm); a ratio above 1 is OVER
faster.

Run: python bench/probe_ratio.py LOG [LOG ...] --over "128x128x64 c1x1 pingpong" --under "128x256x64 c2x1 coop"
[--section "probe_cold.log (raggedlarge"]   (no GPU needed)
"""
import argparse
import math
import re

from k_fit import times_us


def ratios(lines, over: str, under: str) -> dict:
    """(what, M, N, K) -> under's time / over's time, at every shape a log times both. With "{}" in both names, each
    contender that over matches is paired with under holding the same text there (a lower setting's two builds of
    each tile: --over "{} swizzle_pad=5" --under "{} swizzle_pad=0"), the key then ending in that text."""
    times = times_us(lines)
    pattern = re.compile(re.escape(over).replace(re.escape("{}"), "(.+)") + "$")
    out = {}
    for (what, M, N, name), by_k in times.items():
        match = pattern.match(name)
        if not match:
            continue
        base = match.groups()[0] if match.groups() else None
        other = under.replace("{}", base) if base is not None else under
        if (what, M, N, other) not in times:
            continue
        for K, t_over in by_k.items():
            t_under = times[(what, M, N, other)].get(K)
            if t_under is not None:
                out[(what, M, N, K) if base is None else (what, M, N, K, base)] = t_under / t_over
    return out


def section(lines, name: str) -> list:
    """The lines of the "## ..." section of a results log (bench/results/*_session*.log) whose header holds name."""
    out, inside = [], False
    for line in lines:
        if line.startswith("## "):
            inside = name in line
        elif inside:
            out.append(line)
    return out


def geomean(values) -> float:
    values = list(values)
    return math.exp(sum(map(math.log, values)) / len(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--over", required=True, help="the contender whose speed is the numerator")
    ap.add_argument("--under", required=True, help="the contender it is compared with")
    ap.add_argument("--section", help='only the "## ..." section of a results log whose header holds this text, '
                                      'e.g. "probe_cold.log (swizzlepadcheck"')
    args = ap.parse_args()
    for path in args.logs:
        with open(path) as f:
            lines = section(f, args.section) if args.section else list(f)
        r = ratios(lines, args.over, args.under)
        if not r:
            print(f"{path}: no shape times both")
            continue
        shapes = " ".join(f"{M}x{N}x{K}{' ' + rest[0] if rest else ''} {v:.3f}" for (_, M, N, K, *rest), v in r.items())
        print(f"{path}: geomean {geomean(r.values()):.3f}, min {min(r.values()):.3f}, max {max(r.values()):.3f} "
              f"over {len(r)} shapes | {shapes}")


if __name__ == "__main__":
    main()
