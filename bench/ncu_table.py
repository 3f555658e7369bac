"""One row per profiled kernel, one column per metric, from the text ncu prints with --metrics or --section (a
section's rows, e.g. "Duration  us  17.41", by their names, and the cycles its warps stall on an L1TEX scoreboard,
which WarpStateStats states in a sentence).

The probes run under ncu print a line "ncu: LABEL" per contender, in the order ncu profiles them
(tile_probe.py --ncu, library_kernels.py --ncu), so the rows carry those labels; a log without them falls back
to ncu's kernel names.
A contender that launches two kernels (cuBLAS's split-K GEMM and its reduction) makes more reports than labels:
then every row takes its kernel's name. Counts are shown in millions, bytes in MB, times in microseconds.

With --median, the reports of one label (tile_probe.py --ncu-repeats) become one row: each metric's median over them.

Run: python bench/ncu_table.py NCU_LOG [--metrics SUBSTRING,...] [--median]
"""
import argparse
import pathlib
import re
import statistics

# name (grid)x(block); a name may hold spaces and parentheses ("void cublasLt::splitKreduce_kernel<...>(...)")
KERNEL = re.compile(r"^  (\S.*?) \((\d+), (\d+), (\d+)\)x\(\d+, \d+, \d+\), Context")
METRIC = re.compile(r"^\s+([a-z][\w.]+)\s+(\S+)\s+([\d,.]+)$")
# a section's row: a capitalised name, a unit where it has one, a number
SECTION_ROW = re.compile(r"^    ([A-Z][\w./() -]*?[\w)])\s{2,}(?:(\S+)\s+)?([\d,.]+)$")
L1TEX_STALL = re.compile(r"spends ([\d.]+) cycles being stalled waiting for a scoreboard dependency on a L1TEX")


def read(path: pathlib.Path) -> list:
    """[(label, {metric: (value, unit)})] in the order of ncu's reports."""
    labels, kernels = [], []
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("ncu: "):
            labels.append(line[5:].strip())
        elif m := KERNEL.match(line):
            name = m.group(1).split("(")[0].split("<")[0]  # a template's arguments are many and the same each time
            kernels.append((f"{name} grid ({m.group(2)}, {m.group(3)}, {m.group(4)})", {}))
        elif kernels and (m := METRIC.match(line) or SECTION_ROW.match(line)):
            kernels[-1][1][m.group(1)] = (float(m.group(3).replace(",", "")), m.group(2) or "")
        # ncu wraps its sentences: this one's last words may fall on the next line
        elif kernels and (m := L1TEX_STALL.search(" ".join(x.strip() for x in lines[i:i + 2]))):
            kernels[-1][1]["L1TEX scoreboard stall"] = (float(m.group(1)), "cycle")
    if len(labels) != len(kernels):
        labels = [name for name, _ in kernels]
    return [(label, metrics) for label, (_, metrics) in zip(labels, kernels)]


def medians(rows: list) -> list:
    """One row per label, in the order labels first appear: each metric's median over that label's reports, in the
    unit of its first (ncu picks the unit per value: 998 Kbyte in one report, 1.01 Mbyte in the next)."""
    by_label = {}
    for label, metrics in rows:
        by_label.setdefault(label, []).append(metrics)
    out = []
    for label, reports in by_label.items():
        merged = {}
        for name in dict.fromkeys(n for r in reports for n in r):
            unit = next(r[name][1] for r in reports if name in r)
            merged[name] = (statistics.median(r[name][0] * SCALE.get(r[name][1], 1) / SCALE.get(unit, 1)
                                              for r in reports if name in r), unit)
        out.append((f"{label} (median of {len(reports)})" if len(reports) > 1 else label, merged))
    return out


BYTES = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}  # ncu picks the unit per value
SCALE = {**BYTES, "nsecond": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3, "hz": 1, "Khz": 1e3,
         "Mhz": 1e6, "Ghz": 1e9}


def cell(value: float, unit: str) -> str:
    if unit in BYTES:
        return f"{value * BYTES[unit] / 1e6:.2f} MB"
    if unit in ("usecond", "us"):
        return f"{value:.1f} us"
    if unit in ("msecond", "ms"):
        return f"{value * 1e3:.1f} us"
    return f"{value / 1e6:.2f} M" if value >= 1e5 else f"{value:g}"


def table(rows: list, wanted: list | None = None) -> str:
    names = sorted({n for _, metrics in rows for n in metrics})
    if wanted:
        names = [n for n in names if any(w in n for w in wanted)]
    out = ["| kernel | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for label, metrics in rows:
        out.append(f"| {label} | " + " | ".join(cell(*metrics[n]) if n in metrics else "" for n in names) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log", type=pathlib.Path)
    ap.add_argument("--metrics", default=None, help="only the metrics whose names contain one of these")
    ap.add_argument("--median", action="store_true", help="one row per label: the median of its reports")
    args = ap.parse_args()
    rows = read(args.log)
    print(table(medians(rows) if args.median else rows, args.metrics.split(",") if args.metrics else None))


if __name__ == "__main__":
    main()
