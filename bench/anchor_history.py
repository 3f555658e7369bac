"""Each issue-5 target's per-round median ratio across every anchors run that printed one (runs 12 on), from
bench/results/h200_anchors.md: which gaps recur in every run and which move around 1.0 from run to run.

Run: python bench/anchor_history.py [--from-run N] [--file PATH]
A run's medians come from its "Per-round ratios" table (cutlassgen.timing.paired_ratio: the median over 15 rounds of
ours / anchor, the rounds interleaved in a shuffled order); "cold" marks a run with the L2 flushed before every timed
call (--cold). The runs are not all of the same kernels: each run's heading says which commit it measured.
"""
import argparse
import pathlib
import re
import statistics

RUN_HEADING = re.compile(r"^## Run (\d+)\b")
# | target | M x N x K | ours (tile) | anchor | median | quartiles | rounds ours >= |
RATIO_ROW = re.compile(r"^\| ([^|]+?) \| (\d+x\d+x\d+) \| [^|]+ \| (\w+) \| (\d+\.\d+) \| [^|]+ \| (\d+) of (\d+) \|$")
DEFAULT_FILE = pathlib.Path(__file__).parent / "results" / "h200_anchors.md"


def parse_runs(text: str) -> dict:
    """run number -> {"cold": bool, "ratios": {(target, shape, anchor): (median, rounds won, rounds)}}."""
    runs, current = {}, None
    for line in text.splitlines():
        if m := RUN_HEADING.match(line):
            current = runs.setdefault(int(m.group(1)), {"cold": False, "ratios": {}})
        elif current is None:
            continue
        elif line.startswith("TFLOP/s on") and "--cold" in line:
            current["cold"] = True
        elif m := RATIO_ROW.match(line.strip()):
            target, shape, anchor, median, won, rounds = m.groups()
            current["ratios"][(target.strip(), shape, anchor)] = (float(median), int(won), int(rounds))
    return {n: r for n, r in runs.items() if r["ratios"]}


def history(runs: dict) -> list[dict]:
    """One row per (target, shape, anchor), in the newest run's order: every run's median, oldest first."""
    order = sorted(runs)
    # the newest run's keys, then those only older runs have (each once: several older runs may share one)
    keys = list(dict.fromkeys(k for n in reversed(order) for k in runs[n]["ratios"]))
    rows = []
    for key in keys:
        seen = [(n, runs[n]["cold"], runs[n]["ratios"][key]) for n in order if key in runs[n]["ratios"]]
        medians = [r[0] for _, _, r in seen]
        rows.append({"target": key[0], "shape": key[1], "anchor": key[2], "runs": seen,
                     "at_least_1": sum(m >= 1.0 for m in medians), "low": min(medians), "high": max(medians),
                     "median": statistics.median(medians)})
    return rows


def verdict(row: dict) -> str:
    n = len(row["runs"])
    if row["at_least_1"] == n:
        return "met in every run"
    if row["at_least_1"] == 0:
        return f"short in every run (by {1 - row['high']:.1%} to {1 - row['low']:.1%})"
    return f"moves around 1.0 ({row['at_least_1']} of {n} runs at or above)"


def table(rows: list[dict]) -> str:
    out = ["| target | M x N x K | anchor | per-run medians, oldest first (c: cold) | median of runs | runs >= 1.0 "
           "| verdict |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        per_run = ", ".join(f"{n}{'c' if cold else ''}: {med:.3f}" for n, cold, (med, _, _) in r["runs"])
        out.append(f"| {r['target']} | {r['shape']} | {r['anchor']} | {per_run} | {r['median']:.3f} "
                   f"| {r['at_least_1']} of {len(r['runs'])} | {verdict(r)} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=pathlib.Path, default=DEFAULT_FILE)
    ap.add_argument("--from-run", type=int, default=0, help="leave out the runs before this one")
    args = ap.parse_args()
    runs = {n: r for n, r in parse_runs(args.file.read_text()).items() if n >= args.from_run}
    if not runs:
        raise SystemExit(f"{args.file}: no run with a per-round ratio table (from run {args.from_run})")
    print(f"Per-round median ratios (ours / anchor) of runs {', '.join(map(str, sorted(runs)))} of {args.file.name}\n")
    print(table(history(runs)))


if __name__ == "__main__":
    main()
