"""Fits time = fixed + per_k * K to each contender of a tile_probe.py log whose shapes vary only in K (the ksweep
case): what a contender pays once per launch and tile (prologue, pipeline fill, epilogue tail) apart from what it pays
per step of K (the mainloop). Times come from a line's microseconds where it prints them (tile_probe.py does for calls
under 50 us since session 36), else back from its TFLOP/s (2*M*N*K / TFLOP/s), which it prints in whole numbers.

Run: python bench/k_fit.py LOG [LOG ...]   (no GPU needed)
"""
import collections
import re
import sys

# the contenders end at the first " |" that does not begin a padded-activation variant's name ("... | padded 736")
ROW = re.compile(r"((?:bf16|fp8) [a-z+]+) (\d+)x(\d+)x(\d+): (.*?) \|(?! padded)")
MICROSECONDS = re.compile(r"\| us: (.*)$")


def times_us(lines) -> dict:
    """(what, M, N, contender) -> {K: microseconds}. A log whose case has two groups of one kind (fast256code: fast,
    then exact accumulation, each with an "auto+shapes" and the two _scaled_mm) repeats a contender's K: the repeat
    starts a series of its own, "contender #2", rather than overwriting the first."""
    out = collections.defaultdict(dict)
    for line in lines:
        m = ROW.match(line)
        if not m:
            continue
        what, (M, N, K) = m.group(1), map(int, m.group(2, 3, 4))
        us = MICROSECONDS.search(line.rstrip("\n"))
        for part in (us.group(1) if us else m.group(5)).split(", "):
            name, value = part.rsplit(" ", 1)
            key, group = (what, M, N, name), 1
            while K in out[key]:
                group += 1
                key = (what, M, N, f"{name} #{group}")
            out[key][K] = float(value) if us else 2 * M * N * K / float(value) / 1e6
    return out


def fit(points: dict) -> tuple:
    """Least squares (fixed us, us per 1024 of K)."""
    ks = sorted(points)
    mk, mt = sum(ks) / len(ks), sum(points[k] for k in ks) / len(ks)
    slope = sum((k - mk) * (points[k] - mt) for k in ks) / sum((k - mk) ** 2 for k in ks)
    return mt - slope * mk, slope * 1024


def main():
    for path in sys.argv[1:]:
        print(path)
        for (what, M, N, name), points in times_us(open(path)).items():
            if len(points) < 2:
                continue
            fixed, per_k = fit(points)
            series = " ".join(f"{points[k]:.1f}" for k in sorted(points))
            print(f"  {what:15s} {M}x{N}xK {name:28s} fixed {fixed:6.2f} us, per 1024 of K {per_k:6.2f} us   "
                  f"(K = {', '.join(map(str, sorted(points)))}: {series} us)")


if __name__ == "__main__":
    main()
